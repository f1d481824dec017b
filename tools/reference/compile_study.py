"""What torch.compile changes in a torchtitan-style Llama block under op-level SAC.

Measures, on the CPU with real tensors, the bytes alive after the forward of
N blocks (what is kept for backward) and the peak during forward+backward,
eager vs torch.compile(inductor), using the profiler's allocation events
(c10's CPU allocator reports every allocation, inductor's buffers included).
"""
import argparse
import json
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                    create_selective_checkpoint_contexts)

ap = argparse.ArgumentParser()
ap.add_argument("--compile", action="store_true")
ap.add_argument("--ac", default="op", choices=["op", "full", "none"])
ap.add_argument("--dim", type=int, default=256)
ap.add_argument("--heads", type=int, default=8)
ap.add_argument("--kv", type=int, default=2)
ap.add_argument("--ffn", type=int, default=896)
ap.add_argument("--seq", type=int, default=512)
ap.add_argument("--batch", type=int, default=2)
ap.add_argument("--layers", type=int, default=4)
ap.add_argument("--dtype", default="bf16")
args = ap.parse_args()
dt = {"bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
torch.manual_seed(0)


class RMSNorm(nn.Module):
    # torchtitan 9dec370 torchtitan/models/norms.py RMSNorm: fp32 inside, type_as, * weight
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(x) * self.weight


def rope(xq, xk, freqs):
    # torchtitan apply_rotary_emb: complex multiply in fp32, type_as
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    f = freqs.view(1, xq.shape[1], 1, xq_.shape[-1])
    return torch.view_as_real(xq_ * f).flatten(3).type_as(xq), torch.view_as_real(xk_ * f).flatten(3).type_as(xk)


class Block(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.h, self.kv, self.hd = a.heads, a.kv, a.dim // a.heads
        self.wq = nn.Linear(a.dim, a.heads * self.hd, bias=False)
        self.wk = nn.Linear(a.dim, a.kv * self.hd, bias=False)
        self.wv = nn.Linear(a.dim, a.kv * self.hd, bias=False)
        self.wo = nn.Linear(a.heads * self.hd, a.dim, bias=False)
        self.w1 = nn.Linear(a.dim, a.ffn, bias=False)
        self.w2 = nn.Linear(a.ffn, a.dim, bias=False)
        self.w3 = nn.Linear(a.dim, a.ffn, bias=False)
        self.n1, self.n2 = RMSNorm(a.dim), RMSNorm(a.dim)

    def attn(self, x, freqs):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.h, self.hd)
        k = self.wk(x).view(b, s, self.kv, self.hd)
        v = self.wv(x).view(b, s, self.kv, self.hd)
        q, k = rope(q, k, freqs)
        rep = self.h // self.kv
        # torchtitan repeat_kv: expand + reshape (a copy)
        k = k[:, :, :, None, :].expand(b, s, self.kv, rep, self.hd).reshape(b, s, self.h, self.hd)
        v = v[:, :, :, None, :].expand(b, s, self.kv, rep, self.hd).reshape(b, s, self.h, self.hd)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(o.transpose(1, 2).contiguous().view(b, s, -1))

    def forward(self, x, freqs):
        h = x + self.attn(self.n1(x), freqs)
        return h + self.w2(F.silu(self.w1(self.n2(h))) * self.w3(self.n2(h)))


SAVE = {torch.ops.aten.mm.default, torch.ops.aten._scaled_dot_product_efficient_attention.default,
        torch.ops.aten._scaled_dot_product_flash_attention.default,
        # the CPU's flash kernel stands in for CUDA's (same outputs: out, logsumexp)
        torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
        torch.ops.aten.abs.default, torch.ops.aten.max.default}


def policy_fn():
    meta = defaultdict(int)

    def pol(ctx, func, *a, **k):
        key = ("recompute" if ctx.is_recompute else "forward") + "_mm"
        if func == torch.ops.aten.mm.default:
            meta[key] += 1
        save = func in SAVE and not (func == torch.ops.aten.mm.default and meta[key] % 2 == 0)
        return CheckpointPolicy.MUST_SAVE if save else CheckpointPolicy.PREFER_RECOMPUTE
    return create_selective_checkpoint_contexts(pol)


class Wrapped(nn.Module):
    def __init__(self, blk, ac):
        super().__init__()
        self.blk, self.ac = blk, ac

    def forward(self, x, freqs):
        if self.ac == "op":
            return checkpoint(self.blk, x, freqs, use_reentrant=False, context_fn=policy_fn, preserve_rng_state=False)
        if self.ac == "full":
            return checkpoint(self.blk, x, freqs, use_reentrant=False, preserve_rng_state=False)
        return self.blk(x, freqs)


a = args
layers = nn.ModuleList([Wrapped(Block(a), a.ac) for _ in range(a.layers)]).to(dt)
if a.compile:
    for i in range(a.layers):
        layers[i] = torch.compile(layers[i], fullgraph=True)
hd = a.dim // a.heads
freqs = torch.polar(torch.ones(a.seq, hd // 2), torch.outer(torch.arange(a.seq).float(),
                    1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))))


def step(x):
    h = x
    for l in layers:
        h = l(h, freqs)
    return h


# warm up (compilation) outside the measurement
x0 = torch.randn(a.batch, a.seq, a.dim, dtype=dt, requires_grad=True)
step(x0).float().pow(2).mean().backward()
for p in layers.parameters():
    p.grad = None

marks = {}
x = torch.randn(a.batch, a.seq, a.dim, dtype=dt, requires_grad=True)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True,
                            record_shapes=False) as prof:
    with torch.profiler.record_function("FWD"):
        out = step(x)
    with torch.profiler.record_function("LOSSFWD"):
        loss = out.float().pow(2).mean()
    with torch.profiler.record_function("BWD"):
        loss.backward()

# Replay memory events in time order.
evs = []
ranges = {}
for e in prof.profiler.kineto_results.events():
    if e.name() in ("FWD", "LOSSFWD", "BWD"):
        ranges[e.name()] = (e.start_ns(), e.start_ns() + e.duration_ns())
    if e.name() == "[memory]":
        evs.append((e.start_ns(), e.nbytes()))
evs.sort()
live = peak = 0
fwd_end = ranges["FWD"][1]
after_fwd = None
peak_phase = None
bwd_start = ranges["BWD"][0]
at_bwd = None
for t, nb in evs:
    if after_fwd is None and t > fwd_end:
        after_fwd = live
    if at_bwd is None and t >= bwd_start:
        at_bwd = live
    live += nb
    if live > peak:
        peak = live
        peak_phase = next((k for k, (s, e) in ranges.items() if s <= t <= e), "?")
if after_fwd is None:
    after_fwd = live
tok = a.batch * a.seq
unit = tok * a.dim * torch.tensor([], dtype=dt).element_size()
print(json.dumps({"compile": a.compile, "ac": a.ac, "dtype": a.dtype, "layers": a.layers,
                  "kept_after_fwd_per_layer_units": round(after_fwd / a.layers / unit, 3),
                  "kept_after_fwd_bytes": after_fwd, "peak_bytes": peak, "peak_phase": peak_phase,
                  "peak_units": round(peak / unit, 3), "bwd_transient_units": round((peak - at_bwd) / unit, 3), "unit_bytes": unit, "events": len(evs)}))
