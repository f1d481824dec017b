# SPDX-License-Identifier: GPL-3.0-or-later
"""Regenerates tests/data/reference/pytorch_reference.json: the reference
scenarios, each run through accountant.py (PyTorch on the meta device).

    tools/reference/setup.sh        # once: the pinned virtualenv
    .venv-ref/bin/python tools/reference/reference_set.py [--only SUBSTRING] [--jobs N]

Model configs come from Headroom's own catalog (resources/catalog/models.json,
each a copy of the model's config.json with its source), so nothing is read
from the Hub. tests/reference/test_reference.cpp plans every scenario with the pytorch
profile and compares.
"""

import argparse
import json
import os
import functools
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATALOG = os.path.join(ROOT, "resources", "catalog", "models.json")
OUT = os.path.join(ROOT, "tests", "data", "reference", "pytorch_reference.json")
GPU = "h100-sxm-80gb"


# Configs the catalog does not hold, from tests/data/configs (copies of the
# models' config.json that test_hfconfig also reads).
# Qwen3-30B-A3B-4layers is Qwen3-30B-A3B's config.json with 4 layers
# (num_hidden_layers and max_window_layers), small enough for one GPU to run
# its mixed-precision cases in cuda_check.py (the experts' fp32 under autocast).
# llama4-text-tiny is a Llama 4 Scout-shaped llama4_text config (every layer
# MoE, one shared expert, top-1 of 8 experts, qk L2 norm) at hidden 512 and 4
# layers, vocabulary 8192 (so that the layers, not the logits, make the
# peak), every layer with RoPE; its cases run in seconds.
# deepseek-v3-tiny is a DeepSeek-V3-shaped deepseek_v3 config (multi-head
# latent attention with q and kv LoRA ranks, qk head dim 48 against v head dim
# 32; one dense layer, then DeepseekV3MoE: sigmoid group-top-k router, top-4 of
# 16 experts in 4 groups, one shared expert) at hidden 512 and 4 layers,
# vocabulary 8192; its cases run in seconds.
# qwen3-moe-tiny-sparse-step2 is a Qwen3-MoE-shaped qwen3_moe config at hidden
# 512, 4 layers, top-2 of 8 experts, vocabulary 8192, with decoder_sparse_step
# 2: layers 0 and 2 are dense Qwen3MoeMLPs of intermediate_size, 1 and 3 MoE.
# llama4-text-tiny-interleaved is llama4-text-tiny with
# interleave_moe_layer_step 2 (as Llama 4 Maverick): moe_layers [1, 3], layers
# 0 and 2 dense Llama4TextMLPs of intermediate_size_mlp.
EXTRA_CONFIGS = {"bigcode/gpt_bigcode-santacoder": "gpt-bigcode-santacoder.json",
                 "Qwen/Qwen3-30B-A3B-4layers": "qwen3-moe-4layers.json",
                 "llama4-text-tiny": "llama4-text-tiny.json",
                 "deepseek-v3-tiny": "deepseek-v3-tiny.json",
                 "qwen3-moe-tiny-sparse-step2": "qwen3-moe-tiny-sparse-step2.json",
                 "llama4-text-tiny-interleaved": "llama4-text-tiny-interleaved.json"}


def catalog_configs():
    with open(CATALOG) as f:
        doc = json.load(f)
    configs = {m["id"]: m["config"] for m in doc["models"] if "config" in m}
    for model_id, name in EXTRA_CONFIGS.items():
        with open(os.path.join(ROOT, "tests", "data", "configs", name)) as f:
            configs[model_id] = json.load(f)
    return configs


def scenario(model_id, config, model=None, **train):
    """model: extra fields of the model node ({"head": ..., "num_labels": ...})."""
    t = {"precision": "bf16-mixed", "optimizer": "adamw", "micro_batch": 1, "seq_len": 1024, "grad_accum": 1,
         "checkpointing": "none", "attention": "sdpa", "loop": "trainer"}
    t.update(train)
    return {"schema": "headroom.scenario/1", "model": {"config": config, "id": model_id, **(model or {})},
            "mode": "train", "train": t, "hardware": {"gpu": GPU}, "profile": "pytorch"}


