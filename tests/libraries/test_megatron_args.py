# SPDX-License-Identifier: GPL-3.0-or-later
"""The megatron-args export, checked with megatron-core 0.16.1 from PyPI.

Megatron-LM's argument parser (megatron/training/arguments.py parse_args,
validate_args) is not on PyPI: the megatron-core wheel packages megatron/core
alone, megatron-bridge reads an argparse namespace without shipping the
parser, and no "megatron-lm" package exists (docs/library-checks.md). In
core_v0.16.1, the Megatron-LM release of this wheel, the parser makes its
"transformer configuration" flags from megatron-core's TransformerConfig
(arguments.py _add_network_size_args, ArgumentGroupFactory of
megatron/training/argument_utils.py). So this check:
1. reads MEGATRON_ARGS as bash reads it (bash sources the file and prints
   each word);
2. parses the words with an argparse parser made as that parser is made for
   them: the TransformerConfig group by ArgumentGroupFactory's rules
   (re-implemented in transformer_group(), from the wheel's own dataclass),
   and the few flags arguments.py and megatron/training/training_config.py
   declare themselves, each as declared there (TRAINING_FLAGS); any other
   word is refused, as parse_args refuses it;
3. builds TransformerConfig from them as core_transformer_config_from_args
   (arguments.py) does; its __post_init__ validates the model and the layout
   (heads and query groups divisible by tp, recompute settings, sequence
   parallelism with tp...). Fields the export does not set take the
   dataclass's defaults, not arguments.py's (rope fusion, which needs
   Transformer Engine, is off);
4. starts megatron-core's parallel state (initialize_model_parallel) in a
   world of the scenario's GPU count: torch's fake process group, one CPU
   process, no communication; then get_num_layers_to_build for every
   pipeline stage, ConstantNumMicroBatchesCalculator for the batch and the
   optimizer's and DDP's config classes.
By hand, the same exports went through Megatron-LM core_v0.16.1's own
parse_args, validate_args and core_transformer_config_from_args from a git
checkout (docs/library-checks.md says how and what it needed).
Every expected value comes from headroom-cli's options, scenario and plan.
"""
import argparse
import dataclasses
import enum
import json
import os
import re
import subprocess
import types
import typing

import common

CASES = {
    # tp 2 x pp 2 x dp 2, sequence parallelism, the distributed optimizer, full recompute.
    "tp2-pp2-dp2-zero1": ("llama-3.1-8b", ["--gpus", "8", "--tp", "2", "--sp", "--pp", "2", "--sharding", "zero1",
                                           "--checkpointing", "full", "--micro-batch", "1", "--grad-accum", "8"]),
    # q/k/v bias only and tied embeddings (Qwen2.5), tp 2 without sp, DDP, fp16, sdpa, no recompute.
    "qwen2.5-tp2-dp4-fp16": ("qwen2.5-0.5b", ["--gpus", "8", "--tp", "2", "--sharding", "ddp", "--precision",
                                              "fp16-mixed", "--attention", "sdpa", "--checkpointing", "none"]),
    # Per-head q/k norms and head_dim 128 over hidden 1024 (Qwen3), 28 layers
    # over pp 3 (9, 9, 10), one layer in 5 recomputed as blocks (2 a stage).
    "qwen3-pp3-dp2-every-5": ("qwen3-0.6b", ["--gpus", "6", "--pp", "3", "--sharding", "zero1", "--checkpointing",
                                             "every-k", "--checkpoint-every", "5", "--grad-accum", "6"]),
    # Routed experts split over 4 of the 8 data-parallel ranks (expert parallelism), the distributed optimizer.
    "mixtral-ep4-dp8-zero1": ("mixtral-8x7b", ["--gpus", "8", "--ep", "4", "--sharding", "zero1", "--seq-len", "1024"]),
    # Mixtral under tp 2 with sp, each expert whole (etp 1) and the experts over ep 4 (etp x ep = tp x dp / 2),
    # a capacity factor with padding.
    "mixtral-tp2-ep4-etp1-capacity": ("mixtral-8x7b", ["--gpus", "8", "--tp", "2", "--sp", "--ep", "4", "--etp", "1",
                                                       "--sharding", "zero1", "--seq-len", "1024",
                                                       "--moe-capacity-factor", "1.25", "--moe-pad-to-capacity"]),
    # Routed experts (Mixtral), pp 4, SGD with momentum in fp32, one GPU per stage.
    "mixtral-pp4-sgd-fp32": ("mixtral-8x7b", ["--gpus", "4", "--pp", "4", "--optimizer", "sgd-momentum",
                                              "--precision", "fp32", "--seq-len", "1024"]),
    # DeepSeek-V3: multi-latent attention under tp 2 with sp (MLATransformerConfig), 3 dense first layers
    # (--moe-layer-freq), a shared expert, the experts over ep 8, 61 layers over pp 4 (15, 15, 15, 16).
    "deepseek-v3-tp2-pp4-ep8": ("deepseek-v3", ["--gpus", "64", "--tp", "2", "--sp", "--pp", "4", "--ep", "8",
                                                "--etp", "1", "--sharding", "zero1", "--micro-batch", "1",
                                                "--grad-accum", "8", "--gpu", "h200"]),
    # Qwen3-MoE with dense layers between the MoE ones (decoder_sparse_step 2: layers 0 and 2 dense).
    "qwen3-moe-sparse-step2-tp2": ("qwen3-moe-tiny-sparse-step2", ["--gpus", "2", "--tp", "2", "--sp",
                                                                   "--sharding", "zero1"]),
}
COMMON = ["--gpu", "h100-sxm-80gb", "--peft", "none", "--weight-quant", "none", "--optimizer", "adamw",
          "--precision", "bf16-mixed", "--attention", "flash", "--seq-len", "4096", "--micro-batch", "2",
          "--grad-accum", "4", "--checkpointing", "full"]

