# SPDX-License-Identifier: GPL-3.0-or-later
"""One rank of torchtitan's DeepSeek-V3 training, run by torchtitan's own code.

    python3 tools/reference/moe_rank_study.py [--device cuda] [--layers N] \
        [--dp-shard 4] [--cp 2] [--batch 8] [--seq 4096] [--memory-history F]

The published multi-GPU mixture-of-experts row of docs/validation/parallel.md
(torchtitan PR #1513: DeepSeek-V3 16B, FSDP2 dp_shard 4 x cp 2, local batch
8 x 4096, full activation checkpointing) is planned from transformers'
DeepseekV3 modules. This runs torchtitan's own model and its own
parallelize_deepseekv3 (FSDP2, context parallelism with the head-tail load
balancer, full AC) on rank 0 of a fake process group (torch.testing's
FakeStore: every collective is a no-op, every buffer it needs is still
allocated), so that one GPU holds what rank 0 of the eight held.

It prints JSON: the second step's peak allocated and reserved (the first
makes the optimizer state), the first step's, the step times. Needs
torchtitan 0.2.2 (scripts/prepare-gpu-carry.sh carries it).

What differs from the published run, and is stated beside the numbers:
torchtitan 0.2.2 rather than b109f7d71 (its 16B flavour at that commit's
vocabulary, 129280, and sdpa with a causal mask, as the run log printed);
no NCCL buffers or communication streams; random tokens, so the routing
(and the grouped GEMM's per-expert padding) is what random weights give.
"""

import argparse
import contextlib
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
ap.add_argument("--dp-shard", type=int, default=4)
ap.add_argument("--cp", type=int, default=2)
ap.add_argument("--tp", type=int, default=1, help="tensor parallelism: torchtitan's apply_non_moe_tp and, with ep 1, "
                "its TensorParallel experts (each expert split over tp)")
ap.add_argument("--layers", type=int, default=27, help="the 16B flavour has 27 (1 dense)")
ap.add_argument("--dim", type=int, default=2048)
ap.add_argument("--vocab", type=int, default=129280, help="b109f7d71's 16B flavour (0.2.2 has 102400)")
ap.add_argument("--batch", type=int, default=8)
ap.add_argument("--seq", type=int, default=4096)
ap.add_argument("--ac", default="full", choices=["full", "selective-op"],
                help="activation checkpointing: full, or torchtitan's op-level selective policy (its DeepSeek-V3 default)")
ap.add_argument("--fsdp-units", default="0.2.2", choices=["0.2.2", "b109f7d71"],
                help="0.2.2: the embedding and [norm, output] are units of their own, every block reshards after "
                     "forward, [norm, output] does not; b109f7d71 (the published run's commit, llama4 apply_fsdp "
                     "there): blocks and the root only, the last block not resharded after forward")
ap.add_argument("--optimizer", default="fused", choices=["fused", "foreach", "for-loop"],
                help="AdamW's implementation (torchtitan's default is fused)")
ap.add_argument("--expandable-segments", action="store_true",
                help="PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, as torchtitan's run_train.sh sets it")
ap.add_argument("--memory-history", help="with --device cuda: both steps' allocator history (pickle)")
a = ap.parse_args()
if a.expandable_segments:
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.distributed.tensor.parallel import loss_parallel  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402
import torchtitan.distributed.parallel_dims as titan_dims  # noqa: E402
from torchtitan.config import JobConfig  # noqa: E402
from torchtitan.distributed import ParallelDims  # noqa: E402
from torchtitan.distributed.context_parallel import prepare_context_parallel_input  # noqa: E402
from torchtitan.models.deepseek_v3 import deepseekv3_args  # noqa: E402
import torchtitan.models.deepseek_v3.infra.parallelize as titan_dsv3  # noqa: E402
from torchtitan.models.deepseek_v3.infra.parallelize import parallelize_deepseekv3  # noqa: E402
from torchtitan.models.deepseek_v3.model.model import DeepSeekV3Model  # noqa: E402

world = a.dp_shard * a.cp * a.tp
dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
if a.device == "cuda":
    torch.cuda.set_device(0)
titan_dims.device_type = a.device  # torchtitan assumes cuda where none is found
dims = ParallelDims(dp_replicate=1, dp_shard=a.dp_shard, cp=a.cp, tp=a.tp, pp=1, ep=1, etp=1, world_size=world)
dims.build_mesh()

job = JobConfig()
job.training.seq_len = a.seq
job.training.local_batch_size = a.batch
job.training.mixed_precision_param = "bfloat16"
job.training.mixed_precision_reduce = "float32"
job.parallelism.data_parallel_shard_degree = a.dp_shard
job.parallelism.context_parallel_degree = a.cp
job.parallelism.tensor_parallel_degree = a.tp
if a.ac == "full":
    job.activation_checkpoint.mode = "full"
