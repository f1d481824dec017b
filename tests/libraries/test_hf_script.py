# SPDX-License-Identifier: GPL-3.0-or-later
"""The hf-python export, run: two training steps of a tiny config on the CPU.

export -> python train.py --smoke-test config.json -> headroom.measurement/1
-> headroom-cli compare. The script runs under the pinned transformers, PEFT,
accelerate and torch, with the Hub switched off (nothing is downloaded) and
no GPU visible, so its measurement must say "device": "cpu" and carry no CUDA
counters, and compare must show the plan of the scenario the script embeds.
"""
import importlib.metadata
import json
import math
import os
import re
import subprocess
import sys

import common

STEPS = 2


class HfScript(common.TempDirTest):
    def run_script(self, config, options):
        script = common.export("hf-python", ["--config", config, *options], self.path("train.py"))
        measurement = self.path("measurement.json")
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   HF_HOME=self.path("hf-home"), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
        done = subprocess.run([sys.executable, script, "--smoke-test", config, "--steps", str(STEPS),
                               "--measurement", measurement],
                              cwd=self.dir, env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(done.returncode, 0, f"the exported script failed:\n{done.stderr[-6000:]}\n{done.stdout[-2000:]}")
        return done, measurement

    def check_run(self, config, options, expect_notes=()):
        done, measurement_path = self.run_script(config, options)
        # The script's own summary: the Trainer's step count and a finite loss.
        summary = re.search(r"^(\d+) steps, training loss (\S+); measurement in ", done.stdout, re.M)
        self.assertIsNotNone(summary, done.stdout[-2000:])
        self.assertEqual(int(summary.group(1)), STEPS)
        self.assertTrue(math.isfinite(float(summary.group(2))), summary.group(0))

        with open(measurement_path) as f:
            m = json.load(f)
        self.assertEqual(m["schema"], "headroom.measurement/1")
        self.assertEqual(m["device"], "cpu")
        for cuda_only in ("max_memory_allocated_bytes", "max_memory_reserved_bytes", "device_used_bytes", "phases",
                          "gpu"):
            self.assertNotIn(cuda_only, m, "a CPU run has no CUDA counters")
        self.assertEqual(m["steps"], STEPS, "the callback counts the optimizer steps")
        for package in ("transformers", "peft"):
            self.assertEqual(m["versions"][package], importlib.metadata.version(package))
        self.assertEqual(m["versions"]["torch"].split("+")[0], importlib.metadata.version("torch").split("+")[0])
        self.assertIn("smoke test: random weights from " + config, m["notes"])
        for note in expect_notes:
            self.assertIn(note, m["notes"])
        # The scenario the script embeds is the one exported.
        self.assertEqual(m["scenario"], common.scenario_json(["--config", config, *options]))

        # compare reads it: nothing measured, the plan of that scenario beside.
        compared = json.loads(common.headroom("compare", measurement_path, "--json").stdout)
        self.assertEqual(compared["measured_device"], "cpu")
        self.assertEqual(compared["rows"], [])
        plan = common.plan_json(["--config", config, *options])
        counters = {c: plan[c] for c in ("peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes")}
        self.assertEqual(compared["planned"], {"max_memory_allocated_bytes": counters["peak_allocated_bytes"],
                                               "max_memory_reserved_bytes": counters["peak_reserved_bytes"],
                                               "device_used_bytes": counters["device_used_bytes"]})
        text = common.headroom("compare", measurement_path).stdout
        self.assertIn("nothing measured: the run was on the CPU", text)

    def test_lora_bf16_checkpointing_flash(self):
        # PEFT LoRA on all linears, bf16 autocast, checkpointing of a frozen base
        # (enable_input_require_grads), flash attention, which the CPU run swaps
        # for sdpa and says so.
        config = common.tiny_config("qwen2.5-0.5b", self.dir)
        self.check_run(config, ["--peft", "lora", "--precision", "bf16-mixed", "--optimizer", "adamw",
                                "--checkpointing", "full", "--attention", "flash", "--micro-batch", "2",
                                "--seq-len", "64", "--grad-accum", "2"],
                       expect_notes=["attention sdpa instead of flash_attention_2"])

    def test_full_finetune_fp32_eager(self):
        config = common.tiny_config("tinyllama-1.1b", self.dir)
        self.check_run(config, ["--peft", "none", "--precision", "fp32", "--optimizer", "sgd",
                                "--checkpointing", "none", "--attention", "eager", "--micro-batch", "1",
                                "--seq-len", "32", "--grad-accum", "1"])

    def test_gpt2_lora_targets_adafactor(self):
        # GPT-2's Conv1D attention (PEFT's default targets for gpt2, as
        # Headroom resolves them) and the Adafactor optimizer.
        config = common.tiny_config("gpt2", self.dir)
        self.check_run(config, ["--peft", "lora", "--lora-targets", "c_attn", "--precision", "fp32",
                                "--optimizer", "adafactor", "--checkpointing", "none", "--attention", "sdpa",
                                "--micro-batch", "2", "--seq-len", "32", "--grad-accum", "1"])

    def test_bert_sequence_classification(self):
        # The classifier head: AutoModelForSequenceClassification with the
        # planned labels, task_type SEQ_CLS, one random class per sequence.
        config = common.tiny_config("bert-base-uncased", self.dir)
        self.check_run(config, ["--head", "sequence-classification", "--num-labels", "3", "--peft", "lora",
                                "--precision", "fp32", "--optimizer", "adamw", "--checkpointing", "none",
                                "--attention", "eager", "--micro-batch", "2", "--seq-len", "32",
                                "--grad-accum", "1"])


if __name__ == "__main__":
    common.main()