# Megatron-LM core_v0.16.1 megatron/training/arguments.py
# _add_network_size_args: the TransformerConfig fields with no flag of
# their own there (callables, other types, other names, other defaults).
EXCLUDE = {
    "timers", "finalize_model_grads_func", "grad_scale_func", "no_sync_func", "grad_sync_func", "param_sync_func",
    "_cpu_offloading_context", "init_method", "output_layer_init_method", "embedding_init_method", "activation_func",
    "pipeline_model_parallel_layout", "window_size", "window_attn_skip_freq", "no_rope_freq", "moe_layer_freq",
    "linear_attention_freq", "moe_router_load_balancing_type", "moe_aux_loss_coeff", "cp_comm_type",
    "cuda_graph_scope", "virtual_pipeline_model_parallel_size", "params_dtype", "enable_autocast", "autocast_dtype",
    "num_microbatches_with_partial_activation_checkpoints", "tp_comm_overlap_disable_qkv",
    "tp_comm_overlap_disable_fc1", "pipeline_dtype", "variable_seq_lengths", "batch_p2p_comm", "batch_p2p_sync",
    "deallocate_pipeline_outputs", "cpu_offloading", "cpu_offloading_activations", "cpu_offloading_weights",
    "cpu_offloading_double_buffering", "num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage",
    "softmax_scale", "gated_linear_unit", "bias_activation_fusion", "activation_func_fp8_input_store", "test_mode",
    "memory_efficient_layer_norm", "fused_single_qkv_rope", "fp8_dot_product_attention", "fp8_multi_head_attention",
    "tp_only_amax_red", "use_kitchen", "moe_token_dropping", "cuda_graph_use_single_mempool",
    "cuda_graph_retain_backward_graph", "disable_parameter_transpose_cache", "inference_sampling_seed",
    "use_inference_optimized_layers", "heterogeneous_block_specs", "hetereogenous_dist_checkpoint", "quant_recipe",
    "tp_comm_atomic_ag", "tp_comm_atomic_rs", "moe_router_topk_limited_devices", "inference_rng_tracker",
    "use_te_rng_tracker", "log_max_attention_logit", "barrier_with_L1_time", "num_moe_experts", "fp8_param",
    "gradient_accumulation_fusion", "overlap_p2p_comm", "attention_softmax_in_fp32", "masked_softmax_fusion",
    "persist_layer_norm", "bias_dropout_fusion", "apply_rope_fusion",
}

