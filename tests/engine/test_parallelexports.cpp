// SPDX-License-Identifier: GPL-3.0-or-later
// The layout exporters (issue 15 "Exports"): megatron-args and
// torchtitan-toml carry the scenario's model, layout, batch, precision and
// checkpointing, every value derived here from the scenario and its layout,
// and refuse, naming why, what Megatron-LM or torchtitan cannot express.
// tests/libraries/test_megatron_args.py and test_torchtitan_toml.py hand the
// same exports to megatron-core and torchtitan themselves.
#include "io/exporters.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "plan/defaultscenario.h"
#include "plan/parallel.h"
#include "plan/planner.h"

#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <iterator>
#include <map>
#include <sstream>
#include <string>

using namespace headroom;

namespace {

// Llama 3.1 8B, full fine-tune, bf16 autocast, AdamW, flash, on 8 H100s.
Scenario fullFinetune(const char* model = "meta-llama/Llama-3.1-8B")
{
    Scenario s = teachingScenario().value();
    s.model = presetModel(model).value();
    s.train.peft.method = PeftMethod::None;
    s.train.peft.targets.clear();
    s.train.weightQuant = WeightQuant::None;
    s.train.optimizer = Optimizer::AdamW;
    s.train.precision = Precision::Bf16Mixed;
    s.train.attention = Attention::Flash;
    s.train.microBatch = 1;
    s.train.gradAccum = 8;
    s.train.seqLen = 4096;
    s.train.checkpointing = Checkpointing::Full;
    s.hardware.gpu = "h100-sxm-80gb";
    s.hardware.count = 8;
    s.hardware.sharding = Sharding::Ddp;
    return s;
}

// DeepSeek-V3 on 64 H200s, 4 pipeline stages, the experts over ep 8: the
// latent-attention exports set the sharding and the rest.
Scenario deepseekOn64(Sharding sharding)
{
    Scenario s = fullFinetune("deepseek-ai/DeepSeek-V3");
    s.hardware.gpu = "h200";
    s.hardware.count = 64;
    s.hardware.sharding = sharding;
    s.hardware.parallel.pp = 4;
    s.hardware.parallel.ep = 8;
    return s;
}

// tp 2 x pp 2 x dp 2 with sequence parallelism.
Scenario layout3d(Sharding sharding)
{
    Scenario s = fullFinetune();
    s.hardware.sharding = sharding;
    s.hardware.parallel.tp = 2;
    s.hardware.parallel.sp = true;
    s.hardware.parallel.pp = 2;
    return s;
}

struct Exported {
    bool ok = false;
    ErrorCode code = ErrorCode::InvalidArgument;
    std::string text;  // the export, or the error's detail
};

Exported exportAs(const Scenario& s, ExportFormat format)
{
    auto plan = makePlan(s);
    if (!plan)
        return {false, plan.error().code, "plan: " + plan.error().detail};
    auto r = exportPlan(s, plan.value(), format);
    if (!r)
        return {false, r.error().code, r.error().detail};
    return {true, ErrorCode::InvalidArgument, r.value()};
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The flags of MEGATRON_ARGS=( ... ): "--flag value" or "--flag" (value "")
// per line, comment lines skipped. A flag written twice fails the test.
std::map<std::string, std::string> megatronFlags(const std::string& text)
{
    std::map<std::string, std::string> flags;
    std::istringstream in(text);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line == "MEGATRON_ARGS=(") {
            inside = true;
            continue;
        }
        if (!inside || line.empty() || line.find_first_not_of(' ') == std::string::npos)
            continue;
        if (line == ")")
            break;
        std::istringstream words(line);
        std::string flag, value, extra;
        words >> flag;
        if (flag[0] == '#')
            continue;
        words >> value >> extra;
        if (flag.rfind("--", 0) != 0 || !extra.empty() || flags.count(flag))
            qFatal("not one flag per line: %s", line.c_str());
        flags[flag] = value;
    }
    return flags;
}

// "section.key" -> the value as written (strings without their quotes), for
// the one-line keys of a TOML file; multi-line arrays are skipped.
std::map<std::string, std::string> tomlKeys(const std::string& text)
{
    std::map<std::string, std::string> keys;
    std::istringstream in(text);
    std::string line, section;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line[0] == ' ' || line[0] == ']')
            continue;
        if (line[0] == '[') {
            section = line.substr(1, line.find(']') - 1);
            continue;
        }
        const auto eq = line.find(" = ");
        if (eq == std::string::npos)
            continue;
        std::string value = line.substr(eq + 3);
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
            value = value.substr(1, value.size() - 2);
        keys[section + "." + line.substr(0, eq)] = value;
    }
    return keys;
}

