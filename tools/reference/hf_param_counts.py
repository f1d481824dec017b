#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Parameter counts for the preset model catalog, as transformers reports them.

Reference tooling only: Headroom never runs or ships this script. It reads
resources/catalog/models.json, builds every entry's stored `config` with
transformers (AutoConfig.for_model) and the model class the config names in
`architectures`, on the meta device (no weights are allocated or downloaded,
nothing reaches the Hugging Face Hub), and compares model.num_parameters()
(tied weights counted once) with the stored `parameters`.

Setup, in a virtualenv outside the repository:

    python3 -m venv /work/venv-ref
    /work/venv-ref/bin/pip install torch transformers

Run from the repository root:

    /work/venv-ref/bin/python tools/reference/hf_param_counts.py --check
    /work/venv-ref/bin/python tools/reference/hf_param_counts.py --write

--check exits 1 and lists every entry whose stored count differs from what
transformers computes; --write stores the computed counts and their source.
"""

import argparse
import json
import os
import sys
from collections import OrderedDict

# The catalog's model_types and the classes whose parameters the engine models.
# An entry's `architectures[0]` must be the class listed for its model_type.
EXPECTED_CLASS = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "smollm3": "SmolLM3ForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    # The meta-device build applies no quantization_config: gpt-oss's MXFP4
    # experts are counted as the unquantized parameters they dequantize to.
    "gpt_oss": "GptOssForCausalLM",
    "gemma": "GemmaForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
    "gemma3_text": "Gemma3ForCausalLM",
    # Image-text: the count includes the SigLIP tower and the projector.
    "gemma3": "Gemma3ForConditionalGeneration",
    "llama4_text": "Llama4ForCausalLM",
    # Image-text: the count includes Llama4VisionModel and the projector.
    "llama4": "Llama4ForConditionalGeneration",
    # Multi-head latent attention, dense first layers, then MoE; the
    # multi-token-prediction layer of the checkpoint is not built.
    "deepseek_v3": "DeepseekV3ForCausalLM",
    "olmo2": "Olmo2ForCausalLM",
    "phi3": "Phi3ForCausalLM",
    "gpt2": "GPT2LMHeadModel",
    "gpt_neox": "GPTNeoXForCausalLM",
    "gpt_bigcode": "GPTBigCodeForCausalLM",
    "bert": "BertForMaskedLM",
}

SCRIPT_PATH = "tools/reference/hf_param_counts.py"
DEFAULT_CATALOG = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "catalog", "models.json")


def load_catalog(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=OrderedDict)


def save_catalog(path, catalog):
    text = json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def class_for(entry):
    """The transformers class name to count for a catalog entry."""
    config = entry["config"]
    model_type = config.get("model_type")
    if model_type not in EXPECTED_CLASS:
        raise ValueError(f"{entry['id']}: model_type {model_type!r} is not one the catalog supports")
    expected = EXPECTED_CLASS[model_type]
    archs = config.get("architectures") or [expected]
    if archs[0] != expected:
        raise ValueError(f"{entry['id']}: architectures[0] is {archs[0]!r}, expected {expected!r}")
    return expected


def count_parameters(entry):
    """(class name, num_parameters()) for one catalog entry, built on the meta device."""
    import torch
    import transformers

    class_name = class_for(entry)
    fields = dict(entry["config"])
    model_type = fields.pop("model_type")
    config = transformers.AutoConfig.for_model(model_type, **fields)
    model_class = getattr(transformers, class_name)
    with torch.device("meta"):
        model = model_class(config)
    # Make sure embeddings the config ties are shared before counting.
    model.tie_weights()
    return class_name, int(model.num_parameters())


def source_text(version, class_name):
    return (f"transformers {version} {class_name} num_parameters() on the meta device "
            f"({SCRIPT_PATH})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a stored count differs")
    mode.add_argument("--write", action="store_true", help="store the computed counts")
    parser.add_argument("--catalog", default=DEFAULT_CATALOG, help="path to models.json")
    parser.add_argument("--only", action="append", default=[], metavar="ID",
                        help="restrict to this id (repeatable)")
    args = parser.parse_args(argv)

    import transformers
    import torch
    transformers.logging.set_verbosity_error()

    catalog = load_catalog(args.catalog)
    if catalog.get("schema") != "headroom.models/1":
        print(f"unexpected schema {catalog.get('schema')!r}", file=sys.stderr)
        return 2

    seen = set()
    problems = []
    for entry in catalog["models"]:
        if entry["id"] in seen:
            problems.append(f"{entry['id']}: duplicate id")
        seen.add(entry["id"])
        if args.only and entry["id"] not in args.only:
            continue
        try:
            class_name, count = count_parameters(entry)
        except Exception as exc:  # report every entry, not just the first failure
            problems.append(f"{entry['id']}: could not build: {exc}")
            continue
        stored = entry.get("parameters")
        mark = "" if stored == count else f"   (stored {stored})"
        print(f"{entry['id']:<55} {class_name:<22} {count:>16,d}{mark}")
        if args.write:
            entry["parameters"] = count
            entry["parameters_source"] = source_text(transformers.__version__, class_name)
        elif stored != count:
            problems.append(f"{entry['id']}: stored {stored}, transformers {transformers.__version__} "
                            f"{class_name} reports {count} (difference {count - (stored or 0):+d})")

    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    if args.write and not any("could not build" in p or "duplicate" in p for p in problems):
        save_catalog(args.catalog, catalog)
        print(f"wrote {os.path.normpath(args.catalog)}")
    if problems:
        print("\n".join(["", "Mismatches:"] + problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