# The flags the export writes that arguments.py (and training_config.py
# TrainingConfig, through ArgumentGroupFactory) declare themselves, as
# declared in core_v0.16.1: flag -> add_argument keywords.
TRAINING_FLAGS = {
    "--group-query-attention": dict(action="store_true"),             # arguments.py 1630
    "--max-position-embeddings": dict(type=int, default=None),        # 1642
    "--position-embedding-type": dict(type=str, default="learned_absolute",
                                      choices=["learned_absolute", "rope", "mrope", "relative", "none"]),  # 1645
    "--make-vocab-size-divisible-by": dict(type=int, default=128),    # 1678
    "--swiglu": dict(action="store_true"),                            # 1687
    "--untie-embeddings-and-output-weights": dict(action="store_true"),  # 1697
    "--sgd-momentum": dict(type=float, default=0.9),                  # 1836
    "--optimizer": dict(type=str, default="adam", choices=["adam", "sgd", "muon", "dist_muon"]),  # 2056
    "--decoder-first-pipeline-num-layers": dict(type=int, default=None),  # 2209
    "--decoder-last-pipeline-num-layers": dict(type=int, default=None),   # 2213
    "--use-distributed-optimizer": dict(action="store_true"),        # 2283
    "--vocab-size": dict(type=int, default=None),                     # 2373
    "--seq-length": dict(type=int, default=None),                     # 2482
    "--num-experts": dict(type=int, default=None),                    # 2691
    "--moe-layer-freq": dict(type=lambda x: moe_freq_type(x), default=1),  # 2693
    "--q-lora-rank": dict(type=int, default=None),                    # 2725 _add_mla_args
    "--kv-lora-rank": dict(type=int, default=32),                     # 2727
    "--qk-head-dim": dict(type=int, default=128),                     # 2729
    "--qk-pos-emb-head-dim": dict(type=int, default=64),              # 2731
    "--v-head-dim": dict(type=int, default=128),                      # 2733
    "--micro-batch-size": dict(type=int, default=None),               # training_config.py TrainingConfig
    "--global-batch-size": dict(type=int, default=None),              # training_config.py TrainingConfig
}


def moe_freq_type(x):
    """arguments.py moe_freq_type and _eval_pattern (198, 231): an int, or a
    list expression of digits, commas, brackets, parentheses, + and *."""
    if "[" not in x:
        return int(x)
    if re.search(r"[^,\d\[\]\(\)\+\*]", x):
        raise ValueError(f"Invalid pattern: {x}")
    return eval(x)  # the characters above only, as _eval_pattern


def argparse_type(annotation):
    """ArgumentGroupFactory._extract_type: type, choices and nargs of a field."""
    origin, members = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"type": lambda name: annotation[name], "choices": list(annotation)}
    if origin is None:
        return {"type": annotation}
    if origin in (types.UnionType, typing.Union):
        if members[1] is type(None):
            return argparse_type(members[0])
        raise TypeError(f"union {annotation}")
    if origin is list and len(members) == 1:
        return {**argparse_type(members[0]), "nargs": "+"}
    if origin is typing.Literal:
        return {"type": type(members[0]), "choices": members}
    raise TypeError(f"unsupported {annotation}")


def transformer_group(parser):
    """ArgumentGroupFactory(TransformerConfig, exclude=EXCLUDE).build_group(parser)."""
    from megatron.core.transformer import TransformerConfig

    hints = typing.get_type_hints(TransformerConfig)
    for field in dataclasses.fields(TransformerConfig):
        if field.name in EXCLUDE or not field.init:
            continue
        default = field.default_factory() if field.default is dataclasses.MISSING else field.default
        kwargs = {"dest": field.name, "default": default}
        names = ["--" + field.name.replace("_", "-")]
        meta = dict(field.metadata.get("argparse_meta", {}))
        try:
            kwargs.update(argparse_type(hints[field.name]))
            if kwargs.get("type") is bool:  # store_true, or store_false as --no-X / --disable-X
                kwargs.pop("type")
                kwargs["action"] = "store_true" if default is False else "store_false"
                if kwargs["action"] == "store_false":
                    names = ["--no-" + names[0][2:], "--disable-" + names[0][2:]]
        except TypeError:
            if not meta:
                raise
        names = meta.pop("arg_names", names)
        kwargs.update(meta)
        parser.add_argument(*names, **kwargs)