# BertForSequenceClassification: the model node's head (a variant's "model").
CLS = {"head": "sequence-classification", "num_labels": 2}


# (model id, family, [train overrides...]). Options are crossed where they
# move different rows of the table: precision (weights, grads, autocast
# copies, logits), attention kernel (saved scores or not), checkpointing,
# optimizer (state and step temporaries), LoRA, batch and sequence (the
# activation and logits terms), accumulation, the loop (logits alive in
# backward), use_cache (per-layer keys and values held by the outputs).
PLAN = [
    ("meta-llama/Llama-3.2-1B", "llama", [
        {}, {"checkpointing": "full"}, {"precision": "fp32", "attention": "eager"},
        {"precision": "bf16"}, {"precision": "fp16-mixed"}, {"loop": "custom"},
        {"use_cache": False}, {"use_cache": False, "loop": "custom"}, {"optimizer": "sgd"},
        {"optimizer": "adafactor"}, {"grad_accum": 4}, {"micro_batch": 4, "seq_len": 512},
        {"micro_batch": 2, "seq_len": 4096, "checkpointing": "full"},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]}},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]},
         "checkpointing": "full", "micro_batch": 4},
        {"attention": "eager", "seq_len": 512},
        # QLoRA (bitsandbytes NF4 emulated: tools/reference/quant.py)
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "micro_batch": 2},
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "weight_quant": "nf4-dq", "micro_batch": 4, "seq_len": 2048,
         "checkpointing": "full"},
        {"optimizer": "adamw-8bit", "precision": "bf16", "checkpointing": "full", "micro_batch": 4},
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "optimizer": "paged-adamw-8bit",
         "micro_batch": 2, "seq_len": 2048}]),
    ("meta-llama/Llama-2-7b-hf", "llama", [
        {"precision": "bf16", "micro_batch": 1, "seq_len": 2048, "checkpointing": "full"},
        {"micro_batch": 4, "seq_len": 512},
        {"precision": "fp32", "optimizer": "sgd", "seq_len": 512, "micro_batch": 2},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 2},
        {"peft": {"method": "lora", "rank": 64, "alpha": 16, "targets": ["all-linear"]}, "checkpointing": "full",
         "micro_batch": 8, "seq_len": 2048}]),
    ("meta-llama/Llama-3.1-8B", "llama", [
        {"precision": "bf16", "checkpointing": "full", "seq_len": 4096},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "k_proj", "v_proj", "o_proj"]},
         "micro_batch": 2, "seq_len": 2048},
        {"loop": "custom", "precision": "bf16", "seq_len": 2048, "use_cache": False},
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "weight_quant": "nf4-dq", "seq_len": 2048, "checkpointing": "full"},
        {"peft": {"method": "qlora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 2}]),
    ("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", "llama", [
        {"micro_batch": 8, "seq_len": 2048, "checkpointing": "full"}, {"precision": "fp32", "seq_len": 512},
        {"attention": "eager", "micro_batch": 2, "use_cache": False}]),
    ("mistralai/Mistral-7B-v0.1", "mistral", [
        {"precision": "bf16", "seq_len": 2048, "checkpointing": "full", "micro_batch": 2},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "loop": "custom",
         "micro_batch": 2, "seq_len": 2048},
        {"precision": "bf16", "optimizer": "sgd", "attention": "eager", "seq_len": 512},
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "micro_batch": 1, "seq_len": 2048, "checkpointing": "full", "loop": "custom"},
        # At its 4096-token sliding window: a mask on every layer, so sdpa runs
        # the memory-efficient kernel on keys and values repeated to 32 heads.
        {"precision": "bf16", "seq_len": 4096, "use_cache": False},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]}, "optimizer": "adamw-8bit",
         "micro_batch": 2}]),
    ("Qwen/Qwen2.5-0.5B", "qwen2", [
        {}, {"micro_batch": 8, "seq_len": 512}, {"precision": "fp32"}, {"precision": "fp32", "attention": "eager"},
        {"checkpointing": "full", "micro_batch": 16, "seq_len": 2048}, {"loop": "custom"}, {"use_cache": False},
        {"optimizer": "adafactor", "precision": "bf16"}, {"grad_accum": 8, "micro_batch": 2},
        {"precision": "fp16-mixed", "micro_batch": 4, "seq_len": 128},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        {"peft": {"method": "qlora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        # bitsandbytes 8-bit AdamW, itself on the meta device (accountant.py _bnb_adamw_8bit)
        {"optimizer": "adamw-8bit"}, {"optimizer": "adamw-8bit", "loop": "custom"}]),
    ("Qwen/Qwen2.5-1.5B", "qwen2", [
        {"micro_batch": 2}, {"checkpointing": "full", "micro_batch": 4, "seq_len": 4096},
        {"precision": "bf16", "loop": "custom", "use_cache": False}]),
    ("Qwen/Qwen2.5-7B", "qwen2", [
        {"precision": "bf16", "checkpointing": "full", "seq_len": 2048},
        {"peft": {"method": "lora", "rank": 32, "alpha": 64, "targets": ["all-linear"]}, "checkpointing": "full",
         "micro_batch": 4, "seq_len": 2048},
        {"peft": {"method": "qlora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "weight_quant": "nf4-dq", "micro_batch": 2, "seq_len": 2048,
         "checkpointing": "full"}]),
    ("Qwen/Qwen3-0.6B", "qwen3", [
        {}, {"precision": "fp32", "attention": "eager"},
        {"checkpointing": "full", "micro_batch": 8, "seq_len": 2048}, {"loop": "custom"},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        {"precision": "bf16", "use_cache": False}]),
    ("Qwen/Qwen3-8B", "qwen3", [
        {"precision": "bf16", "checkpointing": "full", "seq_len": 4096},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["all-linear"]}, "checkpointing": "full",
         "micro_batch": 4, "seq_len": 2048}]),
    ("google/gemma-2b", "gemma", [
        {}, {"precision": "fp32", "seq_len": 512}, {"checkpointing": "full", "micro_batch": 4, "seq_len": 2048},
        {"loop": "custom", "micro_batch": 2}, {"attention": "eager", "use_cache": False}]),
    ("google/gemma-2-2b", "gemma2", [
        {"attention": "eager"}, {"attention": "eager", "precision": "fp32", "seq_len": 512},
        {"attention": "eager", "checkpointing": "full", "micro_batch": 4, "seq_len": 2048},
        {"attention": "sdpa", "micro_batch": 2}, {"attention": "eager", "loop": "custom"},
        {"attention": "sdpa", "use_cache": False, "precision": "bf16"},
        {"attention": "sdpa", "use_cache": False, "precision": "bf16", "seq_len": 4096}]),
    ("google/gemma-3-1b-pt", "gemma3", [
        {}, {"precision": "fp32", "attention": "eager", "seq_len": 512},
        {"checkpointing": "full", "micro_batch": 4, "seq_len": 2048}, {"loop": "custom"},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        {"precision": "bf16", "seq_len": 512, "micro_batch": 8, "use_cache": False},
        # Past the 512-token sliding window: five layers in six get a mask, and
        # sdpa's float bias of batch x seq^2 per call (emulate.py) is saved.
        {"precision": "bf16", "seq_len": 4096, "use_cache": False}]),
    # Gemma3ForConditionalGeneration: the SigLIP tower is loaded but idle in
    # text-only training (weights, no gradients or optimizer state).
    ("google/gemma-3-4b-pt", "gemma3", [
        {"precision": "bf16", "checkpointing": "full", "seq_len": 2048}]),
    ("allenai/OLMo-2-0425-1B", "olmo2", [
        {}, {"precision": "fp32", "attention": "eager", "seq_len": 512},
        {"checkpointing": "full", "micro_batch": 4, "seq_len": 2048}, {"loop": "custom"},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"]}, "micro_batch": 4},
        {"precision": "bf16", "micro_batch": 8, "use_cache": False}]),
    ("allenai/OLMo-2-1124-7B", "olmo2", [
        {"precision": "bf16", "checkpointing": "full", "seq_len": 2048}]),
    ("microsoft/Phi-3-mini-4k-instruct", "phi3", [
        {"precision": "bf16", "seq_len": 2048}, {"checkpointing": "full", "micro_batch": 4, "seq_len": 2048},
        {"peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["qkv_proj", "o_proj"]}, "micro_batch": 2},
        {"precision": "fp32", "attention": "eager", "seq_len": 512, "optimizer": "sgd"},
        {"loop": "custom", "use_cache": False}]),
    ("gpt2", "gpt2", [
        {"precision": "fp32", "micro_batch": 4, "seq_len": 512}, {"precision": "fp32", "attention": "eager",
                                                                  "micro_batch": 4, "seq_len": 512},
        {}, {"micro_batch": 16, "seq_len": 1024, "checkpointing": "full"}, {"loop": "custom", "micro_batch": 8},
        {"use_cache": False, "micro_batch": 8}, {"precision": "fp16-mixed", "micro_batch": 8},
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 8, "attention": "eager"},
        {"grad_accum": 4, "micro_batch": 4},
        {"peft": {"method": "lora", "rank": 8, "alpha": 16, "targets": ["c_attn"]}, "micro_batch": 8},
        {"optimizer": "paged-adamw-8bit", "precision": "fp32", "micro_batch": 4, "seq_len": 512}]),
    ("gpt2-medium", "gpt2", [
        {"precision": "fp32", "micro_batch": 2, "seq_len": 1024}, {"micro_batch": 8, "checkpointing": "full"},
        {"optimizer": "adafactor", "micro_batch": 4}]),
    ("EleutherAI/pythia-160m", "gpt_neox", [
        {}, {"precision": "fp32", "micro_batch": 4}, {"attention": "eager", "micro_batch": 4},
        {"checkpointing": "full", "micro_batch": 16, "seq_len": 2048}, {"loop": "custom", "micro_batch": 4},
        {"use_cache": False, "micro_batch": 4}]),
    ("EleutherAI/pythia-1.4b", "gpt_neox", [
        {"micro_batch": 4}, {"precision": "bf16", "checkpointing": "full", "micro_batch": 8, "seq_len": 2048}]),
    ("EleutherAI/polyglot-ko-1.3b", "gpt_neox", [
        # Near the seed book's runs (shared/seeds/001: fp16 weights, plain AdamW
        # without fp32 master weights, which bf16 has the bytes of).
        {"precision": "bf16", "micro_batch": 4, "seq_len": 512, "attention": "eager"},
        {"precision": "bf16", "micro_batch": 8, "seq_len": 512, "attention": "eager"},
        {"precision": "bf16-mixed", "micro_batch": 4, "seq_len": 512},
        {"peft": {"method": "lora", "rank": 8, "alpha": 32, "dropout": 0.05, "targets": ["query_key_value"]},
         "micro_batch": 16, "seq_len": 512, "precision": "bf16"},
        {"checkpointing": "full", "micro_batch": 16, "seq_len": 512}]),
    ("bigcode/gpt_bigcode-santacoder", "gpt_bigcode", [
        {"precision": "fp32", "micro_batch": 2, "seq_len": 1024}, {"micro_batch": 4, "attention": "eager"},
        {"micro_batch": 8, "checkpointing": "full", "seq_len": 2048}, {"loop": "custom", "micro_batch": 4},
        {"use_cache": False, "micro_batch": 4, "precision": "bf16"}]),
    ("bert-base-uncased", "bert", [
        {"precision": "fp32", "micro_batch": 8, "seq_len": 512}, {"precision": "fp32", "attention": "eager",
                                                                  "micro_batch": 8, "seq_len": 512},
        {"micro_batch": 32, "seq_len": 128}, {"checkpointing": "full", "micro_batch": 16, "seq_len": 512},
        {"loop": "custom", "micro_batch": 8, "seq_len": 512}]),
    ("bert-large-uncased", "bert", [
        {"precision": "fp32", "micro_batch": 4, "seq_len": 512, "attention": "eager"},
        {"precision": "fp32", "micro_batch": 4, "seq_len": 512},
        {"micro_batch": 8, "seq_len": 512, "optimizer": "sgd"},
        # Sequence classification: pooler, dropout and a 1024 x 2 classifier
        # instead of the MLM head (no tokens x vocab logits).
        {"model": CLS, "micro_batch": 16, "seq_len": 512}]),
    # Fine-tuning for classification, the usual BERT job (issue 13).
    ("bert-base-uncased", "bert", [
        {"model": CLS, "precision": "fp32", "micro_batch": 32, "seq_len": 128},
        {"model": CLS, "precision": "fp32", "attention": "eager", "micro_batch": 16, "seq_len": 512},
        {"model": CLS, "micro_batch": 32, "seq_len": 512},
        {"model": CLS, "checkpointing": "full", "micro_batch": 32, "seq_len": 512},
        {"model": CLS, "loop": "custom", "micro_batch": 32, "seq_len": 256}]),
]

