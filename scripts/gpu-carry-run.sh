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
chmod +x $B/*
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import torch,transformers,peft;print('torch',torch.__version__,'transformers',transformers.__version__,'peft',peft.__version__)"

python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site gpu-carry/whl/*.whl gpu-carry/peft/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site  # torchtitan and torchao for tp_study, peft at the reference's pin
# Owed to the GPU since 2026-11-26 (docs/validation/gpu-h200-2026-11-26b.md):
# gpu_step on the fp32 attention kernel with the new initial weights, the
# tensor-core fused backward (HEADROOM_FUSED_ATTENTION_BACKWARD=tc), the
# fused step's time, the rest of the techniques preset.

say "engine tests (gpu_step on the fp32 attention it mirrors; gpu_attention with the tensor-core kernels)"
{ for t in cuda_host_test gpu_kernels gpu_attention gpu_ops gpu_optim gpu_llama_block gpu_step gpu_agreement; do
    s=$(date +%s); echo "=== $t"; timeout "$(upto 60)" $B/$t 2>&1 | tail -40
    echo "=== $t rc=${PIPESTATUS[0]} seconds=$(($(date +%s) - s))"; done; } >"$out/engine.txt" 2>&1
grep -E "^=== .*rc=|checks|FAIL" "$out/engine.txt" | head -40

say "bench_gpu: kernel timings (attention: eager, fused fp32, fused tensor-core, forward and backward)"
timeout "$(upto 40)" $B/bench_gpu >"$out/bench_gpu.txt" 2>&1; echo "bench_gpu rc=$?"
grep -iE "attention" "$out/bench_gpu.txt" | head -5

say "Llama 3.2 1B on Headroom's CUDA engine: the fused attention's kernels (step time)"
L1="--model meta-llama/Llama-3.2-1B --precision bf16-mixed --peft none --weight-quant none --optimizer adamw --micro-batch 1 --grad-accum 1 --seq-len 2048 --checkpointing none --attention sdpa"
for k in "fma fma" "tc fma" "tc tc"; do
  set -- $k
  # shellcheck disable=SC2086
  HEADROOM_FUSED_ATTENTION=$1 HEADROOM_FUSED_ATTENTION_BACKWARD=$2 timeout "$(upto 40)" $B/headroom-cli validate \
    --backend cuda --steps 4 $L1 2>&1 | grep -E "step time|agree|differences|headroom-cli:" | sed "s/^/forward $1, backward $2: /"
done

say "PyTorch beside Headroom's CUDA engine: the speed preset (Llama 3.2 1B eager and sdpa, seq 2048)"
timeout "$(upto 150)" python3 tools/reference/torch_peaks.py --preset speed --steps 4 --timeout 60 \
  --headroom-cli $B/headroom-cli --headroom-run --compare --out "$out/speed.json" 2>&1 | tail -12

say "PyTorch beside the plan: the techniques preset, while time lasts"
timeout "$(upto 240)" python3 tools/reference/torch_peaks.py --preset techniques --steps 3 --timeout 60 \
  --headroom-cli $B/headroom-cli --compare --out "$out/torch-peaks.json" 2>&1 | tail -30
say "done"
