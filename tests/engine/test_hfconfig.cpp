// SPDX-License-Identifier: GPL-3.0-or-later
// config.json -> ModelSpec -> parameter table, checked against the parameter
// counts transformers reports. The configs in tests/data/configs hold the
// architecture keys of each model's config.json on the Hugging Face Hub.
#include "hfconfigtesting.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

using namespace headroom;

using testing::configPath;
using testing::fromFile;
using testing::fromText;
using testing::llamaWith;

class TestHfConfig : public QObject {
    Q_OBJECT

private slots:
    void parameterTotals_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<qulonglong>("total");
        QTest::addColumn<QByteArray>("hfClass");
        // Notation: V vocab, H hidden, L layers, I intermediate, P positions,
        // q/kv = heads * head_dim. Linear(in, out, bias) = in*out (+ out).
        //
        // GPT-2: wte 50257*768 = 38,597,376; wpe 1024*768 = 786,432; per layer
        // ln_1 1,536 + c_attn 768*2304+2304 = 1,771,776 + c_proj 768*768+768 =
        // 590,592 + ln_2 1,536 + c_fc 768*3072+3072 = 2,362,368 + c_proj
        // 3072*768+768 = 2,360,064 = 7,087,872; *12 = 85,054,464; + ln_f 1,536;
        // lm_head tied. 38,597,376 + 786,432 + 85,054,464 + 1,536 = 124,439,808.
        QTest::newRow("gpt2") << QByteArray("gpt2.json") << 124439808ull << QByteArray("GPT2LMHeadModel");
        // BERT-base as BertForMaskedLM. BertModel without pooler: embeddings
        // 30522*768 + 512*768 + 2*768 + LayerNorm 1,536 = 23,837,184; per layer
        // q,k,v,o 4*590,592 + LN 1,536 + intermediate 2,362,368 + output
        // 2,360,064 + LN 1,536 = 7,087,872, *12 = 85,054,464; = 108,891,648.
        // (BertModel with pooler adds 590,592: the familiar 109,482,240.)
        // MLM head: transform dense 590,592 + LayerNorm 1,536 + output bias
        // 30,522 (decoder weight tied) = 622,650. Total 109,514,298.
        QTest::newRow("bert-base-uncased") << QByteArray("bert-base-uncased.json") << 109514298ull
                                           << QByteArray("BertForMaskedLM");
        // Llama-2-7b: embed and lm_head 2*32000*4096 = 262,144,000; per layer
        // attention 4*4096^2 = 67,108,864 + MLP 3*4096*11008 = 135,266,304 +
        // 2 norms 8,192 = 202,383,360, *32 = 6,476,267,520; + norm 4,096.
        // Total 6,738,415,616.
        QTest::newRow("llama-2-7b") << QByteArray("llama-2-7b.json") << 6738415616ull << QByteArray("LlamaForCausalLM");
        // Llama-3.1-8B: embed + lm_head 2*128256*4096 = 1,050,673,152; per layer
        // q,o 2*4096^2 + k,v 2*4096*1024 = 41,943,040 + MLP 3*4096*14336 =
        // 176,160,768 + norms 8,192 = 218,112,000, *32 = 6,979,584,000; + 4,096.
        // Total 8,030,261,248.
        QTest::newRow("llama-3.1-8b") << QByteArray("llama-3.1-8b.json") << 8030261248ull
                                      << QByteArray("LlamaForCausalLM");
        // TinyLlama-1.1B: embed + lm_head 2*32000*2048 = 131,072,000; per layer
        // q,o 2*2048^2 + k,v 2*2048*256 = 9,437,184 + MLP 3*2048*5632 =
        // 34,603,008 + norms 4,096 = 44,044,288, *22 = 968,974,336; + 2,048.
        // Total 1,100,048,384.
        QTest::newRow("tinyllama-1.1b") << QByteArray("tinyllama-1.1b.json") << 1100048384ull
                                        << QByteArray("LlamaForCausalLM");
        // Qwen2.5-0.5B (tied): embed 151936*896 = 136,134,656; per layer q
        // 896*896+896 = 803,712, k and v 896*128+128 = 114,816 each, o 802,816
        // (no bias), MLP 3*896*4864 = 13,074,432, norms 1,792 = 14,912,384,
        // *24 = 357,897,216; + norm 896. Total 494,032,768.
        QTest::newRow("qwen2.5-0.5b") << QByteArray("qwen2.5-0.5b.json") << 494032768ull
                                      << QByteArray("Qwen2ForCausalLM");
        // Qwen3-0.6B (tied, head_dim 128 decoupled from 1024 / 16): embed
        // 151936*1024 = 155,582,464; per layer q,o 2*1024*2048 + k,v
        // 2*1024*1024 = 6,291,456 + q_norm, k_norm 2*128 = 256 + MLP
        // 3*1024*3072 = 9,437,184 + norms 2,048 = 15,730,944, *28 =
        // 440,466,432; + norm 1,024. Total 596,049,920 (the Hub's safetensors
        // total, 751,632,384, also stores lm_head: 596,049,920 + 155,582,464).
        QTest::newRow("qwen3-0.6b") << QByteArray("qwen3-0.6b.json") << 596049920ull
                                    << QByteArray("Qwen3ForCausalLM");
        // Qwen3-8B (untied): embed + lm_head 2*151936*4096 = 1,244,659,712;
        // per layer q,o 2*4096^2 + k,v 2*4096*1024 = 41,943,040 + q/k norms
        // 256 + MLP 3*4096*12288 = 150,994,944 + norms 8,192 = 192,946,432,
        // *36 = 6,946,071,552; + 4,096. Total 8,190,735,360, the Hub's
        // safetensors total.
        QTest::newRow("qwen3-8b") << QByteArray("qwen3-8b.json") << 8190735360ull
                                  << QByteArray("Qwen3ForCausalLM");
        // pythia-160m: embed_in + embed_out 2*50304*768 = 77,266,944; per layer
        // 2 LayerNorms 3,072 + query_key_value 1,771,776 + dense 590,592 +
        // h_to_4h 2,362,368 + 4h_to_h 2,360,064 = 7,087,872, *12 = 85,054,464;
        // + final LayerNorm 1,536. Total 162,322,944.
        QTest::newRow("pythia-160m") << QByteArray("pythia-160m.json") << 162322944ull
                                     << QByteArray("GPTNeoXForCausalLM");
        // Mixtral-8x7B: embed + lm_head 262,144,000; per layer attention
        // 41,943,040 + router 4096*8 = 32,768 + experts 8*3*4096*14336 =
        // 1,409,286,144 + norms 8,192 = 1,451,270,144, *32 = 46,440,644,608;
        // + 4,096. Total 46,702,792,704.
        QTest::newRow("mixtral-8x7b") << QByteArray("mixtral-8x7b.json") << 46702792704ull
                                      << QByteArray("MixtralForCausalLM");
        // Qwen3-30B-A3B (untied, head_dim 128): embed + lm_head 2*151936*2048
        // = 622,329,856; per layer q,o 2*2048*4096 + k,v 2*2048*512 =
        // 18,874,368 + q/k norms 256 + norms 4,096 + router 128*2048 = 262,144
        // + 128 experts * 3*2048*768 = 603,979,776 = 623,120,640, *48 =
        // 29,909,790,720; + 2,048. Total 30,532,122,624 (transformers 5.17 on
        // the meta device gives the same; model card: 30.5B).
        QTest::newRow("qwen3-30b-a3b") << QByteArray("qwen3-30b-a3b.json") << 30532122624ull
                                       << QByteArray("Qwen3MoeForCausalLM");
        // Qwen3-235B-A22B: embed + lm_head 2*151936*4096 = 1,244,659,712; per
        // layer attention 71,303,168 + 256 + 8,192 + router 524,288 + 128 *
        // 3*4096*1536 = 2,415,919,104 = 2,487,755,008, *94 = 233,848,970,752;
        // + 4,096. Total 235,093,634,560 (model card: 235B).
        QTest::newRow("qwen3-235b-a22b") << QByteArray("qwen3-235b-a22b.json") << 235093634560ull
                                         << QByteArray("Qwen3MoeForCausalLM");
        // gpt-oss-20b: embed + lm_head 2*201088*2880 = 1,158,266,880; per layer
        // attention with biases and sinks 26,550,144 + router 32*2880+32 +
        // 32 experts * (2880*5760+5760 + 2880*2880+2880) = 796,631,072 +
        // norms 5,760, *24 = 19,756,487,424; + 2,880. Total 20,914,757,184
        // (OpenAI's model card: 20.91B).
        QTest::newRow("gpt-oss-20b") << QByteArray("gpt-oss-20b.json") << 20914757184ull
                                     << QByteArray("GptOssForCausalLM");
        // gpt-oss-120b: 36 layers of 128 experts: 1,158,266,880 + 36 *
        // (26,550,144 + 368,768 + 3,186,155,520 + 5,760) + 2,880 =
        // 116,829,156,672 (the card: 116.83B).
        QTest::newRow("gpt-oss-120b") << QByteArray("gpt-oss-120b.json") << 116829156672ull
                                      << QByteArray("GptOssForCausalLM");
        // Phi-3-mini-4k: embed + lm_head 2*32064*3072 = 197,001,216; per layer
        // qkv_proj 3072*9216 = 28,311,552 + o_proj 9,437,184 + gate_up_proj
        // 3072*16384 = 50,331,648 + down_proj 25,165,824 + norms 6,144 =
        // 113,252,352, *32 = 3,624,075,264; + 3,072. Total 3,821,079,552.
        QTest::newRow("phi-3-mini-4k") << QByteArray("phi-3-mini-4k.json") << 3821079552ull
                                       << QByteArray("Phi3ForCausalLM");
        // gemma-2b (tied, head_dim 256, one KV head): embed 256000*2048 =
        // 524,288,000; per layer q,o 2*2048*2048 + k,v 2*2048*256 = 9,437,184 +
        // MLP 3*2048*16384 = 100,663,296 + norms 4,096 = 110,104,576, *18 =
        // 1,981,882,368; + 2,048. Total 2,506,172,416.
        QTest::newRow("gemma-2b") << QByteArray("gemma-2b.json") << 2506172416ull << QByteArray("GemmaForCausalLM");
        // Mistral-7B-v0.1: Llama-3.1-8B's layers with V = 32000:
        // 262,144,000 + 6,979,584,000 + 4,096 = 7,241,732,096.
        QTest::newRow("mistral-7b-v0.1") << QByteArray("mistral-7b-v0.1.json") << 7241732096ull
                                         << QByteArray("MistralForCausalLM");
        // gemma-2-2b (tied): embed 256000*2304 = 589,824,000; per layer q,o
        // 2*2304*2048 + k,v 2*2304*1024 = 14,155,776 + MLP 3*2304*9216 =
        // 63,700,992 + 4 norms 9,216 = 77,865,984, *26 = 2,024,515,584; + 2,304.
        // Total 2,614,341,888.
        QTest::newRow("gemma-2-2b") << QByteArray("gemma-2-2b.json") << 2614341888ull
                                    << QByteArray("Gemma2ForCausalLM");
        // SantaCoder dimensions (gpt_bigcode, MQA, tied): wte 49280*2048 =
        // 100,925,440; wpe 2048*2048 = 4,194,304; per layer ln_1 4,096 + c_attn
        // 2048*(2048+2*128)+2304 = 4,720,896 + c_proj 4,196,352 + ln_2 4,096 +
        // c_fc 2048*8192+8192 = 16,785,408 + c_proj 16,779,264 = 42,490,112,
        // *24 = 1,019,762,688; + ln_f 4,096. Total 1,124,886,528.
        QTest::newRow("gpt-bigcode-santacoder") << QByteArray("gpt-bigcode-santacoder.json") << 1124886528ull
                                                << QByteArray("GPTBigCodeForCausalLM");
        // gemma-3-1b (gemma3_text, tied, head_dim 256, one KV head): embed
        // 262144*1152 = 301,989,888; per layer q,o 2*1152*1024 = 2,359,296 +
        // k,v 2*1152*256 = 589,824 + q_norm, k_norm 2*256 = 512 + MLP
        // 3*1152*6912 = 23,887,872 + 4 norms 4,608 = 26,842,112, *26 =
        // 697,894,912; + norm 1,152. Total 999,885,952 (the Hub's BF16
        // safetensors, 1,999,771,904 bytes, / 2).
        QTest::newRow("gemma-3-1b") << QByteArray("gemma-3-1b.json") << 999885952ull
                                    << QByteArray("Gemma3ForCausalLM");
        // gemma-3-4b (gemma3: text_config leaves heads 8, KV heads 4, head_dim
        // 256 and vocab 262,208 to Gemma3TextConfig; tied). Text: embed
        // 262208*2560 = 671,252,480; per layer q,o 2*2560*2048 = 10,485,760 +
        // k,v 2*2560*1024 = 5,242,880 + q/k norms 512 + MLP 3*2560*10240 =
        // 78,643,200 + 4 norms 10,240 = 94,382,592, *34 = 3,209,008,128; + norm
        // 2,560 = 3,880,263,168. SigLIP (H 1152, I 4304, 27 layers, (896/14)^2
        // = 4,096 patches, no head): patch Conv2d 1152*3*14*14 + 1152 = 678,528
        // + positions 4096*1152 = 4,718,592 + per layer 2 LayerNorms 4,608 +
        // q,k,v,out 4*(1152^2 + 1152) = 5,313,024 + fc1 1152*4304 + 4304 =
        // 4,962,512 + fc2 4304*1152 + 1152 = 4,959,360 = 15,239,504, *27 =
        // 411,466,608 + post_layernorm 2,304 = 416,866,032. Projector
        // 1152*2560 + norm 1,152 = 2,950,272. Total 4,300,079,472, the Hub's
        // safetensors total of gemma-3-4b-it.
        QTest::newRow("gemma-3-4b") << QByteArray("gemma-3-4b.json") << 4300079472ull
                                    << QByteArray("Gemma3ForConditionalGeneration");
        // OLMo-2-0425-1B (MHA, untied): embed + lm_head 2*100352*2048 =
        // 411,041,792; per layer q,k,v,o 4*2048^2 = 16,777,216 + q_norm, k_norm
        // over the whole projections 2*2048 = 4,096 + MLP 3*2048*8192 =
        // 50,331,648 + post-attention and post-feedforward norms 4,096 (no
        // input norm) = 67,117,056, *16 = 1,073,872,896; + norm 2,048. Total
        // 1,484,916,736.
        QTest::newRow("olmo-2-0425-1b") << QByteArray("olmo-2-0425-1b.json") << 1484916736ull
                                        << QByteArray("Olmo2ForCausalLM");
        // OLMo-2-0325-32B (8 KV heads: k_norm is 8*128 = 1,024 wide): embed +
        // lm_head 2*100352*5120 = 1,027,604,480; per layer q,o 2*5120^2 =
        // 52,428,800 + k,v 2*5120*1024 = 10,485,760 + q_norm 5,120 + k_norm
        // 1,024 + MLP 3*5120*27648 = 424,673,280 + 2 norms 10,240 =
        // 487,604,224, *64 = 31,206,670,336; + 5,120. Total 32,234,279,936.
        QTest::newRow("olmo-2-0325-32b") << QByteArray("olmo-2-0325-32b.json") << 32234279936ull
                                         << QByteArray("Olmo2ForCausalLM");
        // SmolLM3-3B (tied; NoPE layers change no parameter): embed
        // 128256*2048 = 262,668,288; per layer q,o 2*2048^2 = 8,388,608 + k,v
        // 2*2048*512 = 2,097,152 + MLP 3*2048*11008 = 67,633,152 + norms 4,096
        // = 78,123,008, *36 = 2,812,428,288; + 2,048. Total 3,075,098,624, the
        // Hub's safetensors index total_parameters.
        QTest::newRow("smollm3-3b") << QByteArray("smollm3-3b.json") << 3075098624ull
                                    << QByteArray("SmolLM3ForCausalLM");
        // Phi-4-mini (phi3, tied, partial_rotary_factor 0.75: no parameter):
        // embed 200064*3072 = 614,596,608; per layer qkv_proj 3072*(3072 +
        // 2*1024) = 15,728,640 + o_proj 9,437,184 + gate_up_proj 3072*16384 =
        // 50,331,648 + down_proj 25,165,824 + norms 6,144 = 100,669,440, *32 =
        // 3,221,422,080; + 3,072. Total 3,836,021,760.
        QTest::newRow("phi-4-mini") << QByteArray("phi-4-mini.json") << 3836021760ull
                                    << QByteArray("Phi3ForCausalLM");
        // Mistral-Small-24B-Base-2501 (head_dim 128 explicit, so q is 4,096
        // wide, not 5,120): embed + lm_head 2*131072*5120 = 1,342,177,280; per
        // layer q,o 2*5120*4096 = 41,943,040 + k,v 2*5120*1024 = 10,485,760 +
        // MLP 3*5120*32768 = 503,316,480 + norms 10,240 = 555,755,520, *40 =
        // 22,230,220,800; + 5,120. Total 23,572,403,200.
        QTest::newRow("mistral-small-24b") << QByteArray("mistral-small-24b-base-2501.json") << 23572403200ull
                                           << QByteArray("MistralForCausalLM");
    }
    void parameterTotals()
    {
        QFETCH(QByteArray, file);
        QFETCH(qulonglong, total);
        QFETCH(QByteArray, hfClass);
        const Result<ModelSpec> spec = fromFile(file.constData());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().detail.c_str());
        QCOMPARE(QByteArray::fromStdString(spec->hfClass), hfClass);
        QCOMPARE(spec->origin, std::string("config.json"));
        QCOMPARE(qulonglong(buildParameterTable(*spec).totalElements()), total);
    }

    void realConfigFields()
    {
        const Result<ModelSpec> gpt2 = fromFile("gpt2.json");
        QVERIFY(gpt2.ok());
        QCOMPARE(gpt2->id, std::string("gpt2")); // named after the file
        QCOMPARE(gpt2->family, Family::Gpt2);
        QCOMPARE(gpt2->intermediate, 3072u);
        QCOMPARE(gpt2->headDim, 64u);
        QCOMPARE(gpt2->maxPositions, 1024u);
        QCOMPARE(gpt2->hiddenAct, std::string("gelu_new"));
        QCOMPARE(gpt2->dropout, 0.1);
        QVERIFY(gpt2->tieEmbeddings && gpt2->learnedPositions && !gpt2->gatedMlp);

        const Result<ModelSpec> llama = fromFile("llama-3.1-8b.json");
        QVERIFY(llama.ok());
        QCOMPARE(llama->kvHeads, 8u);
        QCOMPARE(llama->headDim, 128u);
        QCOMPARE(llama->maxPositions, 131072u);
        QVERIFY(!llama->tieEmbeddings && !llama->qkvBias && !llama->mlpBias && llama->norm == NormKind::RmsNorm);

        const Result<ModelSpec> qwen = fromFile("qwen2.5-0.5b.json");
        QVERIFY(qwen.ok());
        QVERIFY(qwen->qkvBias && !qwen->attnOutBias && qwen->tieEmbeddings && !qwen->qkNorm);

        const Result<ModelSpec> qwen3 = fromFile("qwen3-0.6b.json");
        QVERIFY(qwen3.ok());
        QCOMPARE(qwen3->family, Family::Llama);
        QCOMPARE(qwen3->headDim, 128u);  // not 1024 / 16
        QCOMPARE(qwen3->qDim(), 2048u);
        QCOMPARE(qwen3->maxPositions, 40960u);
        QVERIFY(qwen3->qkNorm && qwen3->tieEmbeddings && !qwen3->qkvBias && !qwen3->attnOutBias && !qwen3->mlpBias);
        const Result<ModelSpec> qwen3Untied = fromFile("qwen3-8b.json");
        QVERIFY(qwen3Untied.ok());
        QVERIFY(qwen3Untied->qkNorm && !qwen3Untied->tieEmbeddings);
        // Qwen3Attention: bias=config.attention_bias on q, k, v and o alike.
        const Result<ModelSpec> biased = fromText(R"({"model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 2, )"
                                                  R"("num_attention_heads": 4, "vocab_size": 100, )"
                                                  R"("intermediate_size": 256, "attention_bias": true})");
        QVERIFY(biased.ok());
        QVERIFY(biased->qkvBias && biased->attnOutBias && !biased->mlpBias);

        const Result<ModelSpec> gemma = fromFile("gemma-2b.json");
        QVERIFY(gemma.ok());
        QCOMPARE(gemma->headDim, 256u);
        QCOMPARE(gemma->kvHeads, 1u);
        QCOMPARE(gemma->qDim(), 2048u);

        // Gemma 3 text: per-head q/k norms, four norms per layer, no final
        // logit soft-capping by default (Gemma3TextConfig: None).
        const Result<ModelSpec> gemma3 = fromFile("gemma-3-1b.json");
        QVERIFY(gemma3.ok());
        QCOMPARE(gemma3->family, Family::Gemma3);
        QVERIFY(gemma3->qkNorm && gemma3->tieEmbeddings && !gemma3->finalLogitSoftcap && !gemma3->hasVision());
        QCOMPARE(gemma3->headDim, 256u);
        QCOMPARE(gemma3->kvHeads, 1u);
        QCOMPARE(gemma3->hiddenAct, std::string("gelu_pytorch_tanh"));
        // Gemma 3 4B: text_config's omitted keys take Gemma3TextConfig's
        // defaults; the vision tower is read from vision_config.
        const Result<ModelSpec> gemma3mm = fromFile("gemma-3-4b.json");
        QVERIFY2(gemma3mm.ok(), gemma3mm.ok() ? "" : gemma3mm.error().detail.c_str());
        QCOMPARE(gemma3mm->family, Family::Gemma3);
        QCOMPARE(gemma3mm->heads, 8u);
        QCOMPARE(gemma3mm->kvHeads, 4u);
        QCOMPARE(gemma3mm->headDim, 256u);
        QCOMPARE(gemma3mm->vocab, 262208u);
        QCOMPARE(gemma3mm->maxPositions, 131072u);
        QVERIFY(gemma3mm->qkNorm && gemma3mm->tieEmbeddings && !gemma3mm->finalLogitSoftcap);
        QVERIFY(gemma3mm->hasVision() && !gemma3mm->vision.poolingHead);
        QCOMPARE(gemma3mm->vision.layers, 27u);
        QCOMPARE(gemma3mm->vision.hidden, 1152u);
        QCOMPARE(gemma3mm->vision.imageSize / gemma3mm->vision.patchSize, 64u);
        {
            // The tower and projector are global tensors of their own kind:
            // 416,866,032 + 2,950,272 (parameterTotals derives both).
            const ParameterTable t = buildParameterTable(*gemma3mm);
            Bytes vision = 0;
            for (const ParamTensor& p : t.global)
                if (p.kind == ModuleKind::VisionTower) {
                    vision += p.elements();
                    QVERIFY(!p.isLinearWeight);
                }
            QCOMPARE(qulonglong(vision), 416866032ull + 2950272ull);
        }
        // SiglipVisionTransformer keeps its pooling head unless vision_use_head
        // is false: probe 1,152 + in_proj 3*1152^2 + 3*1152 = 3,984,768 +
        // out_proj 1152^2 + 1152 = 1,328,256 + LayerNorm 2,304 + fc1 4,962,512
        // + fc2 4,959,360 = 15,238,352 (transformers 5.17 on the meta device
        // agrees: 4,315,317,824 in all).
        nlohmann::json headed;
        {
            QFile file(configPath("gemma-3-4b.json"));
            QVERIFY(file.open(QIODevice::ReadOnly));
            headed = nlohmann::json::parse(file.readAll().toStdString());
        }
        headed["vision_config"].erase("vision_use_head");
        const Result<ModelSpec> withHead = modelSpecFromHfConfig(headed);
        QVERIFY(withHead.ok() && withHead->vision.poolingHead);
        QCOMPARE(qulonglong(buildParameterTable(*withHead).totalElements()), 4300079472ull + 15238352ull);

        // OLMo 2: q_norm / k_norm over the whole projections, no input norm.
        const Result<ModelSpec> olmo = fromFile("olmo-2-0325-32b.json");
        QVERIFY(olmo.ok());
        QCOMPARE(olmo->family, Family::Olmo2);
        QVERIFY(olmo->qkNorm && !olmo->tieEmbeddings && !olmo->qkvBias);
        QCOMPARE(olmo->headDim, 128u);  // 5120 / 40
        {
            const ParameterTable t = buildParameterTable(*olmo);
            auto width = [&](const char* module) -> qulonglong {
                for (const ParamTensor& p : t.layer)
                    if (std::string_view(p.module) == module)
                        return p.rows;
                return 0;
            };
            QCOMPARE(width("q_norm"), 5120ull);
            QCOMPARE(width("k_norm"), 1024ull);
            QCOMPARE(width("input_layernorm"), 0ull);
            QCOMPARE(width("post_feedforward_layernorm"), 5120ull);
        }

        // SmolLM3Config: num_key_value_heads=4 when absent, heads when null.
        const Result<ModelSpec> smol = fromFile("smollm3-3b.json");
        QVERIFY(smol.ok());
        QCOMPARE(smol->family, Family::Llama);
        QVERIFY(smol->tieEmbeddings && !smol->qkNorm);
        const QByteArray smolBase = R"({"model_type": "smollm3", "hidden_size": 64, "num_hidden_layers": 2, )"
                                    R"("num_attention_heads": 8, "vocab_size": 100, "intermediate_size": 256)";
        QCOMPARE(fromText(smolBase + "}")->kvHeads, 4u);
        QCOMPARE(fromText(smolBase + R"(, "num_key_value_heads": null})")->kvHeads, 8u);

        // Phi-4-mini: tied (Phi3Config's default is untied), GQA.
        const Result<ModelSpec> phi4mini = fromFile("phi-4-mini.json");
        QVERIFY(phi4mini.ok());
        QVERIFY(phi4mini->tieEmbeddings);
        QCOMPARE(phi4mini->kvHeads, 8u);
        // Mistral Small 24B: head_dim decoupled from hidden / heads.
        const Result<ModelSpec> small = fromFile("mistral-small-24b-base-2501.json");
        QVERIFY(small.ok());
        QCOMPARE(small->qDim(), 4096u);

        const Result<ModelSpec> pythia = fromFile("pythia-160m.json");
        QVERIFY(pythia.ok());
        QVERIFY(pythia->parallelResidual && pythia->qkvBias && pythia->attnOutBias && !pythia->tieEmbeddings);
        QCOMPARE(pythia->norm, NormKind::LayerNorm);

        const Result<ModelSpec> mixtral = fromFile("mixtral-8x7b.json");
        QVERIFY(mixtral.ok());
        QCOMPARE(mixtral->experts, 8u);
        QCOMPARE(mixtral->expertsPerToken, 2u);

        const Result<ModelSpec> bigcode = fromFile("gpt-bigcode-santacoder.json");
        QVERIFY(bigcode.ok());
        QCOMPARE(bigcode->kvHeads, 1u);
        QCOMPARE(bigcode->kvDim(), 128u);

        const Result<ModelSpec> bert = fromFile("bert-base-uncased.json");
        QVERIFY(bert.ok());
        QVERIFY(bert->encoder && bert->learnedPositions);
        QCOMPARE(bert->typeVocab, 2u);
        QCOMPARE(bert->maxPositions, 512u);
        QCOMPARE(bert->dropout, 0.1);
    }

    // Each model_type with only the required keys: every other field takes
    // the default of its transformers configuration class.
    // sliding_window and which layers slide: config values, class defaults
    // (MistralConfig, Gemma2Config, Gemma3TextConfig 4096), null for none;
    // every layer for Mistral, Mixtral and Phi-3, (i + 1) % P != 0 for Gemma 2
    // (P = 2) and Gemma 3 (sliding_window_pattern, default 6).
    void slidingWindows_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<quint64>("window");
        QTest::addColumn<quint64>("period");
        QTest::newRow("mistral v0.1") << QByteArray("mistral-7b-v0.1.json") << quint64(4096) << quint64(0);
        QTest::newRow("phi-3 mini") << QByteArray("phi-3-mini-4k.json") << quint64(2047) << quint64(0);
        QTest::newRow("gemma 2") << QByteArray("gemma-2-2b.json") << quint64(4096) << quint64(2);
        QTest::newRow("gemma 3 1b") << QByteArray("gemma-3-1b.json") << quint64(512) << quint64(6);
        QTest::newRow("gemma 3 4b, pattern by default") << QByteArray("gemma-3-4b.json") << quint64(1024) << quint64(6);
        QTest::newRow("mixtral, null") << QByteArray("mixtral-8x7b.json") << quint64(0) << quint64(0);
        QTest::newRow("mistral small 3, null") << QByteArray("mistral-small-24b-base-2501.json") << quint64(0) << quint64(0);
        QTest::newRow("llama: none") << QByteArray("llama-3.1-8b.json") << quint64(0) << quint64(0);
    }
    void slidingWindows()
    {
        QFETCH(QByteArray, file);
        QFETCH(quint64, window);
        QFETCH(quint64, period);
        const Result<ModelSpec> s = fromFile(file.constData());
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().detail.c_str());
        QCOMPARE(quint64(s->slidingWindow), window);
        QCOMPARE(quint64(s->slidingPeriod), period);
        // MistralConfig's default when the key is absent.
        const Result<ModelSpec> absent = fromText(R"({"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2, )"
                                                  R"("num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 256})");
        QVERIFY(absent.ok());
        QCOMPARE(quint64(absent->slidingWindow), quint64(4096));
    }

    void defaults_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("family");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<int>("biases"); // bits: 1 qkv, 2 attention out, 4 MLP
        QTest::addColumn<bool>("layerNorm");
        QTest::addColumn<bool>("learned");
        QTest::addColumn<double>("dropout");
        QTest::addColumn<QByteArray>("act");
        QTest::addColumn<qulonglong>("positions");
        QTest::addColumn<qulonglong>("kvHeads");
        QTest::addColumn<qulonglong>("headDim");
        QTest::addColumn<qulonglong>("intermediate");
        // Ordinary literals here: moc's tokenizer loses track in some raw strings.
        const char* sized = "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
                            "\"vocab_size\": 100, \"intermediate_size\": 256}";
        auto hf = [&](const char* type) { return "{\"model_type\": \"" + QByteArray(type) + "\", " + sized; };
        auto gpt = [](const char* type) {
            return "{\"model_type\": \"" + QByteArray(type)
                 + "\", \"n_embd\": 64, \"n_layer\": 2, \"n_head\": 4, \"vocab_size\": 100}";
        };
        using F = Family;
        QTest::newRow("llama") << hf("llama") << int(F::Llama) << false << 0 << false << false << 0.0
                               << QByteArray("silu") << 2048ull << 4ull << 16ull << 256ull;
        QTest::newRow("mistral") << hf("mistral") << int(F::Llama) << false << 0 << false << false << 0.0
                                 << QByteArray("silu") << 131072ull << 4ull << 16ull << 256ull;
        QTest::newRow("qwen2") << hf("qwen2") << int(F::Llama) << false << 1 << false << false << 0.0
                               << QByteArray("silu") << 32768ull << 4ull << 16ull << 256ull;
        // Qwen3Config: head_dim 128 whatever hidden / heads, attention_bias false.
        QTest::newRow("qwen3") << hf("qwen3") << int(F::Llama) << false << 0 << false << false << 0.0
                               << QByteArray("silu") << 32768ull << 4ull << 128ull << 256ull;
        QTest::newRow("mixtral") << hf("mixtral") << int(F::Mixtral) << false << 0 << false << false << 0.0
                                 << QByteArray("silu") << 131072ull << 4ull << 16ull << 256ull;
        QTest::newRow("gemma") << hf("gemma") << int(F::Gemma) << true << 0 << false << false << 0.0
                               << QByteArray("gelu_pytorch_tanh") << 8192ull << 4ull << 256ull << 256ull;
        QTest::newRow("gemma2") << hf("gemma2") << int(F::Gemma2) << true << 0 << false << false << 0.0
                                << QByteArray("gelu_pytorch_tanh") << 8192ull << 4ull << 256ull << 256ull;
        // Gemma3TextConfig: head_dim 256, 4 KV heads, 131,072 positions, tied.
        QTest::newRow("gemma3_text") << hf("gemma3_text") << int(F::Gemma3) << true << 0 << false << false << 0.0
                                     << QByteArray("gelu_pytorch_tanh") << 131072ull << 4ull << 256ull << 256ull;
        QTest::newRow("olmo2") << hf("olmo2") << int(F::Olmo2) << false << 0 << false << false << 0.0
                               << QByteArray("silu") << 2048ull << 4ull << 16ull << 256ull;
        QTest::newRow("smollm3") << hf("smollm3") << int(F::Llama) << true << 0 << false << false << 0.0
                                 << QByteArray("silu") << 32768ull << 4ull << 16ull << 256ull;
        QTest::newRow("phi3") << hf("phi3") << int(F::Phi3) << false << 0 << false << false << 0.0
                              << QByteArray("silu") << 4096ull << 4ull << 16ull << 256ull;
        QTest::newRow("gpt2") << gpt("gpt2") << int(F::Gpt2) << true << 7 << true << true << 0.1
                              << QByteArray("gelu_new") << 1024ull << 4ull << 16ull << 256ull;
        QTest::newRow("gpt_bigcode") << gpt("gpt_bigcode") << int(F::GptBigCode) << true << 7 << true << true << 0.1
                                     << QByteArray("gelu_pytorch_tanh") << 1024ull << 1ull << 16ull << 256ull;
        QTest::newRow("gpt_neox") << hf("gpt_neox") << int(F::GptNeoX) << false << 7 << true << false << 0.0
                                  << QByteArray("gelu") << 2048ull << 4ull << 16ull << 256ull;
        QTest::newRow("bert") << hf("bert") << int(F::Bert) << true << 7 << true << true << 0.1
                              << QByteArray("gelu") << 512ull << 4ull << 16ull << 256ull;
    }
    void defaults()
    {
        QFETCH(QByteArray, text);
        const Result<ModelSpec> s = fromText(text);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().detail.c_str());
        QTEST(int(s->family), "family");
        QTEST(s->tieEmbeddings, "tied");
        QTEST(int(s->qkvBias) | int(s->attnOutBias) << 1 | int(s->mlpBias) << 2, "biases");
        QTEST(s->norm == NormKind::LayerNorm, "layerNorm");
        QTEST(s->learnedPositions, "learned");
        QTEST(s->dropout, "dropout");
        QTEST(QByteArray::fromStdString(s->hiddenAct), "act");
        QTEST(qulonglong(s->maxPositions), "positions");
        QTEST(qulonglong(s->kvHeads), "kvHeads");
        QTEST(qulonglong(s->headDim), "headDim");
        QTEST(qulonglong(s->intermediate), "intermediate");
        QCOMPARE(s->gatedMlp, !s->learnedPositions && s->family != Family::GptNeoX);
        QCOMPARE(s->encoder, s->family == Family::Bert);
        QCOMPARE(s->typeVocab, s->family == Family::Bert ? 2u : 0u);
        QCOMPARE(s->parallelResidual, s->family == Family::GptNeoX);
        const QByteArray tag = QTest::currentDataTag();
        QCOMPARE(s->qkNorm, tag == "qwen3" || tag == "gemma3_text" || tag == "olmo2");
        QVERIFY(!s->hasVision());
        QCOMPARE(s->experts, s->family == Family::Mixtral ? 8u : 0u);
        QCOMPARE(s->expertsPerToken, s->family == Family::Mixtral ? 2u : 0u);
        QCOMPARE(s->id, std::string("custom"));
    }

    void nullMeansDefault()
    {
        const Result<ModelSpec> s = fromText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, )"
                                             R"("num_attention_heads": 4, "num_key_value_heads": null, )"
                                             R"("head_dim": null, "vocab_size": 100, "intermediate_size": 256, )"
                                             R"("hidden_act": null})");
        QVERIFY(s.ok());
        QCOMPARE(s->kvHeads, 4u);
        QCOMPARE(s->headDim, 16u);
        QCOMPARE(s->hiddenAct, std::string("silu"));
        // head_dim decoupled from hidden / heads (Mistral-Nemo style) needs no divisibility.
        const Result<ModelSpec> d = fromText(llamaWith(R"({"hidden_size": 66, "head_dim": 32})"));
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().detail.c_str());
        QCOMPARE(d->qDim(), 128u);
        QVERIFY(fromText(llamaWith(R"({"hidden_size": 64.0})")).ok()); // an integral float is an integer
        // Optional caps are the exception: null turns them off (modeling_gemma2.py
        // applies final_logit_softcapping only when it is not None; Gemma2Config
        // defaults it to 30.0 when absent).
        const char* gemma2 = R"({"model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": 2, )"
                             R"("num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 256)";
        const Result<ModelSpec> capped = fromText(QByteArray(gemma2) + "}");
        const Result<ModelSpec> uncapped = fromText(QByteArray(gemma2) + R"(, "final_logit_softcapping": null})");
        QVERIFY(capped.ok() && uncapped.ok());
        QVERIFY(capped->finalLogitSoftcap);
        QVERIFY(!uncapped->finalLogitSoftcap);
    }

    // BertForSequenceClassification from a fine-tuned classifier's config.json.
    // Counts derived here and checked against transformers 5.17 on the meta
    // device (BertForSequenceClassification(BertConfig(...)).num_parameters()
    // gave 109,483,778 / 109,484,547 / 109,486,085 for 2 / 3 / 5 labels and
    // 335,143,938 for bert-large with 2).
    void bertSequenceClassification_data()
    {
        QTest::addColumn<QByteArray>("patch");
        QTest::addColumn<qulonglong>("labels");
        QTest::addColumn<qulonglong>("total");
        // BertModel without pooler 108,891,648 (parameterTotals' bert-base row),
        // + pooler Linear(768, 768) 590,592 = 109,482,240, + classifier
        // Linear(768, 2) 1,538 = 109,483,778. No MLM head.
        QTest::newRow("default 2 labels") << QByteArray(R"({"architectures": ["BertForSequenceClassification"]})")
                                          << 2ull << 109483778ull;
        // PretrainedConfig: id2label's length is the label count: 768*3+3 = 2,307.
        QTest::newRow("id2label of 3")
            << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "id2label": {"0": "neg", "1": "neu", "2": "pos"}})")
            << 3ull << 109484547ull;
        // ... and wins over a num_labels that disagrees (transformers only warns).
        QTest::newRow("id2label over num_labels")
            << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "num_labels": 5, "id2label": {"0": "a", "1": "b", "2": "c"}})")
            << 3ull << 109484547ull;
        // num_labels alone: 768*5+5 = 3,845.
        QTest::newRow("num_labels 5") << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "num_labels": 5})")
                                      << 5ull << 109486085ull;
        // bert-large: embeddings 30522*1024 + 512*1024 + 2*1024 + LayerNorm 2,048
        // = 31,782,912; per layer q,k,v,o 4*1,049,600 + intermediate 4,198,400 +
        // output 4,195,328 + 2 LayerNorms 4,096 = 12,596,224, *24 =
        // 302,309,376; + pooler 1,049,600 + classifier 2,050 = 335,143,938.
        QTest::newRow("bert-large")
            << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "hidden_size": 1024, "num_hidden_layers": 24,)"
                          R"( "num_attention_heads": 16, "intermediate_size": 4096})")
            << 2ull << 335143938ull;
        // Any other architecture, or none, keeps the MLM head (parameterTotals: 109,514,298).
        QTest::newRow("masked LM") << QByteArray(R"({"architectures": ["BertForMaskedLM"], "num_labels": 5})") << 0ull
                                   << 109514298ull;
        QTest::newRow("no architectures") << QByteArray(R"({"architectures": null})") << 0ull << 109514298ull;
    }
    void bertSequenceClassification()
    {
        QFETCH(QByteArray, patch);
        QFETCH(qulonglong, labels);
        QFETCH(qulonglong, total);
        QFile file(configPath("bert-base-uncased.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        nlohmann::json config = nlohmann::json::parse(file.readAll().toStdString());
        config.merge_patch(nlohmann::json::parse(patch.toStdString()));
        const Result<ModelSpec> spec = modelSpecFromHfConfig(config);
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().detail.c_str());
        QCOMPARE(spec->head, labels ? ModelHead::SequenceClassification : ModelHead::LanguageModel);
        QCOMPARE(qulonglong(spec->numLabels), labels);
        QCOMPARE(spec->hfClass, std::string(labels ? "BertForSequenceClassification" : "BertForMaskedLM"));
        const ParameterTable table = buildParameterTable(*spec);
        QCOMPARE(qulonglong(table.totalElements()), total);
        bool mlmHead = false, classifier = false;
        for (const ParamTensor& t : table.global) {
            mlmHead = mlmHead || t.name().rfind("cls.", 0) == 0;
            classifier = classifier || t.name() == "classifier.weight";
        }
        QCOMPARE(mlmHead, labels == 0);
        QCOMPARE(classifier, labels != 0);
    }
};

QTEST_APPLESS_MAIN(TestHfConfig)
#include "test_hfconfig.moc"