else:
    job.activation_checkpoint.mode = "selective"
    job.activation_checkpoint.selective_ac_option = "op"

import copy  # noqa: E402
args = copy.deepcopy(deepseekv3_args["16B"])
args.vocab_size = a.vocab
args.dim = a.dim
args.n_layers = a.layers
args.attn_type = "sdpa"
args.attn_mask_type = "causal"
# As torchtitan's trainer does: the sequence length, grouped GEMMs only on
# sm_90 or later (the CPU runs the experts' for-loop, same shapes).
args.update_from_config(job)
if a.device == "cpu":
    # A smoke run only (nothing is measured on the CPU): torchtitan's router
    # counts tokens per expert with histc on integers, which only CUDA has.
    _histc = torch.histc
    torch.histc = lambda t, *h, **k: _histc(t.float(), *h, **k).to(t.dtype)
with torch.device("meta"):
    model = DeepSeekV3Model(args)
nparams = sum(p.numel() for p in model.parameters())
if a.fsdp_units == "b109f7d71":
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    def apply_fsdp_b109f7d71(model, dp_mesh, param_dtype, reduce_dtype, pp_enabled, **_):
        """torchtitan b109f7d71 experiments/llama4/infra/parallelize.py apply_fsdp, without ep or pp."""
        mp = MixedPrecisionPolicy(param_dtype=param_dtype, reduce_dtype=reduce_dtype)
        n = len(model.layers)
        for layer_id, block in model.layers.items():
            fully_shard(block, mesh=dp_mesh, mp_policy=mp, reshard_after_forward=int(layer_id) < n - 1)
        fully_shard(model, mesh=dp_mesh, mp_policy=mp, reshard_after_forward=True)
    titan_dsv3.apply_fsdp = apply_fsdp_b109f7d71
model = parallelize_deepseekv3(model, dims, job)
model.to_empty(device=a.device)
with torch.no_grad():
    model.init_weights(buffer_device=torch.device(a.device))
model.train()
opt_kwargs = {"fused": a.optimizer == "fused", "foreach": a.optimizer == "foreach"}
opt = torch.optim.AdamW(model.parameters(), lr=8e-4, betas=(0.9, 0.95), weight_decay=0.1, eps=1e-8, **opt_kwargs)
cp_mesh = dims.get_mesh("cp") if a.cp > 1 else None


def step():
    inputs = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
    labels = torch.randint(0, a.vocab, (a.batch, a.seq), device=a.device)
    extra = {}
    if cp_mesh is not None:  # torchtitan's post_dataloading_process: this rank's head and tail chunks
        inputs, labels, extra = prepare_context_parallel_input(inputs, labels, {}, cp_mesh, torch.device(a.device))
    # torchtitan's train_context: loss parallelism under tp (the output layer's
    # logits stay sharded over the vocabulary).
    with loss_parallel() if a.tp > 1 else contextlib.nullcontext():
        pred = model(inputs, **extra)
        loss = torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1), reduction="sum")
        del pred  # torchtitan's forward_backward_step drops it before backward
        loss.backward()
    opt.step()
    opt.zero_grad()


out = {"torch": torch.__version__, "dp_shard": a.dp_shard, "cp": a.cp, "tp": a.tp, "layers": a.layers, "vocab": a.vocab,
       "local_batch": a.batch, "seq": a.seq, "ac": a.ac, "fsdp_units": a.fsdp_units, "optimizer": a.optimizer,
       "expandable_segments": a.expandable_segments, "parameters": nparams}
if a.device == "cpu":
    t0 = time.time()
    step()
    step()
    out["step_seconds_two"] = round(time.time() - t0, 3)
    print(json.dumps(out))
    sys.exit(0)

if a.memory_history:
    torch.cuda.memory._record_memory_history(max_entries=2000000, stacks="python")
times = []
stats = []
for _ in range(2):
    torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    step()
    torch.cuda.synchronize()
    times.append(round(time.time() - t0, 3))
    stats.append(torch.cuda.memory_stats())
if a.memory_history:
    torch.cuda.memory._dump_snapshot(a.memory_history)
    torch.cuda.memory._record_memory_history(enabled=None)
out.update({"device": torch.cuda.get_device_name(0),
            "peak_allocated_bytes": stats[1]["allocated_bytes.all.peak"],
            "peak_reserved_bytes": stats[1]["reserved_bytes.all.peak"],
            "step1_peak_allocated_bytes": stats[0]["allocated_bytes.all.peak"],
            "step1_peak_reserved_bytes": stats[0]["reserved_bytes.all.peak"],
            "alloc_retries": stats[1]["num_alloc_retries"], "ooms": stats[1]["num_ooms"],
            "step_seconds": times})
print(json.dumps(out))