def megatron_parser():
    parser = argparse.ArgumentParser(allow_abbrev=False, exit_on_error=False)  # parse_args: allow_abbrev=False
    transformer_group(parser)
    for flag, kwargs in TRAINING_FLAGS.items():
        parser.add_argument(flag, **kwargs)
    return parser


def bash_words(path):
    """MEGATRON_ARGS as bash expands it."""
    script = 'source "$1" && printf "%s\\0" "${MEGATRON_ARGS[@]}"'
    out = subprocess.run(["bash", "-c", script, "bash", path], capture_output=True, check=True, timeout=60).stdout
    return out.decode().split("\0")[:-1]


def parse(words):
    parser = megatron_parser()
    args, unknown = parser.parse_known_args(words)
    if unknown:
        raise ValueError(f"Megatron-LM has no such arguments: {unknown}")
    return args


def transformer_config(args):
    """arguments.py core_transformer_config_from_args, for the flags written."""
    import torch
    import torch.nn.functional as F
    from megatron.core.transformer import MLATransformerConfig, TransformerConfig

    config_class = MLATransformerConfig if args.multi_latent_attention else TransformerConfig
    kw = {f.name: getattr(args, f.name) for f in dataclasses.fields(config_class) if hasattr(args, f.name)}
    # validate_args: params_dtype from --bf16 / --fp16.
    dtype = torch.bfloat16 if args.bf16 else torch.float16 if args.fp16 else torch.float32
    kw.update(params_dtype=dtype, pipeline_dtype=dtype, deallocate_pipeline_outputs=True,
              num_moe_experts=args.num_experts,
              num_layers_in_first_pipeline_stage=args.decoder_first_pipeline_num_layers,
              num_layers_in_last_pipeline_stage=args.decoder_last_pipeline_num_layers,
              num_query_groups=args.num_query_groups if args.group_query_attention else None)
    if args.swiglu:
        kw.update(activation_func=F.silu, gated_linear_unit=True)
    return config_class(**kw)


def expected_moe_layers(hf):
    """Which layers are MoE (1) and dense (0), as transformers builds them:
    DeepSeek-V3's first_k_dense_replace, Qwen3-MoE's mlp_only_layers and
    decoder_sparse_step; every layer otherwise (Megatron-LM's default 1)."""
    layers = hf["num_hidden_layers"]
    if "first_k_dense_replace" in hf:
        return [0] * hf["first_k_dense_replace"] + [1] * (layers - hf["first_k_dense_replace"])
    step, only = hf.get("decoder_sparse_step", 1), hf.get("mlp_only_layers", [])
    pattern = [0 if i in only or (i + 1) % step != 0 else 1 for i in range(layers)]
    return 1 if all(pattern) else pattern


def options_of(name):
    config, options = CASES[name]
    path = os.path.join(common.CONFIGS, config + ".json")
    with open(path) as f:
        return COMMON + ["--config", path] + options, json.load(f)


class FakeWorld:
    """megatron-core's parallel state over `size` ranks of torch's fake
    process group (torch.testing._internal.distributed.fake_pg): one CPU
    process, collectives that do nothing."""

    def __init__(self, size, **parallel):
        self.size, self.parallel = size, parallel

    def __enter__(self):
        import torch.distributed as dist
        from megatron.core import parallel_state
        from torch.testing._internal.distributed.fake_pg import FakeStore

        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=self.size)
        try:
            # Gloo groups cannot be made over the fake backend; nothing here needs them.
            parallel_state.initialize_model_parallel(**self.parallel, create_gloo_process_groups=False)
        except BaseException:
            self.__exit__()
            raise
        return parallel_state

    def __exit__(self, *exc):
        import torch.distributed as dist
        from megatron.core import parallel_state

        parallel_state.destroy_model_parallel()
        dist.destroy_process_group()


