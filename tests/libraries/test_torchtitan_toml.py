# SPDX-License-Identifier: GPL-3.0-or-later
"""The torchtitan-toml export, read as torchtitan 0.2.2's trainer reads it.

torchtitan's own steps (torchtitan/train.py Trainer.__init__), on the CPU:
1. ConfigManager().parse_args(["--job.config_file", path]): the TOML becomes a
   JobConfig (torchtitan/config/manager.py); a key JobConfig does not have is
   refused;
2. ParallelDims(...) over the scenario's GPU count: torchtitan checks that the
   degrees multiply to the world size (distributed/parallel_dims.py _validate);
   no process group is needed for that;
3. the model: train_spec.model_args[flavor], update_from_config, the model
   class built on the meta device (no memory), and get_nparams_and_flops;
4. apply_ac on that model with the model's own op list
   (models/*/infra/parallelize.py), which wraps the layers the
   [activation_checkpoint] section asks for.
The batch arithmetic of train.py (global batch / (local batch x dp) gradient
accumulation steps) and of build_pipeline_schedule (local batch / pipeline
micro-batch micro-batches) is not a function torchtitan exposes; the check
computes it with the same formula, from the values torchtitan parsed.
Every expected value comes from headroom-cli's scenario and plan.
"""
import json
import os

import common

CASES = {
    # torchtitan's own recipe: FSDP2 over 8 GPUs, op-level selective AC.
    "fsdp2-8gpu-selective-op": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--checkpointing", "selective-op",
                                                 "--micro-batch", "2", "--grad-accum", "2"]),
    # tp 2 x pp 2 x dp 2 (ZeRO-3 written as FSDP2), GPipe, full AC.
    "tp2-pp2-dp2-zero3": ("llama-3.1-8b", ["--sharding", "zero3", "--gpus", "8", "--tp", "2", "--sp", "--pp", "2",
                                           "--pp-schedule", "gpipe", "--checkpointing", "full", "--micro-batch", "1",
                                           "--grad-accum", "4"]),
    # DDP over 2 GPUs, one layer in 2 checkpointed.
    "ddp-2gpu-every-2": ("qwen3-8b", ["--sharding", "ddp", "--gpus", "2", "--checkpointing", "every-k",
                                      "--checkpoint-every", "2"]),
    # torchtitan's benchmark recipe: compiled layers and Float8 linears
    # (fp8-mixed under FSDP2, torchao Float8Linear), op-level selective AC.
    "fsdp2-8gpu-compile-float8": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--checkpointing",
                                                   "selective-op", "--compile", "--precision", "fp8-mixed",
                                                   "--micro-batch", "2"]),
    # The Trainy H200 benchmark's recipe (torchtitan benchmarks/
    # llama3-8b_h200_202506_trainy-whitefiber.md): layers and loss compiled,
    # Float8 with the float8 all-gather, op-level selective AC.
    "fsdp2-8gpu-compile-loss-float8-ag": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--checkpointing",
                                                           "selective-op", "--compile", "--compile-loss",
                                                           "--precision", "fp8-mixed", "--float8-all-gather",
                                                           "--micro-batch", "2"]),
    # torchtitan's Llama 3.1 405B recipe shape (train_configs/llama3_405b.toml at
    # 9dec370: compile, AsyncTP, Float8 with the float8 all-gather), full AC,
    # on the 8B: FSDP2 2 x tp 2 x pp 2.
    "fsdp2-tp2-pp2-async-float8-ag": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--tp", "2", "--sp",
                                                       "--pp", "2", "--checkpointing", "full", "--compile",
                                                       "--async-tp", "--precision", "fp8-mixed",
                                                       "--float8-all-gather", "--micro-batch", "1",
                                                       "--grad-accum", "4"]),
    # A qwen3 flavor with tied embeddings, pure bf16, pp 3 over 28 layers
    # (9, 9, 10), FSDP1 written as FSDP2.
    # torchtitan's weighted split (--pp-split weighted): 32 layers with the
    # embedding and the output as one layer each over pp 4, as torchtitan's
    # own generate_llm_fqn_per_model_part splits them (8, 9, 8, 7).
    "fsdp2-pp4-weighted": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--pp", "4", "--pp-split", "weighted",
                                            "--checkpointing", "full", "--micro-batch", "1", "--grad-accum", "4"]),
    # HSDP: 2 replicate groups of 4 sharded GPUs (data_parallel_replicate_degree).
    "fsdp2-hsdp-2x4": ("llama-3.1-8b", ["--sharding", "fsdp2", "--gpus", "8", "--dp-replicate", "2",
                                        "--checkpointing", "full"]),
    "qwen3-0.6b-pp3-fsdp": ("qwen3-0.6b", ["--precision", "bf16", "--sharding", "fsdp", "--gpus", "6", "--pp", "3",
                                           "--checkpointing", "none", "--grad-accum", "8"]),
    # DeepSeek-V3 671B (the deepseek_v3 model, flavor 671B): FSDP2 over 16 x pp 4,
    # the experts over ep 8 of the 16, 61 layers as Headroom splits them (15, 15, 15, 16).
    "deepseek-v3-fsdp2-pp4-ep8": ("deepseek-v3", ["--sharding", "fsdp2", "--gpus", "64", "--pp", "4", "--ep", "8",
                                                  "--checkpointing", "full", "--micro-batch", "1",
                                                  "--grad-accum", "4"]),
    # Qwen3-30B-A3B (qwen3 with moe_enabled, flavor 30B-A3B): FSDP2 over 8, the experts over ep 8.
    "qwen3-30b-a3b-fsdp2-ep8": ("qwen3-30b-a3b", ["--sharding", "fsdp2", "--gpus", "8", "--ep", "8",
                                                  "--checkpointing", "full", "--micro-batch", "1"]),
}
COMMON = ["--gpu", "h100-sxm-80gb", "--peft", "none", "--weight-quant", "none", "--optimizer", "adamw",
          "--precision", "bf16-mixed", "--attention", "flash", "--seq-len", "4096"]


