// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/errortext.h"

#include <QRegularExpression>

#include <functional>
#include <vector>

using headroom::ErrorCode;

namespace {

// One phrasing the engine produces: a pattern over its English text and the
// translated sentence built from the captured numbers and names. The
// patterns quote the engine's strings (engine/plan/planner.cpp validate()
// and makePlan(), engine/plan/modelstaterows.cpp, engine/io/exportersdist.cpp); test_ui_exports checks that
// what the engine emits today is matched.
struct Phrase {
    QRegularExpression pattern;
    std::function<QString(const QRegularExpressionMatch&)> text;
};

QRegularExpression anchored(const char* pattern)
{
    return QRegularExpression(QLatin1Char('^') + QLatin1String(pattern) + QLatin1Char('$'));
}

// A config.json refusal read from a file names the file first (its first
// capture, empty for text): the translated sentence keeps it.
QString afterPath(const QRegularExpressionMatch& m, const QString& text)
{
    return m.captured(1).isEmpty() ? text : QStringLiteral("%1: %2").arg(m.captured(1), text);
}

const std::vector<Phrase>& notePhrases()
{
    static const std::vector<Phrase> phrases = {
        {anchored(
             R"((.+) has no native bf16: PyTorch emulates it slowly or refuses; fp16-mixed is the usual choice\.)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("%1 has no native bf16: PyTorch emulates it slowly or refuses; fp16 mixed precision is the usual choice.")
                 .arg(m.captured(1));
         }},
        {anchored(R"((.+) has no fp8 tensor cores \(needs compute capability 8\.9 or newer\)\.)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("%1 has no fp8 tensor cores (they need compute capability 8.9 or newer).").arg(m.captured(1));
         }},
        {anchored(
             R"(Paged 8-bit AdamW: optimizer state lives in CUDA managed memory, outside torch's allocator counters but on the device while resident\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Paged 8-bit AdamW: the optimizer state lives in CUDA managed memory, outside PyTorch's allocator counters but on the GPU while resident.");
         }},
        {anchored(
             R"(Llama 4: every layer is planned alike, with RoPE and the q/k L2 norm; the layers without RoPE \(their query temperature scaling\) and chunked attention's mask are not modelled\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Llama 4: every layer is planned alike, with RoPE and the q/k L2 norm; the layers "
                                  "without RoPE (their query temperature scaling) and chunked attention's mask are not "
                                  "modelled.");
         }},
        {anchored(
             R"(DeepSeek-V3: its (\d+) dense first layers and (\d+) mixture-of-experts layers are planned each as transformers runs them, with multi-head latent attention on the memory-efficient kernel; checked against PyTorch on the meta device and on one H200 \(a small configuration within 0\.9 %, torchtitan's 16B ranks within 0\.2 % of peak allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not modelled\)\.)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 dense layers, %2 mixture-of-experts layers
             return ErrorText::tr("DeepSeek-V3: its %1 dense first layers and %2 mixture-of-experts layers are planned "
                                  "each as transformers runs them, with multi-head latent attention on the "
                                  "memory-efficient kernel; checked against PyTorch on the meta device and on one "
                                  "H200 (a small configuration within 0.9 %, torchtitan's 16B ranks within 0.2 % of "
                                  "peak allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not "
                                  "modelled).")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(
             R"(DeepSeek-V3: its (\d+) mixture-of-experts layers are planned each as transformers runs them, with multi-head latent attention on the memory-efficient kernel; checked against PyTorch on the meta device and on one H200 \(a small configuration within 0\.9 %, torchtitan's 16B ranks within 0\.2 % of peak allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not modelled\)\.)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 mixture-of-experts layers (a pipeline stage without dense layers)
             return ErrorText::tr("DeepSeek-V3: its %1 mixture-of-experts layers are planned each as transformers runs "
                                  "them, with multi-head latent attention on the memory-efficient kernel; checked "
                                  "against PyTorch on the meta device and on one H200 (a small configuration within "
                                  "0.9 %, torchtitan's 16B ranks within 0.2 % of peak allocated; the output copy of "
                                  "cuDNN attention, which sm_90 GPUs run, is not modelled).")
                 .arg(m.captured(1));
         }},
        {anchored(R"(Weighted pipeline split \(torchtitan generate_llm_fqn_per_model_part\): the embedding and the output each count as one layer; the stages hold ([0-9, ]+) decoder layers\.)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the decoder layers of each (virtual) stage in order, e.g. "3, 4, 4, 2"
             return ErrorText::tr("Weighted pipeline split (torchtitan's generate_llm_fqn_per_model_part): the "
                                  "embedding and the output each count as one layer; the stages hold %1 decoder "
                                  "layers.")
                 .arg(m.captured(1));
         }},
        {anchored(R"(ZeRO-3 with CPU offload: parameters live on the CPU; only gathered layers occupy the GPU\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("ZeRO-3 with CPU offload: the parameters live on the CPU; only the gathered layers occupy the GPU.");
         }},
        {anchored(
             R"(FSDP2 with CPU offload: the sharded parameters, gradients and optimizer state live in pinned CPU memory; the GPU holds the gathered layers, each layer's shard while it is gathered and its gradient shard until the copy back \(read from PyTorch's source, not measured\)\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr(
                 "FSDP2 with CPU offload: the sharded parameters, gradients and optimizer state live in pinned "
                 "CPU memory; the GPU holds the gathered layers, each layer's shard while it is gathered and its "
                 "gradient shard until it is copied back (read from PyTorch's source, not measured).");
         }},
        {anchored(
             R"(FSDP with CPU offload \(offload_params\): the sharded parameters, their gradients and the optimizer state live in CPU memory; the GPU holds the gathered units and each unsharded gradient until its reduce-scatter \(read from PyTorch's source, not measured\)\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr(
                 "FSDP with CPU offload (offload_params): the sharded parameters, their gradients and the optimizer "
                 "state live in CPU memory; the GPU holds the gathered units and each unsharded gradient until its "
                 "reduce-scatter (read from PyTorch's source, not measured).");
         }},
        {anchored(R"(CPU offload: optimizer state and fp32 master weights are held in CPU memory\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("CPU offload: the optimizer state and the fp32 master weights are held in CPU memory.");
         }},
        {anchored(
             R"(NCCL: (\d+) communicators? per GPU, about (.+) of buffers outside the caching allocator \(544 MB for two ranks, 688 MB for more, measured on 4 A100s: NVIDIA/nccl#964; an estimate on other GPUs\)\.)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("NCCL: %1 communicator(s) per GPU, about %2 of buffers outside PyTorch's caching allocator "
                                  "(544 MB for two ranks, 688 MB for more, measured on 4 A100s: NVIDIA/nccl#964; an estimate on other GPUs).")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(
             R"(Experts are not quantized: transformers quantizes nn\.Linear layers only, and keeps the experts as 3-D parameters, which prepare_model_for_kbit_training then casts to fp32 \((.+) here\)\.)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The experts are not quantized: transformers quantizes nn.Linear layers only and "
                                  "keeps the experts as "
                                  "3-D parameters, which prepare_model_for_kbit_training then casts to fp32 (%1 here).")
                 .arg(m.captured(1));
         }},
        {anchored(R"(Tensor parallelism with eager Float8 layers: each layer's forward is planned as the bf16 layers' measured sequence plus Float8's casts, which no run has measured in that sequence \(compiled Float8 layers were, on an H200\); peak reserved may be off by a few percent\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Tensor parallelism with eager Float8 layers: each layer's forward is planned as the "
                                  "bf16 layers' measured sequence plus Float8's casts, which no run has measured in "
                                  "that sequence (compiled Float8 layers were, on an H200); peak reserved may be off "
                                  "by a few percent.");
         }},
        {anchored(R"(FSDP with LoRA or QLoRA: each gathered layer is planned as its stored weights \(4-bit packed for QLoRA\) and only the adapters get gradients; no run has checked it \(PEFT's documented 70B run on 2 GPUs states neither its counter nor its unit\)\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("FSDP with LoRA or QLoRA: each gathered layer is planned as its stored weights "
                                  "(4-bit packed for QLoRA) and only the adapters get gradients; no run has checked "
                                  "it (PEFT's documented 70B run on 2 GPUs states neither its counter nor its unit).");
         }},
        // The validation's own notes (runtime/validate.cpp, cuda/cudabackend.cpp).
        {anchored(R"(planned with the headroom profile \(the engine's own program\), not the scenario's (\S+) profile)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the scenario's runtime profile (pytorch, deepspeed...)
             return ErrorText::tr("planned with the headroom profile (the engine's own program), not the scenario's "
                                  "%1 profile")
                 .arg(m.captured(1));
         }},
        {anchored(R"(other processes used (\d+) MiB of the device before this run; they are left out of the device-used figure)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("other processes used %1 MiB of the device before this run; they are left out of the "
                                  "device-used figure")
                 .arg(m.captured(1));
         }},
        {anchored(R"(planned and measured agree to the byte at every event, per category and per tensor row)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("planned and measured agree to the byte at every event, per category and per tensor "
                                  "row");
         }},
        {anchored(R"(LoRA all-linear leaves the experts alone, as peft 0\.18\.1 does; peft 0\.21 adapts them too and holds a copy of each layer's expert weights in its forward \(measured: \+7\.3 % on Mixtral 8x7B\)\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("LoRA all-linear leaves the experts alone, as peft 0.18.1 does; peft 0.21 adapts them "
                                  "too and holds a copy of each layer's expert weights in its forward (measured: +7.3 % "
                                  "on Mixtral 8x7B).");
         }},
        {anchored(R"(gpt-oss has no sdpa attention in transformers \(attention sinks\): planned with its eager attention, transformers' default for it\.)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("gpt-oss has no SDPA attention in transformers (it uses attention sinks): planned with its "
                                  "eager attention, transformers' default for it.");
         }},
        {anchored(R"(Sequence length exceeds the model's max_position_embeddings \((\d+)\)\.)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The sequence length exceeds the model's maximum position embeddings (%1).").arg(m.captured(1));
         }},
    };
    return phrases;
}