std::string n(std::uint64_t v) { return std::to_string(v); }

} // namespace

class TestParallelExports : public QObject {
    Q_OBJECT

private slots:
    void megatronLayout3d()
    {
        const Scenario s = layout3d(Sharding::Zero1);
        const Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        const auto f = megatronFlags(e.text);
        const ModelSpec& m = s.model;
        QCOMPARE(f.at("--num-layers"), n(m.layers));
        QCOMPARE(f.at("--hidden-size"), n(m.hidden));
        QCOMPARE(f.at("--ffn-hidden-size"), n(m.intermediate));
        QCOMPARE(f.at("--num-attention-heads"), n(m.heads));
        QVERIFY(f.count("--group-query-attention"));
        QCOMPARE(f.at("--num-query-groups"), n(m.kvHeads));
        QVERIFY2(!f.count("--kv-channels"), "head_dim is hidden / heads");
        QCOMPARE(f.at("--seq-length"), n(s.train.seqLen));
        QCOMPARE(f.at("--max-position-embeddings"), n(m.maxPositions));
        QCOMPARE(f.at("--normalization"), std::string("RMSNorm"));
        QVERIFY(f.count("--swiglu") && f.count("--disable-bias-linear") && !f.count("--add-qkv-bias"));
        QCOMPARE(f.at("--position-embedding-type"), std::string("rope"));
        QVERIFY(f.count("--untie-embeddings-and-output-weights"));
        QCOMPARE(f.at("--vocab-size"), n(m.vocab));
        QCOMPARE(f.at("--make-vocab-size-divisible-by"), std::string("1"));
        QCOMPARE(f.at("--hidden-dropout"), std::string("0"));
        QCOMPARE(f.at("--attention-backend"), std::string("flash"));
        QCOMPARE(f.at("--tensor-model-parallel-size"), n(s.hardware.parallel.tp));
        QCOMPARE(f.at("--pipeline-model-parallel-size"), n(s.hardware.parallel.pp));
        QVERIFY(f.count("--sequence-parallel"));
        QCOMPARE(f.at("--context-parallel-size"), std::string("1"));
        QVERIFY(f.count("--use-distributed-optimizer"));
        const std::uint64_t dp = s.hardware.count / (s.hardware.parallel.tp * s.hardware.parallel.pp);
        QCOMPARE(f.at("--micro-batch-size"), n(s.train.microBatch));
        QCOMPARE(f.at("--global-batch-size"), n(s.train.microBatch * s.train.gradAccum * dp));
        QVERIFY(f.count("--bf16") && !f.count("--fp16"));
        QCOMPARE(f.at("--optimizer"), std::string("adam"));
        QCOMPARE(f.at("--recompute-granularity"), std::string("full"));
        QCOMPARE(f.at("--recompute-method"), std::string("uniform"));
        QCOMPARE(f.at("--recompute-num-layers"), std::string("1"));
        // Nothing the scenario does not have: no MoE, no uneven split, no vpp.
        for (const char* absent : {"--num-experts", "--decoder-first-pipeline-num-layers",
                                   "--decoder-last-pipeline-num-layers", "--num-layers-per-virtual-pipeline-stage",
                                   "--expert-model-parallel-size", "--qk-layernorm"})
            QVERIFY2(!f.count(absent), absent);
        const Plan plan = makePlan(s).value();
        QVERIFY(contains(e.text, "peak " + QString::number(static_cast<double>(plan.peakBytes) / static_cast<double>(GiB), 'f', 2).toStdString()));
        // validate_args requires it with tensor parallelism (before Blackwell).
        QVERIFY(contains(e.text, "#   CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun "));
        // Same scenario, same bytes.
        QCOMPARE(exportAs(s, ExportFormat::MegatronArgs).text, e.text);
    }

