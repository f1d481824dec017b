// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tiny Llama-family scenarios for the runtime tests.
#include "plan/scenario.h"

#include <cstdint>

namespace headroom::testing {

inline ModelSpec tinyLlama(std::uint64_t layers = 2, std::uint64_t hidden = 16, std::uint64_t heads = 4,
                           std::uint64_t kvHeads = 2, std::uint64_t intermediate = 24, std::uint64_t vocab = 64)
{
    ModelSpec m;
    m.id = "tiny-llama";
    m.modelType = "llama";
    m.hfClass = "LlamaForCausalLM";
    m.family = Family::Llama;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.headDim = hidden / heads;
    m.intermediate = intermediate;
    m.vocab = vocab;
    m.maxPositions = 256;
    m.norm = NormKind::RmsNorm;
    m.hiddenAct = "silu";
    m.gatedMlp = true;
    m.origin = "test";
    return m;
}

// GPT-2 layout (modeling_gpt2.py): LayerNorm, learned positions, gelu_new,
// fused c_attn, biases everywhere, tied lm_head; dropout off.
inline ModelSpec tinyGpt2(std::uint64_t layers = 2, std::uint64_t hidden = 16, std::uint64_t heads = 4,
                          std::uint64_t intermediate = 32, std::uint64_t vocab = 64, std::uint64_t positions = 32)
{
    ModelSpec m = tinyLlama(layers, hidden, heads, heads, intermediate, vocab);
    m.id = "tiny-gpt2";
    m.modelType = "gpt2";
    m.hfClass = "GPT2LMHeadModel";
    m.family = Family::Gpt2;
    m.maxPositions = positions;
    m.norm = NormKind::LayerNorm;
    m.hiddenAct = "gelu_new";
    m.gatedMlp = false;
    m.tieEmbeddings = true;
    m.qkvBias = m.attnOutBias = m.mlpBias = true;
    m.learnedPositions = true;
    return m;
}

// GPT-NeoX layout (modeling_gpt_neox.py, Pythia): LayerNorm with bias,
// fused query_key_value, partial rotary (rotary_pct 0.25 in Pythia; 0.5 here
// so a tiny head still rotates a few pairs), parallel residual, exact GELU,
// untied embed_out; dropout off.
inline ModelSpec tinyNeoX(std::uint64_t layers = 2, std::uint64_t hidden = 32, std::uint64_t heads = 4,
                          std::uint64_t intermediate = 48, std::uint64_t vocab = 64)
{
    ModelSpec m = tinyLlama(layers, hidden, heads, heads, intermediate, vocab);
    m.id = "tiny-neox";
    m.modelType = "gpt_neox";
    m.hfClass = "GPTNeoXForCausalLM";
    m.family = Family::GptNeoX;
    m.norm = NormKind::LayerNorm;
    m.hiddenAct = "gelu";
    m.gatedMlp = false;
    m.qkvBias = m.attnOutBias = m.mlpBias = true;
    m.parallelResidual = true;
    m.rotaryFraction = 0.5;
    return m;
}

// BertForSequenceClassification (modeling_bert.py): post-LN encoder, exact
// GELU, learned positions, two token types, the pooler and a classifier over
// numLabels; dropout off.
inline ModelSpec tinyBert(std::uint64_t layers = 2, std::uint64_t hidden = 16, std::uint64_t heads = 4,
                          std::uint64_t intermediate = 32, std::uint64_t vocab = 64, std::uint64_t positions = 32,
                          std::uint64_t numLabels = 3)
{
    ModelSpec m = tinyLlama(layers, hidden, heads, heads, intermediate, vocab);
    m.id = "tiny-bert";
    m.modelType = "bert";
    m.hfClass = "BertForSequenceClassification";
    m.family = Family::Bert;
    m.maxPositions = positions;
    m.typeVocab = 2;
    m.norm = NormKind::LayerNorm;
    m.hiddenAct = "gelu";
    m.gatedMlp = false;
    m.qkvBias = m.attnOutBias = m.mlpBias = true;
    m.learnedPositions = true;
    m.encoder = true;
    m.useCache = false;
    m.head = ModelHead::SequenceClassification;
    m.numLabels = numLabels;
    return m;
}

// BertForMaskedLM: the same encoder with the MLM head (transform dense, GELU,
// LayerNorm, decoder tied to the word embeddings plus its bias).
inline ModelSpec tinyBertMlm(std::uint64_t layers = 2, std::uint64_t hidden = 16, std::uint64_t heads = 4,
                             std::uint64_t intermediate = 32, std::uint64_t vocab = 64, std::uint64_t positions = 32)
{
    ModelSpec m = tinyBert(layers, hidden, heads, intermediate, vocab, positions);
    m.id = "tiny-bert-mlm";
    m.hfClass = "BertForMaskedLM";
    m.head = ModelHead::LanguageModel;
    m.numLabels = 0;
    m.tieEmbeddings = true;
    return m;
}

inline Scenario tinyScenario(std::uint64_t layers = 2)
{
    Scenario s;
    s.model = tinyLlama(layers);
    s.mode = Mode::Train;
    s.train.precision = Precision::Fp32;
    s.train.optimizer = Optimizer::AdamW;
    s.train.microBatch = 2;
    s.train.seqLen = 8;
    s.train.attention = Attention::Eager;
    s.profile = Profile::Headroom;
    return s;
}

} // namespace headroom::testing
