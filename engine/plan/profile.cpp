// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/profile.h"

namespace headroom {

namespace {

// On an H200 (driver 580.159.04, PyTorch 2.11.0+cu130), cudaMemGetInfo's
// used less torch.cuda.max_memory_reserved() was 751 MiB with eager
// attention and 767 MiB with sdpa in all nine runs of
// tools/reference/torch_peaks.py (presets techniques and speed,
// 2026-11-25): the context, the kernels PyTorch loaded and cuBLAS's and
// cuDNN's own state. The larger is taken.
RuntimeProfile makePytorch()
{
    RuntimeProfile p;
    p.hopperContextBytes = 767 * MiB;
    return p;
}

// Headroom's own engine (issue 4 builds it): on the GPU its tensors come from
// a caching block pool (runtime/blockpool.h) that the planner's caching
// allocator simulation decides, so peak reserved is that simulation, as for
// PyTorch (the CPU engine allocates exactly and measures no reserved); norms
// keep their statistics in fp32 but save their input in the activation dtype; the loss works on logits in chunks of
// its own choosing and never upcasts the whole tensor; optimizers update in
// place without a foreach temporary and allocate their state with the weights; mixed precision keeps explicit low
// precision weight copies (counted the same way as autocast's).
RuntimeProfile makeHeadroom()
{
    RuntimeProfile p;
    p.id = Profile::Headroom;
    p.fp32NormUpcast = false;
    p.fp32LogitsUpcast = false;
    p.foreachOptimizerTemporary = false;
    p.lazyOptimizerState = false;
    p.gradientsMadeInBackward = false;
    p.gradientsAfterRecompute = false;
    p.autocastWeightCopies = true;
    p.cublasWorkspacesTraining = 1;
    // Headroom's CUDA engine on the same H200 (CUDA 13.0 runtime, static):
    // context 548 995 072 bytes (NVML used after less before cudaFree(0))
    // and its cuBLAS handles 71 303 168 (headroom-cli validate --backend cuda,
    // 2026-11-25).
    p.hopperContextBytes = 548'995'072 + 71'303'168;
    return p;
}

} // namespace

const RuntimeProfile& runtimeProfile(Profile id)
{
    static const RuntimeProfile pytorch = makePytorch();
    static const RuntimeProfile headroom = makeHeadroom();
    return id == Profile::Headroom ? headroom : pytorch;
}

} // namespace headroom
