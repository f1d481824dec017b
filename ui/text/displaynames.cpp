// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/displaynames.h"

#include <QLocale>

using namespace headroom;

QString DisplayNames::category(Category category)
{
    switch (category) {
    case Category::Weights: return tr("Weights");
    case Category::Gradients: return tr("Gradients");
    case Category::OptimizerState: return tr("Optimizer state");
    case Category::Activations: return tr("Activations");
    case Category::Logits: return tr("Logits and loss");
    case Category::Temporaries: return tr("Temporaries");
    case Category::KvCache: return tr("KV cache");
    case Category::Workspace: return tr("Workspace");
    }
    return QString();
}

QString DisplayNames::categoryDescription(Category category)
{
    switch (category) {
    case Category::Weights:
        return tr("The model's parameters as stored on the GPU, plus the low-precision copies autocast makes of them.");
    case Category::Gradients:
        return tr("One gradient per trainable parameter, produced in backward and consumed by the optimizer step.");
    case Category::OptimizerState:
        return tr("What the optimizer keeps between steps: moments, momentum, fp32 master weights.");
    case Category::Activations:
        return tr("Tensors the forward pass saves for backward. They grow with micro-batch × sequence length; "
                  "checkpointing trades them for recomputation.");
    case Category::Logits:
        return tr("The output logits (vocabulary × tokens), their fp32 upcast in the loss, and their gradients.");
    case Category::Temporaries:
        return tr("Buffers that live within one event: backward temporaries, dequantized weights, optimizer buffers.");
    case Category::KvCache:
        return tr("Keys and values of every past token, kept for generation.");
    case Category::Workspace:
        return tr("Library workspaces (cuBLAS) allocated through the framework's allocator.");
    }
    return QString();
}

QString DisplayNames::mode(Mode mode) { return mode == Mode::Train ? tr("Training") : tr("Inference"); }

QString DisplayNames::precision(Precision precision)
{
    switch (precision) {
    case Precision::Fp32: return tr("fp32");
    case Precision::Fp16Mixed: return tr("fp16 mixed precision");
    case Precision::Bf16Mixed: return tr("bf16 mixed precision");
    case Precision::Bf16: return tr("pure bf16");
    case Precision::Fp16: return tr("pure fp16");
    case Precision::Fp8Mixed: return tr("fp8 mixed precision");
    }
    return QString();
}

QString DisplayNames::weightQuant(WeightQuant quant)
{
    switch (quant) {
    case WeightQuant::None: return tr("None (16/32-bit)");
    case WeightQuant::Int8: return tr("int8 (LLM.int8)");
    case WeightQuant::Nf4: return tr("NF4 (4-bit)");
    case WeightQuant::Nf4DoubleQuant: return tr("NF4 + double quantization");
    }
    return QString();
}

QString DisplayNames::optimizer(Optimizer optimizer)
{
    switch (optimizer) {
    case Optimizer::Sgd: return tr("SGD");
    case Optimizer::SgdMomentum: return tr("SGD with momentum");
    case Optimizer::AdamW: return tr("AdamW");
    case Optimizer::AdamW8bit: return tr("8-bit AdamW");
    case Optimizer::PagedAdamW8bit: return tr("Paged 8-bit AdamW");
    case Optimizer::Lion: return tr("Lion");
    case Optimizer::Adafactor: return tr("Adafactor");
    case Optimizer::Lomo: return tr("LOMO");
    case Optimizer::AdaLomo: return tr("AdaLomo");
    case Optimizer::Galore: return tr("GaLore");
    }
    return QString();
}

QString DisplayNames::peftMethod(PeftMethod method)
{
    switch (method) {
    case PeftMethod::None: return tr("None (full fine-tuning)");
    case PeftMethod::Lora: return tr("LoRA");
    case PeftMethod::Qlora: return tr("QLoRA");
    }
    return QString();
}

QString DisplayNames::checkpointing(Checkpointing checkpointing)
{
    switch (checkpointing) {
    case Checkpointing::None: return tr("Off");
    case Checkpointing::Full: return tr("Every layer");
    case Checkpointing::EveryK: return tr("Every k-th layer");
    case Checkpointing::SelectiveOps: return tr("Selective, op level (torchtitan)");
    }
    return QString();
}

QString DisplayNames::attention(Attention attention)
{
    switch (attention) {
    case Attention::Eager: return tr("Eager");
    case Attention::Sdpa: return tr("SDPA");
    case Attention::Flash: return tr("FlashAttention 2");
    }
    return QString();
}

QString DisplayNames::trainingLoop(TrainingLoop loop)
{
    switch (loop) {
    case TrainingLoop::Trainer: return tr("Trainer: outputs freed before backward");
    case TrainingLoop::Custom: return tr("Custom loop: outputs kept until the next step");
    }
    return QString();
}

QString DisplayNames::useCache(UseCache useCache)
{
    switch (useCache) {
    case UseCache::ConfigDefault: return tr("As the model's config says");
    case UseCache::On: return tr("On");
    case UseCache::Off: return tr("Off");
    }
    return QString();
}