    // Only what the scenario has: DDP writes no distributed optimizer, tp
    // without sp no sequence parallelism, no checkpointing no recompute.
    void megatronOnlyWhatIsPlanned()
    {
        Scenario s = layout3d(Sharding::Ddp);
        s.hardware.parallel.sp = false;
        s.train.checkpointing = Checkpointing::None;
        s.train.precision = Precision::Fp32;
        s.train.optimizer = Optimizer::SgdMomentum;
        const Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        const auto f = megatronFlags(e.text);
        for (const char* absent : {"--use-distributed-optimizer", "--sequence-parallel", "--recompute-granularity",
                                   "--bf16", "--fp16"})
            QVERIFY2(!f.count(absent), absent);
        QCOMPARE(f.at("--optimizer"), std::string("sgd"));
        QCOMPARE(f.at("--sgd-momentum"), std::string("0.9"));
        s.hardware.parallel.tp = 1;
        s.hardware.count = 4;
        QVERIFY(!contains(exportAs(s, ExportFormat::MegatronArgs).text, "CUDA_DEVICE_MAX_CONNECTIONS"));
    }

    void megatronModels()
    {
        // Qwen2.5: q/k/v bias only, tied embeddings.
        Exported e = exportAs(fullFinetune("Qwen/Qwen2.5-7B"), ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        auto f = megatronFlags(e.text);
        QVERIFY(f.count("--add-qkv-bias") && f.count("--disable-bias-linear"));
        QCOMPARE(f.count("--untie-embeddings-and-output-weights"),
                 std::size_t{presetModel("Qwen/Qwen2.5-7B").value().tieEmbeddings ? 0u : 1u});
        // Qwen3 0.6B: per-head q/k norms, head_dim 128 with hidden 1024 and 16 heads.
        const ModelSpec qwen3 = presetModel("Qwen/Qwen3-0.6B").value();
        e = exportAs(fullFinetune("Qwen/Qwen3-0.6B"), ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        f = megatronFlags(e.text);
        QVERIFY(f.count("--qk-layernorm"));
        QCOMPARE(f.at("--kv-channels"), n(qwen3.headDim));
        QVERIFY(!f.count("--untie-embeddings-and-output-weights"));  // tied
        // Mixtral: routed experts.
        const ModelSpec mixtral = presetModel("mistralai/Mixtral-8x7B-v0.1").value();
        Scenario moe = fullFinetune("mistralai/Mixtral-8x7B-v0.1");
        e = exportAs(moe, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        f = megatronFlags(e.text);
        QCOMPARE(f.at("--num-experts"), n(mixtral.experts));
        QCOMPARE(f.at("--moe-router-topk"), n(mixtral.expertsPerToken));
        QCOMPARE(f.at("--ffn-hidden-size"), n(mixtral.intermediate));
        QVERIFY(!f.count("--moe-layer-freq") && !f.count("--multi-latent-attention"));
    }

    // DeepSeek-V3 (config.json: 61 layers, first_k_dense_replace 3,
    // intermediate_size 18432, moe_intermediate_size 2048 x 1 shared expert,
    // q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128) as
    // MLATransformerConfig reads it; Qwen3-MoE with decoder_sparse_step 2
    // (layers 0 and 2 dense) writes its pattern out.
    void megatronMixturesWithDenseLayersAndLatentAttention()
    {
        Scenario s = deepseekOn64(Sharding::Zero1);
        s.hardware.parallel.tp = 2;
        s.hardware.parallel.sp = true;
        s.hardware.parallel.etp = 1;
        Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        auto f = megatronFlags(e.text);
        for (const auto& [flag, value] :
             {std::pair{"--ffn-hidden-size", "18432"}, {"--moe-ffn-hidden-size", "2048"},
              {"--moe-shared-expert-intermediate-size", "2048"}, {"--moe-layer-freq", "\"([0]*3+[1]*58)\""},
              {"--multi-latent-attention", ""}, {"--q-lora-rank", "1536"}, {"--kv-lora-rank", "512"},
              {"--qk-head-dim", "128"}, {"--qk-pos-emb-head-dim", "64"}, {"--v-head-dim", "128"},
              {"--qk-layernorm", ""}, {"--decoder-last-pipeline-num-layers", "16"},
              {"--expert-tensor-parallel-size", "1"}})
            QCOMPARE(f.at(flag), std::string(value));
        QVERIFY(!f.count("--group-query-attention") && !f.count("--kv-channels"));

        Scenario q = fullFinetune("meta-llama/Llama-3.1-8B");
        auto spec = modelSpecFromConfigFile(HEADROOM_TEST_DATA "/configs/qwen3-moe-tiny-sparse-step2.json");
        QVERIFY(spec.ok());
        q.model = spec.value();
        q.hardware.count = 2;
        q.hardware.sharding = Sharding::Zero1;
        q.hardware.parallel.tp = 2;
        q.hardware.parallel.sp = true;
        e = exportAs(q, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        f = megatronFlags(e.text);
        QCOMPARE(f.at("--moe-layer-freq"), std::string("\"[0,1,0,1]\""));
        QCOMPARE(f.at("--ffn-hidden-size"), std::string("1536"));
        QCOMPARE(f.at("--moe-ffn-hidden-size"), std::string("256"));
    }

    // Uneven pipelines: Megatron-LM sets the first or the last stage apart;
    // one layer in k becomes the block method with as many layers a stage.
    void megatronPipelineSplitAndBlockRecompute()
    {
        Scenario s = fullFinetune();  // 32 layers
        s.hardware.count = 6;
        s.hardware.parallel.pp = 3;  // 10, 11, 11
        const ParallelLayout l = parallelLayout(s).value();
        Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        QCOMPARE(megatronFlags(e.text).at("--decoder-first-pipeline-num-layers"), n(l.stageLayers.front()));
        s.hardware.count = 5;
        s.hardware.parallel.pp = 5;  // 6, 6, 6, 7, 7: neither shape
        e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY(!e.ok && e.code == ErrorCode::UnsupportedCombination);
        QVERIFY2(contains(e.text, "first and the last pipeline stage"), e.text.c_str());

        s = fullFinetune();
        s.hardware.count = 2;
        s.hardware.parallel.pp = 2;
        s.train.checkpointing = Checkpointing::EveryK;
        s.train.checkpointEvery = 3;  // 16 layers a stage: layers 0, 3, ..., 15
        e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        const auto f = megatronFlags(e.text);
        QCOMPARE(f.at("--recompute-method"), std::string("block"));
        QCOMPARE(f.at("--recompute-num-layers"), n((16 + 2) / 3));
    }

    void megatronRefuses_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("why");
        const char* rows[] = {"LoRA",  "sharding fsdp2",      "op-level",   "--optimizer is adam or sgd",
                              "gemma", "configures training", "CPU offload"};
        for (int k = 0; k < int(std::size(rows)); ++k)
            QTest::newRow(rows[k]) << k << QString::fromLatin1(rows[k]);
    }
    void megatronRefuses()
    {
        QFETCH(int, which);
        QFETCH(QString, why);
        Scenario s = fullFinetune();
        switch (which) {
        case 0: s = teachingScenario().value(); break;  // QLoRA
        case 1: s.hardware.sharding = Sharding::Fsdp2; s.train.checkpointing = Checkpointing::SelectiveOps; break;
        case 2: s.train.checkpointing = Checkpointing::SelectiveOps; break;
        case 3: s.train.optimizer = Optimizer::Adafactor; break;
        case 4: s.model = presetModel("google/gemma-2-9b").value(); break;
        case 5: s.mode = Mode::Inference; break;
        case 6: s.hardware.sharding = Sharding::Zero1; s.hardware.cpuOffload = true; break;
        }
        const Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY(!e.ok);
        QVERIFY2(e.code == ErrorCode::UnsupportedCombination, e.text.c_str());
        QVERIFY2(QString::fromStdString(e.text).contains(why), e.text.c_str());
    }

    void torchtitanFsdp2()
    {
        Scenario s = fullFinetune();
        s.hardware.sharding = Sharding::Fsdp2;
        s.train.checkpointing = Checkpointing::SelectiveOps;
        s.train.microBatch = 2;
        s.train.gradAccum = 3;
        const Exported e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        const auto k = tomlKeys(e.text);
        QCOMPARE(k.at("model.name"), std::string("llama3"));
        QCOMPARE(k.at("model.flavor"), std::string("8B"));
        QCOMPARE(k.at("training.local_batch_size"), n(s.train.microBatch));
        QCOMPARE(k.at("training.global_batch_size"), n(s.train.microBatch * s.train.gradAccum * s.hardware.count));
        QCOMPARE(k.at("training.seq_len"), n(s.train.seqLen));
        QCOMPARE(k.at("training.dtype"), std::string("float32"));
        QCOMPARE(k.at("training.mixed_precision_param"), std::string("bfloat16"));
        QCOMPARE(k.at("parallelism.data_parallel_shard_degree"), n(s.hardware.count));
        QCOMPARE(k.at("parallelism.data_parallel_replicate_degree"), std::string("1"));
        QCOMPARE(k.at("parallelism.tensor_parallel_degree"), std::string("1"));
        QCOMPARE(k.at("parallelism.pipeline_parallel_degree"), std::string("1"));
        QCOMPARE(k.at("activation_checkpoint.mode"), std::string("selective"));
        QCOMPARE(k.at("activation_checkpoint.selective_ac_option"), std::string("op"));
        QCOMPARE(k.at("optimizer.name"), std::string("AdamW"));
        QCOMPARE(k.at("compile.enable"), std::string("false"));
        QVERIFY(!k.count("parallelism.pipeline_parallel_schedule"));
        QVERIFY2(!contains(e.text, "nearest equivalent"), "FSDP2 is torchtitan's own sharding");
        QCOMPARE(exportAs(s, ExportFormat::TorchtitanToml).text, e.text);
    }

    // torchtitan's own 2D layout with context parallelism: FSDP2 over
    // dp_shard, the cp degree written as planned (torchtitan flattens
    // dp_shard x cp for the parameters itself).
    void torchtitanContextParallel()
    {
        Scenario s = fullFinetune();
        s.hardware.sharding = Sharding::Fsdp2;
        s.hardware.count = 16;
        s.hardware.parallel.tp = 2;
        s.hardware.parallel.sp = true;
        s.hardware.parallel.cp = 2;
        s.train.checkpointing = Checkpointing::Full;
        s.train.seqLen = 8192;
        const Exported e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        const auto k = tomlKeys(e.text);
        QCOMPARE(k.at("parallelism.data_parallel_shard_degree"), std::string("4"));
        QCOMPARE(k.at("parallelism.tensor_parallel_degree"), std::string("2"));
        QCOMPARE(k.at("parallelism.context_parallel_degree"), std::string("2"));
        QCOMPARE(k.at("training.global_batch_size"), n(s.train.microBatch * s.train.gradAccum * 4));
        QCOMPARE(k.at("training.seq_len"), std::string("8192"));
    }

    // tp x pp x dp: the pipeline's micro-batches are the scenario's, each
    // stage's layers Headroom's split, ZeRO-3 written as FSDP2 and said so.
    void torchtitanLayout3d()
    {
        Scenario s = layout3d(Sharding::Zero3);
        s.hardware.parallel.ppSchedule = PipelineSchedule::GPipe;
        const Exported e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        const auto k = tomlKeys(e.text);
        const ParallelLayout l = parallelLayout(s).value();
        QCOMPARE(k.at("parallelism.tensor_parallel_degree"), n(l.tp));
        QCOMPARE(k.at("parallelism.pipeline_parallel_degree"), n(l.pp));
        QCOMPARE(k.at("parallelism.data_parallel_shard_degree"), n(l.dp));
        QCOMPARE(k.at("parallelism.pipeline_parallel_schedule"), std::string("GPipe"));
        QCOMPARE(k.at("parallelism.pipeline_parallel_microbatch_size"), n(s.train.microBatch));
        QCOMPARE(k.at("training.local_batch_size"), n(s.train.microBatch * s.train.gradAccum));
        QCOMPARE(k.at("training.global_batch_size"), n(s.train.microBatch * s.train.gradAccum * l.dp));
        QCOMPARE(k.at("activation_checkpoint.mode"), std::string("full"));
        QVERIFY(contains(e.text, "[\"tok_embeddings\", \"layers.0\", "));
        QVERIFY(contains(e.text, "\"layers." + n(l.stageLayers[0] - 1) + "\"],\n  [\"layers." + n(l.stageLayers[0]) + "\""));
        QVERIFY(contains(e.text, "\"layers." + n(s.model.layers - 1) + "\", \"norm\", \"output\"],\n]"));
        QVERIFY(contains(e.text, "The scenario's sharding is zero3"));
    }

    // Interleaved 1F1B (vpp 2): Megatron-LM's --num-virtual-stages-per-pipeline-rank
    // (core_v0.16.1 arguments.py), its block recompute refused (it counts the
    // layers of each chunk); torchtitan's Interleaved1F1B with one model part
    // per virtual stage. Llama 3.1 8B, 32 layers over pp 2 x vpp 2 = 4 chunks
    // of 8: part 0 embedding and layers 0-7, 1 layers 8-15, 2 layers 16-23,
    // 3 layers 24-31, the norm and the output.
    void interleavedExports()
    {
        Scenario s = layout3d(Sharding::Zero1);
        s.hardware.parallel.vpp = 2;
        Exported e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY2(e.ok, e.text.c_str());
        const auto f = megatronFlags(e.text);
        QCOMPARE(f.at("--num-virtual-stages-per-pipeline-rank"), std::string("2"));
        QCOMPARE(f.at("--pipeline-model-parallel-size"), std::string("2"));
        s.train.checkpointing = Checkpointing::EveryK;
        s.train.checkpointEvery = 2;
        e = exportAs(s, ExportFormat::MegatronArgs);
        QVERIFY(!e.ok && e.code == ErrorCode::UnsupportedCombination);
        QVERIFY2(contains(e.text, "each model chunk"), e.text.c_str());

        Scenario t = layout3d(Sharding::Fsdp2);
        t.hardware.parallel.vpp = 2;
        e = exportAs(t, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        const auto k = tomlKeys(e.text);
        QCOMPARE(k.at("parallelism.pipeline_parallel_schedule"), std::string("Interleaved1F1B"));
        QVERIFY(contains(e.text, "[\"tok_embeddings\", \"layers.0\", "));
        QVERIFY(contains(e.text, "\"layers.7\"],\n  [\"layers.8\""));
        QVERIFY(contains(e.text, "\"layers.15\"],\n  [\"layers.16\""));
        QVERIFY(contains(e.text, "\"layers.23\"],\n  [\"layers.24\""));
        QVERIFY(contains(e.text, "\"layers.31\", \"norm\", \"output\"],\n]"));
    }

    void torchtitanFlavors()
    {
        // Qwen3 1.7B is a qwen3 flavor; Mistral 7B has none (the file says so).
        auto k = tomlKeys(exportAs(fullFinetune("Qwen/Qwen3-1.7B"), ExportFormat::TorchtitanToml).text);
        QCOMPARE(k.at("model.name"), std::string("qwen3"));
        QCOMPARE(k.at("model.flavor"), std::string("1.7B"));
        Scenario mistral = fullFinetune("mistralai/Mistral-7B-v0.3");
        const Exported e = exportAs(mistral, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        k = tomlKeys(e.text);
        QCOMPARE(k.at("model.name"), std::string("llama3"));
        QCOMPARE(k.at("model.flavor"), mistral.model.id);
        QVERIFY(contains(e.text, "# Note: No llama3 flavor of torchtitan 0.2.2 has this model's shape"));
        // One layer in 2: torchtitan's layer frequency.
        Scenario every = fullFinetune();
        every.train.checkpointing = Checkpointing::EveryK;
        every.train.checkpointEvery = 2;
        k = tomlKeys(exportAs(every, ExportFormat::TorchtitanToml).text);
        QCOMPARE(k.at("activation_checkpoint.selective_ac_option"), std::string("2"));
    }

    // DeepSeek-V3 (config.json: 61 layers, 3 dense, 256 experts top-8 and one
    // shared, q_lora 1536, kv_lora 512) is torchtitan's deepseek_v3 flavor
    // 671B; its experts go over ep under FSDP2, and Megatron-LM's layouts are
    // the other export's.
    void torchtitanDeepseek()
    {
        Scenario s = deepseekOn64(Sharding::Fsdp2);
        s.train.gradAccum = 4;
        Exported e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY2(e.ok, e.text.c_str());
        const auto k = tomlKeys(e.text);
        QCOMPARE(k.at("model.name"), std::string("deepseek_v3"));
        QCOMPARE(k.at("model.flavor"), std::string("671B"));
        QCOMPARE(k.at("parallelism.expert_parallel_degree"), std::string("8"));
        QCOMPARE(k.at("parallelism.data_parallel_shard_degree"), std::string("16"));
        s.hardware.sharding = Sharding::Zero1;
        s.hardware.parallel.ep = 1;
        e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY(!e.ok && e.code == ErrorCode::UnsupportedCombination);
        QVERIFY2(contains(e.text, "--format megatron-args"), e.text.c_str());
        // Qwen3-30B-A3B (48 layers, 128 experts of 768, top-8) is qwen3's
        // flavor 30B-A3B; a Qwen3-MoE with dense layers between is no qwen3 model.
        Scenario q = fullFinetune("Qwen/Qwen3-30B-A3B");
        q.hardware.sharding = Sharding::Fsdp2;
        q.hardware.parallel.ep = 8;
        const auto qk = tomlKeys(exportAs(q, ExportFormat::TorchtitanToml).text);
        QCOMPARE(qk.at("model.name"), std::string("qwen3"));
        QCOMPARE(qk.at("model.flavor"), std::string("30B-A3B"));
        QCOMPARE(qk.at("parallelism.expert_parallel_degree"), std::string("8"));
        q.model.denseLayers = 1;
        q.model.denseLayerIds = {0};
        q.model.denseIntermediate = 6144;
        q.hardware.parallel.ep = 1;
        e = exportAs(q, ExportFormat::TorchtitanToml);
        QVERIFY(!e.ok);
        QVERIFY2(contains(e.text, "none of them"), e.text.c_str());
    }

    void torchtitanRefuses_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("why");
        const char* rows[] = {"LoRA",          "Adam and AdamW", "float32 or bfloat16", "DDP only without tensor",
                              "eager attention", "none of them", "configures training", "only through FSDP2",
                              "return_outputs=False"};
        for (int k = 0; k < int(std::size(rows)); ++k)
            QTest::newRow(rows[k]) << k << QString::fromLatin1(rows[k]);
    }
    void torchtitanRefuses()
    {
        QFETCH(int, which);
        QFETCH(QString, why);
        Scenario s = fullFinetune();
        switch (which) {
        case 0: s = teachingScenario().value(); break;  // QLoRA
        case 1: s.train.optimizer = Optimizer::Sgd; break;
        case 2: s.train.precision = Precision::Fp16Mixed; break;
        case 3: s = layout3d(Sharding::Ddp); break;
        case 4: s.train.attention = Attention::Eager; break;
        case 5: s.model = presetModel("google/gemma-2-9b").value(); break;
        case 6: s.mode = Mode::Inference; break;
        case 7:  // dp 1: no FSDP to cast to bf16
            s = layout3d(Sharding::Ddp);
            s.hardware.count = 4;
            break;
        case 8: // the last stage's outputs kept, as torchtitan before 0.2.2
            s = layout3d(Sharding::Fsdp2);
            s.hardware.parallel.ppReturnOutputs = true;
            break;
        }
        const Exported e = exportAs(s, ExportFormat::TorchtitanToml);
        QVERIFY(!e.ok);
        QVERIFY2(e.code == ErrorCode::UnsupportedCombination, e.text.c_str());
        QVERIFY2(QString::fromStdString(e.text).contains(why), e.text.c_str());
    }

    // headroom-cli export names both formats and writes them.
    void cli()
    {
        QProcess p;
        p.start(QStringLiteral(HEADROOM_CLI_PATH),
                {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("megatron-args"),
                 QStringLiteral("--peft"), QStringLiteral("none"), QStringLiteral("--weight-quant"),
                 QStringLiteral("none"), QStringLiteral("--optimizer"), QStringLiteral("adamw"),
                 QStringLiteral("--gpu"), QStringLiteral("h100-sxm-80gb"), QStringLiteral("--gpus"),
                 QStringLiteral("8"), QStringLiteral("--sharding"), QStringLiteral("zero1"), QStringLiteral("--tp"),
                 QStringLiteral("2"), QStringLiteral("--pp"), QStringLiteral("2")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const auto f = megatronFlags(p.readAllStandardOutput().toStdString());
        QCOMPARE(f.at("--tensor-model-parallel-size"), std::string("2"));
        QCOMPARE(f.at("--pipeline-model-parallel-size"), std::string("2"));
        // The built-in scenario is QLoRA: refused, one line, exit 2.
        p.start(QStringLiteral(HEADROOM_CLI_PATH),
                {QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("torchtitan-toml")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(err.count('\n'), 1);
        QVERIFY2(err.contains("torchtitan-toml: torchtitan trains every weight"), err.constData());
    }
};

QTEST_GUILESS_MAIN(TestParallelExports)
#include "test_parallelexports.moc"
