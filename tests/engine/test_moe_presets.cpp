// SPDX-License-Identifier: GPL-3.0-or-later
// Mixture-of-experts presets (issue 15, "Mixture of experts"): Qwen3-30B-A3B,
// Qwen3-235B-A22B, gpt-oss-20b and gpt-oss-120b. Their exact totals are what
// transformers 5.17 counts on the meta device for the catalog's config.json
// (tools/reference/hf_param_counts.py --check --only <id>), derived by hand
// below from the modelling files' shapes too; the published figures they
// round to are the model cards' (cited per row). Their config.json imports,
// refused layouts, and plans in training and inference.
#include "io/modeljson.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"
#include "plan/planner.h"
#include "planrows.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>

using namespace headroom;

namespace {

Result<ModelSpec> fromFile(const char* name)
{
    return modelSpecFromConfigFile(std::string(HEADROOM_TEST_DATA) + "/configs/" + name);
}

// Elements of the tensors of one kind, all layers and the global ones.
Bytes elementsOfKinds(const ParameterTable& t, std::initializer_list<ModuleKind> kinds)
{
    Bytes total = 0;
    for (const ParamTensor& p : t.global)
        for (ModuleKind k : kinds)
            total += p.kind == k ? p.elements() : 0;
    for (const ParamTensor& p : t.layer)
        for (ModuleKind k : kinds)
            total += p.kind == k ? p.elements() * t.layers : 0;
    return total;
}

Bytes embeddingElements(const ParameterTable& t) { return elementsOfKinds(t, {ModuleKind::Embedding}); }

// `value` in billions, rounded to `decimals` as a model card prints it.
double billions(Bytes value, int decimals)
{
    const double scale = std::pow(10.0, decimals);
    return std::round(double(value) / 1e9 * scale) / scale;
}

Scenario scenarioFor(const char* id)
{
    Result<ModelSpec> model = presetModel(id);
    if (!model)
        qFatal("preset %s missing: %s", id, model.error().detail.c_str());
    Scenario s;
    s.model = model.value();
    s.hardware.gpu = "h100-sxm-80gb";
    s.train.seqLen = 1024;
    return s;
}

bool hasRow(const Plan& p, const char* key)
{
    for (const TensorRow& r : p.tensors)
        if (std::string_view(r.name).ends_with(key))
            return true;
    return false;
}

} // namespace

