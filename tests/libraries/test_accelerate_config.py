# SPDX-License-Identifier: GPL-3.0-or-later
"""The accelerate-fsdp-yaml export, read as `accelerate launch --config_file` reads it.

Three of accelerate's own steps, as launch takes them:
1. load_config_from_file: the YAML becomes a ClusterConfig, and any key that
   accelerate does not know is refused;
2. the launch command's validation and prepare_multi_gpu_env: the config
   becomes the FSDP_* and ACCELERATE_* variables each process is started with;
3. FullyShardedDataParallelPlugin() under those variables, which is what
   Accelerator builds in every process: it parses each FSDP_* value (sharding
   strategy, wrap policy, prefetch, state dict type...) and refuses the ones
   it does not know. Its last step asks for the current CUDA device (to move
   parameters there in sync_module_states); there is no GPU here, so the check
   answers "device 0" for that one question and nothing uses the answer.
"""
import os
from unittest import mock

import common

CASES = {
    "fsdp-offload-bf16-8gpu": ["--peft", "none", "--sharding", "fsdp", "--gpus", "8", "--precision", "bf16-mixed", "--cpu-offload",
                               "--checkpointing", "full"],
    "fsdp-fp16-4gpu": ["--peft", "none", "--sharding", "fsdp", "--gpus", "4", "--precision", "fp16-mixed", "--checkpointing", "none"],
    "fsdp-fp32-2gpu": ["--peft", "none", "--sharding", "fsdp", "--gpus", "2", "--precision", "fp32", "--checkpointing", "full"],
    # QLoRA under FSDP, and a scenario that is not FSDP itself (the file says so).
    "fsdp-qlora-2gpu": ["--sharding", "fsdp", "--gpus", "2", "--peft", "qlora", "--precision", "bf16-mixed"],
    "zero3-as-fsdp-8gpu": ["--peft", "none", "--sharding", "zero3", "--gpus", "8", "--precision", "bf16-mixed"],
    # FSDP2 (fsdp_version 2) with torchtitan's op-level checkpointing planned.
    "fsdp2-bf16-8gpu": ["--peft", "none", "--sharding", "fsdp2", "--gpus", "8", "--precision", "bf16-mixed",
                        "--checkpointing", "selective-op"],
    # HSDP: 2 replicate groups of 4 sharded GPUs (accelerate's ParallelismConfig).
    "fsdp2-hsdp-2x4": ["--peft", "none", "--sharding", "fsdp2", "--gpus", "8", "--dp-replicate", "2",
                       "--precision", "bf16-mixed", "--checkpointing", "full"],
}
COMMON = ["--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--optimizer", "adamw"]
# The launcher's mixed_precision names for Headroom's precisions.
MIXED_PRECISION = {"bf16-mixed": "bf16", "fp16-mixed": "fp16", "fp32": "no"}


def value(options, name):
    return options[options.index(name) + 1] if name in options else None


class AccelerateYaml(common.TempDirTest):
    def test_launch_reads_each_export(self):
        from accelerate.commands.config.config_args import ClusterConfig, load_config_from_file
        from accelerate.commands.launch import _validate_launch_command, launch_command_parser
        from accelerate.utils import DistributedType, FullyShardedDataParallelPlugin
        from accelerate.utils.launch import prepare_multi_gpu_env
        from torch.distributed.fsdp import ShardingStrategy

        for name, options in CASES.items():
            with self.subTest(name):
                options = COMMON + options
                path = common.export("accelerate-fsdp-yaml", options, self.path(name + ".yaml"))
                gpus = int(value(options, "--gpus"))
                offload = "--cpu-offload" in options
                checkpointing = value(options, "--checkpointing") not in (None, "none") or \
                    "--checkpointing" not in options  # Headroom's default is full

                config = load_config_from_file(path)
                self.assertIsInstance(config, ClusterConfig)
                self.assertEqual(config.distributed_type, DistributedType.FSDP)
                self.assertEqual(config.num_processes, gpus)
                self.assertEqual(config.mixed_precision, MIXED_PRECISION[value(options, "--precision")])

                args = launch_command_parser().parse_args(["--config_file", path, "train.py"])
                args, _, _ = _validate_launch_command(args)
                self.assertTrue(args.use_fsdp)
                env = prepare_multi_gpu_env(args)
                self.assertEqual(env["ACCELERATE_USE_FSDP"], "true")
                self.assertEqual(env["ACCELERATE_MIXED_PRECISION"], config.mixed_precision)
                replicate = int(value(options, "--dp-replicate") or 1)
                if replicate > 1:
                    self.assertEqual(env["ACCELERATE_USE_PARALLELISM_CONFIG"], "true")
                    self.assertEqual(env["PARALLELISM_CONFIG_DP_REPLICATE_SIZE"], str(replicate))
                    self.assertEqual(env["PARALLELISM_CONFIG_DP_SHARD_SIZE"], str(gpus // replicate))
                else:
                    self.assertNotIn("PARALLELISM_CONFIG_DP_REPLICATE_SIZE", env)

                with mock.patch.dict(os.environ, env), \
                        mock.patch("accelerate.utils.dataclasses.is_cuda_available", return_value=True), \
                        mock.patch("torch.cuda.current_device", return_value=0):
                    plugin = FullyShardedDataParallelPlugin()
                if value(options, "--sharding") == "fsdp2":
                    self.assertEqual(plugin.fsdp_version, 2)
                    self.assertIs(plugin.reshard_after_forward, True)
                else:
                    self.assertEqual(plugin.fsdp_version, 1)
                    self.assertEqual(plugin.sharding_strategy, ShardingStrategy.FULL_SHARD)
                if plugin.fsdp_version == 2:
                    # FSDP2 offloads with a CPUOffloadPolicy; OffloadPolicy() is "none".
                    from torch.distributed.fsdp import CPUOffloadPolicy
                    self.assertEqual(isinstance(plugin.cpu_offload, CPUOffloadPolicy), offload)
                else:
                    self.assertEqual(plugin.cpu_offload.offload_params, offload)
                self.assertEqual(plugin.activation_checkpointing, checkpointing)
                self.assertIsNotNone(plugin.auto_wrap_policy, "TRANSFORMER_BASED_WRAP")

    def test_loader_can_refuse(self):
        # The loader refuses a key it does not know: a pass above means it
        # knew every key we wrote.
        from accelerate.commands.config.config_args import load_config_from_file

        path = common.export("accelerate-fsdp-yaml", COMMON + CASES["fsdp-fp32-2gpu"], self.path("fsdp.yaml"))
        with open(path, "a") as f:
            f.write("fsdp_sharding_stratgy: FULL_SHARD\n")
        with self.assertRaisesRegex(ValueError, "unknown keys"):
            load_config_from_file(path)


if __name__ == "__main__":
    common.main()
