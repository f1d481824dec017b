#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU machine's check (no Qt there): configure the engine, the CLI and
# the Qt-free GPU tests, build them, run `ctest -L gpu`, ask
# `headroom-cli devices --json --measure-context`, run `headroom-cli validate
# --backend cuda` on real models (Llama 3.2 1B full fine-tune at 2048 tokens,
# Llama 3.1 8B QLoRA), optionally run the PyTorch reference
# (tools/reference/torch_peaks.py, with the same steps on Headroom's CUDA
# engine side by side), and write what happened to
# docs/validation/gpu-<device>-<date>.md and .json.
#
# On a bare GPU machine (no apt, no network, no Qt): run
# scripts/prepare-gpu-deps.sh beforehand where apt works and carry the
# git-ignored .deps/ folder along; this script then takes nlohmann-json from
# there. Qt is never needed (HEADROOM_WITH_GUI=OFF; the Qt Test suites are
# left out when Qt is missing), nor libcurl.
#
# Environment:
#   BUILD_DIR                    build directory (default build-gpu)
#   DEPS_DIR                     prepared dependencies (default .deps, used when present)
#   HIDE_SYSTEM_PACKAGES=1       hide /usr from CMake's package search (CMAKE_IGNORE_PREFIX_PATH), to prove
#                                on a machine that has the packages that the build needs none of them
#   BUILD_ONLY=1                 configure and build, then stop (the proof above needs no GPU)
#   HEADROOM_CUDA_ARCHITECTURES  default: native when nvidia-smi sees a GPU
#   JOBS                         parallel build jobs (default: nproc)
#   TORCH_REFERENCE=1            also run the PyTorch reference and --compare
#   PYTHON                       interpreter with torch/transformers/peft (default python3)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-python3}
out_dir=$root/docs/validation
mkdir -p "$out_dir"

arch=${HEADROOM_CUDA_ARCHITECTURES:-}
if [[ -z $arch ]]; then
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    arch=native
  else
    arch="75-real;80-real;86-real;89-real;90-real;100-real;120"
  fi
fi
nvcc_args=()
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  nvcc_args=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
deps=${DEPS_DIR:-$root/.deps}
deps_args=()
if [[ -d $deps/root/usr ]]; then
  deps_args=(-DCMAKE_PREFIX_PATH="$deps/root/usr")
  echo "== prepared dependencies: $deps ($(tail -n +2 "$deps/MANIFEST" 2>/dev/null | paste -sd';'))"
fi
if [[ ${HIDE_SYSTEM_PACKAGES:-0} == 1 ]]; then
  # find_package() then ignores every package installed under /usr (Qt,
  # nlohmann-json...), and under / too: with Debian's merged /usr, /lib is
  # /usr/lib and CMake finds Qt there through the prefix / that PATH's /bin
  # gives. The CUDA toolkit in /usr/local/cuda stays visible.
  deps_args+=("-DCMAKE_IGNORE_PREFIX_PATH=/usr;/")
fi

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== configure ($build, CUDA architectures: $arch)"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHEADROOM_WITH_GUI=OFF -DHEADROOM_WITH_TESTS=ON \
  -DHEADROOM_WARNINGS_AS_ERRORS=ON -DHEADROOM_CUDA_ARCHITECTURES="$arch" "${nvcc_args[@]}" "${deps_args[@]}" \
  | tee "$log/configure.txt"
if ! grep -q "HEADROOM_HAVE_CUDA" "$build/CMakeCache.txt" 2>/dev/null && ! grep -q "CUDA engine" "$log/configure.txt"; then
  echo "gpu-check: CMake found no CUDA toolkit; nothing to check" >&2
  exit 3
fi

echo "== build"
start=$(date +%s)
cmake --build "$build" -j "$jobs" --target headroom-cli cuda_host_test gpu_kernels gpu_attention gpu_optim \
  gpu_llama_block gpu_ops gpu_step gpu_agreement bench_gpu \
  2>&1 | tee "$log/build.txt"
build_seconds=$(( $(date +%s) - start ))
if [[ ! -x $build/app/headroom-cli ]]; then
  echo "gpu-check: the build failed" >&2
  exit 1
fi
if [[ ${HIDE_SYSTEM_PACKAGES:-0} == 1 ]]; then
  # The compiler's default include path still holds /usr/include: prove from
  # the dependency files that every json.hpp compiled was the prepared one.
  # (The files name it relative to the build folder, or absolute.)
  used=$(find "$build" -name '*.d' -print0 | xargs -0 grep -ho '[^ ]*nlohmann/json\.hpp' | sort -u || true)
  echo "== nlohmann/json.hpp read by the build: ${used:-none}"
  if [[ -z $used ]] || grep -qv "$(basename "$deps")/root/usr/include/nlohmann/json\.hpp$" <<<"$used" \
     || grep -q '^/usr/\|^/include/' <<<"$used"; then
    echo "gpu-check: the build read a json.hpp that is not under $deps" >&2
    exit 1
  fi