# Mixture of experts as transformers 5.17 trains it: the default "grouped_mm"
# experts (integrations/moe.py), which autocast leaves in the weights' dtype
# (fp32 under bf16-mixed), the router, dispatch and combine. gpt-oss has no
# sdpa path, so eager. SGD keeps the activations, not the optimizer step, at
# the peak.
MOE_LORA = {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]}
MLA_LORA = {**MOE_LORA, "targets": ["q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]}
PLAN += [
    ("Qwen/Qwen3-30B-A3B", "qwen3_moe", [
        {}, {"optimizer": "sgd", "micro_batch": 8, "seq_len": 2048},
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 4, "seq_len": 2048, "use_cache": False},
        {"optimizer": "sgd", "micro_batch": 8, "seq_len": 4096, "checkpointing": "full"},
        {"peft": MOE_LORA, "micro_batch": 2, "seq_len": 2048},
        {"peft": {**MOE_LORA, "rank": 32, "targets": ["all-linear"]}, "micro_batch": 2, "seq_len": 2048},
        # QLoRA: bitsandbytes quantizes nn.Linear only; the 3-D experts stay,
        # cast to fp32 by prepare_model_for_kbit_training.
        {"peft": {**MOE_LORA, "method": "qlora"}, "micro_batch": 1, "seq_len": 1024}]),
    ("Qwen/Qwen3-30B-A3B-4layers", "qwen3_moe", [
        {"optimizer": "sgd", "micro_batch": 4, "seq_len": 2048},
        {"micro_batch": 2, "seq_len": 2048, "checkpointing": "full"},
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 4, "seq_len": 2048, "use_cache": False}]),
    ("mistralai/Mixtral-8x7B-v0.1", "mixtral", [
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 4, "seq_len": 2048, "use_cache": False},
        {"optimizer": "sgd", "micro_batch": 4, "seq_len": 2048},
        {"optimizer": "sgd", "micro_batch": 4, "seq_len": 4096, "checkpointing": "full"},
        {"peft": MOE_LORA, "micro_batch": 4, "seq_len": 2048},
        {"peft": {**MOE_LORA, "targets": ["all-linear"]}, "checkpointing": "full", "micro_batch": 4, "seq_len": 4096},
        {"peft": {**MOE_LORA, "method": "qlora", "targets": ["all-linear"]}, "checkpointing": "full", "seq_len": 2048}]),
    ("openai/gpt-oss-20b", "gpt_oss", [
        {"attention": "eager", "precision": "bf16", "optimizer": "sgd", "micro_batch": 2, "seq_len": 2048,
         "use_cache": False},
        {"attention": "eager", "optimizer": "sgd", "micro_batch": 2, "seq_len": 2048},
        {"attention": "eager", "optimizer": "sgd", "micro_batch": 4, "seq_len": 2048, "checkpointing": "full"},
        {"attention": "eager", "peft": MOE_LORA, "micro_batch": 2, "seq_len": 2048}]),
    # Llama 4's Llama4TextMoe runs every expert on every token (repeat, then
    # bmm over the stacked experts), plus the shared expert.
    ("llama4-text-tiny", "llama4_text", [
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"peft": MOE_LORA, "micro_batch": 2, "seq_len": 512},
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 1024, "checkpointing": "full"}]),
    # DeepSeek-V3's multi-head latent attention (q_a/q_b and kv_a/kv_b
    # projections, qk head dim 48 against v head dim 32, so sdpa runs the
    # memory-efficient kernel, not flash) and DeepseekV3MoE (sigmoid router
    # with group top-k, fp32 in pure bf16 but bf16 under autocast; grouped_mm
    # experts; one shared expert) after one dense layer. MOE_LORA's q_proj and v_proj do not exist in latent
    # attention (peft raises "Target modules ... not found"), so its LoRA case
    # adapts all five attention linears; all-linear adds the dense MLP and the
    # shared experts (not the router or the 3-D experts).
    ("deepseek-v3-tiny", "deepseek_v3", [
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"micro_batch": 2, "seq_len": 512},
        {"peft": MLA_LORA, "micro_batch": 2, "seq_len": 512},
        {"peft": {**MLA_LORA, "rank": 32, "targets": ["all-linear"]}, "micro_batch": 2, "seq_len": 512},
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 1024, "checkpointing": "full"},
        {"optimizer": "sgd", "attention": "eager", "micro_batch": 2, "seq_len": 512}]),
    # Dense layers among the MoE ones (ModelSpec::denseLayerIds): Qwen3-MoE's
    # decoder_sparse_step 2 and Llama 4's interleave_moe_layer_step 2, each
    # with layers 0 and 2 dense and 1 and 3 MoE.
    ("qwen3-moe-tiny-sparse-step2", "qwen3_moe", [
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"precision": "bf16", "optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"micro_batch": 2, "seq_len": 512},
        {"peft": MOE_LORA, "micro_batch": 2, "seq_len": 512},
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 1024, "checkpointing": "full"}]),
    ("llama4-text-tiny-interleaved", "llama4_text", [
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 512},
        {"peft": MOE_LORA, "micro_batch": 2, "seq_len": 512},
        {"optimizer": "sgd", "micro_batch": 2, "seq_len": 1024, "checkpointing": "full"}]),
]

