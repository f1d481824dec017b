"""What torch.compile changes in the cross-entropy of a language-model head.

torchtitan compiles its loss function when training.compile is on (since
mid-2025: components/loss.py build_cross_entropy_loss wraps
cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)) in
torch.compile). This measures, on the CPU with real tensors, eager against
torch.compile(inductor): the peak during the loss forward, the bytes kept
from the forward for the backward (after the loop drops its own reference
to the logits, as torchtitan's `del pred` does), and the peak over the
backward, from the profiler's allocation events (c10's CPU allocator reports
Inductor's buffers too). Unit: tokens x vocab x 2 bytes (the bf16 logits).

`TORCH_LOGS=aot_graphs` (with TORCHINDUCTOR_FX_GRAPH_CACHE=0
TORCHINDUCTOR_AUTOGRAD_CACHE=0) prints the partitioned graphs: the forward
returns the logits, the labels, the row max and the log-sum-exp for the
backward. Results: docs/validation/compile.md, plan/compiledloss.h.
"""
import argparse
import json

import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--compile", action="store_true")
ap.add_argument("--tokens", type=int, default=4096)
ap.add_argument("--vocab", type=int, default=32768)
ap.add_argument("--dim", type=int, default=64)
a = ap.parse_args()


def cross_entropy_loss(pred, labels):
    # torchtitan's loss function (components/loss.py), unchanged.
    return F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))


loss_fn = torch.compile(cross_entropy_loss) if a.compile else cross_entropy_loss
torch.manual_seed(0)
# A linear head makes the logits, so they are not a leaf and can be dropped.
h = torch.randn(1, a.tokens, a.dim, dtype=torch.bfloat16, requires_grad=True)
W = torch.randn(a.vocab, a.dim, dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, a.vocab, (1, a.tokens))


def forward():
    pred = h @ W.t()
    loss = loss_fn(pred, labels)
    del pred  # torchtitan train.py: "need to free to before bwd to avoid peaking memory"
    return loss


# warm up (compilation) outside the measurement
forward().backward()
h.grad = W.grad = None

with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
    with torch.profiler.record_function("FWD"):
        loss = forward()
    with torch.profiler.record_function("BWD"):
        loss.backward()

events, ranges = [], {}
for e in prof.profiler.kineto_results.events():
    if e.name() in ("FWD", "BWD"):
        ranges[e.name()] = (e.start_ns(), e.start_ns() + e.duration_ns())
    if e.name() == "[memory]":
        events.append((e.start_ns(), e.nbytes()))
events.sort()
live = peak = forward_peak = 0
kept = None
for t, nbytes in events:
    if kept is None and t > ranges["FWD"][1]:
        kept = live
    live += nbytes
    if t <= ranges["FWD"][1]:
        forward_peak = max(forward_peak, live)
    peak = max(peak, live)
unit = a.tokens * a.vocab * 2
print(json.dumps({"compile": a.compile, "torch": torch.__version__, "unit": "tokens x vocab x 2 bytes",
                  "tokens": a.tokens, "vocab": a.vocab,
                  "forward_peak_units": round(forward_peak / unit, 3),
                  "kept_for_backward_units": round(kept / unit, 3),
                  "peak_units": round(peak / unit, 3),
                  "head_bytes_besides": "the head's input and weight gradients, (tokens + vocab) x dim x 2"}))