QString DisplayNames::modelHead(ModelHead head)
{
    switch (head) {
    case ModelHead::LanguageModel: return tr("Language model (masked LM for BERT)");
    case ModelHead::SequenceClassification: return tr("Sequence classification");
    }
    return QString();
}

QString DisplayNames::sharding(Sharding sharding)
{
    switch (sharding) {
    case Sharding::None: return tr("None (one GPU)");
    case Sharding::Ddp: return tr("DDP (replicated)");
    case Sharding::Zero1: return tr("ZeRO-1 (optimizer state)");
    case Sharding::Zero2: return tr("ZeRO-2 (+ gradients)");
    case Sharding::Zero3: return tr("ZeRO-3 (+ parameters)");
    case Sharding::Fsdp: return tr("FSDP (full shard)");
    case Sharding::Fsdp2: return tr("FSDP2 (per-parameter shards)");
    }
    return QString();
}

QString DisplayNames::profile(Profile profile)
{
    return profile == Profile::Pytorch ? tr("PyTorch eager") : tr("Headroom engine");
}

QString DisplayNames::profileDescription(Profile profile)
{
    return profile == Profile::Pytorch
               ? tr("Predicts PyTorch eager with the transformers, PEFT and bitsandbytes conventions: "
                    "fp32 logits in the loss, allocator rounding, cuBLAS workspaces, CUDA context.")
               : tr("Predicts Headroom's own engine: exactly the tensors of the table, nothing added.");
}

QString DisplayNames::kvCacheDtype(KvCacheDtype dtype)
{
    switch (dtype) {
    case KvCacheDtype::Fp32: return tr("fp32");
    case KvCacheDtype::Fp16: return tr("fp16");
    case KvCacheDtype::Bf16: return tr("bf16");
    case KvCacheDtype::Fp8: return tr("fp8");
    case KvCacheDtype::Int8: return tr("int8");
    }
    return QString();
}

QString DisplayNames::phase(Phase phase)
{
    switch (phase) {
    case Phase::Load: return tr("load");
    case Phase::EmbedFwd: return tr("embedding forward");
    case Phase::LayerFwd: return tr("forward");
    case Phase::HeadFwd: return tr("head forward");
    case Phase::LossFwd: return tr("loss forward");
    case Phase::LossBwd: return tr("loss backward");
    case Phase::HeadBwd: return tr("head backward");
    case Phase::LayerBwd: return tr("backward");
    case Phase::EmbedBwd: return tr("embedding backward");
    case Phase::OptimizerStep: return tr("optimizer step");
    case Phase::Decode: return tr("decode");
    }
    return QString();
}

QString DisplayNames::event(const Event& event)
{
    if (event.layer < 0)
        return phase(event.phase);
    //: %1 is "forward" or "backward", %2 the layer index
    return tr("%1 layer %2").arg(phase(event.phase)).arg(event.layer);
}

QString DisplayNames::layerSet(LayerSet set)
{
    switch (set) {
    case LayerSet::Global: return tr("once");
    case LayerSet::All: return tr("each layer");
    case LayerSet::Checkpointed: return tr("checkpointed layers");
    case LayerSet::Plain: return tr("kept layers");
    case LayerSet::SlidingPlain: return tr("kept sliding-window layers");
    }
    return QString();
}

QString DisplayNames::ladderStep(TechniqueId id, const std::string& engineLabel)
{
    switch (id) {
    case TechniqueId::NaiveFp16: return tr("Full fine-tune, fp16 mixed, AdamW, eager attention");
    case TechniqueId::Fp32: return tr("Precision fp32");
    case TechniqueId::Fp16Mixed: return tr("Precision fp16 mixed");
    case TechniqueId::Bf16Mixed: return tr("Precision bf16 mixed");
    case TechniqueId::Bf16: return tr("Pure bf16");
    case TechniqueId::Checkpointing: return tr("+ gradient checkpointing");
    case TechniqueId::Flash: return tr("+ FlashAttention");
    case TechniqueId::Sdpa: return tr("+ SDPA attention");
    case TechniqueId::ChunkedCe: return tr("+ chunked cross-entropy");
    case TechniqueId::AdamW8bit: return tr("Optimizer 8-bit AdamW");
    case TechniqueId::PagedAdamW8bit: return tr("Optimizer paged 8-bit AdamW");
    case TechniqueId::Lion: return tr("Optimizer Lion");
    case TechniqueId::Adafactor: return tr("Optimizer Adafactor");
    case TechniqueId::Lomo: return tr("Optimizer LOMO");
    case TechniqueId::Lora: return tr("+ LoRA");
    case TechniqueId::Qlora: return tr("+ QLoRA (NF4 base)");
    case TechniqueId::MicroBatch1: return tr("Micro-batch 1");
    default: break;
    }
    return QString::fromStdString(engineLabel);
}

QString DisplayNames::parameterCount(double parameters)
{
    const QLocale locale;
    if (parameters >= 1e9)
        //: billions of parameters
        return tr("%1 B").arg(locale.toString(parameters / 1e9, 'f', 2));
    if (parameters >= 1e6)
        //: millions of parameters
        return tr("%1 M").arg(locale.toString(parameters / 1e6, 'f', 1));
    return locale.toString(parameters, 'f', 0);
}