fi
if [[ ${BUILD_ONLY:-0} == 1 ]]; then
  echo "== built in ${build_seconds} s (BUILD_ONLY: stopping before the device checks)"
  exit 0
fi

echo "== devices"
set +e
"$build/app/headroom-cli" devices --json --measure-context >"$log/devices.json" 2>"$log/devices.err"
devices_status=$?
set -e
cat "$log/devices.json"

echo "== ctest -L gpu"
set +e
ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$log/ctest.txt"
ctest_status=${PIPESTATUS[0]}
set -e

echo "== speed (bench_gpu: Llama 3.2 1B shapes, bf16)"
set +e
"$build/tests/gpu/bench_gpu" >"$log/bench.json" 2>"$log/bench.err"
set -e
cat "$log/bench.json" "$log/bench.err"

echo "== validate on the CUDA engine (real models)"
cli=$build/app/headroom-cli
set +e
"$cli" validate --backend cuda --json --steps 3 --model meta-llama/Llama-3.2-1B --precision bf16-mixed \
  --optimizer adamw --micro-batch 1 --seq-len 2048 --attention sdpa >"$log/validate-llama-1b.json" 2>"$log/validate-llama-1b.err"
"$cli" validate --backend cuda --json --steps 3 --model meta-llama/Llama-3.1-8B --precision bf16-mixed --peft qlora \
  --weight-quant nf4-dq --lora-rank 16 --lora-targets all-linear --optimizer adamw --micro-batch 1 --seq-len 2048 \
  --attention sdpa --checkpointing full >"$log/validate-llama-8b-qlora.json" 2>"$log/validate-llama-8b-qlora.err"
"$cli" validate --backend cuda --json --steps 3 --model meta-llama/Llama-3.2-1B --precision bf16-mixed \
  --optimizer adamw --micro-batch 1 --seq-len 2048 --attention eager >"$log/validate-llama-1b-eager.json" \
  2>"$log/validate-llama-1b-eager.err"
set -e
for f in "$log"/validate-*.json; do echo "$f"; head -c 400 "$f"; echo; done

torch_status=skipped
if [[ ${TORCH_REFERENCE:-0} == 1 ]]; then
  echo "== PyTorch eager vs Headroom, step time side by side (Llama 3.2 1B, bf16 mixed, 2048 tokens)"
  set +e
  "$python" "$root/tools/reference/torch_peaks.py" --preset speed --steps 5 --headroom-run \
    --headroom-cli "$build/app/headroom-cli" --out "$log/speed.json" 2>&1 | tee "$log/speed.txt"
  set -e
  echo "== PyTorch reference"
  set +e
  "$python" "$root/tools/reference/torch_peaks.py" --preset quick --steps 3 \
    --headroom-cli "$build/app/headroom-cli" --compare --out "$log/torch.json" 2>&1 | tee "$log/torch.txt"
  torch_status=${PIPESTATUS[0]}
  set -e
fi

