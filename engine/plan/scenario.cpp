// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/scenario.h"

#include "core/nametable.h"

#include <array>
#include <utility>

namespace headroom {

namespace {

constexpr std::array<std::pair<Precision, const char*>, 6> kPrecision{{
    {Precision::Fp32, "fp32"}, {Precision::Fp16Mixed, "fp16-mixed"}, {Precision::Bf16Mixed, "bf16-mixed"},
    {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}, {Precision::Fp8Mixed, "fp8-mixed"}}};
constexpr std::array<std::pair<WeightQuant, const char*>, 4> kWeightQuant{{
    {WeightQuant::None, "none"}, {WeightQuant::Int8, "int8"}, {WeightQuant::Nf4, "nf4"},
    {WeightQuant::Nf4DoubleQuant, "nf4-dq"}}};
constexpr std::array<std::pair<Optimizer, const char*>, 10> kOptimizer{{
    {Optimizer::Sgd, "sgd"}, {Optimizer::SgdMomentum, "sgd-momentum"}, {Optimizer::AdamW, "adamw"},
    {Optimizer::AdamW8bit, "adamw-8bit"}, {Optimizer::PagedAdamW8bit, "paged-adamw-8bit"},
    {Optimizer::Lion, "lion"}, {Optimizer::Adafactor, "adafactor"}, {Optimizer::Lomo, "lomo"},
    {Optimizer::AdaLomo, "adalomo"}, {Optimizer::Galore, "galore"}}};
constexpr std::array<std::pair<PeftMethod, const char*>, 3> kPeft{{
    {PeftMethod::None, "none"}, {PeftMethod::Lora, "lora"}, {PeftMethod::Qlora, "qlora"}}};
constexpr std::array<std::pair<Checkpointing, const char*>, 4> kCheckpointing{{
    {Checkpointing::None, "none"}, {Checkpointing::Full, "full"}, {Checkpointing::EveryK, "every-k"},
    {Checkpointing::SelectiveOps, "selective-op"}}};
constexpr std::array<std::pair<Attention, const char*>, 3> kAttention{{
    {Attention::Eager, "eager"}, {Attention::Sdpa, "sdpa"}, {Attention::Flash, "flash"}}};
constexpr std::array<std::pair<Sharding, const char*>, 7> kSharding{{
    {Sharding::None, "none"}, {Sharding::Ddp, "ddp"}, {Sharding::Zero1, "zero1"}, {Sharding::Zero2, "zero2"},
    {Sharding::Zero3, "zero3"}, {Sharding::Fsdp, "fsdp"}, {Sharding::Fsdp2, "fsdp2"}}};
constexpr std::array<std::pair<Profile, const char*>, 2> kProfile{{
    {Profile::Pytorch, "pytorch"}, {Profile::Headroom, "headroom"}}};
constexpr std::array<std::pair<Mode, const char*>, 2> kMode{{{Mode::Train, "train"}, {Mode::Inference, "inference"}}};
constexpr std::array<std::pair<KvCacheDtype, const char*>, 5> kKv{{
    {KvCacheDtype::Fp32, "fp32"}, {KvCacheDtype::Fp16, "fp16"}, {KvCacheDtype::Bf16, "bf16"},
    {KvCacheDtype::Fp8, "fp8"}, {KvCacheDtype::Int8, "int8"}}};
constexpr std::array<std::pair<TrainingLoop, const char*>, 2> kLoop{{
    {TrainingLoop::Trainer, "trainer"}, {TrainingLoop::Custom, "custom"}}};
constexpr std::array<std::pair<UseCache, const char*>, 3> kUseCache{{
    {UseCache::ConfigDefault, "config"}, {UseCache::On, "on"}, {UseCache::Off, "off"}}};
constexpr std::array<std::pair<OptimizerImpl, const char*>, 3> kOptimizerImpl{{
    {OptimizerImpl::Foreach, "foreach"}, {OptimizerImpl::Fused, "fused"}, {OptimizerImpl::ForLoop, "for-loop"}}};
constexpr std::array<std::pair<PipelineSchedule, const char*>, 2> kSchedule{{
    {PipelineSchedule::OneFOneB, "1f1b"}, {PipelineSchedule::GPipe, "gpipe"}}};
constexpr std::array<std::pair<PipelineSplit, const char*>, 2> kSplit{{
    {PipelineSplit::Layers, "layers"}, {PipelineSplit::Weighted, "weighted"}}};

} // namespace

const char* precisionName(Precision p) { return nameOf(kPrecision, p); }
const char* weightQuantName(WeightQuant q) { return nameOf(kWeightQuant, q); }
const char* optimizerName(Optimizer o) { return nameOf(kOptimizer, o); }
const char* optimizerImplName(OptimizerImpl i) { return nameOf(kOptimizerImpl, i); }
const char* peftMethodName(PeftMethod m) { return nameOf(kPeft, m); }
const char* checkpointingName(Checkpointing c) { return nameOf(kCheckpointing, c); }
const char* attentionName(Attention a) { return nameOf(kAttention, a); }
const char* shardingName(Sharding s) { return nameOf(kSharding, s); }
const char* profileName(Profile p) { return nameOf(kProfile, p); }
const char* modeName(Mode m) { return nameOf(kMode, m); }
const char* kvCacheDtypeName(KvCacheDtype d) { return nameOf(kKv, d); }
bool parsePrecision(const std::string& s, Precision& out) { return parseName(kPrecision, s, out); }
bool parseWeightQuant(const std::string& s, WeightQuant& out) { return parseName(kWeightQuant, s, out); }
bool parseOptimizer(const std::string& s, Optimizer& out) { return parseName(kOptimizer, s, out); }
bool parseOptimizerImpl(const std::string& s, OptimizerImpl& out) { return parseName(kOptimizerImpl, s, out); }
bool parsePeftMethod(const std::string& s, PeftMethod& out) { return parseName(kPeft, s, out); }
bool parseCheckpointing(const std::string& s, Checkpointing& out) { return parseName(kCheckpointing, s, out); }
bool parseAttention(const std::string& s, Attention& out) { return parseName(kAttention, s, out); }
bool parseSharding(const std::string& s, Sharding& out) { return parseName(kSharding, s, out); }
bool parseProfile(const std::string& s, Profile& out) { return parseName(kProfile, s, out); }
bool parseMode(const std::string& s, Mode& out) { return parseName(kMode, s, out); }
bool parseKvCacheDtype(const std::string& s, KvCacheDtype& out) { return parseName(kKv, s, out); }
const char* trainingLoopName(TrainingLoop l) { return nameOf(kLoop, l); }
const char* useCacheName(UseCache u) { return nameOf(kUseCache, u); }
bool parseTrainingLoop(const std::string& s, TrainingLoop& out) { return parseName(kLoop, s, out); }
bool parseUseCache(const std::string& s, UseCache& out) { return parseName(kUseCache, s, out); }
const char* pipelineScheduleName(PipelineSchedule p) { return nameOf(kSchedule, p); }
bool parsePipelineSchedule(const std::string& s, PipelineSchedule& out) { return parseName(kSchedule, s, out); }
const char* pipelineSplitName(PipelineSplit p) { return nameOf(kSplit, p); }
bool parsePipelineSplit(const std::string& s, PipelineSplit& out) { return parseName(kSplit, s, out); }

} // namespace headroom