# The op-level policy on mixture-of-experts layers (2026-11-27): the router
# and shared experts are aten.mm, counted and every other one kept; the
# routed experts' _grouped_mm (Llama 4: bmm) is neither; latent attention's
# four projections are four mm.
MOE_SAC = {"checkpointing": "selective-op", "optimizer": "sgd"}
PLAN += [
    ("deepseek-v3-tiny", "deepseek_v3", [
        {**MOE_SAC, "micro_batch": 2, "seq_len": 512}, {"checkpointing": "selective-op", "micro_batch": 2, "seq_len": 512},
        {**MOE_SAC, "attention": "eager", "micro_batch": 2, "seq_len": 512}]),
    ("qwen3-moe-tiny-sparse-step2", "qwen3_moe", [{**MOE_SAC, "micro_batch": 2, "seq_len": 512}]),
    ("llama4-text-tiny", "llama4_text", [{**MOE_SAC, "micro_batch": 2, "seq_len": 512}]),
    ("llama4-text-tiny-interleaved", "llama4_text", [{**MOE_SAC, "micro_batch": 2, "seq_len": 512}]),
    ("Qwen/Qwen3-30B-A3B-4layers", "qwen3_moe", [{**MOE_SAC, "micro_batch": 4, "seq_len": 2048}]),
    ("mistralai/Mixtral-8x7B-v0.1", "mixtral", [{**MOE_SAC, "micro_batch": 2, "seq_len": 2048}]),
    ("openai/gpt-oss-20b", "gpt_oss", [{**MOE_SAC, "attention": "eager", "micro_batch": 2, "seq_len": 2048}]),
]

