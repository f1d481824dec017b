# SPDX-License-Identifier: GPL-3.0-or-later
"""What the library checks share: the built headroom-cli, tiny configs, exports.

Each check runs in the pinned virtualenv of setup.sh, driven by run.sh from
CTest (docs/library-checks.md). Every expected value is derived: from the
options the check passes to headroom-cli, from headroom-cli's own plan, or
from the library under test; none is typed in from a past run.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(SOURCE, "tests", "data", "configs")


def cli_path():
    path = os.environ.get("HEADROOM_CLI", "")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"HEADROOM_CLI must name the built headroom-cli (got {path!r}); run these through CTest")
    return path


def headroom(*args, check=True):
    """Runs headroom-cli; returns the completed process (text)."""
    done = subprocess.run([cli_path(), *args], capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"headroom-cli {' '.join(args)} exited {done.returncode}:\n{done.stderr}{done.stdout}")
    return done


def export(fmt, options, path):
    """Writes `headroom-cli export --format fmt [options] --output path`; returns path."""
    headroom("export", "--format", fmt, *options, "--output", path)
    return path


def plan_json(options):
    return json.loads(headroom("plan", *options, "--json").stdout)


def scenario_json(options):
    return json.loads(headroom("export", "--format", "scenario-json", *options).stdout)


# A real config.json of the family, made tiny: the same model_type and
# architecture, so transformers builds the same classes, small enough that
# random weights and two steps take seconds on a CPU.
TINY_SIZES = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "vocab_size": 512, "max_position_embeddings": 256}
# GPT-2 and BERT name their sizes differently.
TINY_RENAMED = {"gpt2": {"n_embd": 64, "n_layer": 2, "n_head": 4, "n_inner": 128, "n_positions": 256,
                         "vocab_size": 512},
                "bert": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                         "num_attention_heads": 4, "vocab_size": 512, "max_position_embeddings": 256}}


def tiny_config(name, folder, **extra):
    """tests/data/configs/NAME.json shrunk; returns the path of the tiny copy."""
    with open(os.path.join(CONFIGS, name + ".json")) as f:
        config = json.load(f)
    config.update(TINY_RENAMED.get(config["model_type"], TINY_SIZES))
    for key in ("bos_token_id", "eos_token_id", "pad_token_id"):  # inside the tiny vocabulary
        if isinstance(config.get(key), int):
            config[key] = 1
    if "max_window_layers" in config:
        config["max_window_layers"] = config["num_hidden_layers"]
    config.update(extra)
    path = os.path.join(folder, name + "-tiny.json")
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    return path


class TempDirTest(unittest.TestCase):
    """A test case with a fresh folder per test."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="headroom-libraries-")
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


def main():
    """unittest's main, verbose, exiting 1 on failure; 77 (CTest's skip) when every test skipped."""
    program = unittest.main(module="__main__", verbosity=2, exit=False)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(77)
    if not result.testsRun:
        print("no test ran", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