def options_of(name):
    """headroom-cli options of a case, and the config.json it plans."""
    config, options = CASES[name]
    path = os.path.join(common.CONFIGS, config + ".json")
    with open(path) as f:
        return COMMON + ["--config", path] + options, json.load(f)


# headroom.scenario/1 checkpointing -> torchtitan's [activation_checkpoint] mode.
AC_MODE = {"none": "none", "full": "full", "every-k": "selective", "selective-op": "selective"}


def build(config):
    """The model torchtitan would train, on the meta device (train.py)."""
    import torch
    from torchtitan.protocols.train_spec import get_train_spec

    spec = get_train_spec(config.model.name)
    args = spec.model_args[config.model.flavor]
    args.update_from_config(config)
    with torch.device("meta"):
        model = spec.model_cls(args)
    return spec, args, model


class TorchtitanToml(common.TempDirTest):
    def test_trainer_reads_each_export(self):
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import CheckpointWrapper
        from torchtitan.config import ConfigManager
        from torchtitan.distributed import ParallelDims
        from torchtitan.distributed import activation_checkpoint

        for name in CASES:
            with self.subTest(name):
                options, hf = options_of(name)
                path = common.export("torchtitan-toml", options, self.path(name + ".toml"))
                scenario = common.scenario_json(options)
                plan = common.plan_json(options)
                train, hw = scenario["train"], scenario["hardware"]
                parallel = hw.get("parallel", {})
                tp, pp = parallel.get("tp", 1), parallel.get("pp", 1)
                dp = hw["count"] // (tp * pp)

                config = ConfigManager().parse_args(["--job.config_file", path])
                p, t = config.parallelism, config.training
                self.assertEqual(t.seq_len, train["seq_len"])
                self.assertEqual(p.tensor_parallel_degree, tp)
                self.assertEqual(p.pipeline_parallel_degree, pp)
                self.assertEqual(p.context_parallel_degree, 1)
                sharded = hw["sharding"] not in ("none", "ddp")
                replicate = parallel.get("dp_replicate", 1)
                self.assertEqual(p.data_parallel_shard_degree, dp // replicate if sharded else 1)
                self.assertEqual(p.data_parallel_replicate_degree, replicate if sharded else dp)
                self.assertEqual(t.enable_cpu_offload, hw.get("cpu_offload", False))
                self.assertEqual(t.dtype, "bfloat16" if train["precision"] == "bf16" else "float32")
                self.assertEqual(t.mixed_precision_param, "float32" if train["precision"] == "fp32" else "bfloat16")
                self.assertEqual(config.optimizer.name, "AdamW")

                # Compiled layers ("model") and compiled loss ("loss"), as planned.
                components = (["model"] if train.get("compile", False) else []) + \
                    (["loss"] if train.get("compile_loss", False) else [])
                self.assertEqual(config.compile.enable, bool(components))
                if config.compile.enable:
                    self.assertEqual(config.compile.components, components)
                # Float8 linears: torchtitan's own float8 converter, by the name
                # it registers, with the output head left in bf16.
                float8 = train["precision"] == "fp8-mixed" and hw["sharding"] == "fsdp2"
                import torchtitan.components.quantization.float8  # noqa: F401  (registers the converter)
                from torchtitan.protocols.model_converter import _registry_model_converter_cls
                self.assertEqual(config.model.converters, ["quantize.linear.float8"] if float8 else [])
                for converter in config.model.converters:
                    self.assertIn(converter, _registry_model_converter_cls)
                if float8:
                    self.assertEqual(config.quantize.linear.float8.filter_fqns, ["output"])
                    gathered = train.get("float8_all_gather", False)
                    self.assertEqual(config.quantize.linear.float8.enable_fsdp_float8_all_gather, gathered)
                    self.assertEqual(config.quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp, gathered)
                self.assertEqual(p.enable_async_tensor_parallel, parallel.get("async_tp", False))
                self.assertEqual(p.expert_parallel_degree, parallel.get("ep", 1))

                dims = ParallelDims(dp_shard=p.data_parallel_shard_degree,
                                    dp_replicate=p.data_parallel_replicate_degree,
                                    cp=p.context_parallel_degree, tp=p.tensor_parallel_degree,
                                    pp=p.pipeline_parallel_degree, ep=p.expert_parallel_degree,
                                    etp=p.expert_tensor_parallel_degree, world_size=hw["count"])
                self.assertEqual(dims.fsdp_enabled, sharded and dp > 1)
                self.assertEqual(dims.pp_enabled, pp > 1)
                # train.py: gradient accumulation steps; pipeline_parallel.py:
                # micro-batches per step on a pipeline.
                batch_degree = dims.dp_replicate * dims.dp_shard
                self.assertEqual(t.global_batch_size % (t.local_batch_size * batch_degree), 0)
                accumulation = t.global_batch_size // (t.local_batch_size * batch_degree)
                if pp > 1:
                    self.assertEqual(accumulation, 1)
                    self.assertEqual(p.pipeline_parallel_microbatch_size, train["micro_batch"])
                    self.assertEqual(t.local_batch_size // p.pipeline_parallel_microbatch_size, train["grad_accum"])
                    self.assertEqual(p.pipeline_parallel_schedule.lower(), parallel.get("pp_schedule", "1f1b"))
                else:
                    self.assertEqual(t.local_batch_size, train["micro_batch"])
                    self.assertEqual(accumulation, train["grad_accum"])
                self.assertEqual(t.global_batch_size, train["micro_batch"] * train["grad_accum"] * dp)

                # The flavor is the scenario's model: torchtitan's own parameter
                # count equals the plan's, and each pipeline part is a stage of the plan.
                spec, args, model = build(config)
                self.assertEqual(sum(q.numel() for q in model.parameters()), plan["parameters"])
                # torchtitan's own count leaves a tied embedding out once more
                # (models/utils.py get_moe_model_nparams_and_flops, for qwen3).
                tied = getattr(args, "enable_weight_tying", False)
                self.assertEqual(args.get_nparams_and_flops(model, t.seq_len)[0],
                                 plan["parameters"] - (args.vocab_size * args.dim if tied else 0))
                # deepseek_v3's attention has no KV-head count of its own (its
                # latent is expanded to every head).
                self.assertEqual((args.n_layers, args.dim, args.n_heads, getattr(args, "n_kv_heads", args.n_heads),
                                  args.vocab_size),
                                 (hf["num_hidden_layers"], hf["hidden_size"], hf["num_attention_heads"],
                                  hf["num_key_value_heads"], hf["vocab_size"]))
                if getattr(args, "moe_enabled", False):  # qwen3's mixtures of experts
                    self.assertEqual((args.moe_inter_dim, args.moe_args.num_experts, args.moe_args.top_k,
                                      args.moe_args.num_shared_experts),
                                     (hf["moe_intermediate_size"], hf["num_experts"], hf["num_experts_per_tok"], 0))
                if config.model.name == "deepseek_v3":
                    self.assertEqual((args.n_dense_layers, args.inter_dim, args.moe_inter_dim, args.moe_args.num_experts,
                                      args.moe_args.num_shared_experts, args.moe_args.top_k, args.q_lora_rank,
                                      args.kv_lora_rank),
                                     (hf["first_k_dense_replace"], hf["intermediate_size"], hf["moe_intermediate_size"],
                                      hf["n_routed_experts"], hf["n_shared_experts"], hf["num_experts_per_tok"],
                                      hf["q_lora_rank"], hf["kv_lora_rank"]))
                if pp > 1:
                    parts = p.module_fqns_per_model_part
                    self.assertEqual(len(parts), pp)
                    for stage, names in zip(plan["ranks"], parts):
                        for fqn in names:
                            model.get_submodule(fqn)  # raises for a module the model lacks
                        self.assertEqual(sum(fqn.startswith("layers.") for fqn in names), stage["layers"])
                    self.assertEqual([n for part in parts for n in part if n.startswith("layers.")],
                                     [f"layers.{k}" for k in range(args.n_layers)])
                    if parallel.get("pp_split") == "weighted":
                        # The parts torchtitan makes itself when the job file names none.
                        from torchtitan.distributed.pipeline_parallel import generate_llm_fqn_per_model_part
                        self.assertEqual(parts, generate_llm_fqn_per_model_part(pp, args.n_layers, 1, 1))

                ac = config.activation_checkpoint
                self.assertEqual(ac.mode, AC_MODE[train["checkpointing"]])
                if train["checkpointing"] == "selective-op":
                    self.assertEqual(ac.selective_ac_option, "op")
                if ac.mode != "none":
                    # The counter of layer-frequency AC is torchtitan's module
                    # state, once per process in a real run.
                    activation_checkpoint._layer_sac_count = 0
                    parallelize = __import__(f"torchtitan.models.{config.model.name}.infra.parallelize",
                                             fromlist=["_op_sac_save_list"])
                    activation_checkpoint.apply_ac(model, ac, op_sac_save_list=parallelize._op_sac_save_list)
                    wrapped = sum(isinstance(layer, CheckpointWrapper) for layer in model.layers.values())
                    every = train.get("checkpoint_every", 1) if train["checkpointing"] == "every-k" else 1
                    self.assertEqual(wrapped, args.n_layers // every)

    def test_torchtitan_can_refuse(self):
        # A key JobConfig lacks is refused: a pass above means it knew every
        # key written. (A value of the wrong type is not: JobConfig's
        # dataclasses do not check types, so "two" would reach the trainer.)
        from torchtitan.config import ConfigManager
        from torchtitan.distributed import ParallelDims

        options, _ = options_of("fsdp2-8gpu-selective-op")
        path = common.export("torchtitan-toml", options, self.path("fsdp2.toml"))
        with open(path) as f:
            text = f.read()
        broken = self.path("broken.toml")
        with open(broken, "w") as f:
            f.write(text.replace("local_batch_size", "local_batch_szie"))
        with self.assertRaisesRegex(ValueError, "Invalid field names"):
            ConfigManager().parse_args(["--job.config_file", broken])
        # The degrees do not make a world one GPU larger.
        p = ConfigManager().parse_args(["--job.config_file", path]).parallelism
        with self.assertRaises(AssertionError):
            ParallelDims(dp_shard=p.data_parallel_shard_degree, dp_replicate=p.data_parallel_replicate_degree,
                         cp=1, tp=p.tensor_parallel_degree, pp=p.pipeline_parallel_degree, ep=1, etp=1,
                         world_size=common.scenario_json(options)["hardware"]["count"] + 1)


if __name__ == "__main__":
    common.main()
