#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Prepares, on this machine (no GPU), what scripts/gpu-carry-run.sh runs on a
# lent GPU machine, so the device time goes to measuring, not building:
#   gpu-carry/bin   headroom-cli and the GPU tests, built for sm_90 (H100,
#                   H200) in build-cuda/ and stripped; the CUDA runtime is
#                   static, cuBLAS comes from PyTorch's nvidia/cu13 wheel there
#   gpu-carry/whl   torchtitan 0.2.2 and what its llama3 code imports that the
#                   GPU image lacks, and torchao for Float8 (tools/reference/
#                   tp_study.py --float8)
#   gpu-carry/peft  peft at the reference's pin (the image has a newer one)
# gpu-carry/ is git-ignored; the device tool carries it (carry: ["gpu-carry"]).
#   scripts/prepare-gpu-carry.sh && then, with the device tool:
#   run(command="bash scripts/gpu-carry-run.sh 2>&1 | tee $OUT/log.txt",
#       carry=["gpu-carry/bin.tar.xz", "gpu-carry/whl", "gpu-carry/peft"])
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/gpu-carry
mkdir -p "$carry/bin" "$carry/whl" "$carry/peft"
cmake -S "$root" -B "$root/build-cuda" -DCMAKE_BUILD_TYPE=Release -DHEADROOM_WITH_GUI=OFF -DHEADROOM_WITH_TESTS=ON \
  -DHEADROOM_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >/dev/null
targets=(headroom-cli cuda_host_test gpu_kernels gpu_attention gpu_optim gpu_llama_block gpu_ops gpu_step gpu_agreement bench_gpu)
cmake --build "$root/build-cuda" -j "$(nproc)" --target "${targets[@]}"
cp "$root/build-cuda/app/headroom-cli" "$carry/bin/"
for t in "${targets[@]:1}"; do cp "$root/build-cuda/tests/gpu/$t" "$carry/bin/"; done
strip "$carry/bin/"*
# The device tool carries at most 64 MiB with the working tree; the stripped
# binaries (about 48 MB) go as an xz archive (about 5 MB), which
# gpu-carry-run.sh unpacks when gpu-carry/bin is not there.
tar -C "$carry" -cJf "$carry/bin.tar.xz" bin
# The image's Python is 3.12 on x86-64; these are pure-Python wheels at the
# versions tests/libraries/requirements.txt resolves to.
pip_dl=(python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64)
"${pip_dl[@]}" -d "$carry/whl" torchtitan==0.2.2 torchdata==0.11.0 datasets==5.2.0 tyro==1.0.17 \
  docstring_parser==0.18.0 multiprocess==0.70.19 dill==0.4.1 typeguard==4.6.1
# torchao's Float8 training is Python over torch._scaled_mm; its wheel's C++
# extensions are not needed for it.
"${pip_dl[@]}" -d "$carry/whl" torchao==0.18.0
"${pip_dl[@]}" -d "$carry/peft" "$(grep '^peft==' "$root/tools/reference/requirements.txt")"
du -sh "$carry"
