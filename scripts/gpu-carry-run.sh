#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU machine's queue, with what scripts/prepare-gpu-carry.sh made: the
# checks still owed a GPU, most needed first, each under a time limit so
# the whole ends within LIMIT seconds (default 540). Writes its files to $OUT
# (the device tool's folder; at most 8 come back): log it with
#   bash scripts/gpu-carry-run.sh 2>&1 | tee $OUT/log.txt
# Commit what comes back under docs/validation/gpu-<device>-<date>/.
set -u
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/gpu-out}
mkdir -p "$out"
T0=$(date +%s)
LIMIT=${LIMIT:-540}
left() { echo $((LIMIT - ($(date +%s) - T0))); }
upto() { local l; l=$(left); echo $((l < $1 ? (l > 0 ? l : 1) : $1)); }
say() { echo "[t+$(($(date +%s) - T0))s] $*"; }
libdir=$(python3 -c 'import os,nvidia;print(os.path.join(list(nvidia.__path__)[0],"cu13","lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=${libdir:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib}:${LD_LIBRARY_PATH:-}
B=gpu-carry/bin
[ -d $B ] || tar -C gpu-carry -xJf gpu-carry/bin.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('gpu-carry/bin.tar.xz').extractall('gpu-carry')"
chmod +x $B/*
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import torch,transformers,peft;print('torch',torch.__version__,'transformers',transformers.__version__,'peft',peft.__version__)"

# peft at the reference's pin, and torchtitan, in /tmp/site; torchao apart in
# /tmp/site-ao, only for tp_study.py --float8: peft imports torchao wherever
# it is importable and fails on this torchao (the techniques preset's LoRA
# rows did, 2026-11-26).
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site \
  $(ls gpu-carry/whl/*.whl | grep -v torchao) gpu-carry/peft/*.whl >/dev/null 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site-ao gpu-carry/whl/torchao-*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
say "engine tests (gpu_step on the fp32 attention it mirrors; gpu_attention with the tensor-core kernels)"
{ for t in cuda_host_test gpu_kernels gpu_attention gpu_ops gpu_optim gpu_llama_block gpu_step gpu_agreement; do
    s=$(date +%s); echo "=== $t"; timeout "$(upto 60)" $B/$t 2>&1 | tail -40
    echo "=== $t rc=${PIPESTATUS[0]} seconds=$(($(date +%s) - s))"; done; } >"$out/engine.txt" 2>&1
grep -E "^=== .*rc=|checks|FAIL" "$out/engine.txt" | head -40

# Issue 15: the ranks of tests/data/validation/gpu_rank_cases.json, run again
# by torchtitan 0.2.2's own DeepSeek-V3 code under the fake process group
# (tools/reference/moe_rank_study.py): the published row's layout (dp_shard 4
# x cp 2) and the MoE under tp 2, both with b109f7d71's FSDP units.
dsv3() {  # label, then moe_rank_study.py's arguments
  local label=$1; shift
  say "torchtitan DeepSeek-V3 16B rank 0: $label"
  timeout "$(upto 120)" python3 tools/reference/moe_rank_study.py --device cuda --fsdp-units b109f7d71 "$@" \
    >/tmp/dsv3.out 2>/tmp/dsv3.err
  echo "$label rc=$?"
  grep -v "Warning\|warn(" /tmp/dsv3.err | tail -4
  tail -1 /tmp/dsv3.out | tee -a "$out/dsv3.jsonl"
}
dsv3 "dp_shard 4 x cp 2"
dsv3 "tp 2 x dp_shard 4, 4 x 4096 tokens" --tp 2 --dp-shard 4 --cp 1 --batch 4

# Owed since 2026-11-27 (docs/validation/gpu-h200-2026-11-27.md):
# - DeepSeek-V3 tiny with cuDNN attention off: the +4.7 MB over the meta
#   device should drop by the 2 MB copy cuDNN's output layout forces;
# - the accountant's LoRA cases whose backward cuBLAS workspace now pins a
#   logits segment (Llama 3.2 1B LoRA b1 s1024): does the GPU pin it too?
say "DeepSeek-V3 tiny on CUDA, cuDNN attention on and off"
timeout "$(upto 60)" python3 tools/reference/cuda_check.py --timeout 40 --out "$out/dsv3-tiny-cudnn.json" \
  deepseek-v3-tiny-bf16-mixed-sdpa-b2-s512-sgd 2>&1 | tail -2
timeout "$(upto 60)" python3 tools/reference/cuda_check.py --timeout 40 --no-cudnn-sdp --out "$out/dsv3-tiny-nocudnn.json" \
  deepseek-v3-tiny-bf16-mixed-sdpa-b2-s512-sgd 2>&1 | tail -2
say "Llama 3.2 1B LoRA b1 s1024 in the accountant's own loop, with its allocator history"
HEADROOM_MEMORY_HISTORY=/tmp/lora1b.pickle timeout "$(upto 90)" python3 tools/reference/cuda_check.py --timeout 80 \
  --out "$out/lora1b.json" llama-3.2-1b-bf16-mixed-sdpa-b1-s1024-lora16 2>&1 | tail -2
gzip -c /tmp/lora1b.pickle >"$out/lora1b-history.pickle.gz" 2>/dev/null
say "done"
