# SPDX-License-Identifier: GPL-3.0-or-later
"""One rank of a torchtitan-shaped 2D step (FSDP2 x tensor parallelism), run
on the CPU, its allocations read from the profiler.

    <venv with torchtitan>/bin/python tools/reference/tp_study.py [--tp 8] [--dp 1]
        [--dim 512 --ffn 1536 --layers 2 --heads 8 --kv 8 --vocab 8192]
        [--batch 2 --seq 1024] [--trace FILE] [--config FILE]

No GPU and no second process: a fake process group (torch.testing's
FakeStore, rank 0 of tp x dp) lets DTensor and fully_shard run their real
code on real CPU tensors while every collective is a no-op, so the tensors
rank 0 makes are those a GPU rank makes, less what CUDA alone adds (cuBLAS
workspaces, the flash kernels' scratch: the CPU runs sdpa's CPU flash kernel).
The model is torchtitan's llama3 Transformer (torchtitan 0.2.2) wrapped as
torchtitan 9dec370 did: apply_tp with loss parallelism, full activation
checkpointing per block, fully_shard per block (reshard_after_forward except
the last) and on the root, MixedPrecisionPolicy(bf16, fp32); AdamW (foreach);
the loss is torchtitan's cross_entropy over pred.flatten(0, 1).float() in
loss_parallel(), pred deleted before backward. The second step is measured
(the first makes the optimizer state).

Prints JSON: peak allocated (what torch.cuda.max_memory_allocated would read,
without 512-byte rounding), the phase it falls in and each phase's peak; with
--trace, the step as headroom-cli replay's trace (the resident tensors first).
--config writes the Headroom config.json of the same model (torchtitan's FFN
width is given, not derived).
"""
import argparse
import json
import sys

import torch
import torch.distributed as dist
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor.parallel import loss_parallel
from torch.testing._internal.distributed.fake_pg import FakeStore

ap = argparse.ArgumentParser()
ap.add_argument("--tp", type=int, default=8)
ap.add_argument("--dp", type=int, default=1)
ap.add_argument("--pp", type=int, default=1, help="pipeline stages: rank 0 is stage 0 of torch's Schedule1F1B")
ap.add_argument("--microbatches", type=int, default=0, help="with --pp: micro-batches per step (default pp)")
ap.add_argument("--vpp", type=int, default=1, help="with --pp: model chunks per rank (ScheduleInterleaved1F1B); rank 0 "
                                                  "holds chunks 0, pp, 2 pp...")
ap.add_argument("--dim", type=int, default=512)
ap.add_argument("--ffn", type=int, default=1536)
ap.add_argument("--layers", type=int, default=2)
ap.add_argument("--heads", type=int, default=8)
ap.add_argument("--kv", type=int, default=8)
ap.add_argument("--vocab", type=int, default=8192)
ap.add_argument("--batch", type=int, default=2)
ap.add_argument("--seq", type=int, default=1024)
ap.add_argument("--trace")
ap.add_argument("--config")
ap.add_argument("--explain", type=int, default=0, help="print the N largest groups (allocating op, phase) alive at the peak")
ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                help="cuda: run rank 0 on the GPU and read the caching allocator's own counters (max allocated and "
                     "reserved of the second step) instead of the profiler's events")
ap.add_argument("--compile", action="store_true",
                help="torch.compile each checkpointed block (fullgraph), as torchtitan 9dec370's apply_compile did "
                     "after apply_ac and before fully_shard")
ap.add_argument("--float8", action="store_true",
                help="torchao Float8Linear (tensorwise) on every linear but the output head, converted before "
                     "tensor parallelism, and Float8 TP (torchtitan 9dec370's float8 converter with its defaults: no "
                     "Float8 all-gather for FSDP); needs torchao, and a GPU that computes in fp8 (sm_89 or later)")
ap.add_argument("--memory-history", help="with --device cuda: both steps' allocator history "
                                         "(torch.cuda.memory._dump_snapshot, pickle)")
ap.add_argument("--chain-bytes", type=int, default=1 << 30, help="with --explain: name the call chain of allocations larger than this")
a = ap.parse_args()

dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=a.pp * a.tp * a.dp)
mesh = init_device_mesh(a.device, (a.pp, a.dp, a.tp), mesh_dim_names=("pp", "dp", "tp"))
microbatches = a.microbatches or a.pp

from torchtitan.models.llama3.infra.parallelize import apply_tp  # noqa: E402
from torchtitan.models.llama3.model.args import TransformerModelArgs  # noqa: E402
from torchtitan.models.llama3.model.model import Transformer  # noqa: E402

# torchtitan sizes the FFN as multiple_of x ceil(2/3 x 4 dim x multiplier /
# multiple_of); a multiplier that lands on --ffn exactly.
args = TransformerModelArgs(dim=a.dim, n_layers=a.layers, n_heads=a.heads, n_kv_heads=a.kv, vocab_size=a.vocab,
                            multiple_of=256, ffn_dim_multiplier=a.ffn / (8 * a.dim / 3), max_seq_len=a.seq)
with torch.device("meta"):
    model = Transformer(args)
