// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A runtime profile: the framework whose behaviour a plan predicts, as data
// plus small rules (ARCHITECTURE.md, "Profiles"). Adding a profile adds a
// value of this struct; the planner's core does not change.
#include "core/checkedmath.h"
#include "plan/cachingallocator.h"
#include "plan/scenario.h"

namespace headroom {

struct RuntimeProfile {
    Profile id = Profile::Pytorch;
    // HF LlamaRMSNorm upcasts its input to fp32 and saves it (modeling_llama.py).
    bool fp32NormUpcast = true;
    // transformers ForCausalLM loss: logits.float() before cross_entropy
    // (loss/loss_utils.py ForCausalLMLoss).
    bool fp32LogitsUpcast = true;
    // torch.optim foreach implementations hold one parameter-sized temporary
    // per (device, dtype) group during step() (torch/optim/adam.py _multi_tensor_adam).
    bool foreachOptimizerTemporary = true;
    // torch.optim makes a parameter's state when step() first sees it
    // (torch/optim/adamw.py _init_group: torch.zeros_like(p) for exp_avg and
    // exp_avg_sq; bitsandbytes Optimizer8bit.init_state and transformers'
    // Adafactor likewise), so in the first step the state takes the
    // allocator's blocks after that step's forward and backward have cached
    // theirs, and the second step's large requests find the cache split
    // around it (accountant: tinyllama b8 s2048 ckpt, 20.6 GiB reserved after
    // the first step, 12.4 GiB allocated). Headroom's engine allocates its
    // state with the weights (runtime/step/trainer.cpp).
    bool lazyOptimizerState = true;
    // With accumulation, each step's gradients are made by its first
    // backward: AccumulateGrad makes a parameter's .grad when the backward
    // first reaches it (torch/csrc/autograd/functions/accumulate_grad.h), the
    // optimizer step's zero_grad having dropped the last step's
    // (TensorRow::firstAllocAt, TensorRow::freedAtZeroGrad). Headroom's engine
    // makes them all before the first micro-batch's forward
    // (runtime/step/trainer.cpp runMicroBatch: allocateGrads(Phase::Load)).
    bool gradientsMadeInBackward = true;
    // A checkpointed layer's backward reruns its forward before any of its
    // gradients exist: torch.utils.checkpoint's non-reentrant unpack hook
    // recomputes the whole layer when backward first unpacks one of its saved
    // tensors (torch/utils/checkpoint.py _checkpoint_hook), and AccumulateGrad
    // makes each .grad only when backward reaches its parameter. Its peak is
    // at the recompute, before them (accountant: llama4-text-tiny ckpt,
    // deepseek-v3-tiny ckpt), so its gradients are counted from the next event
    // (TensorRow::madeAtEventEnd). Headroom's engine makes them when the
    // layer's backward starts (runtime/step/trainer.cpp).
    bool gradientsAfterRecompute = true;
    // autocast caches low-precision copies of fp32 weights, saved for backward
    // (aten/src/ATen/autocast_mode.cpp cached_cast).
    bool autocastWeightCopies = true;
    // Allocations go through PyTorch's CUDA caching allocator: peak reserved
    // is its simulation over two steps of the tensor table (sweep.cpp,
    // plan/cachingallocator.h; c10/cuda/CUDACachingAllocator.cpp); the
    // headroom profile too, since the CUDA engine's block pool runs that
    // simulation (runtime/blockpool.h). Off: an exact allocator, reserved =
    // the live bytes.
    bool allocatorRounding = true;
    // PYTORCH_CUDA_ALLOC_CONF as the profile's framework runs it: PyTorch's
    // defaults (no max_split_size, expandable_segments off, no power-of-two
    // rounding). No capacity: the plan reports what the steps would reserve.
    CachingAllocatorOptions allocator{};
    // cuBLAS workspaces through the allocator: one per (handle, stream); the
    // autograd engine's backward thread has its own handle, so training has two
    // (aten/src/ATen/cuda/CublasHandlePool.cpp: 4096 KiB * 2 + 16 KiB * 8 by
    // default, 32 MiB on sm_90) [flag: the second handle].
    Bytes cublasWorkspaceBytes(int computeMajor) const
    {
        return computeMajor >= 9 ? 32 * MiB : 8 * MiB + 128 * KiB;
    }
    int cublasWorkspacesTraining = 2;
    int cublasWorkspacesInference = 1;
    // CUDA context plus the kernels loaded lazily by the first kernels used
    // (PyTorch PR #86509 measured 287 MB lazy vs 667 MB eager on one GPU; cuBLAS
    // and framework kernels add to it; bare contexts, before any training
    // kernel: 256 MiB on an RTX 3090 with torch 2.7.1, invoke-ai/InvokeAI#9413;
    // 426 MiB on an RTX 6000 Ada with torch 2.10, unslothai/unsloth-zoo#1053;
    // mid-run, kernels loaded, about 0.48 GiB on an RTX 4090 with torch 2.6 and
    // lazy loading: pytorch/torchchat#1341's OOM message, 22.80 GiB in use less
    // 22.10 allocated and 0.22 reserved-unallocated, an inference run).
    // An estimate off Hopper until measured there with training kernels [flag].
    Bytes contextBytes = 512 * MiB;
    // The same measured on a Hopper GPU (compute capability 9.x), 0 where not
    // measured: device used less max reserved (docs/validation/gpu-h200-2026-11-25.md).
    Bytes hopperContextBytes = 0;
    // What the plan counts outside the allocator on a card of this compute capability.
    Bytes contextBytesOn(int computeMajor) const
    {
        return computeMajor == 9 && hopperContextBytes != 0 ? hopperContextBytes : contextBytes;
    }
};

const RuntimeProfile& runtimeProfile(Profile id);

// The device bytes the caching allocator may take on a card of usableBytes:
// what the CUDA context leaves (at least one byte).
inline Bytes allocatorCapacity(Bytes usableBytes, const RuntimeProfile& profile)
{
    return usableBytes > profile.contextBytes ? usableBytes - profile.contextBytes : 1;
}

} // namespace headroom