const std::vector<Phrase>& detailPhrases()
{
    static const std::vector<Phrase> phrases = {
        {anchored(R"(QLoRA trains adapters over a 4-bit base.*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("QLoRA trains adapters over a 4-bit base: choose NF4 weight quantization.");
         }},
        {anchored(R"(quantized weights cannot be trained directly.*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Quantized weights cannot be trained directly: choose LoRA or QLoRA, or no weight quantization.");
         }},
        {anchored(R"(GaLore projects full-parameter gradients.*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("GaLore projects full-parameter gradients: it does not combine with LoRA or QLoRA.");
         }},
        {anchored(R"(bitsandbytes quantized weights are not sharded by ZeRO-3.*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Quantized (bitsandbytes) weights are not sharded by ZeRO-3: choose another sharding.");
         }},
        {anchored(R"(LoRA targets match no linear layer of this model: ?(.*))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 lists the requested module names
             return ErrorText::tr("The chosen LoRA target modules (%1) match no linear layer of this model.").arg(m.captured(1));
         }},
        {anchored(R"(([a-z_.]+): must be between (\d+) and (\d+), got (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 an input's name, %2 and %3 the bounds, %4 the value given
             return ErrorText::tr("%1 must be between %2 and %3; it is %4.")
                 .arg(ErrorText::fieldName(m.captured(1)), m.captured(2), m.captured(3), m.captured(4));
         }},
        {anchored(
             R"(model: layers, hidden size, heads, KV heads, head dim, MLP width and vocabulary must all be positive)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("The model's layers, hidden size, heads, KV heads, head size, MLP width and vocabulary must all be positive.");
         }},
        {anchored(R"(inference\.precision: must be fp32, fp16 or bf16 for inference weights, got (.+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("Inference weights must be fp32, fp16 or bf16, not %1.").arg(m.captured(1));
         }},
        {anchored(R"(train\.peft\.alpha: must be above 0 and at most 1e6)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("LoRA alpha must be above 0 and at most 1,000,000.");
         }},
        {anchored(R"(train\.peft\.dropout: must be in \[0, 1\))"),
         [](const QRegularExpressionMatch&) { return ErrorText::tr("LoRA dropout must be at least 0 and below 1."); }},
        {anchored(R"((deepspeed-json|accelerate-fsdp-yaml|megatron-args|torchtitan-toml) configures training; the scenario is inference)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The %1 export configures training; this scenario is inference.").arg(m.captured(1));
         }},
        {anchored(R"(the plan has no events to export)"),
         [](const QRegularExpressionMatch&) { return ErrorText::tr("The plan has no events to export."); }},
        // The layout search (engine/plan/layoutsearch.cpp searchLayouts()) and
        // the refusals of parallel layouts it reports most often
        // (engine/plan/parallel.cpp parallelLayout()).
        {anchored(R"(mode: the layout search plans training steps; the scenario is inference)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("The layout search plans training steps; this scenario is inference.");
         }},
        {anchored(
             R"(hardware\.gpu: (.+) has no published dense bf16 \(or fp16\) peak in the catalog, so the search cannot estimate step times)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The catalog has no published dense bf16 (or fp16) peak for %1, so the search cannot "
                                  "estimate step times.")
                 .arg(m.captured(1));
         }},
        {anchored(
             R"(train\.global_batch: (\d+) sequences do not divide by the data-parallel degree of any layout of (\d+) GPUs \(([\d, ]+)\)(?: that the planner accepts)?)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 sequences, %2 GPUs, %3 the data-parallel degrees tried
             return ErrorText::tr("A global batch of %1 sequences does not divide by the data-parallel degree of any "
                                  "layout of %2 GPUs (%3): choose a global batch that one of them divides.")
                 .arg(m.captured(1), m.captured(2), m.captured(3));
         }},
        // A mixture-of-experts config whose every layer is dense
        // (model/configreader.h setDenseLayers: Qwen3-MoE, Llama 4), read from
        // a file (its path first) or from text.
        {anchored(R"re((?:(.+?): )?(.+) make every one of the (\d+) layers dense: no layer would be sparse; import it as a dense "(\w+)" model)re"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the config.json fields, %2 the layer count, %3 a dense model type (qwen3, llama)
             return afterPath(m, ErrorText::tr("%1 make all %2 layers dense: no layer is a mixture-of-experts layer. "
                                                "Import it as a dense \"%3\" model.")
                                      .arg(m.captured(2), m.captured(3), m.captured(4)));
         }},
        // DeepSeek-V3's group-limited router (model/hfconfigdeepseek.cpp): a
        // config its first forward would fail on.
        {anchored(R"re((?:(.+?): )?"n_routed_experts" (\d+) is not divisible by "n_group" (\d+))re"),
         [](const QRegularExpressionMatch& m) {
             //: %1 routed experts, %2 expert groups (DeepSeek-V3's n_group)
             return afterPath(m, ErrorText::tr("The %1 routed experts do not divide into %2 groups (n_group).")
                                      .arg(m.captured(2), m.captured(3)));
         }},
        {anchored(R"re((?:(.+?): )?"n_group" (\d+) leaves fewer than 2 of the (\d+) routed experts in a group.*)re"),
         [](const QRegularExpressionMatch& m) {
             //: %1 expert groups (n_group), %2 routed experts
             return afterPath(m, ErrorText::tr("%1 groups (n_group) leave fewer than 2 of the %2 routed experts in a "
                                               "group; the router scores each group by its best two.")
                                     .arg(m.captured(2), m.captured(3)));
         }},
        {anchored(R"re((?:(.+?): )?"topk_group" (\d+) exceeds "n_group" (\d+))re"),
         [](const QRegularExpressionMatch& m) {
             //: %1 groups a token keeps (topk_group), %2 expert groups (n_group)
             return afterPath(m, ErrorText::tr("A token keeps %1 expert groups (topk_group), more than the %2 there are (n_group).")
                                      .arg(m.captured(2), m.captured(3)));
         }},
        {anchored(R"re((?:(.+?): )?"num_experts_per_tok" (\d+) exceeds the experts of the "topk_group" groups a token keeps \((\d+)\))re"),
         [](const QRegularExpressionMatch& m) {
             //: %1 experts per token, %2 experts in the groups a token keeps
             return afterPath(m, ErrorText::tr("%1 experts per token is more than the %2 experts of the groups a token "
                                                "keeps (topk_group).")
                                      .arg(m.captured(2), m.captured(3)));
         }},
        // Expert parallelism (engine/plan/parallel.cpp expertParallelChecks).
        {anchored(R"(hardware\.parallel\.ep: expert parallelism splits the routed experts of a mixture-of-experts model; (.+) has none)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model family (llama, gemma...)
             return ErrorText::tr("Expert parallelism splits the routed experts of a mixture-of-experts model; this "
                                  "%1 model has none.").arg(m.captured(1));
         }},
        {anchored(R"(hardware\.parallel\.ep: (\d+) routed experts do not divide by ep (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 routed experts, %2 the expert-parallel degree
             return ErrorText::tr("The %1 routed experts do not divide by the expert-parallel degree %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.ep: etp (\d+) x ep (\d+) must divide the GPUs of a pipeline stage, tp x cp x dp = (\d+) .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 expert tensor-parallel degree, %2 expert-parallel degree, %3 GPUs of one pipeline stage
             return ErrorText::tr("Expert tensor parallelism %1 times expert parallelism %2 must divide the %3 GPUs of "
                                  "a pipeline stage (tensor x context x data parallel): Megatron-LM lays the experts "
                                  "over the same GPUs as the other layers.")
                 .arg(m.captured(1), m.captured(2), m.captured(3));
         }},
        {anchored(R"(hardware\.parallel\.etp: expert tensor parallelism splits the routed experts of a mixture-of-experts model; (.+) has none)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model family (llama, gemma...)
             return ErrorText::tr("Expert tensor parallelism splits the routed experts of a mixture-of-experts model; "
                                  "this %1 model has none.").arg(m.captured(1));
         }},
        {anchored(R"(hardware\.parallel\.etp: the expert width (\d+) does not divide by etp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the experts' intermediate width, %2 the expert tensor-parallel degree
             return ErrorText::tr("The expert width %1 does not divide by expert tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.sp: Megatron-LM trains mixture-of-experts layers under tensor parallelism with sequence parallelism only .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Megatron-LM trains mixture-of-experts layers under tensor parallelism only with "
                                  "sequence parallelism; turn sequence parallelism on.");
         }},
        {anchored(R"(train\.optimizer_impl: (\S+) applies to torch\.optim's AdamW and SGD; (\S+) has its own step)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the step implementation (fused, for-loop), %2 an optimizer name
             return ErrorText::tr("The %1 step applies to torch.optim's AdamW and SGD; %2 has its own.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.ep: expert parallelism together with tensor parallelism under FSDP2 .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Expert parallelism together with tensor parallelism under FSDP2 (torchtitan's "
                                  "expert tensor parallelism) is not modelled yet; without expert parallelism the "
                                  "experts are split over the tensor-parallel GPUs.");
         }},
        {anchored(R"(hardware\.parallel\.etp: under FSDP2 with ep 1 torchtitan splits each expert over the tp GPUs \(TensorParallel\), so etp must be tp \((\d+)\), got (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the tensor-parallel degree, %2 the expert tensor-parallel degree asked for
             return ErrorText::tr("Under FSDP2 without expert parallelism torchtitan splits each expert over the %1 "
                                  "tensor-parallel GPUs: expert tensor parallelism must be %1, not %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.tp: Llama 4 under tensor parallelism with FSDP2 is not modelled yet .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Llama 4 under tensor parallelism with FSDP2 is not modelled yet: transformers runs "
                                  "every expert on every token.");
         }},
        {anchored(R"(hardware\.parallel\.tp: the expert width (\d+) does not divide by tp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the experts' intermediate width, %2 the tensor-parallel degree
             return ErrorText::tr("The expert width %1 does not divide by tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(train\.moe: capacity factors and routing imbalance apply to mixture-of-experts models; (.+) has no experts)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 a model family (llama, gemma...)
             return ErrorText::tr("Capacity factors and routing imbalance apply to mixture-of-experts models; this %1 "
                                  "model has no experts.").arg(m.captured(1));
         }},
        {anchored(R"(train\.moe: capacity factors and routing imbalance are planned as Megatron-LM's token dispatcher runs them, .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Capacity factors and routing imbalance are planned as Megatron-LM's token "
                                  "dispatcher runs them: with tensor, pipeline or expert parallelism above 1 and DDP "
                                  "or the distributed optimizer (ZeRO-1).");
         }},
        {anchored(R"(train\.moe\.pad_to_capacity: padding to capacity needs a capacity factor .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Padding the experts' input to capacity needs a capacity factor.");
         }},
        {anchored(R"(train\.moe\.imbalance: ([0-9.e+]+) is more than the busiest expert-parallel rank can receive, .* = ([0-9.e+]+))"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the imbalance asked for, %2 the most one GPU can receive (a ratio)
             return ErrorText::tr("A routing imbalance of %1 is more than the busiest expert-parallel GPU can receive: "
                                  "at most %2 times the even share.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.ep: (\d+) must divide torchtitan's dp_shard x cp x tp = (\d+) under FSDP2 .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 the expert-parallel degree, %2 torchtitan's dp_shard x cp x tp
             return ErrorText::tr("Under FSDP2 the expert-parallel degree %1 must divide torchtitan's dp_shard × cp × "
                                  "tp = %2, the experts' region (HSDP's replicate groups are not part of it).")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.ep: expert parallelism is planned as Megatron-LM runs it: .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Expert parallelism is planned as Megatron-LM runs it: full fine-tuning in bf16 or "
                                  "fp16 mixed precision or fp32, AdamW or SGD, with DDP or the distributed optimizer "
                                  "(ZeRO-1) and no CPU offload; or as torchtitan runs it, under FSDP2.");
         }},
        {anchored(R"(no layout of (\d+) GPUs plans: (.+))"),
         [](const QRegularExpressionMatch& m) {
             const QString reason = ErrorText::knownDetail(m.captured(2).toStdString());
             return ErrorText::tr("No layout of %1 GPUs plans: %2")
                 .arg(m.captured(1), reason.isEmpty() ? m.captured(2) : reason);
         }},
        {anchored(
             R"(train\.peft: LoRA, QLoRA and quantized weights are not planned with tensor or pipeline parallelism yet)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("LoRA, QLoRA and quantized weights are not planned with tensor or pipeline "
                                  "parallelism yet.");
         }},
        {anchored(R"(hardware\.parallel\.tp: (\d+) attention heads do not divide by tp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The %1 attention heads do not divide by tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.tp: (\d+) KV heads do not divide by tp (\d+) .*)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The %1 KV heads do not divide by tensor parallelism %2 (replicating KV heads is "
                                  "not modelled).")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.tp: the MLP width (\d+) does not divide by tp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The MLP width %1 does not divide by tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.tp: the shared experts' width (\d+) does not divide by tp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The shared experts' width %1 does not divide by tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(R"(hardware\.parallel\.tp: the dense layers' MLP width (\d+) does not divide by tp (\d+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("The dense layers' MLP width %1 does not divide by tensor parallelism %2.")
                 .arg(m.captured(1), m.captured(2));
         }},
        {anchored(
             R"(hardware\.parallel\.tp: tensor parallelism is planned for Llama-layout models \(Llama, Mistral, Qwen, Gemma, Phi-3, Mixtral, Qwen3-MoE, gpt-oss, Llama 4\) and DeepSeek-V3; got (.+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("Tensor parallelism is planned for Llama-layout models (Llama, Mistral, Qwen, "
                                  "Gemma, Phi-3, Mixtral, Qwen3-MoE, gpt-oss, Llama 4) and DeepSeek-V3, not %1.")
                 .arg(m.captured(1));
         }},
        {anchored(
             R"(model: tensor and pipeline parallelism are planned for decoder language models without a vision tower; got (.+))"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("Tensor and pipeline parallelism are planned for decoder language models without a "
                                  "vision tower, not %1.")
                 .arg(m.captured(1));
         }},
        {anchored(R"(op-level selective checkpointing with QLoRA \(bitsandbytes' 4-bit matmuls\) is not modelled yet)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Op-level selective checkpointing with QLoRA (bitsandbytes' 4-bit matrix products) "
                                  "is not modelled yet.");
         }},
        // Interleaved pipelines (engine/plan/parallel.cpp parallelLayout(), vpp > 1).
        {anchored(R"(hardware\.parallel\.vpp: (\d+) virtual stages per rank need pipeline parallelism; pp is 1)"),
         [](const QRegularExpressionMatch& m) {
             return ErrorText::tr("%1 virtual stages need pipeline parallelism: set more than one pipeline stage.")
                 .arg(m.captured(1));
         }},
        {anchored(
             R"(hardware\.parallel\.vpp: (\d+) layers do not divide by pp (\d+) x vpp (\d+) = (\d+) model chunks .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 layers, %2 pipeline stages, %3 virtual stages, %4 = %2 x %3
             return ErrorText::tr(
                        "The %1 layers do not divide into %4 model chunks (%2 pipeline stages × %3 virtual "
                        "stages), which Megatron-LM requires; FSDP2 sharding plans torchtitan's uneven split.")
                 .arg(m.captured(1), m.captured(2), m.captured(3), m.captured(4));
         }},
        {anchored(R"(hardware\.parallel\.pp_return_outputs: .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("The outputs a pipeline schedule returns are planned for torch's pipeline schedules "
                                  "as torchtitan runs them: more than one pipeline stage and FSDP2 sharding.");
         }},
        // torchtitan's weighted pipeline split (parallel.cpp weightedSplit).
        {anchored(R"(hardware\.parallel\.pp_split: the weighted split is torchtitan's, planned under sharding fsdp2; .*)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("The weighted pipeline split (the embedding and the output each counted as a layer) "
                                  "is torchtitan's and is planned under FSDP2 sharding; Megatron-LM's stages split "
                                  "the layers alone.");
         }},
        {anchored(R"(hardware\.parallel\.pp_split: weighted: (\d+) layers with the embedding and the output as one layer each are (\d+) over (\d+) stages, .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 decoder layers, %2 = %1 + 2, %3 pipeline stages (virtual stages included)
             return ErrorText::tr("The weighted split puts %1 layers, with the embedding and the output counted as "
                                  "one layer each (%2), over %3 stages: fewer than two a stage, so the first or the "
                                  "last stage would hold no layer. Use fewer stages or the layers-only split.")
                 .arg(m.captured(1), m.captured(2), m.captured(3));
         }},
        {anchored(
             R"(train\.grad_accum: (\d+) micro-batches do not divide by pp (\d+); the interleaved schedule \(vpp (\d+)\) .*)"),
         [](const QRegularExpressionMatch& m) {
             //: %1 micro-batches (gradient accumulation), %2 pipeline stages, %3 virtual stages
             return ErrorText::tr("With %3 virtual stages (interleaved 1F1B) the %1 micro-batches (gradient "
                                  "accumulation) must divide by the %2 pipeline stages.")
                 .arg(m.captured(1), m.captured(2), m.captured(3));
         }},
        {anchored(
             R"(profile: Headroom's engine runs one GPU; plan tensor and pipeline parallelism with the pytorch profile)"),
         [](const QRegularExpressionMatch&) {
             return ErrorText::tr("Headroom's own engine runs one GPU: plan tensor and pipeline parallelism with the "
                                  "PyTorch profile.");
         }},
    };
    return phrases;
}