ffn = model.layers["0"].feed_forward.w1.weight.shape[0]
if ffn != a.ffn:
    raise SystemExit(f"torchtitan made an FFN of {ffn}, not {a.ffn}")
if a.config:
    with open(a.config, "w") as f:
        json.dump({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": a.dim,
                   "intermediate_size": a.ffn, "num_hidden_layers": a.layers, "num_attention_heads": a.heads,
                   "num_key_value_heads": a.kv, "vocab_size": a.vocab, "tie_word_embeddings": False,
                   "max_position_embeddings": a.seq, "rms_norm_eps": 1e-5, "hidden_act": "silu"}, f)
chunks = [model]
if a.pp > 1:
    # Rank 0's model chunks (torchtitan pipeline_module_split, looped
    # stages): chunk c is virtual stage c x pp, layers [c pp k, (c pp + 1) k)
    # with k = layers / (pp vpp); the first holds the embedding; the final
    # norm and the head belong to the last virtual stage (not rank 0's).
    import copy
    per_chunk = a.layers // (a.pp * a.vpp)
    whole = model
    chunks = []
    for c in range(a.vpp):
        part = copy.deepcopy(whole)
        first = c * a.pp * per_chunk
        for name in list(part.layers.keys()):
            if not first <= int(name) < first + per_chunk:
                del part.layers[name]
        if c > 0:
            part.tok_embeddings = None
        part.norm = None
        part.output = None
        chunks.append(part)
    model = chunks[0]
if a.float8:
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training
    for part in chunks:
        convert_to_float8_training(part, config=Float8LinearConfig(enable_fsdp_float8_all_gather=False),
                                   module_filter_fn=lambda module, fqn: fqn != "output")
for part in chunks:
    apply_tp(part, mesh["tp"], loss_parallel=True, enable_float8_tensorwise_tp=a.float8)
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for part in chunks:
    for name, block in list(part.layers.named_children()):
        wrapped = checkpoint_wrapper(block, preserve_rng_state=False)
        part.layers.register_module(name, torch.compile(wrapped, fullgraph=True) if a.compile else wrapped)
    blocks = list(part.layers.children())
    for i, block in enumerate(blocks):
        # torchtitan 9dec370: no resharding after forward under pp
        fully_shard(block, mesh=mesh["dp"], mp_policy=mp, reshard_after_forward=a.pp == 1 and i < len(blocks) - 1)
    # torchtitan 9dec370 passes reshard_after_forward=not pp_enabled to the
    # root, and torch >= 2.8 respects an explicit True there
    # (pytorch/pytorch#155319). Before 2026-11-27 this left it None, which
    # keeps the root gathered through the step.
    fully_shard(part, mesh=mesh["dp"], mp_policy=mp, reshard_after_forward=a.pp == 1)
    part.to_empty(device=a.device)
    with torch.no_grad():
        for p in part.parameters():
            p.normal_(0, 0.02)
opt = torch.optim.AdamW([p for part in chunks for p in part.parameters()], lr=1e-4, foreach=True)
rf = torch.profiler.record_function


if a.pp > 1:
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleInterleaved1F1B
    # A chunk after the first would learn its input's shape from the previous
    # stage (recv_object_list, garbage under the fake group): give it, the
    # sequence-parallel hidden states of a micro-batch in bf16, as its output too.
    hidden = torch.empty(a.batch, a.seq // a.tp, a.dim, dtype=torch.bfloat16, device=a.device)
    stages = [PipelineStage(part, c * a.pp, a.pp * a.vpp, torch.device(a.device), group=mesh.get_group("pp"),
                            **({} if c == 0 else {"input_args": (hidden,), "output_args": (hidden,)}))
              for c, part in enumerate(chunks)]
    if a.vpp > 1:
        schedule = ScheduleInterleaved1F1B(stages, n_microbatches=microbatches, loss_fn=lambda pred, y: pred.sum())
    else:
        schedule = Schedule1F1B(stages[0], n_microbatches=microbatches, loss_fn=lambda pred, y: pred.sum())


def step():
    if a.pp > 1:
        x = torch.randint(0, a.vocab, (a.batch * microbatches, a.seq), device=a.device)
        with rf("PHASE backward"):
            schedule.step(x)
        with rf("PHASE optimizer"):
            opt.step()
            opt.zero_grad()
        return
    x = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
    y = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
    with loss_parallel():
        with rf("PHASE forward"):
            pred = model(x)
        with rf("PHASE loss"):
            loss = torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(), y.flatten(0, 1))
            del pred
        with rf("PHASE backward"):
            loss.backward()
    with rf("PHASE optimizer"):
        opt.step()
        opt.zero_grad()


def local(t):
    return t.to_local() if hasattr(t, "to_local") else t


