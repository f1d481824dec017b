// SPDX-License-Identifier: GPL-3.0-or-later
// The model's parameters for the step program: each layer's and the global
// tensors by their Hugging Face names, allocated from the tracking allocator
// in the master dtype (NF4-packed for QLoRA), the RoPE tables, and the
// initial values.
#include "runtime/step/trainerimpl.h"

#include "model/parametertable.h"
#include "plan/planner.h"
#include "runtime/cpu/rope.h"
#include "runtime/initvalues.h"

#include <cmath>

namespace headroom::rt {

namespace {

// transformers LlamaConfig's rope_theta default.
constexpr double kRopeTheta = 10000.0;

} // namespace

void Trainer::Impl::allocateModel()
{
    const ModelSpec& m = scenario.model;
    auto param = [&](Param& p, const char* name, std::size_t rows, std::size_t cols, bool present) {
        p.name = name;
        p.rows = rows;
        p.cols = cols;
        p.present = present;
        p.isMatrix = cols > 1;
    };
    layers.resize(d.L);
    for (std::size_t l = 0; l < d.L; ++l) {
        auto& P = layers[l];
        if (bert) {
            // modeling_bert.py BertLayer: every linear and LayerNorm with bias.
            param(P[Wq], "attention.self.query", d.QD, d.C, true);
            param(P[Bq], "attention.self.query.bias", d.QD, 1, true);
            param(P[Wk], "attention.self.key", d.KD, d.C, true);
            param(P[Bk], "attention.self.key.bias", d.KD, 1, true);
            param(P[Wv], "attention.self.value", d.KD, d.C, true);
            param(P[Bv], "attention.self.value.bias", d.KD, 1, true);
            param(P[Wo], "attention.output.dense", d.C, d.QD, true);
            param(P[Bo], "attention.output.dense.bias", d.C, 1, true);
            param(P[Norm1], "attention.output.LayerNorm", d.C, 1, true);
            param(P[Norm1B], "attention.output.LayerNorm.bias", d.C, 1, true);
            param(P[Wu], "intermediate.dense", d.I, d.C, true);
            param(P[Bu], "intermediate.dense.bias", d.I, 1, true);
            param(P[Wd], "output.dense", d.C, d.I, true);
            param(P[Bd], "output.dense.bias", d.C, 1, true);
            param(P[Norm2], "output.LayerNorm", d.C, 1, true);
            param(P[Norm2B], "output.LayerNorm.bias", d.C, 1, true);
        } else if (gpt2) {
            // modeling_gpt2.py GPT2Block: every projection and LayerNorm with bias.
            param(P[Norm1], "ln_1", d.C, 1, true);
            param(P[Norm1B], "ln_1.bias", d.C, 1, true);
            param(P[Wq], "attn.c_attn", d.QD + 2 * d.KD, d.C, true);
            param(P[Bq], "attn.c_attn.bias", d.QD + 2 * d.KD, 1, true);
            param(P[Wo], "attn.c_proj", d.C, d.QD, true);
            param(P[Bo], "attn.c_proj.bias", d.C, 1, true);
            param(P[Norm2], "ln_2", d.C, 1, true);
            param(P[Norm2B], "ln_2.bias", d.C, 1, true);
            param(P[Wu], "mlp.c_fc", d.I, d.C, true);
            param(P[Bu], "mlp.c_fc.bias", d.I, 1, true);
            param(P[Wd], "mlp.c_proj", d.C, d.I, true);
            param(P[Bd], "mlp.c_proj.bias", d.C, 1, true);
        } else if (neox) {
            // modeling_gpt_neox.py GPTNeoXLayer: two LayerNorms with bias, the
            // fused query_key_value (rows here q, then k, then v: HF interleaves
            // them per head, a permutation of rows that changes nothing for
            // randomly initialised training), dense, and the MLP with bias.
            param(P[Norm1], "input_layernorm", d.C, 1, true);
            param(P[Norm1B], "input_layernorm.bias", d.C, 1, true);
            param(P[Wq], "attention.query_key_value", d.QD + 2 * d.KD, d.C, true);
            param(P[Bq], "attention.query_key_value.bias", d.QD + 2 * d.KD, 1, m.qkvBias);
            param(P[Wo], "attention.dense", d.C, d.QD, true);
            param(P[Bo], "attention.dense.bias", d.C, 1, m.attnOutBias);
            param(P[Norm2], "post_attention_layernorm", d.C, 1, true);
            param(P[Norm2B], "post_attention_layernorm.bias", d.C, 1, true);
            param(P[Wu], "mlp.dense_h_to_4h", d.I, d.C, true);
            param(P[Bu], "mlp.dense_h_to_4h.bias", d.I, 1, true);
            param(P[Wd], "mlp.dense_4h_to_h", d.C, d.I, true);
            param(P[Bd], "mlp.dense_4h_to_h.bias", d.C, 1, true);
        } else {
        param(P[Norm1], "input_layernorm", d.C, 1, true);
        param(P[Wq], "q_proj", d.QD, d.C, true);
        param(P[Bq], "q_proj.bias", d.QD, 1, m.qkvBias);
        param(P[Wk], "k_proj", d.KD, d.C, true);
        param(P[Bk], "k_proj.bias", d.KD, 1, m.qkvBias);
        param(P[Wv], "v_proj", d.KD, d.C, true);
        param(P[Bv], "v_proj.bias", d.KD, 1, m.qkvBias);
        param(P[Wo], "o_proj", d.C, d.QD, true);
        param(P[Bo], "o_proj.bias", d.C, 1, m.attnOutBias);
        param(P[Norm2], "post_attention_layernorm", d.C, 1, true);
        param(P[Wg], "gate_proj", d.I, d.C, true);
        param(P[Wu], "up_proj", d.I, d.C, true);
        param(P[Wd], "down_proj", d.C, d.I, true);
        }
        for (std::size_t i = 0; i < kLayerParams; ++i) {
            Param& p = P[i];
            p.frozen = lora;
            p.quantized = quant != WeightQuant::None && p.isMatrix;
            if (p.present && !p.quantized)
                p.value = makeTensor(alloc, row::kWeightsLayer, Category::Weights, prec.master, p.numel());
        }
    }
    if (lora) {
        const ParameterTable table = buildParameterTable(m);
        const auto loraTargets = resolveLoraTargets(m, table, scenario.train.peft.targets);
        loraA.resize(d.L);
        loraB.resize(d.L);
        for (std::size_t l = 0; l < d.L; ++l)
            for (std::size_t i = 0; i < kLayerParams; ++i) {
                const Param& base = layers[l][i];
                const bool target = base.present && base.isMatrix &&
                                    std::find(loraTargets.begin(), loraTargets.end(), base.name) != loraTargets.end();
                param(loraA[l][i], "lora_A", rank, base.cols, target);
                param(loraB[l][i], "lora_B", base.rows, rank, target);
                loraA[l][i].name = base.name + ".lora_A";
                loraB[l][i].name = base.name + ".lora_B";
                for (Param* a : {&loraA[l][i], &loraB[l][i]})
                    if (target)
                        a->value = makeTensor(alloc, row::kAdapters, Category::Weights, DType::F32, a->numel());
            }
    }
    if (bert) {
        // modeling_bert.py BertEmbeddings (whole position and token type
        // tables) and BertForSequenceClassification's pooler and classifier.
        param(globals[Embed], "embeddings.word_embeddings", d.V, d.C, true);
        param(globals[Wpe], "embeddings.position_embeddings", m.maxPositions, d.C, true);
        param(globals[TypeEmbed], "embeddings.token_type_embeddings", m.typeVocab, d.C, true);
        param(globals[EmbedNorm], "embeddings.LayerNorm", d.C, 1, true);
        param(globals[EmbedNormB], "embeddings.LayerNorm.bias", d.C, 1, true);
        param(globals[PoolerW], "pooler.dense", d.C, d.C, classifier);
        param(globals[PoolerB], "pooler.dense.bias", d.C, 1, classifier);
        param(globals[ClassifierW], "classifier", m.numLabels, d.C, classifier);
        param(globals[ClassifierB], "classifier.bias", m.numLabels, 1, classifier);
        // BertForMaskedLM's cls.predictions: transform, its LayerNorm, the decoder's bias.
        param(globals[TransformW], "cls.predictions.transform.dense", d.C, d.C, !classifier);
        param(globals[TransformB], "cls.predictions.transform.dense.bias", d.C, 1, !classifier);
        param(globals[FinalNorm], "cls.predictions.transform.LayerNorm", d.C, 1, !classifier);
        param(globals[FinalNormB], "cls.predictions.transform.LayerNorm.bias", d.C, 1, !classifier);
        param(globals[DecoderBias], "cls.predictions.bias", d.V, 1, !classifier);
    } else {
        param(globals[Embed], gpt2 ? "wte" : neox ? "embed_in" : "embed_tokens", d.V, d.C, true);
        param(globals[FinalNorm], gpt2 ? "ln_f" : neox ? "final_layer_norm" : "norm", d.C, 1, true);
        param(globals[FinalNormB], gpt2 ? "ln_f.bias" : "final_layer_norm.bias", d.C, 1, layerNorm);
        param(globals[Wpe], "wpe", m.maxPositions, d.C, gpt2); // the whole position table (n_positions x hidden)
        param(globals[LmHead], neox ? "embed_out" : "lm_head", d.V, d.C, !m.tieEmbeddings);
    }
    globals[Embed].isEmbedding = true;
    for (Param& p : globals) {
        p.frozen = lora;
        if (p.present)
            p.value = makeTensor(alloc, row::kWeightsGlobal, Category::Weights, prec.master, p.numel());
    }
    // RoPE tables: cos and sin of T x rotaryDim/2 angles, fp32, kept for the run.
    if (rotaryDim > 0) {
        ropeCos = makeTensor(alloc, row::kRope, Category::Workspace, DType::F32, d.T * rotaryDim / 2);
        ropeSin = makeTensor(alloc, row::kRope, Category::Workspace, DType::F32, d.T * rotaryDim / 2);
        ops.ropeTable(ropeCos, ropeSin, d.T, rotaryDim, kRopeTheta);
    }
    initialiseWeights();
    allocateOptimizerState();
}

void Trainer::Impl::initialiseWeights()
{
    // GPT-2/Llama initialisation: normal(0, 0.02) matrices, zero biases, unit norms
    // (transformers LlamaPreTrainedModel._init_weights, initializer_range 0.02).
    // Each parameter draws from its own stream of a counter-based generator
    // (runtime/initvalues.h), in parallel and the same for any thread count.
    std::uint64_t stream = 0;
    auto init = [&](Param& p) {
        if (!p.present)
            return;
        ++stream;
        const bool norm = !p.isMatrix && p.name.find("bias") == std::string::npos &&
                          (p.name.find("norm") != std::string::npos || p.name.find("LayerNorm") != std::string::npos ||
                           p.name.starts_with("ln_"));
        std::vector<float> values(p.numel(), norm ? 1.0f : 0.0f);
        if (p.isMatrix)
            fillNormal(values, options.seed, stream, 0.02f);
        if (p.quantized) {
            quantizeWeight(p, values);
            return;
        }
        ops.upload(p.value, values);
    };
    for (auto& P : layers)
        for (Param& p : P)
            init(p);
    for (Param& p : globals)
        init(p);
    // PEFT LoRA: A ~ kaiming_uniform(a=sqrt(5)), i.e. uniform(+-1/sqrt(in)); B = 0,
    // so the adapted model starts as the base (peft/tuners/lora/layer.py reset_lora_parameters).
    for (std::size_t l = 0; l < loraA.size(); ++l)
        for (std::size_t i = 0; i < kLayerParams; ++i) {
            Param& a = loraA[l][i];
            if (!a.present)
                continue;
            ++stream;
            std::vector<float> values(a.numel());
            fillUniform(values, options.seed, stream, 1.0f / std::sqrt(static_cast<float>(a.cols)));
            ops.upload(a.value, values);
        }
}

} // namespace headroom::rt