# torchtitan's op-level selective activation checkpointing (accountant.py
# op_sac_context): each layer keeps the outputs of its odd-numbered aten.mm
# calls and of the flash or memory-efficient attention kernel. The variants
# move what a layer keeps: flash (bf16), the math path (fp32 with grouped KV
# heads: no kernel to keep), memory-efficient (fp32 without grouped KV heads:
# Phi-3, SmolLM2),
# eager (nothing from attention), q/k/v biases (Qwen2.5: addmm, so o_proj and
# up_proj become the odd mm), fused qkv and gate_up (Phi-3: four mm a layer),
# LoRA (its two mm per adapted projection shift the count).
SAC = {"checkpointing": "selective-op"}
PLAN += [
    ("meta-llama/Llama-3.2-1B", "llama", [
        SAC, {**SAC, "micro_batch": 2, "seq_len": 4096},
        {**SAC, "precision": "fp32"}, {**SAC, "precision": "fp32", "micro_batch": 2, "seq_len": 4096},
        {**SAC, "precision": "bf16"}, {**SAC, "attention": "eager", "micro_batch": 2, "seq_len": 2048},
        {**SAC, "peft": {"method": "lora", "rank": 16, "alpha": 32, "targets": ["q_proj", "v_proj"]},
         "micro_batch": 4}]),
    # torchtitan's per-GPU activations (Table 1: batch 2 x 8192) on one GPU in
    # bf16, the dtype FSDP2's mixed precision computes in.
    ("meta-llama/Llama-3.1-8B", "llama", [
        {**SAC, "precision": "bf16", "seq_len": 4096},
        {**SAC, "precision": "bf16", "micro_batch": 2, "seq_len": 8192}]),
    ("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", "llama", [
        {**SAC, "micro_batch": 8, "seq_len": 2048}]),
    ("Qwen/Qwen2.5-0.5B", "qwen2", [
        {**SAC, "micro_batch": 16, "seq_len": 2048}]),
    ("Qwen/Qwen2.5-1.5B", "qwen2", [
        {**SAC, "micro_batch": 4, "seq_len": 4096}]),
    ("google/gemma-2b", "gemma", [
        {**SAC, "micro_batch": 4, "seq_len": 2048}]),
    ("microsoft/Phi-3-mini-4k-instruct", "phi3", [
        {**SAC, "micro_batch": 4, "seq_len": 2048}, {**SAC, "precision": "fp32", "seq_len": 512},
        {**SAC, "precision": "fp32", "optimizer": "sgd", "micro_batch": 2, "seq_len": 2048}]),
    ("HuggingFaceTB/SmolLM2-1.7B", "llama", [
        {**SAC, "precision": "fp32", "micro_batch": 4, "seq_len": 2048}]),
]