if a.device == "cuda":
    # On the GPU the caching allocator reports for itself: the second step's
    # max allocated (what the CPU run's profiler reconstructs) and max reserved
    # (what torchtitan's memory monitor printed), on one stream, without the
    # collectives' streams that a real multi-GPU run adds.
    import time
    if a.memory_history:  # from before the first step: the cache the second step runs on is made in the first
        torch.cuda.memory._record_memory_history(max_entries=1000000, stacks="python")
    t0 = time.time()
    step()
    torch.cuda.synchronize()
    first = time.time() - t0
    step1 = torch.cuda.memory_stats()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    step()
    torch.cuda.synchronize()
    second_s = time.time() - t0
    stats = torch.cuda.memory_stats()
    if a.memory_history:
        torch.cuda.memory._dump_snapshot(a.memory_history)
        torch.cuda.memory._record_memory_history(enabled=None)
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "tp": a.tp, "dp": a.dp,
                      "pp": a.pp, "vpp": a.vpp, "microbatches": microbatches, "tokens": a.batch * a.seq,
                      "layers": a.layers, "peak_allocated_bytes": stats["allocated_bytes.all.peak"],
                      "peak_reserved_bytes": stats["reserved_bytes.all.peak"],
                      "peak_inactive_split_bytes": stats["inactive_split_bytes.all.peak"],
                      "step1_peak_allocated_bytes": step1["allocated_bytes.all.peak"],
                      "step1_peak_reserved_bytes": step1["reserved_bytes.all.peak"],
                      "alloc_retries": stats["num_alloc_retries"], "segments": stats["segment.all.current"],
                      "step_seconds": [round(first, 3), round(second_s, 3)]}))
    sys.exit(0)

# Both steps are profiled, so that what the first makes and keeps (the
# optimizer state, pipelining's receive buffers, a stage's input gradients
# kept until the next step) is seen being made; the resident base is only the
# parameters and buffers, which exist before. The second step is reported.
resident = [local(p) for part in chunks for p in part.parameters()] + [b for part in chunks for b in part.buffers()]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
    with rf("STEP 1"):
        step()
    with rf("STEP 2"):
        step()

allocs, phases, second = [], [], []


def chain(n):
    names = []
    while n is not None and len(names) < 8:
        names.append(n.name)
        n = n.parent
    return " < ".join(names)


def walk(nodes, op="?"):
    for n in nodes:
        if n.name.startswith("PHASE "):
            phases.append((n.start_time_ns, n.end_time_ns, n.name[6:]))
        if n.name == "STEP 2":
            second.append(n.start_time_ns)
        if type(n.extra_fields).__name__ == "_ExtraFields_Allocation":
            allocs.append((n.start_time_ns, n.extra_fields.ptr, n.extra_fields.alloc_size,
                           chain(n.parent) if a.explain and n.extra_fields.alloc_size > a.chain_bytes else op))
        walk(n.children, n.name if n.name.startswith("aten::") or n.name.startswith("c10d") else op)


walk(prof.profiler.kineto_results.experimental_event_tree())
allocs.sort()
phases.sort()


def phase_at(t):
    if t < second[0]:
        return "step 1"
    for start, end, name in phases:
        if start <= t <= end:
            return name
    return "between"


base = sum(t.untyped_storage().nbytes() for t in {id(t): t for t in resident}.values())
live, peak, peak_phase, per_phase = base, base, "start", {}
alive, at_peak = {}, {}
lines, ids, next_id = ["# headroom allocator events: a <id> <bytes> | f <id>"], {}, 0
for t in {id(t): t for t in resident}.values():
    lines.append(f"a {next_id} {t.untyped_storage().nbytes()} # resident")
    next_id += 1
current = None
for t, ptr, size, op in allocs:
    ph = phase_at(t)
    if ph != current:
        lines.append(f"# event 1 {ph} -1")
        current = ph
    if size > 0:
        alive[ptr] = (size, op, ph)
        ids[ptr] = next_id
        lines.append(f"a {next_id} {size}")
        next_id += 1
    elif ptr in ids:
        lines.append(f"f {ids.pop(ptr)}")
        alive.pop(ptr, None)
    live += size
    per_phase[ph] = max(per_phase.get(ph, 0), live)
    if ph != "step 1" and live > peak:
        peak, peak_phase = live, ph
        if a.explain:
            at_peak = dict(alive)
if a.trace:
    with open(a.trace, "w") as f:
        f.write("\n".join(lines) + "\n")
if a.explain:
    groups = {}
    for size, op, ph in at_peak.values():
        key = (op, ph)
        groups[key] = (groups.get(key, (0, 0))[0] + size, groups.get(key, (0, 0))[1] + 1)
    print(f"alive at the peak besides the {base} resident bytes (op, phase made in: bytes, count):", file=sys.stderr)
    for (op, ph), (n, c) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:a.explain]:
        sizes = sorted((sz for sz, o, p in at_peak.values() if (o, p) == (op, ph)), reverse=True)[:6]
        print(f"  {op:50s} {ph:10s} {n:14d} {c:5d}  {sizes}", file=sys.stderr)
print(json.dumps({"torch": torch.__version__, "tp": a.tp, "dp": a.dp, "pp": a.pp, "vpp": a.vpp,
                  "microbatches": microbatches,
                  "tokens": a.batch * a.seq,
                  "resident_bytes": base, "peak_allocated_bytes": peak, "peak_phase": peak_phase,
                  "phase_peaks": per_phase, "allocations": len(allocs)}))
