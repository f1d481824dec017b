// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/makeitfit.h"

#include "model/parametertable.h"
#include "plan/fitsearch.h"
#include "plan/gpucatalog.h"
#include "plan/planner.h"
#include "plan/techniques.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace headroom {

namespace {

// Estimated step-time costs. They rank the suggestions; they are estimates
// from the cited sources, not measurements of this scenario.

// Full recomputation runs every layer's forward a second time in backward:
// with backward ≈ 2× forward (Kaplan et al. 2020, arXiv:2001.08361 §2.1:
// 2N FLOPs per token forward, 4N backward) one extra forward is ≈ +33% of a
// step (Chen et al. 2016, arXiv:1604.06174 §4; Korthikanti et al. 2022,
// arXiv:2205.05198 §5 measure 30–40% for full recomputation of GPT models).
constexpr double kFullCheckpointCost = 0.33;
// Checkpointing one layer in k recomputes 1/k of the forward.
constexpr std::uint64_t kCheckpointEvery = 2;
// FlashAttention: 15% faster end-to-end BERT-large training than the MLPerf
// record and up to 3× faster GPT-2 than HuggingFace eager attention (Dao et
// al. 2022, arXiv:2205.14135 §4.1). We count the conservative 15%.
constexpr double kFlashFromEagerCost = -0.15;
// PyTorch's scaled_dot_product_attention dispatches to the flash or
// memory-efficient kernels when the inputs allow (PyTorch 2.0 release notes,
// "Accelerated Transformers"): from sdpa, explicit flash changes little. SDPA
// is not offered from eager: flash saves as much and is faster.
constexpr double kFlashFromSdpaCost = 0.0;
// Chunked cross-entropy (torchtune CEWithChunkedOutputLoss) computes the same
// loss chunk by chunk: the loss is vocab×hidden FLOPs per token against
// ~24·layers·hidden² for the layers, so chunking it costs about 1% (our estimate).
constexpr double kChunkedLossCost = 0.01;
// fp32 → bf16 autocast: tensor cores run bf16 at 8–16× fp32 FLOPS (NVIDIA A100
// datasheet: 312 vs 19.5 TFLOPS); Micikevicius et al. 2018 (arXiv:1710.03740)
// report 2–6× faster mixed-precision training. We count a conservative 2×.
constexpr double kMixedFromFp32Cost = -0.5;
// Pure bf16 drops the fp32 master copy and its casts: a little faster (our
// estimate), but small updates round away (Zamirai et al. 2020, arXiv:2010.06192).
constexpr double kPureBf16Cost = -0.05;
// 8-bit Adam is as fast as 32-bit Adam or faster (Dettmers et al. 2022,
// arXiv:2110.02861 Table 1): counted as free.
constexpr double kAdam8bitCost = 0.0;
// Paged 8-bit Adam pages optimizer states to the CPU only under memory
// pressure (Dettmers et al. 2023, arXiv:2305.14314 §3): a small cost (our estimate).
constexpr double kPagedAdam8bitCost = 0.02;
// LoRA computes no gradients for the frozen weights: 25% higher training
// throughput on GPT-3 175B (Hu et al. 2021, arXiv:2106.09685 §4.2). We count 15%.
constexpr double kLoraCost = -0.15;
// QLoRA dequantizes the NF4 base weights in every forward and backward
// matmul: slower than 16-bit LoRA (Dettmers et al. 2023, arXiv:2305.14314 §4;
// commonly ~30%): LoRA's −15% plus +30% (our estimate).
constexpr double kQloraCost = 0.15;
// Halving the micro-batch halves the GEMMs' token dimension: large GEMMs
// stay near peak, small ones lose efficiency (NVIDIA Deep Learning
// Performance Guide, "Matrix Multiplication Background": throughput falls
// as a dimension drops below a few thousand). Our estimate per halving:
constexpr double kHalvingCostLargeGemm = 0.03;  // still ≥ 4096 tokens per micro-batch
constexpr double kHalvingCostSmallGemm = 0.10;  // below that
constexpr std::uint64_t kLargeGemmTokens = 4096;
// ZeRO-2 communicates as much as plain data parallelism (reduce-scatter +
// all-gather = all-reduce); ZeRO-3 1.5× as much (Rajbhandari et al. 2020,
// arXiv:1910.02054 §7). Our estimates of the resulting step-time cost:
constexpr double kZero2Cost = 0.02;
constexpr double kZero3Cost = 0.15;
// ZeRO-Offload runs the optimizer step on the CPU and moves gradients and
// parameters over PCIe (Ren et al. 2021, arXiv:2101.06840 §6: 30–40 TFLOPS
// per V100 instead of ~50): about +40% (our estimate).
constexpr double kCpuOffloadCost = 0.40;
// Saved activations to CPU memory (torch.autograd.graph.save_on_cpu): PCIe
// transfers every step, partly overlapped with compute (our estimate).
constexpr double kActivationOffloadCost = 0.20;
// Inference: an fp8 KV cache is read at half the bytes of bf16 and converted
// in the attention kernel (vLLM docs, "Quantized KV Cache"): counted as free.
constexpr double kKvFp8Cost = 0.0;
// LLM.int8() matmuls are slower than fp16 below ~6.7B parameters and close
// above (Dettmers et al. 2022, arXiv:2208.07339 §5, Table 4): ~+20% (our estimate).
constexpr double kInt8WeightsCost = 0.20;
// NF4 weights are dequantized in every matmul (bitsandbytes): ~+25% (our estimate).
constexpr double kNf4WeightsCost = 0.25;
// Inference with half the batch serves half the sequences per forward:
// decode is memory-bound, so throughput nearly halves (our estimate: +40%
// time per sequence per halving).
constexpr double kInferenceBatchHalvingCost = 0.40;

FitChange change(TechniqueId technique, std::uint64_t value, std::string label, std::string reason, double cost,
                 ChangeKind kind = ChangeKind::Speed)
{
    return {technique, value, std::move(label), std::move(reason), cost, kind};
}

double halvings(std::uint64_t from, std::uint64_t to)
{
    double n = 0;
    for (std::uint64_t v = from; v > to; v /= 2)
        n += 1;
    return n;
}

// Divisors of `value` reached by halving, and 1: the micro-batches that keep
// the effective batch exact with more accumulation.
std::vector<std::uint64_t> smallerDivisors(std::uint64_t value)
{
    std::vector<std::uint64_t> out;
    for (std::uint64_t v = value; v % 2 == 0 && v / 2 >= 1; v /= 2)
        out.push_back(v / 2);
    if (value > 1 && (out.empty() || out.back() != 1))
        out.push_back(1);
    return out;
}

void trainingCandidates(const Scenario& s, std::vector<FitChange>& out)
{
    const TrainConfig& t = s.train;
    const bool bf16 = [&] {
        auto gpu = findGpu(s.hardware.gpu);
        return gpu && gpu->bf16;
    }();
    if (t.attention != Attention::Flash)
        out.push_back(change(TechniqueId::Flash, 0, "flash attention",
                             "Computes attention in tiles without storing the sequence × sequence score matrix; "
                             "faster as well (Dao et al. 2022).",
                             t.attention == Attention::Eager ? kFlashFromEagerCost : kFlashFromSdpaCost));
    if (t.checkpointing != Checkpointing::Full)
        out.push_back(change(TechniqueId::Checkpointing, 0, "gradient checkpointing (every layer)",
                             "Keeps only each layer's input and recomputes the rest in backward: about one extra "
                             "forward pass, +33% step time.",
                             kFullCheckpointCost));
    if (t.checkpointing == Checkpointing::None)
        out.push_back(change(TechniqueId::CheckpointEvery, kCheckpointEvery, "gradient checkpointing (one layer in 2)",
                             "Recomputes every second layer in backward: half the saving of full checkpointing "
                             "for half its cost.",
                             kFullCheckpointCost / static_cast<double>(kCheckpointEvery)));
    if (!t.chunkedCrossEntropy)
        out.push_back(change(TechniqueId::ChunkedCe, 0, "chunked cross-entropy",
                             "Upcasts and differentiates the logits chunk by chunk instead of all at once; "
                             "the loss is a small part of the step.",
                             kChunkedLossCost));
    if (t.precision == Precision::Fp32)
        out.push_back(bf16 ? change(TechniqueId::Bf16Mixed, 0, "bf16 mixed precision instead of fp32",
                                    "Activations in bf16 (half of fp32) and tensor-core matmuls: much faster.",
                                    kMixedFromFp32Cost)
                           : change(TechniqueId::Fp16Mixed, 0, "fp16 mixed precision instead of fp32",
                                    "Activations in fp16 (half of fp32) and tensor-core matmuls: much faster; "
                                    "this GPU has no native bf16.",
                                    kMixedFromFp32Cost));
    const bool fullFinetune = t.peft.method == PeftMethod::None;
    if (bf16 && fullFinetune && t.precision != Precision::Bf16 && t.precision != Precision::Fp8Mixed)
        out.push_back(change(TechniqueId::Bf16, 0, "pure bf16 weights and optimizer",
                             "No fp32 master weights: parameters, gradients and optimizer states in bf16. Small "
                             "updates can round away.",
                             t.precision == Precision::Fp32 ? kMixedFromFp32Cost + kPureBf16Cost : kPureBf16Cost,
                             ChangeKind::Method));
    if (t.optimizer == Optimizer::AdamW)
        out.push_back(change(TechniqueId::AdamW8bit, 0, "8-bit AdamW",
                             "Optimizer moments stored in 8 bits with block-wise scales instead of 32 bits.",
                             kAdam8bitCost, ChangeKind::Method));
    if (t.optimizer == Optimizer::AdamW || t.optimizer == Optimizer::AdamW8bit)
        out.push_back(change(TechniqueId::PagedAdamW8bit, 0, "paged 8-bit AdamW",
                             "8-bit moments in unified memory that pages to the CPU under pressure instead of "
                             "failing.",
                             kPagedAdam8bitCost, ChangeKind::Method));
    if (fullFinetune)
        out.push_back(change(TechniqueId::Lora, 0, "LoRA (r16, all linear layers)",
                             "Trains small adapters over frozen weights: no gradients or optimizer states for "
                             "the base weights.",
                             kLoraCost, ChangeKind::Method));
    if (t.peft.method != PeftMethod::Qlora)
        out.push_back(change(TechniqueId::Qlora, 0, "QLoRA (NF4 base, r16 all linear)",
                             "LoRA over a 4-bit base: the frozen weights take about a quarter of bf16; "
                             "dequantizing them slows every matmul.",
                             fullFinetune ? kQloraCost : kQloraCost - kLoraCost, ChangeKind::Method));
    for (std::uint64_t m : smallerDivisors(t.microBatch)) {
        const double perHalving = m * t.seqLen >= kLargeGemmTokens ? kHalvingCostLargeGemm : kHalvingCostSmallGemm;
        out.push_back(change(TechniqueId::MicroBatch, m,
                             "micro-batch " + std::to_string(m) + " × " +
                                 std::to_string(t.gradAccum * (t.microBatch / m)) + " accumulation",
                             "Fewer sequences at once, more accumulation steps: the same effective batch with "
                             "smaller activations; smaller matmuls use the GPU less well.",
                             perHalving * halvings(t.microBatch, m)));
    }
    if (s.hardware.count > 1 && (s.hardware.sharding == Sharding::None || s.hardware.sharding == Sharding::Ddp ||
                                 s.hardware.sharding == Sharding::Zero1)) {
        out.push_back(change(TechniqueId::Zero2, 0, "ZeRO-2 sharding",
                             "Each GPU keeps its share of the gradients and optimizer states; the same "
                             "communication as data parallelism.",
                             kZero2Cost));
        out.push_back(change(TechniqueId::Zero3, 0, "ZeRO-3 / FSDP full sharding",
                             "Parameters sharded too and gathered layer by layer: 1.5× the communication of data "
                             "parallelism.",
                             kZero3Cost));
    }
    if (!s.hardware.cpuOffload)
        out.push_back(change(TechniqueId::CpuOffload, 0, "CPU offload of the optimizer",
                             "Optimizer states (and the step) on the CPU: gradients and parameters cross PCIe "
                             "every step.",
                             kCpuOffloadCost));
    if (!t.activationOffload)
        out.push_back(change(TechniqueId::ActivationOffload, 0, "activation offload to CPU",
                             "Saved activations wait in CPU memory until backward: PCIe transfers every step.",
                             kActivationOffloadCost));
}

void inferenceCandidates(const Scenario& s, std::vector<FitChange>& out)
{
    const InferenceConfig& c = s.inference;
    if (c.attention != Attention::Flash)
        out.push_back(change(TechniqueId::Flash, 0, "flash attention",
                             "Computes attention in tiles without storing the score matrix of the prompt.",
                             c.attention == Attention::Eager ? kFlashFromEagerCost : kFlashFromSdpaCost));
    if (c.kvCacheDtype == KvCacheDtype::Fp32 || c.kvCacheDtype == KvCacheDtype::Fp16 || c.kvCacheDtype == KvCacheDtype::Bf16)
        out.push_back(change(TechniqueId::KvFp8, 0, "fp8 KV cache",
                             "Keys and values cached in 8 bits: half of bf16, converted inside the attention kernel.",
                             kKvFp8Cost, ChangeKind::Method));
    if (c.weightQuant == WeightQuant::None) {
        out.push_back(change(TechniqueId::Int8Weights, 0, "int8 weights (LLM.int8)",
                             "Weights in 8 bits with outliers in 16: half of bf16; slower matmuls.", kInt8WeightsCost,
                             ChangeKind::Method));
        out.push_back(change(TechniqueId::Nf4Weights, 0, "NF4 weights",
                             "Weights in 4 bits: about a quarter of bf16; dequantized in every matmul.",
                             kNf4WeightsCost, ChangeKind::Method));
    }
    for (std::uint64_t b : smallerDivisors(c.batch))
        out.push_back(change(TechniqueId::Batch, b, "batch " + std::to_string(b),
                             "Fewer sequences at once: a smaller KV cache and activations, fewer sequences per second.",
                             kInferenceBatchHalvingCost * halvings(c.batch, b)));
}

// The longest sequence (or prompt) that fits with everything else as is,
// rounded down to a multiple of 128 tokens: the task changes, so it is offered alone.
std::optional<FitChange> shorterSequence(const Scenario& s)
{
    auto longest = longestSequence(s, s.mode == Mode::Train ? s.train.seqLen : s.inference.promptTokens);
    if (!longest || !longest->found)
        return std::nullopt;
    std::uint64_t value = longest->value;
    if (value > 128)
        value -= value % 128;
    const bool train = s.mode == Mode::Train;
    if (value >= (train ? s.train.seqLen : s.inference.promptTokens))
        return std::nullopt;
    return change(train ? TechniqueId::Sequence : TechniqueId::Prompt, value,
                  (train ? "sequence length " : "prompt length ") + std::to_string(value),
                  "Shorter sequences change what the model learns (or reads): a last resort.", 0.0, ChangeKind::Task);
}

std::string joinLabels(const std::vector<FitChange>& changes)
{
    std::string label;
    for (const FitChange& c : changes)
        label += (label.empty() ? "" : " + ") + c.label;
    return label;
}

bool lessCostly(const FitSuggestion& a, const FitSuggestion& b)
{
    if (a.kind != b.kind)
        return a.kind < b.kind;
    if (a.speedCost != b.speedCost)
        return a.speedCost < b.speedCost;
    if (a.marginBytes != b.marginBytes)
        return a.marginBytes > b.marginBytes;
    return a.changes.size() < b.changes.size();
}

} // namespace

