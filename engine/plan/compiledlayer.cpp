// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/compiledlayer.h"

#include <cstring>

namespace headroom {

namespace {

Error unsupported(const char* what) { return makeError(ErrorCode::UnsupportedCombination, what); }

} // namespace

std::optional<Error> checkCompiledLayers(const Scenario& sc)
{
    const TrainConfig& tc = sc.train;
    if (!tc.compileLayers || sc.mode != Mode::Train)
        return std::nullopt;
    if (sc.profile != Profile::Pytorch)
        return unsupported("train.compile: torch.compile is PyTorch's; Headroom's engine runs its own kernels");
    if (sc.model.family != Family::Llama || sc.model.isMoe())
        return unsupported("train.compile: compiled layers are planned for the Llama layout without experts "
                           "(Llama, Mistral, Qwen), as torchtitan compiles them");
    if (tc.checkpointing != Checkpointing::Full && tc.checkpointing != Checkpointing::SelectiveOps)
        return unsupported("train.compile: compiled layers are planned with full or selective-op checkpointing; "
                           "without checkpointing the partitioner's own choice of saves is not modelled yet");
    if (tc.peft.method != PeftMethod::None || tc.weightQuant != WeightQuant::None)
        return unsupported("train.compile: compiled layers are planned for full fine-tuning, not LoRA or quantized weights");
    if (tc.activationOffload)
        return unsupported("train.compile: compiled layers with activation offload are not modelled yet");
    const bool mixed = tc.precision == Precision::Bf16Mixed || tc.precision == Precision::Fp16Mixed ||
                       tc.precision == Precision::Fp8Mixed;
    if (mixed && sc.hardware.sharding != Sharding::Fsdp2)
        return unsupported("train.compile: compiled layers under autocast are not modelled yet; use fsdp2 "
                           "(MixedPrecisionPolicy, as torchtitan) or a pure 16-bit precision");
    return std::nullopt;
}

bool compiledKeepsSelectiveSave(ModuleKind kind)
{
    // The layer output is h + down_proj(...): nothing in the backward reads
    // the down projection's output (compile_study.py: the only difference in
    // what the compiled, checkpointed layer keeps).
    return kind != ModuleKind::MlpDown;
}

Bytes compiledRecomputeBytes(const char* key, Bytes eagerBytes, Bytes input16)
{
    // The normalised tensor and the activation output feed one kernel each
    // (the norm's weight multiply, the gated product), into which they fuse.
    if (std::strcmp(key, "norm1.normed") == 0 || std::strcmp(key, "norm2.normed") == 0 ||
        std::strcmp(key, "mlp.act_out") == 0)
        return 0;
    // The fp32 upcast of a 16-bit norm input is fused into the norm kernel;
    // the backward reads the 16-bit input instead. The first norm's is the
    // layer input, which the checkpoint keeps; the second's is h = x +
    // attention, recomputed (compile_study.py: the no-checkpointing compiled
    // layer keeps the o projection's output to rebuild it).
    if (input16 != 0 && std::strcmp(key, "norm1.in") == 0)
        return 0;
    if (input16 != 0 && std::strcmp(key, "norm2.in") == 0)
        return input16;
    return eagerBytes;
}

} // namespace headroom