def case_id(model_id, train, model=None):
    base = model_id.split("/")[-1].lower()
    if model and model.get("head") == "sequence-classification":
        labels = model.get("num_labels", 2)
        base += "-cls" + ("" if labels == 2 else str(labels))
    parts = [train["precision"], train["attention"], f"b{train['micro_batch']}", f"s{train['seq_len']}"]
    if train["checkpointing"] == "full":
        parts.append("ckpt")
    elif train["checkpointing"] != "none":
        parts.append(train["checkpointing"])
    if train["optimizer"] != "adamw":
        parts.append(train["optimizer"])
    if train.get("peft"):
        parts.append(f"{train['peft']['method']}{train['peft']['rank']}")
    if train.get("weight_quant", "none") not in ("none", "nf4"):
        parts.append(train["weight_quant"])
    if train["grad_accum"] > 1:
        parts.append(f"ga{train['grad_accum']}")
    if train["loop"] != "trainer":
        parts.append(train["loop"])
    if "use_cache" in train:
        parts.append("cache" if train["use_cache"] else "nocache")
    return base + "-" + "-".join(parts)


def build_cases():
    configs = catalog_configs()
    cases = []
    for model_id, family, variants in PLAN:
        for overrides in variants:
            overrides = dict(overrides)
            model = overrides.pop("model", None)
            s = scenario(model_id, configs[model_id], model, **overrides)
            cases.append({"id": case_id(model_id, s["train"], model), "family": family, "scenario": s})
    ids = [c["id"] for c in cases]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate case ids: {sorted(dupes)}")
    return cases