# The report: one JSON and one Markdown file named after the device and the date.
if ! command -v "$python" >/dev/null; then
  # No Python on the machine: keep the raw logs instead of losing them.
  raw=$out_dir/gpu-raw-$(date -u +%Y-%m-%d-%H%M%S)
  mkdir -p "$raw" && cp "$log"/* "$raw"/
  echo "gpu-check: $python not found; raw logs in $raw" >&2
  exit "$ctest_status"
fi
"$python" - "$log" "$out_dir" "$build_seconds" "$devices_status" "$ctest_status" "$torch_status" "$arch" <<'PY'
import datetime, json, os, re, subprocess, sys
log, out_dir, build_seconds, devices_status, ctest_status, torch_status, arch = sys.argv[1:8]
def read(name):
    path = os.path.join(log, name)
    return open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
try:
    devices = json.loads(read("devices.json") or "{}")
except json.JSONDecodeError:
    devices = {"status": "unparsable", "raw": read("devices.json")}
names = [d.get("name", "?") for d in devices.get("devices", [])]
device = names[0] if names else "no-device"
slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
tests = {}
for line in read("ctest.txt").splitlines():
    m = re.search(r"Test\s+#\d+:\s+(\S+)\s+\.+\**\s*(Passed|Failed|\*\*\*Skipped|Skipped|Not Run|\*\*\*Failed|\*\*\*Timeout|Exception)", line)
    if m:
        tests[m.group(1)] = m.group(2).strip("*")
try:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
except OSError:
    commit = ""
result = {
    "schema": "headroom.gpu-check/1", "date": date, "commit": commit, "device": device,
    "cuda_architectures": arch, "build_seconds": int(build_seconds),
    "devices_exit_status": int(devices_status), "devices": devices,
    "ctest_exit_status": int(ctest_status), "tests": tests,
    "torch_reference": torch_status if torch_status == "skipped" else int(torch_status),
}
try:
    result["bench"] = json.loads(read("bench.json"))
except json.JSONDecodeError:
    result["bench"] = {"error": read("bench.err").strip()}
torch_json = os.path.join(log, "torch.json")
if os.path.exists(torch_json):
    result["torch"] = json.load(open(torch_json))
speed_json = os.path.join(log, "speed.json")
if os.path.exists(speed_json):
    result["speed"] = json.load(open(speed_json))
result["validate"] = {}
for name in ("llama-1b", "llama-8b-qlora", "llama-1b-eager"):
    try:
        result["validate"][name] = json.loads(read(f"validate-{name}.json"))
    except json.JSONDecodeError:
        result["validate"][name] = {"error": read(f"validate-{name}.err").strip()}
base = os.path.join(out_dir, f"gpu-{slug}-{date}")
json.dump(result, open(base + ".json", "w"), indent=2)
with open(base + ".md", "w") as md:
    md.write(f"# GPU check: {device}, {date}\n\n")
    md.write(f"Written by `scripts/gpu-check.sh` at commit `{commit[:12]}`; CUDA architectures `{arch}`; "
             f"build of the CUDA targets {build_seconds} s.\n\n")
    if devices.get("status") == "ok":
        md.write(f"Driver {devices.get('driver')}, runtime {devices.get('runtime')}.\n\n")
        for d in devices.get("devices", []):
            md.write(f"- {d['index']}: {d['name']} (sm {d['compute_capability']}), "
                     f"{d['total_bytes'] / 2**30:.2f} GiB total, {d['free_bytes'] / 2**30:.2f} GiB free\n")
        ctx = devices.get("context", {})
        if "context_bytes" in ctx:
            md.write(f"\nCUDA context (NVML used memory before/after initialisation): "
                     f"{ctx['context_bytes'] / 2**20:.1f} MiB\n")
    else:
        md.write(f"No device: {devices.get('message', '')} {devices.get('detail', '')}\n")
    md.write("\n| test | result |\n|---|---|\n")
    for name, status in sorted(tests.items()):
        md.write(f"| {name} | {status} |\n")
    md.write(f"\n`ctest -L gpu` exit status {ctest_status}.\n")
    bench = result.get("bench", {})
    if "linear" in bench:
        md.write(f"\nbf16 GEMM, square 8192: {bench['square_8192_tflops']:.1f} TFLOP/s. "
                 "Llama 3.2 1B linear layers, 2048 tokens (fraction of that):\n\n"
                 "| layer | forward TFLOP/s | backward TFLOP/s |\n|---|---|---|\n")
        for l in bench["linear"]:
            md.write(f"| {l['name']} | {l['forward_tflops']:.1f} ({l['forward_of_peak']:.0%}) | "
                     f"{l['backward_tflops']:.1f} ({l['backward_of_peak']:.0%}) |\n")
        a = bench.get("attention_b1_t2048_h32_kv8_hd64_ms", {})
        md.write(f"\nAttention of one layer (B 1, T 2048, 32/8 heads of 64), ms: {a}\n")
    md.write("\n## headroom-cli validate --backend cuda\n\n"
             "| scenario | status | plan peak GiB | allocator peak GiB | device used GiB (plan + overheads) | "
             "step s | tokens/s |\n|---|---|---|---|---|---|---|\n")
    gib = lambda b: f"{b / 2**30:.3f}" if isinstance(b, (int, float)) else "-"
    for name, v in result["validate"].items():
        if "error" in v:
            md.write(f"| {name} | {v['error'][:80]} | | | | | |\n")
            continue
        check = v.get("device_level", {}).get("check", {})
        md.write(f"| {name} | {v.get('status')} | {gib(v['planned']['peak_bytes'])} | {gib(v['measured']['peak_bytes'])} | "
                 f"{gib(check.get('measured_bytes'))} ({gib(check.get('planned_bytes'))}) | "
                 f"{v.get('step_seconds', 0):.3f} | {v.get('tokens_per_second', 0):.0f} |\n")
    if "speed" in result:
        md.write("\n## Step time, PyTorch eager and Headroom, one run\n\n| scenario | PyTorch s | Headroom s | ratio |\n|---|---|---|---|\n")
        for e in result["speed"].get("scenarios", []):
            t = e.get("measured", {}).get("step_seconds")
            h = e.get("headroom", {}).get("step_seconds")
            r = e.get("speed_ratio_torch_over_headroom")
            md.write(f"| {e['scenario']['name']} | {t if t else '-'} | {h if h else '-'} | {f'{r:.2f}' if r else '-'} |\n")
    if "torch" in result:
        md.write("\nPyTorch reference: see the JSON file (per scenario: max allocated, max reserved, "
                 "device used, and the planner's prediction).\n")
print("wrote", base + ".md", "and", base + ".json")
PY
exit "$ctest_status"
