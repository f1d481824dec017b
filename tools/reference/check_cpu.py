# SPDX-License-Identifier: GPL-3.0-or-later
"""The meta count equals a real CPU run of the same tiny models, to the byte.

    .venv-ref/bin/python tools/reference/check_cpu.py

Runs each tiny config through accountant.py twice, on the meta device and on
the CPU with real data, with the emulations that need a CUDA kernel switched
off in both (sdpa kernel choice and its backward scratch, cuBLAS
workspaces); dropout's mask and autocast's casts stay on. Every step's peak
and what stays allocated after it must agree; the allocation counts are
printed and may differ by the CPU's random inputs (randint) and, with sdpa,
by the kernel (meta decomposes sdpa to the math path, the CPU runs its fused
flash kernel). Exits non-zero if a peak differs.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import accountant  # noqa: E402
import emulate  # noqa: E402

TINY = {
    "llama": {"model_type": "llama", "hidden_size": 64, "intermediate_size": 176, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512},
    "gpt2": {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 512, "n_positions": 256},
    "gpt_neox": {"model_type": "gpt_neox", "hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "vocab_size": 512, "rotary_pct": 0.25},
    "bert": {"model_type": "bert", "hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2,
             "num_attention_heads": 4, "vocab_size": 512},
    "gemma2": {"model_type": "gemma2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
               "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 512},
}
VARIANTS = [
    {"precision": "fp32", "attention": "eager"},
    {"precision": "bf16-mixed", "attention": "eager"},
    {"precision": "bf16", "attention": "sdpa", "checkpointing": "full"},
    {"precision": "fp32", "attention": "eager", "loop": "custom", "grad_accum": 2},
    {"precision": "bf16-mixed", "attention": "eager",
     "peft": {"method": "lora", "rank": 4, "alpha": 8, "targets": ["all-linear"]}},
]


def emulations():
    return emulate.Emulations(sdpa=False, attn_bwd_scratch=False, cublas_workspace=False)


def main():
    torch.manual_seed(0)
    bad = 0
    for family, cfg in TINY.items():
        for v in VARIANTS:
            train = {"micro_batch": 2, "seq_len": 64, "optimizer": "adamw", **v}
            sc = {"model": {"config": cfg, "id": family}, "train": train, "hardware": {"gpu": "h100-sxm-80gb"}}
            meta = accountant.run(sc, em=emulations(), keep_events=True, device="meta")
            cpu = accountant.run(sc, em=emulations(), keep_events=True, device="cpu")
            mp = [s["peak_allocated_bytes"] for s in meta["steps"]]
            cp = [s["peak_allocated_bytes"] for s in cpu["steps"]]
            ma = sum(1 for e in meta["events"] if e[0] == "alloc")
            ca = sum(1 for e in cpu["events"] if e[0] == "alloc")
            same = mp == cp and [s["allocated_after_bytes"] for s in meta["steps"]] == \
                [s["allocated_after_bytes"] for s in cpu["steps"]]
            bad += not same
            print(f"{'ok ' if same else 'DIFF'} {family:9s} {str(v):110s} meta {mp} ({ma} allocs) cpu {cp} ({ca} allocs)")
    print(f"{bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