class MegatronArgs(common.TempDirTest):
    def test_megatron_core_reads_each_export(self):
        from megatron.core.distributed import DistributedDataParallelConfig
        from megatron.core.num_microbatches_calculator import ConstantNumMicroBatchesCalculator
        from megatron.core.optimizer import OptimizerConfig
        from megatron.core.transformer.enums import AttnBackend
        from megatron.core.transformer.transformer_block import get_num_layers_to_build

        for name in CASES:
            with self.subTest(name):
                options, hf = options_of(name)
                path = common.export("megatron-args", options, self.path(name + ".sh"))
                scenario = common.scenario_json(options)
                plan = common.plan_json(options)
                train, hw = scenario["train"], scenario["hardware"]
                layout = hw.get("parallel", {})
                tp, pp = layout.get("tp", 1), layout.get("pp", 1)

                args = parse(bash_words(path))
                config = transformer_config(args)
                # The model: the config.json the scenario plans.
                self.assertEqual(config.num_layers, hf["num_hidden_layers"])
                self.assertEqual(config.hidden_size, hf["hidden_size"])
                self.assertEqual(config.num_attention_heads, hf["num_attention_heads"])
                self.assertEqual(config.num_query_groups, hf.get("num_key_value_heads", hf["num_attention_heads"]))
                self.assertEqual(config.kv_channels,
                                 hf.get("head_dim") or hf["hidden_size"] // hf["num_attention_heads"])
                experts = hf.get("num_local_experts") or hf.get("num_experts") or hf.get("n_routed_experts")
                if experts:
                    self.assertEqual(config.num_moe_experts, experts)
                    self.assertEqual(config.moe_router_topk, hf["num_experts_per_tok"])
                    self.assertEqual(config.moe_ffn_hidden_size,
                                     hf.get("moe_intermediate_size", hf["intermediate_size"]))
                    self.assertEqual(config.moe_shared_expert_intermediate_size,
                                     hf["moe_intermediate_size"] * hf["n_shared_experts"]
                                     if "n_shared_experts" in hf else None)
                    self.assertEqual(config.moe_layer_freq, expected_moe_layers(hf))
                # The dense MLP's width (a mixture of experts' dense layers).
                self.assertEqual(config.ffn_hidden_size, hf["intermediate_size"])
                self.assertEqual(config.multi_latent_attention, "kv_lora_rank" in hf)
                if "kv_lora_rank" in hf:  # MLATransformerConfig
                    self.assertEqual((config.q_lora_rank, config.kv_lora_rank, config.qk_head_dim,
                                      config.qk_pos_emb_head_dim, config.v_head_dim),
                                     (hf["q_lora_rank"], hf["kv_lora_rank"], hf["qk_nope_head_dim"],
                                      hf["qk_rope_head_dim"], hf["v_head_dim"]))
                self.assertEqual(config.normalization, "RMSNorm")
                self.assertTrue(config.gated_linear_unit)
                self.assertEqual(config.add_qkv_bias, hf["model_type"] == "qwen2")
                self.assertFalse(config.add_bias_linear)
                # Per-head q/k norms (Qwen3), or MLA's latent norms (DeepSeek-V3).
                self.assertEqual(config.qk_layernorm, hf["model_type"] in ("qwen3", "qwen3_moe", "deepseek_v3"))
                self.assertEqual(args.untie_embeddings_and_output_weights, not hf.get("tie_word_embeddings", False))
                self.assertEqual(args.vocab_size, hf["vocab_size"])
                self.assertEqual(args.position_embedding_type, "rope")
                self.assertEqual(args.seq_length, train["seq_len"])
                self.assertGreaterEqual(args.max_position_embeddings, args.seq_length)  # validate_args
                self.assertEqual(config.hidden_dropout, 0.0)
                self.assertEqual(config.attention_backend,
                                 {"flash": AttnBackend.flash, "sdpa": AttnBackend.fused}[train["attention"]])
                # Precision and recompute.
                self.assertEqual(config.bf16, train["precision"] in ("bf16-mixed", "bf16"))
                self.assertEqual(config.fp16, train["precision"] in ("fp16-mixed", "fp16"))
                ckpt = train["checkpointing"]
                self.assertEqual(config.recompute_granularity, None if ckpt == "none" else "full")
                if ckpt == "full":
                    self.assertEqual((config.recompute_method, config.recompute_num_layers), ("uniform", 1))
                # The layout, in a world of the scenario's GPUs.
                self.assertEqual(config.tensor_model_parallel_size, tp)
                self.assertEqual(config.pipeline_model_parallel_size, pp)
                self.assertEqual(config.sequence_parallel, layout.get("sp", False))
                ep, etp = layout.get("ep", 1), layout.get("etp", tp)
                self.assertEqual(config.expert_model_parallel_size, ep)
                self.assertEqual(config.expert_tensor_parallel_size, etp)
                if experts and (ep > 1 or etp > 1):
                    self.assertEqual(config.moe_token_dispatcher_type, "alltoall")
                moe = train.get("moe", {})
                self.assertEqual(config.moe_expert_capacity_factor, moe.get("capacity_factor"))
                self.assertEqual(config.moe_pad_expert_input_to_capacity, moe.get("pad_to_capacity", False))
                with FakeWorld(hw["count"], tensor_model_parallel_size=config.tensor_model_parallel_size,
                               pipeline_model_parallel_size=config.pipeline_model_parallel_size,
                               context_parallel_size=config.context_parallel_size,
                               expert_model_parallel_size=config.expert_model_parallel_size,
                               expert_tensor_parallel_size=config.expert_tensor_parallel_size) as state:
                    dp = state.get_data_parallel_world_size()
                    self.assertEqual(dp, hw["count"] // (tp * pp))
                    # The ranks holding the same expert shard: tp x dp / (etp x ep) (the planner's expert
                    # data-parallel degree, parallel.h expertDataParallel).
                    self.assertEqual(state.get_expert_model_parallel_world_size(), ep)
                    self.assertEqual(state.get_expert_tensor_parallel_world_size(), etp)
                    self.assertEqual(state.get_expert_data_parallel_world_size(), tp * dp // (etp * ep))
                    if "parallel" in plan and "etp" in plan["parallel"]:
                        self.assertEqual(plan["parallel"]["etp"], etp)
                    stages = [get_num_layers_to_build(config, pp_rank=r) for r in range(pp)]
                    if pp > 1:
                        self.assertEqual(stages, [rank["layers"] for rank in plan["ranks"]])
                    else:
                        self.assertEqual(stages, [config.num_layers])
                    if ckpt == "every-k":  # the block method: as many layers a stage as Headroom checkpoints
                        k = train["checkpoint_every"]
                        self.assertEqual(config.recompute_method, "block")
                        self.assertEqual({config.recompute_num_layers}, {-(-n // k) for n in stages})
                calculator = ConstantNumMicroBatchesCalculator(args.global_batch_size, args.micro_batch_size, dp,
                                                               False, 0)
                self.assertEqual(args.micro_batch_size, train["micro_batch"])
                self.assertEqual(calculator.get(), train["grad_accum"])
                # The optimizer and the data-parallel wrapper.
                distributed = hw["sharding"] == "zero1"
                self.assertEqual(args.use_distributed_optimizer, distributed)
                optimizer = OptimizerConfig(optimizer=args.optimizer, bf16=config.bf16, fp16=config.fp16,
                                            sgd_momentum=args.sgd_momentum,
                                            use_distributed_optimizer=args.use_distributed_optimizer)
                self.assertEqual(optimizer.optimizer, "adam" if train["optimizer"] == "adamw" else "sgd")
                DistributedDataParallelConfig(use_distributed_optimizer=args.use_distributed_optimizer)

    def test_megatron_core_can_refuse(self):
        from megatron.core.transformer.enums import AttnBackend  # noqa: F401 (the enum the parser reads)

        options, _ = options_of("tp2-pp2-dp2-zero1")
        words = bash_words(common.export("megatron-args", options, self.path("good.sh")))
        # A misspelt flag: parse_args refuses it.
        with self.assertRaises(ValueError):
            parse([w.replace("--num-query-groups", "--num-query-group") for w in words])
        # 32 heads do not divide by tp 3: TransformerConfig refuses.
        bad = list(words)
        bad[bad.index("--tensor-model-parallel-size") + 1] = "3"
        with self.assertRaisesRegex(ValueError, "multiple of tensor_model_parallel_size"):
            transformer_config(parse(bad))
        # tp 2 x pp 2 does not divide a world of 6 GPUs: the parallel state refuses.
        config = transformer_config(parse(words))
        with self.assertRaises(RuntimeError):
            with FakeWorld(6, tensor_model_parallel_size=config.tensor_model_parallel_size,
                           pipeline_model_parallel_size=config.pipeline_model_parallel_size):
                pass


if __name__ == "__main__":
    common.main()