class TestMoePresets : public QObject {
    Q_OBJECT

private slots:
    // Per layer, Qwen3-MoE (modeling_qwen3_moe.py): q 2048*4096 + k, v
    // 2*2048*512 + o 4096*2048 = 18,874,368, q/k norms 2*128, two norms
    // 2*2048, router 128*2048 = 262,144, 128 experts of 3*2048*768 =
    // 4,718,592 each; embed_tokens and lm_head 2*151936*2048; final norm 2048.
    // gpt-oss (modeling_gpt_oss.py): q 2880*4096+4096, k, v 2*(2880*512+512),
    // o 4096*2880+2880, sinks 64; router 2880*E + E; per expert gate_up
    // 2880*5760 + 5760, down 2880*2880 + 2880 = 24,891,840; two norms 2*2880;
    // embed_tokens and lm_head 2*201088*2880; final norm 2880.
    void totals_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<qulonglong>("total");
        // transformers 5.17 Qwen3MoeForCausalLM on the meta device:
        // 30,532,122,624; Qwen3-30B-A3B's model card: "30.5B in total".
        QTest::newRow("Qwen3-30B-A3B") << QByteArray("Qwen/Qwen3-30B-A3B") << QByteArray("qwen3-30b-a3b.json")
                                       << 30532122624ull;
        // 235,093,634,560; Qwen3-235B-A22B's model card: "235B in total".
        QTest::newRow("Qwen3-235B-A22B") << QByteArray("Qwen/Qwen3-235B-A22B") << QByteArray("qwen3-235b-a22b.json")
                                         << 235093634560ull;
        // transformers 5.17 GptOssForCausalLM on the meta device:
        // 20,914,757,184; OpenAI's gpt-oss model card (arXiv:2508.10925,
        // Table 1): 20.91B total.
        QTest::newRow("gpt-oss-20b") << QByteArray("openai/gpt-oss-20b") << QByteArray("gpt-oss-20b.json")
                                     << 20914757184ull;
        // 116,829,156,672; the card: 116.83B total.
        QTest::newRow("gpt-oss-120b") << QByteArray("openai/gpt-oss-120b") << QByteArray("gpt-oss-120b.json")
                                      << 116829156672ull;
    }
    void totals()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, file);
        QFETCH(qulonglong, total);
        const CatalogModel* preset = findCatalogModel(id.toStdString());
        QVERIFY(preset);
        QCOMPARE(qulonglong(preset->parameters), total);
        QCOMPARE(qulonglong(buildParameterTable(preset->spec).totalElements()), total);
        const Result<ModelSpec> imported = fromFile(file.constData());
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().detail.c_str());
        QCOMPARE(qulonglong(buildParameterTable(*imported).totalElements()), total);
    }

    // Active parameters: the layers' shared tensors, the router and the
    // top-k experts, plus embeddings, heads and norms (ParameterTable::
    // activeElements). The cards count them differently:
    // - Qwen3-30B-A3B: 48 * (18,874,624 + 4,096 + 262,144 + 8 * 4,718,592)
    //   + 622,331,904 = 3,353,032,704. The card's "3.3B activated" is this
    //   truncated to one decimal (rounded it would be 3.4); its "29.9B
    //   non-embedding" is the total less embed_tokens and lm_head,
    //   29,909,792,768.
    // - Qwen3-235B-A22B: 94 * (71,303,424 + 8,192 + 524,288 + 8 * 18,874,368)
    //   + 1,244,663,808 = 22,190,763,520: the card's "22B activated";
    //   non-embedding 233,848,974,848, the card's "234B".
    // - gpt-oss: the card's active counts leave out the input embedding
    //   (a lookup, not a matmul) and keep the unembedding: 20b: 4,187,440,704
    //   less 579,133,440 = 3,608,307,264, "3.61B"; 120b: 5,711,982,912 less
    //   579,133,440 = 5,132,849,472, "5.13B".
    void activeCounts_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<qulonglong>("active");
        QTest::addColumn<bool>("withoutEmbedding");
        QTest::addColumn<double>("published");
        QTest::addColumn<int>("decimals");
        QTest::newRow("Qwen3-30B-A3B") << QByteArray("Qwen/Qwen3-30B-A3B") << 3353032704ull << false << 3.3 << -1;
        QTest::newRow("Qwen3-235B-A22B") << QByteArray("Qwen/Qwen3-235B-A22B") << 22190763520ull << false << 22.0 << 0;
        QTest::newRow("gpt-oss-20b") << QByteArray("openai/gpt-oss-20b") << 4187440704ull << true << 3.61 << 2;
        QTest::newRow("gpt-oss-120b") << QByteArray("openai/gpt-oss-120b") << 5711982912ull << true << 5.13 << 2;
    }
    void activeCounts()
    {
        QFETCH(QByteArray, id);
        QFETCH(qulonglong, active);
        QFETCH(bool, withoutEmbedding);
        QFETCH(double, published);
        QFETCH(int, decimals);
        const ModelSpec spec = presetModel(id.toStdString()).value();
        const ParameterTable table = buildParameterTable(spec);
        const Bytes ours = table.activeElements(spec.expertsPerToken, spec.experts);
        QCOMPARE(qulonglong(ours), active);
        const Bytes asPublished = withoutEmbedding ? ours - embeddingElements(table) : ours;
        if (decimals < 0) // truncated to one decimal (Qwen3-30B-A3B's card)
            QCOMPARE(std::floor(double(asPublished) / 1e8) / 10.0, published);
        else
            QCOMPARE(billions(asPublished, decimals), published);
        // Plans report the same active count.
        QCOMPARE(qulonglong(makePlan(scenarioFor(id.constData())).value().activeParameters), active);
    }

    // The Qwen3 cards' non-embedding counts: 29.9B and 234B.
    void qwenNonEmbedding()
    {
        for (const auto& [id, nonEmbedding, published, decimals] :
             {std::tuple{"Qwen/Qwen3-30B-A3B", 29909792768ull, 29.9, 1},
              std::tuple{"Qwen/Qwen3-235B-A22B", 233848974848ull, 234.0, 0}}) {
            const ParameterTable t = buildParameterTable(presetModel(id).value());
            const Bytes rest = t.totalElements() - elementsOfKinds(t, {ModuleKind::Embedding, ModuleKind::LmHead});
            QCOMPARE(qulonglong(rest), nonEmbedding);
            QCOMPARE(billions(rest, decimals), published);
        }
    }

    // OpenAI's gpt-oss model card, Table 1, per component (20b / 120b):
    // MLP 19.12B / 114.71B (routers and experts), attention 0.64B / 0.96B
    // (q, k, v, o with biases and the sinks), embed + unembed 1.16B.
    // By hand: MLP 24 * (92,192 + 32 * 24,891,840) = 19,119,145,728 and
    // 36 * (368,768 + 128 * 24,891,840) = 114,714,874,368; attention 24 or
    // 36 * 26,550,144 = 637,203,456 and 955,805,184; 2 * 201088 * 2880 =
    // 1,158,266,880.
    void gptOssComponents()
    {
        using K = ModuleKind;
        for (const auto& [id, mlp, attention, mlpB, attentionB] :
             {std::tuple{"openai/gpt-oss-20b", 19119145728ull, 637203456ull, 19.12, 0.64},
              std::tuple{"openai/gpt-oss-120b", 114714874368ull, 955805184ull, 114.71, 0.96}}) {
            const ParameterTable t = buildParameterTable(presetModel(id).value());
            const Bytes ourMlp = elementsOfKinds(t, {K::Router, K::MlpGateUp, K::MlpDown});
            const Bytes ourAttention = elementsOfKinds(t, {K::AttnQ, K::AttnK, K::AttnV, K::AttnOut, K::AttnSinks});
            const Bytes embed = elementsOfKinds(t, {K::Embedding, K::LmHead});
            QCOMPARE(qulonglong(ourMlp), mlp);
            QCOMPARE(qulonglong(ourAttention), attention);
            QCOMPARE(qulonglong(embed), 1158266880ull);
            QCOMPARE(billions(ourMlp, 2), mlpB);
            QCOMPARE(billions(ourAttention, 2), attentionB);
            QCOMPARE(billions(embed, 2), 1.16);
        }
    }

    // The tensor names and shapes of the modelling files.
    void tensorLayout()
    {
        const ParameterTable qwen = buildParameterTable(presetModel("Qwen/Qwen3-30B-A3B").value());
        auto find = [](const ParameterTable& t, const std::string& name) -> const ParamTensor* {
            for (const ParamTensor& p : t.layer)
                if (p.name() == name)
                    return &p;
            return nullptr;
        };
        const ParamTensor* gate = find(qwen, "model.layers.{i}.mlp.gate.weight");
        QVERIFY(gate);
        QCOMPARE(gate->kind, ModuleKind::Router);
        QCOMPARE(gate->rows * gate->cols, 128u * 2048u);
        const ParamTensor* down = find(qwen, "model.layers.{i}.mlp.experts.{e}.down_proj.weight");
        QVERIFY(down);
        QCOMPARE(down->copies, 128u);
        QVERIFY(find(qwen, "model.layers.{i}.self_attn.q_norm.weight"));
        QVERIFY(!find(qwen, "model.layers.{i}.self_attn.q_proj.bias"));

        const ParameterTable oss = buildParameterTable(presetModel("openai/gpt-oss-20b").value());
        const ParamTensor* sinks = find(oss, "model.layers.{i}.self_attn.sinks");
        QVERIFY(sinks);
        QCOMPARE(sinks->elements(), 64u);
        const ParamTensor* gateUp = find(oss, "model.layers.{i}.mlp.experts.gate_up_proj");
        QVERIFY(gateUp);
        QCOMPARE(gateUp->elements(), 32u * 2880u * 5760u);
        QVERIFY(!gateUp->isLinearWeight); // a stacked nn.Parameter: not bitsandbytes' or PEFT's target
        QVERIFY(find(oss, "model.layers.{i}.mlp.experts.down_proj_bias"));
        QVERIFY(find(oss, "model.layers.{i}.mlp.router.bias"));
        QVERIFY(find(oss, "model.layers.{i}.self_attn.o_proj.bias"));
        // gpt-oss-120b's largest tensor is the stacked gate_up_proj, whole
        // (LOMO's live gradient): 128 x 2880 x 5760, more than embed_tokens
        // (201088 x 2880), which is the largest of the 20b.
        const ParameterTable big = buildParameterTable(presetModel("openai/gpt-oss-120b").value());
        QCOMPARE(qulonglong(big.largestTensorElements()), qulonglong(128ull * 2880 * 5760));
        QCOMPARE(qulonglong(oss.largestTensorElements()), qulonglong(201088ull * 2880));
    }

    void configImport()
    {
        const Result<ModelSpec> q = fromFile("qwen3-30b-a3b.json");
        QVERIFY2(q.ok(), q.ok() ? "" : q.error().detail.c_str());
        QCOMPARE(q->family, Family::Qwen3Moe);
        QCOMPARE(q->hfClass, std::string("Qwen3MoeForCausalLM"));
        QCOMPARE(q->experts, 128u);
        QCOMPARE(q->expertsPerToken, 8u);
        QCOMPARE(q->intermediate, 768u); // moe_intermediate_size, not intermediate_size 6144
        QCOMPARE(q->headDim, 128u);      // head_dim, not 2048 / 32
        QCOMPARE(q->kvHeads, 4u);
        QVERIFY(q->qkNorm && !q->qkvBias && !q->tieEmbeddings);
        QCOMPARE(q->slidingWindow, 0u);  // use_sliding_window false

        const Result<ModelSpec> g = fromFile("gpt-oss-120b.json");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().detail.c_str());
        QCOMPARE(g->family, Family::GptOss);
        QCOMPARE(g->experts, 128u);
        QCOMPARE(g->expertsPerToken, 4u);
        QCOMPARE(g->headDim, 64u);
        QCOMPARE(g->kvHeads, 8u);
        QVERIFY(g->qkvBias && g->attnOutBias && g->mlpBias && !g->qkNorm);
        QCOMPARE(g->slidingWindow, 128u); // sliding on even layers, full on odd (layer_types)
        QCOMPARE(g->slidingPeriod, 2u);

        // The class defaults (Qwen3MoeConfig: 128 experts, 8 per token,
        // head_dim hidden / heads; GptOssConfig: 128 experts, 4 per token,
        // head_dim 64, 8 KV heads, window 128 on alternate layers).
        const Result<ModelSpec> qd = modelSpecFromHfConfigText(
            R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,)"
            R"( "vocab_size": 100, "moe_intermediate_size": 32})");
        QVERIFY2(qd.ok(), qd.ok() ? "" : qd.error().detail.c_str());
        QCOMPARE(qd->experts, 128u);
        QCOMPARE(qd->expertsPerToken, 8u);
        QCOMPARE(qd->headDim, 16u);
        QCOMPARE(qd->kvHeads, 4u);
        const Result<ModelSpec> gd = modelSpecFromHfConfigText(
            R"({"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,)"
            R"( "vocab_size": 100, "intermediate_size": 32})");
        QVERIFY2(gd.ok(), gd.ok() ? "" : gd.error().detail.c_str());
        QCOMPARE(gd->experts, 128u);
        QCOMPARE(gd->expertsPerToken, 4u);
        QCOMPARE(gd->headDim, 64u);
        QCOMPARE(gd->kvHeads, 8u);
        QCOMPARE(gd->slidingWindow, 128u);
        QCOMPARE(gd->slidingPeriod, 2u);
    }

    // An imported config saved in a scenario ({"spec": ...}) reads back equal.
    void specRoundTrip()
    {
        for (const char* file : {"qwen3-235b-a22b.json", "gpt-oss-20b.json"}) {
            const Result<ModelSpec> spec = fromFile(file);
            QVERIFY(spec.ok());
            const Result<ModelSpec> back = modelFromJson(nlohmann::json::parse(modelToJson(*spec).dump()));
            QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
            QCOMPARE(back->family, spec->family);
            QCOMPARE(back->experts, spec->experts);
            QCOMPARE(back->intermediate, spec->intermediate);
            QCOMPARE(back->slidingPeriod, spec->slidingPeriod);
            QCOMPARE(buildParameterTable(*back).totalElements(), buildParameterTable(*spec).totalElements());
        }
    }

    void refusedLayouts_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("code");
        QTest::addColumn<QByteArray>("named");
        const QByteArray qwen = "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4, "
                                "\"num_attention_heads\": 4, \"vocab_size\": 100, \"moe_intermediate_size\": 32";
        const QByteArray oss = "{\"model_type\": \"gpt_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                               "\"num_attention_heads\": 8, \"vocab_size\": 100, \"intermediate_size\": 32";
        using E = ErrorCode;
        // Qwen3MoeDecoderLayer: a layer in mlp_only_layers, or i with (i + 1)
        // % decoder_sparse_step != 0, is a dense Qwen3MoeMLP; every layer
        // dense is a dense model.
        QTest::newRow("every layer dense") << qwen + ", \"mlp_only_layers\": [0, 1, 2, 3]}"
                                           << int(E::UnsupportedCombination)
                                           << QByteArray("make every one of the 4 layers dense");
        QTest::newRow("sparse step past the layers") << qwen + ", \"decoder_sparse_step\": 5}"
                                                     << int(E::UnsupportedCombination)
                                                     << QByteArray("import it as a dense \"qwen3\" model");
        QTest::newRow("no moe width") << QByteArray(qwen).replace(", \"moe_intermediate_size\": 32", "") + "}"
                                      << int(E::MissingField) << QByteArray("moe_intermediate_size");
        QTest::newRow("top-k above experts") << qwen + ", \"num_experts\": 4, \"num_experts_per_tok\": 5}"
                                             << int(E::InvalidArgument) << QByteArray("exceeds \"num_experts\" 4");
        QTest::newRow("layer_types pattern")
            << oss + ", \"layer_types\": [\"full_attention\", \"sliding_attention\"]}" << int(E::UnsupportedCombination)
            << QByteArray("layer_types");
        QTest::newRow("layer_types length") << oss + ", \"layer_types\": [\"full_attention\"]}"
                                            << int(E::InvalidArgument) << QByteArray("one type per layer (2)");
    }
    void refusedLayouts()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, code);
        QFETCH(QByteArray, named);
        const Result<ModelSpec> s = modelSpecFromHfConfigText(std::string_view(text.constData(), std::size_t(text.size())));
        QVERIFY(!s.ok());
        QCOMPARE(errorCodeName(s.error().code), errorCodeName(ErrorCode(code)));
        QVERIFY2(s.error().detail.find(named.toStdString()) != std::string::npos, s.error().detail.c_str());
    }

    // The experts compute in their weights' dtype: aten::_grouped_mm is on no
    // autocast list and transformers casts its input to the weight
    // (moesaves.h). Under bf16-mixed the token-slot rows are fp32 and
    // autocast's weight copies leave the experts out; in pure bf16 they are
    // 16-bit. The accountant measured both (pytorch_reference.json:
    // qwen3-30b-a3b-bf16-mixed-sdpa-b8-s2048-sgd, ...-bf16-...-nocache).
    void expertsComputeInTheWeightDtype()
    {
        const ModelSpec m = scenarioFor("Qwen/Qwen3-30B-A3B").model;
        const Bytes tokenSlots = Bytes(1024) * m.expertsPerToken;
        for (const auto& [precision, bytes] :
             {std::pair{Precision::Bf16Mixed, Bytes(4)}, std::pair{Precision::Bf16, Bytes(2)}}) {
            Scenario s = scenarioFor("Qwen/Qwen3-30B-A3B");
            s.train.precision = precision;
            s.train.optimizer = Optimizer::Sgd;
            const Result<Plan> p = makePlan(s);
            QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
            QCOMPARE(qulonglong(testing::rowBytes(*p, "moe.gathered")), qulonglong(tokenSlots * m.hidden * bytes));
            QCOMPARE(qulonglong(testing::rowBytes(*p, "moe.up_out")),
                     qulonglong(tokenSlots * 2 * m.intermediate * bytes));
            if (precision == Precision::Bf16Mixed) {
                // Only attention and the router are cast: 16-bit copies of a
                // layer's non-expert linear weights.
                Bytes nonExpert = 0;
                for (const ParamTensor& t : buildParameterTable(m).layer)
                    if (t.isLinearWeight && t.copies == 1)
                        nonExpert += t.elements();
                QCOMPARE(qulonglong(testing::rowBytes(*p, "autocast.weight_copies")), qulonglong(nonExpert * 2));
            }
        }
    }

    // Every preset plans in training (full fine-tune, LoRA, QLoRA) and in
    // inference; the MoE rows are there.
    void plans_data()
    {
        QTest::addColumn<QByteArray>("id");
        for (const char* id : {"Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B", "openai/gpt-oss-20b", "openai/gpt-oss-120b"})
            QTest::newRow(id) << QByteArray(id);
    }
    void plans()
    {
        QFETCH(QByteArray, id);
        const bool oss = id.startsWith("openai/");
        Scenario full = scenarioFor(id.constData());
        const Result<Plan> trained = makePlan(full);
        QVERIFY2(trained.ok(), trained.ok() ? "" : trained.error().detail.c_str());
        // transformers 5.17's grouped_mm experts (plan/moesaves.h): router,
        // dispatch, the masked up projection, the gate and the expert output.
        for (const char* row :
             {"moe.router_in", "moe.routing", "moe.dispatch", "moe.gathered", "moe.up_out", "moe.expert_out"})
            QVERIFY2(hasRow(*trained, row), row);
        QVERIFY(hasRow(*trained, oss ? "mlp.sigmoid_out" : "mlp.act_out"));
        // gpt-oss has no sdpa in transformers: its eager attention with sinks is planned.
        QCOMPARE(hasRow(*trained, "attn.probs_sinks"), oss);
        QVERIFY(trained->peakBytes > trained->totalParameters * 2);

        Scenario lora = full;
        lora.train.peft.method = PeftMethod::Lora;
        lora.train.checkpointing = Checkpointing::Full;
        const Result<Plan> adapted = makePlan(lora);
        QVERIFY2(adapted.ok(), adapted.ok() ? "" : adapted.error().detail.c_str());
        QVERIFY(adapted->peakBytes < trained->peakBytes);
        // With all-linear the plan says which peft it follows: 0.21 adapts
        // the experts too (measured +7.3 % on Mixtral, planner.cpp).
        auto peftNote = [](const Plan& p) {
            return std::any_of(p.notes.begin(), p.notes.end(),
                               [](const std::string& n) { return n.starts_with("LoRA all-linear leaves the experts"); });
        };
        QCOMPARE(peftNote(*adapted), std::find(lora.train.peft.targets.begin(), lora.train.peft.targets.end(),
                                               "all-linear") != lora.train.peft.targets.end());
        Scenario allLinear = lora;
        allLinear.train.peft.targets = {"all-linear"};
        QVERIFY(peftNote(makePlan(allLinear).value()));
        allLinear.train.peft.targets = {"q_proj", "v_proj"};
        QVERIFY(!peftNote(makePlan(allLinear).value()));

        Scenario qlora = lora;
        qlora.train.peft.method = PeftMethod::Qlora;
        qlora.train.weightQuant = WeightQuant::Nf4;
        const Result<Plan> quantized = makePlan(qlora);
        QVERIFY2(quantized.ok(), quantized.ok() ? "" : quantized.error().detail.c_str());
        // transformers 5.17 keeps every family's experts as stacked
        // nn.Parameters, which bitsandbytes leaves in 16-bit and PEFT's
        // prepare_model_for_kbit_training then casts to fp32
        // (peft/utils/other.py; accountant: qwen3-30b-a3b ... qlora16): QLoRA
        // holds more than LoRA, and the plan says why.
        QVERIFY(quantized->peakBytes > adapted->peakBytes);
        QVERIFY(std::any_of(quantized->notes.begin(), quantized->notes.end(),
                            [](const std::string& n) { return n.starts_with("Experts are not quantized"); }));

        Scenario infer = full;
        infer.mode = Mode::Inference;
        infer.inference.promptTokens = 4096;
        const Result<Plan> served = makePlan(infer);
        QVERIFY2(served.ok(), served.ok() ? "" : served.error().detail.c_str());
        QVERIFY(served->peakBytes > served->totalParameters * 2);
    }
};

QTEST_GUILESS_MAIN(TestMoePresets)
#include "test_moe_presets.moc"