QString lookUp(const std::vector<Phrase>& phrases, const std::string& text)
{
    const QString english = QString::fromStdString(text);
    for (const Phrase& phrase : phrases) {
        const QRegularExpressionMatch match = phrase.pattern.match(english);
        if (match.hasMatch())
            return phrase.text(match);
    }
    return QString();
}

} // namespace

QString ErrorText::summary(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return tr("A value is out of range.");
    case ErrorCode::UnknownModel: return tr("This model is not in the catalog.");
    case ErrorCode::UnknownModelType: return tr("This model type is not supported.");
    case ErrorCode::UnknownGpu: return tr("This GPU is not in the catalog.");
    case ErrorCode::MalformedJson: return tr("The file is not valid JSON.");
    case ErrorCode::MissingField: return tr("A required field is missing or has the wrong type.");
    case ErrorCode::FileNotFound: return tr("The file or folder was not found.");
    case ErrorCode::IoError: return tr("The file could not be read or written.");
    case ErrorCode::MalformedSafetensors: return tr("A safetensors file has a malformed header.");
    case ErrorCode::UnsupportedCombination: return tr("These settings do not go together.");
    case ErrorCode::Overflow: return tr("The sizes are too large to compute.");
    case ErrorCode::HubUnavailable: return tr("This build of Headroom cannot reach the Hugging Face Hub.");
    case ErrorCode::HubAccessDenied: return tr("The Hugging Face Hub refused access to this model.");
    case ErrorCode::HubNotFound: return tr("The Hugging Face Hub does not have this model, revision or file.");
    case ErrorCode::HubOffline: return tr("Offline mode is on and the model is not in the Hugging Face cache.");
    case ErrorCode::NetworkError: return tr("The Hugging Face Hub could not be reached or gave an unexpected answer.");
    case ErrorCode::NetworkTimeout: return tr("The Hugging Face Hub did not answer in time.");
    case ErrorCode::TooManyRedirects: return tr("The Hugging Face Hub sent too many redirects.");
    case ErrorCode::ResponseTooLarge: return tr("An answer from the Hugging Face Hub is larger than the limit.");
    case ErrorCode::Cancelled: return tr("Cancelled.");
    }
    return tr("Unknown error.");
}