def merged_cases(all_cases, fresh, path):
    """all_cases in PLAN order, each with its fresh result if it was just run,
    else its result from the file at path; a case with neither is an error
    (run it with --only, or regenerate everything)."""
    with open(path) as f:
        old = {c["id"]: c for c in json.load(f)["cases"]}
    fresh = {c["id"]: c for c in fresh}
    out, missing = [], []
    for case in all_cases:
        if case["id"] in fresh:
            out.append(fresh[case["id"]])
        elif case["id"] in old and old[case["id"]]["scenario"] == case["scenario"]:
            out.append(old[case["id"]])
        else:
            missing.append(case["id"])
    if missing:
        raise SystemExit(f"no result for {len(missing)} cases (changed or new; run them with --only): "
                         + ", ".join(missing[:5]))
    return out


def _replay(cli, trace, gpu):
    """Peak reserved of the accountant's trace through Headroom's caching
    allocator simulation (headroom-cli replay), the one the planner uses, with
    the scenario's card's capacity as the planner has it."""
    out = subprocess.run([cli, "replay", trace, "--json", "--gpu", gpu], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _run_case(case, cli=None):
    sys.path.insert(0, HERE)
    import accountant
    t0 = time.time()
    trace = None
    try:
        if cli:
            fd, trace = tempfile.mkstemp(suffix=".trace")
            os.close(fd)
        report = accountant.run(case["scenario"], steps=2, keep_events=bool(cli), events_out=trace)
        replay = _replay(cli, trace, case["scenario"]["hardware"]["gpu"]) if cli else None
    except Exception as e:  # one case's failure is reported, the rest still run
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        if trace:
            os.unlink(trace)
    peak = report["steps"][-1]["peak"]
    return {"peak_allocated_bytes": report["peak_allocated_bytes"],
            "step_peaks_bytes": [s["peak_allocated_bytes"] for s in report["steps"]],
            "peak_phase": peak["phase"], "peak_layer": peak["layer"], "peak_op": peak["op"],
            "categories_at_peak": dict(sorted(peak["categories"].items())),
            "parameters": report["parameters"], "trainable_parameters": report["trainable_parameters"],
            **({"replay": {"peak_reserved_bytes": replay["peak_reserved_bytes"],
                           "peak_allocated_bytes": replay["peak_allocated_bytes"],
                           "events": replay["events"]}} if replay else {}),
            "seconds": round(time.time() - t0, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="run only cases whose id contains this (repeatable: any of "
                                                     "them), and merge their results into --out (the other cases keep "
                                                     "their committed results)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "headroom-cli"),
                    help="headroom-cli whose 'replay' runs each case's allocation trace through the allocator "
                         "simulation ('' to skip: no reserved figures)")
    args = ap.parse_args()
    if args.cli and not os.access(args.cli, os.X_OK):
        raise SystemExit(f"{args.cli}: not built (cmake --build build --target headroom-cli), or pass --cli ''")
    cases = build_cases()
    if args.only:
        cases = [c for c in cases if any(only in c["id"] for only in args.only)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(functools.partial(_run_case, cli=args.cli or None), cases))
    failed = [c["id"] for c, r in zip(cases, results) if "error" in r]
    for case, result in zip(cases, results):
        case["pytorch"] = result
        if "error" in result:
            print(f"{case['id']:70s} FAILED {result['error']}", flush=True)
            continue
        print(f"{case['id']:70s} {result['peak_allocated_bytes'] / 2**30:8.3f} GiB  {result['peak_phase']:>14s}"
              f" {result['peak_layer']:3d}  {result['seconds']:.1f}s", flush=True)
    import peft
    import torch
    import transformers

    sys.path.insert(0, HERE)
    import emulate
    doc = {
        "schema": "headroom.reference/1",
        "what": "peak allocated bytes (torch.cuda.max_memory_allocated semantics: 512-byte blocks) of the second "
                "of two training steps, counted by tools/reference/accountant.py on PyTorch's meta device; "
                "replay: the whole trace (load and both steps) through headroom-cli replay, Headroom's caching "
                "allocator simulation, for peak reserved",
        "generated_by": {"torch": torch.__version__, "transformers": transformers.__version__,
                         "peft": peft.__version__, "python": platform.python_version(),
                         "command": "tools/reference/reference_set.py"},
        "emulated": emulate.Emulations().names(),
        "cases": cases,
    }
    if failed:
        raise SystemExit(f"{len(failed)} cases failed; nothing written")
    if args.only:
        # Merge: the cases just run replace (or join) those of the committed
        # file; every other case keeps its committed result, in PLAN order.
        doc["cases"] = merged_cases(build_cases(), cases, args.out)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(doc['cases'])} cases -> {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
