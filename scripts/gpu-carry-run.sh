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

say "engine tests (gpu_attention also runs the tensor-core fused forward)"
{ for t in cuda_host_test gpu_kernels gpu_attention gpu_ops gpu_optim gpu_llama_block gpu_step gpu_agreement; do
    s=$(date +%s); echo "=== $t"; timeout "$(upto 60)" $B/$t 2>&1 | tail -40
    echo "=== $t rc=${PIPESTATUS[0]} seconds=$(($(date +%s) - s))"; done; } >"$out/engine.txt" 2>&1
grep -E "^=== .*rc=|checks|failed|tensor-core|TFLOP|ms" "$out/engine.txt" | head -40

say "the CUDA engine on Llama 3.1 8B QLoRA (QLoRA has never run on a GPU)"
timeout "$(upto 80)" $B/headroom-cli validate --backend cuda --json --steps 3 --model meta-llama/Llama-3.1-8B \
  --precision bf16-mixed --peft qlora --weight-quant nf4-dq --lora-rank 16 --lora-targets all-linear --lora-dropout 0 \
  --optimizer adamw --micro-batch 1 --grad-accum 1 --seq-len 2048 --attention sdpa --checkpointing full \
  >"$out/validate-llama-8b-qlora.json" 2>"$out/validate-llama-8b-qlora.err"
echo "validate llama-8b-qlora rc=$?"; head -c 1500 "$out/validate-llama-8b-qlora.json"; tail -5 "$out/validate-llama-8b-qlora.err"; echo

say "torchtitan's 70B Table 4 rank 0 as published: compiled blocks with Float8, both steps recorded"
T4="--device cuda --tp 8 --dp 32 --dim 8192 --ffn 28672 --heads 64 --kv 8 --vocab 128256 --layers 80 --batch 16 --seq 8192"
# shellcheck disable=SC2086
timeout "$(upto 150)" python3 tools/reference/tp_study.py $T4 --compile --float8 \
  --memory-history /tmp/t4-float8.pickle 2>&1 | grep -v Warning | tail -4
[ -f /tmp/t4-float8.pickle ] && gzip -1 -c /tmp/t4-float8.pickle >"$out/tp-table4-compiled-float8-history.pickle.gz"

say "bench_gpu: kernel timings (attention: eager, fused fp32, fused tensor-core)"
timeout "$(upto 40)" $B/bench_gpu >"$out/bench_gpu.txt" 2>&1; echo "bench_gpu rc=$?"
grep -iE "attention|fused" "$out/bench_gpu.txt" | head -5

say "Llama 3.2 1B on Headroom's CUDA engine, the fused attention's two kernels (step time)"
L1="--model meta-llama/Llama-3.2-1B --precision bf16-mixed --optimizer adamw --micro-batch 1 --grad-accum 1 --seq-len 2048 --checkpointing none"
for k in fma tc; do
  # shellcheck disable=SC2086
  HEADROOM_FUSED_ATTENTION=$k timeout "$(upto 40)" $B/headroom-cli validate --backend cuda --steps 4 --attention sdpa $L1 2>&1 \
    | grep -iE "step time|agree|status|error" | sed "s/^/$k: /"
done

say "PyTorch beside Headroom's CUDA engine: the speed preset (Llama 3.2 1B eager and sdpa, seq 2048)"
timeout "$(upto 150)" python3 tools/reference/torch_peaks.py --preset speed --steps 4 --timeout 60 \
  --headroom-cli $B/headroom-cli --headroom-run --compare --out "$out/speed.json" 2>&1 | tail -12
say "done"