QString ErrorText::fieldName(const QString& key)
{
    // The scenario-file keys the planner names (engine/plan/planner.cpp, checkRange()).
    static const std::vector<std::pair<const char*, const char*>> names = {
        {"hardware.count", QT_TR_NOOP("The number of GPUs")},
        {"inference.batch", QT_TR_NOOP("The inference batch")},
        {"inference.prompt_tokens", QT_TR_NOOP("The prompt length")},
        {"inference.new_tokens", QT_TR_NOOP("The number of new tokens")},
        {"train.micro_batch", QT_TR_NOOP("The micro-batch")},
        {"train.seq_len", QT_TR_NOOP("The sequence length")},
        {"train.grad_accum", QT_TR_NOOP("Gradient accumulation")},
        {"train.checkpoint_every", QT_TR_NOOP("Checkpoint every k")},
        {"train.loss_chunks", QT_TR_NOOP("The number of loss chunks")},
        {"train.peft.rank", QT_TR_NOOP("The LoRA rank")},
        {"train.galore_rank", QT_TR_NOOP("The GaLore rank")},
    };
    for (const auto& [id, name] : names)
        if (key == QLatin1String(id))
            return tr(name);
    return key;
}

QString ErrorText::technique(const std::string& id, const std::string& engineLabel)
{
    // The ids and labels of engine/plan/fitsearch.cpp standardTechniques().
    static const std::vector<std::pair<const char*, const char*>> labels = {
        {"fp32-adamw", QT_TR_NOOP("full fine-tune, fp32, AdamW")},
        {"bf16-mixed-adamw", QT_TR_NOOP("full fine-tune, bf16 mixed, AdamW")},
        {"bf16-mixed-ckpt-flash", QT_TR_NOOP("bf16 mixed + checkpointing + FlashAttention")},
        {"bf16-8bit-ckpt-flash", QT_TR_NOOP("pure bf16 + 8-bit AdamW + checkpointing + FlashAttention")},
        {"lora-ckpt-flash", QT_TR_NOOP("LoRA r16 (bf16 base) + checkpointing + FlashAttention")},
        {"qlora-ckpt-flash", QT_TR_NOOP("QLoRA NF4-DQ r16 + checkpointing + FlashAttention + paged 8-bit AdamW")},
        {"inference-bf16", QT_TR_NOOP("inference, bf16 weights")},
        {"inference-nf4", QT_TR_NOOP("inference, NF4 weights")},
    };
    for (const auto& [known, label] : labels)
        if (id == known)
            return tr(label);
    return QString::fromStdString(engineLabel);
}

QString ErrorText::knownDetail(const std::string& detail) { return lookUp(detailPhrases(), detail); }

QString ErrorText::note(const std::string& note)
{
    const QString known = lookUp(notePhrases(), note);
    return known.isEmpty() ? QString::fromStdString(note) : known;
}

QString ErrorText::message(const headroom::Error& error)
{
    const QString known = knownDetail(error.detail);
    const QString detail = known.isEmpty() ? QString::fromStdString(error.detail) : known;
    if (detail.isEmpty())
        return summary(error.code);
    //: %1 is a one-sentence summary, %2 names what is wrong
    return tr("%1 %2").arg(summary(error.code), detail);
}
