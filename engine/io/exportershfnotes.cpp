// SPDX-License-Identifier: GPL-3.0-or-later
// hf-python's notes: what the scenario does and TrainingArguments cannot say,
// each with the way to get it. The script writes them as comments, so no
// setting is dropped without a word.
//
// Sources: transformers trainer.py get_optimizer_cls_and_kwargs, or
// trainer_optimizer.py in newer releases (SGD takes no
// momentum from optim_args; LOMO/AdaLomo from the lomo-optim package; GaLore
// from galore-torch); PyTorch tutorial "How to save memory by fusing the
// optimizer step into the backward pass" (register_post_accumulate_grad_hook);
// torch.autograd.graph.save_on_cpu; torchtune CEWithChunkedOutputLoss;
// TrainingArguments.use_liger_kernel; accelerate mixed_precision "fp8".
#include "io/exportersinternal.h"

#include <string>
#include <vector>

namespace headroom::exportdetail {

std::vector<std::string> hfTrainingNotes(const Scenario& sc)
{
    const TrainConfig& t = sc.train;
    std::vector<std::string> notes;
    if (t.checkpointing == Checkpointing::EveryK && t.checkpointEvery > 1)
        notes.push_back("Checkpointing one layer in " + std::to_string(t.checkpointEvery) +
                        ": transformers has no per-layer switch, so gradient_checkpointing checkpoints every layer "
                        "here (less memory and more recompute than Headroom planned).");
    if (t.chunkedCrossEntropy)
        notes.push_back("Chunked cross-entropy (" + std::to_string(t.lossChunks) +
                        " chunks, torchtune CEWithChunkedOutputLoss style): compute the loss yourself in a "
                        "Trainer.compute_loss override. Liger's fused linear cross-entropy (use_liger_kernel=True) "
                        "saves similar memory with another kernel.");
    if (t.optimizerInBackward && t.optimizer != Optimizer::Lomo && t.optimizer != Optimizer::AdaLomo)
        notes.push_back("Optimizer step in backward: register "
                        "Tensor.register_post_accumulate_grad_hook per parameter (PyTorch tutorial \"How to save "
                        "memory by fusing the optimizer step into the backward pass\"), which also needs "
                        "gradient_accumulation_steps=1.");
    if (t.activationOffload)
        notes.push_back("Activation offload: run the forward inside "
                        "torch.autograd.graph.save_on_cpu(pin_memory=True) (a Trainer.compute_loss override).");
    if (t.compileLayers)
        notes.push_back("Compiled layers: Headroom planned torch.compile of each decoder layer (torchtitan's "
                        "apply_compile). TrainingArguments(torch_compile=True) compiles the whole model instead, "
                        "which is not what was planned; compile each model.model.layers[i] yourself to match.");
    if (t.compileLoss)
        notes.push_back("Compiled loss: Headroom planned torch.compile of the cross-entropy (torchtitan's compile "
                        "components \"loss\"): it keeps the 16-bit logits instead of fp32 log-probabilities. "
                        "transformers computes the loss eagerly inside the model's forward; compute it yourself with "
                        "a compiled cross-entropy (a Trainer.compute_loss override) to match.");
    if (t.optimizer == Optimizer::SgdMomentum)
        notes.push_back("SGD with momentum: optim=\"sgd\" builds torch.optim.SGD without momentum and takes none "
                        "from optim_args; pass Trainer(optimizers=(torch.optim.SGD(model.parameters(), lr=..., "
                        "momentum=0.9), None)) instead.");
    if (t.optimizer == Optimizer::Lomo || t.optimizer == Optimizer::AdaLomo)
        notes.push_back("LOMO/AdaLomo: transformers builds them from the lomo-optim package (pip install lomo-optim) "
                        "and fuses the update into backward itself.");
    if (t.optimizer == Optimizer::Galore)
        notes.push_back("GaLore: needs the galore-torch package (pip install galore-torch). Headroom projects every "
                        "linear weight of the layers and keeps the lm_head and embeddings on plain AdamW, which is "
                        "what the optim_target_modules list above selects.");
    if (t.precision == Precision::Fp8Mixed)
        notes.push_back("FP8 matmuls: launch through accelerate with "
                        "mixed_precision=\"fp8\" (Transformer Engine or torchao). bf16=True is the autocast around it.");
    if (t.precision == Precision::Fp16 && !isDeepSpeed(sc.hardware.sharding))
        notes.push_back("Pure fp16 with an fp32 master copy in the optimizer (apex O2 / DeepSpeed style): "
                        "fp16=True over fp16 weights fails in GradScaler.unscale_; "
                        "use DeepSpeed (--sharding zero1) for it.");
    if (sc.hardware.cpuOffload && !isDeepSpeed(sc.hardware.sharding) && sc.hardware.sharding != Sharding::Fsdp)
        notes.push_back("CPU offload needs DeepSpeed ZeRO or FSDP; with sharding " +
                        std::string(shardingName(sc.hardware.sharding)) + " the Trainer cannot offload.");
    if (sc.hardware.sharding == Sharding::Ddp || (sc.hardware.sharding == Sharding::None && sc.hardware.count > 1))
        notes.push_back("Data parallel: the Trainer uses DistributedDataParallel when launched with torchrun; "
                        "per_device_train_batch_size is per GPU.");
    return notes;
}

} // namespace headroom::exportdetail
