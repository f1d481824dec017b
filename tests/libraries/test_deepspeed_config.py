# SPDX-License-Identifier: GPL-3.0-or-later
"""The deepspeed-json export, read by DeepSpeed's own config class.

deepspeed.runtime.config.DeepSpeedConfig parses and checks a ds_config.json
(batch arithmetic against the data-parallel world size, ZeRO and offload
blocks through DeepSpeed's pydantic models, fp16 and bf16 not both on). The
world size comes from deepspeed.comm, so the check starts a one-process gloo
group on the loopback address and hands DeepSpeedConfig an mpu (the
model-parallel unit interface of DeepSpeed and Megatron) whose data-parallel
world size is the scenario's GPU count. DS_ACCELERATOR=cuda: the accelerator
these configs are for; the config class touches no device (with the CPU's,
deepspeed.init_distributed would compile a shared-memory comm op first).

And the pair hf-python + deepspeed-json as transformers joins them:
TrainingArguments(deepspeed=...) with the script's own arguments, then
HfTrainerDeepSpeedConfig.trainer_config_finalize, which refuses any DeepSpeed
value that disagrees with TrainingArguments.
"""
import ast
import copy
import json
import os
import socket
import warnings

import common

# DeepSpeed's comm layer, once per process: a one-process group on loopback.
_comm_ready = False


def init_comm():
    global _comm_ready
    if _comm_ready:
        return
    import deepspeed

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    deepspeed.init_distributed(dist_backend="gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1,
                               auto_mpi_discovery=False)
    _comm_ready = True


class DataParallel:
    """DeepSpeed's mpu interface: the data-parallel world is the scenario's GPUs."""

    def __init__(self, gpus):
        self.gpus = gpus

    def get_data_parallel_world_size(self):
        return self.gpus


def option(options, name, default):
    return int(options[options.index(name) + 1]) if name in options else default


def training_arguments_of(script_path):
    """The keyword arguments of the script's TrainingArguments(...) call, as literals."""
    with open(script_path) as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "TrainingArguments":
            return {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    raise AssertionError("no TrainingArguments(...) call in the exported script")


# Scenario options; the expectations below are read back from them.
CASES = {
    "zero1-bf16-8gpu": ["--sharding", "zero1", "--gpus", "8", "--precision", "bf16-mixed"],
    "zero2-fp16-offload-4gpu": ["--sharding", "zero2", "--gpus", "4", "--precision", "fp16-mixed", "--cpu-offload"],
    "zero3-bf16-offload-8gpu": ["--sharding", "zero3", "--gpus", "8", "--precision", "bf16-mixed", "--cpu-offload"],
    "zero3-fp32-2gpu": ["--sharding", "zero3", "--gpus", "2", "--precision", "fp32"],
    "ddp-2gpu": ["--sharding", "ddp", "--gpus", "2", "--precision", "bf16-mixed"],
}
COMMON = ["--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--peft", "none", "--optimizer", "adamw",
          "--micro-batch", "3", "--grad-accum", "5"]


class DeepSpeedJson(common.TempDirTest):
    def setUp(self):
        super().setUp()
        init_comm()

    def test_config_class_accepts_each_export(self):
        from deepspeed.runtime.config import DeepSpeedConfig
        from transformers import TrainingArguments

        for name, options in CASES.items():
            with self.subTest(name):
                options = COMMON + options
                path = common.export("deepspeed-json", options, self.path(name + ".json"))
                gpus = option(options, "--gpus", 1)
                micro, accum = option(options, "--micro-batch", 0), option(options, "--grad-accum", 0)
                sharding = options[options.index("--sharding") + 1]
                stage = int(sharding[-1]) if sharding.startswith("zero") else 0
                precision = options[options.index("--precision") + 1]
                offload = "--cpu-offload" in options and stage > 0

                with warnings.catch_warnings():  # DeepSpeed leaves the file open
                    warnings.simplefilter("ignore", ResourceWarning)
                    c = DeepSpeedConfig(path, mpu=DataParallel(gpus))
                self.assertEqual(c.world_size, gpus)
                self.assertEqual(c.train_batch_size, micro * accum * gpus)
                self.assertEqual(c.train_micro_batch_size_per_gpu, micro)
                self.assertEqual(c.gradient_accumulation_steps, accum)
                self.assertEqual(c.zero_optimization_stage, stage)
                self.assertEqual(c.bfloat16_config.enabled, precision.startswith("bf16"))
                self.assertEqual(c.float16_config.enabled, precision.startswith("fp16"))
                # What the Trainer clips to unless told otherwise, so the two agree.
                self.assertEqual(c.gradient_clipping, TrainingArguments.__dataclass_fields__["max_grad_norm"].default)
                optimizer_offload = c.zero_config.offload_optimizer
                self.assertEqual(optimizer_offload is not None and optimizer_offload.device == "cpu", offload)
                param_offload = c.zero_config.offload_param
                self.assertEqual(param_offload is not None and param_offload.device == "cpu", offload and stage == 3)

    def test_config_class_can_refuse(self):
        # The same check fails on a file whose batch arithmetic is off, so a
        # pass above means DeepSpeed agreed, not that it checked nothing.
        from deepspeed.runtime.config import DeepSpeedConfig

        options = COMMON + CASES["zero1-bf16-8gpu"]
        with open(common.export("deepspeed-json", options, self.path("ds.json"))) as f:
            config = json.load(f)
        with self.assertRaises(AssertionError):
            DeepSpeedConfig(config, mpu=DataParallel(option(options, "--gpus", 1) + 1))

    def test_transformers_joins_script_and_config(self):
        # One GPU: this process is the whole data-parallel world, as
        # TrainingArguments sees it here.
        from transformers import TrainingArguments

        for sharding in ("zero2", "zero3"):
            with self.subTest(sharding):
                options = COMMON + ["--sharding", sharding, "--gpus", "1", "--precision", "bf16-mixed",
                                    "--cpu-offload"]
                ds = common.export("deepspeed-json", options, self.path(sharding + ".json"))
                script = common.export("hf-python", options, self.path(sharding + ".py"))
                kwargs = training_arguments_of(script)
                self.assertEqual(kwargs.pop("deepspeed"), "ds_config.json")  # the file the script names
                kwargs["output_dir"] = self.path("out")
                # use_cpu: TrainingArguments refuses bf16 without a GPU otherwise.
                args = TrainingArguments(**kwargs, deepspeed=ds, use_cpu=True)
                args.hf_deepspeed_config.trainer_config_finalize(args, None, 10)

                with open(ds) as f:
                    changed = json.load(f)
                changed["gradient_accumulation_steps"] += 1
                args = TrainingArguments(**kwargs, deepspeed=copy.deepcopy(changed), use_cpu=True)
                with self.assertRaisesRegex(ValueError, "mismatch"):
                    args.hf_deepspeed_config.trainer_config_finalize(args, None, 10)


if __name__ == "__main__":
    os.environ.setdefault("DS_ACCELERATOR", "cuda")  # before deepspeed is imported
    common.main()