std::vector<FitChange> candidateChanges(const Scenario& base)
{
    std::vector<FitChange> out;
    if (base.mode == Mode::Train)
        trainingCandidates(base, out);
    else
        inferenceCandidates(base, out);
    return out;
}

Scenario applyChange(const Scenario& base, const FitChange& c)
{
    Scenario s = base;
    useTechnique(s, c.technique, c.value);
    return s;
}

const char* changeKindName(ChangeKind kind)
{
    switch (kind) {
    case ChangeKind::Speed: return "speed";
    case ChangeKind::Method: return "method";
    case ChangeKind::Task: return "task";
    }
    return "speed";
}

Result<MakeItFitResult> makeItFit(const Scenario& base, const MakeItFitOptions& options)
{
    MakeItFitResult result;
    const ParameterTable table = buildParameterTable(base.model);
    auto own = makePlan(base, table);
    ++result.plansEvaluated;
    if (!own)
        return own.error();
    result.alreadyFits = own->fits;
    result.baseDeviceUsedBytes = own->deviceUsedBytes;
    result.baseMarginBytes = own->marginBytes;
    result.capacityBytes = own->capacityBytes;
    if (own->fits)
        return result;

    const std::vector<FitChange> candidates = candidateChanges(base);
    std::vector<TechniqueGroup> groups;
    for (const FitChange& c : candidates)
        groups.push_back(techniqueGroup(c.technique));

    // Every combination of up to maxChanges candidates from distinct groups,
    // as sorted index lists; each planned once.
    struct Fitting {
        std::vector<std::size_t> members;
        FitSuggestion suggestion;
    };
    std::vector<Fitting> fitting;
    std::vector<std::size_t> members;
    const std::size_t depth = std::min<std::size_t>(options.maxChanges, candidates.size());
    auto consider = [&] {
        Scenario s = base;
        FitSuggestion suggestion;
        double factor = 1;
        for (std::size_t i : members) {
            s = applyChange(s, candidates[i]);
            suggestion.changes.push_back(candidates[i]);
            factor *= 1 + candidates[i].speedCost;
            suggestion.kind = std::max(suggestion.kind, candidates[i].kind);
        }
        ++result.plansEvaluated;
        auto plan = makePlan(s, table);
        if (!plan || !plan->fits)
            return;  // an unsupported combination, or still too large
        suggestion.label = joinLabels(suggestion.changes);
        suggestion.scenario = std::move(s);
        suggestion.deviceUsedBytes = plan->deviceUsedBytes;
        suggestion.peakAllocatedBytes = plan->peakAllocatedBytes;
        suggestion.marginBytes = plan->marginBytes;
        suggestion.speedCost = factor - 1;
        fitting.push_back({members, std::move(suggestion)});
    };
    auto recurse = [&](auto&& self, std::size_t start) -> void {
        if (!members.empty())
            consider();
        if (members.size() == depth)
            return;
        for (std::size_t i = start; i < candidates.size(); ++i) {
            // One change per option; pure bf16 is a full fine-tune setting, not one for adapters.
            const bool clash = std::any_of(members.begin(), members.end(), [&](std::size_t m) {
                return groups[m] == groups[i] ||
                       (groups[m] == TechniqueGroup::Peft && candidates[i].technique == TechniqueId::Bf16) ||
                       (groups[i] == TechniqueGroup::Peft && candidates[m].technique == TechniqueId::Bf16);
            });
            if (clash)
                continue;
            members.push_back(i);
            self(self, i + 1);
            members.pop_back();
        }
    };
    recurse(recurse, 0);

    // The last resort, alone: a shorter sequence with everything else as is.
    if (auto shorter = shorterSequence(base)) {
        Scenario s = applyChange(base, *shorter);
        ++result.plansEvaluated;
        auto plan = makePlan(s, table);
        if (plan && plan->fits) {
            FitSuggestion suggestion{{*shorter}, shorter->label, std::move(s), plan->deviceUsedBytes,
                                     plan->peakAllocatedBytes, plan->marginBytes, 0.0, ChangeKind::Task};
            fitting.push_back({{candidates.size()}, std::move(suggestion)});
        }
    }

    // Drop a combination when a part of it already fits at no greater cost
    // and no further from the asked-for run: the extra changes buy nothing.
    auto isSubset = [](const std::vector<std::size_t>& small, const std::vector<std::size_t>& large) {
        return small.size() < large.size() && std::includes(large.begin(), large.end(), small.begin(), small.end());
    };
    for (const Fitting& f : fitting) {
        const bool dominated = std::any_of(fitting.begin(), fitting.end(), [&](const Fitting& g) {
            return isSubset(g.members, f.members) && g.suggestion.speedCost <= f.suggestion.speedCost &&
                   g.suggestion.kind <= f.suggestion.kind;
        });
        if (!dominated)
            result.suggestions.push_back(f.suggestion);
    }
    std::stable_sort(result.suggestions.begin(), result.suggestions.end(), lessCostly);
    if (result.suggestions.size() > options.maxSuggestions)
        result.suggestions.resize(options.maxSuggestions);
    return result;
}

} // namespace headroom
