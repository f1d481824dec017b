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
flash kernel).

First, selective-op checkpointing on tiny Llamas with every emulation on
(sac_checks): the CPU gets stand-in kernels for the CUDA attention ops that
emulate.py's sdpa calls, so the policy sees the same ops on both devices; the
peaks must agree, the policy decide alike, and each layer keep what the
policy implies between forward and backward. Exits non-zero if a peak differs.
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
    {"precision": "fp32", "attention": "eager", "checkpointing": "selective-op"},
    {"precision": "bf16-mixed", "attention": "eager", "checkpointing": "selective-op"},
]


def emulations():
    return emulate.Emulations(sdpa=False, attn_bwd_scratch=False, cublas_workspace=False)


# --- selective-op checkpointing with the attention kernels ------------------------
# emulate.py's sdpa calls the CUDA attention ops, which have meta kernels and
# no CPU ones. For the check below the CPU gets stand-ins: PyTorch's CPU flash
# kernel computes the numbers, and the outputs take the shapes and dtypes of
# the meta kernels (torch/_meta_registrations.py), so the selective-checkpoint
# policy sees the same op on both devices and keeps the same tensors. What the
# stand-ins allocate inside themselves is not tracked on either device (the
# tracking mode is off while a kernel runs), as on meta.

def _ceil32(n):
    return (n + 31) // 32 * 32


def _cpu_attention(q, k, v, is_causal, scale, mask=None):
    rep = q.shape[1] // k.shape[1]
    if rep > 1:
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, 0.0, is_causal, attn_mask=mask, scale=scale)


def _cpu_attention_backward(grad, q, k, v, out, lse, is_causal, scale, mask=None):
    hk = k.shape[1]
    rep = q.shape[1] // hk
    kr, vr = (k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)) if rep > 1 else (k, v)
    dq, dk, dv = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
        grad, q, kr, vr, out, lse, 0.0, is_causal, attn_mask=mask, scale=scale)
    if rep > 1:
        b, _h, s, d = dk.shape
        dk = dk.reshape(b, hk, rep, s, d).sum(2)
        dv = dv.reshape(b, hk, rep, s, dv.shape[-1]).sum(2)
    return dq.contiguous(), dk.contiguous(), dv.contiguous()


def _flash(query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, scale=None):
    assert dropout_p == 0.0
    out, lse = _cpu_attention(query, key, value, is_causal, scale)
    seed = torch.empty(2, dtype=torch.uint64)
    offset = torch.empty((), dtype=torch.uint64)
    debug = torch.empty(0, dtype=query.dtype)
    return out, lse, None, None, query.shape[2], key.shape[2], seed, offset, debug


def _flash_backward(grad_out, query, key, value, out, lse, _cum_q, _cum_k, _max_q, _max_k, dropout_p, is_causal,
                    _seed, _offset, scale=None):
    return _cpu_attention_backward(grad_out, query, key, value, out, lse, is_causal, scale)


def _efficient(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, scale=None):
    assert dropout_p == 0.0
    b, h, s, _d = query.shape
    out, lse = _cpu_attention(query, key, value, is_causal, scale, attn_bias)
    padded = torch.zeros((b, h, _ceil32(s) if compute_log_sumexp else 0), dtype=torch.float32)
    if compute_log_sumexp:
        padded[..., :s] = lse
    return out, padded, torch.empty((), dtype=torch.long), torch.empty((), dtype=torch.long)


def _efficient_backward(grad_out, query, key, value, attn_bias, out, lse, _seed, _offset, dropout_p, _mask,
                        is_causal=False, scale=None):
    s = query.shape[2]
    real = torch.empty((lse.shape[0], s, lse.shape[1]), dtype=torch.float32).transpose(1, 2)
    real.copy_(lse[..., :s])
    dq, dk, dv = _cpu_attention_backward(grad_out, query, key, value, out, real, is_causal, scale, attn_bias)
    return dq, dk, dv, None


class cpu_attention_kernels:
    """Registers the stand-ins as the CPU kernels of the two CUDA ops while active."""

    def __enter__(self):
        self.lib = torch.library.Library("aten", "IMPL")
        self.lib.impl("_scaled_dot_product_flash_attention", _flash, "CPU")
        self.lib.impl("_scaled_dot_product_flash_attention_backward", _flash_backward, "CPU")
        self.lib.impl("_scaled_dot_product_efficient_attention", _efficient, "CPU")
        self.lib.impl("_scaled_dot_product_efficient_attention_backward", _efficient_backward, "CPU")
        return self

    def __exit__(self, *exc):
        self.lib._destroy()
        return False


BACKWARD = ("loss_bwd", "head_bwd", "layer_bwd", "embed_bwd")


def live_when_backward_starts(events, step):
    """The allocations alive when `step`'s backward makes its first request,
    from the tracker's event stream: [(bytes, phase, layer, op)]."""
    live, at, prev = {}, 0, None
    for kind, _seq, key, n, phase, layer, op in events:
        if prev == "optimizer_step" and phase != "optimizer_step":
            at += 1
        prev = phase
        if at == step and phase in BACKWARD:
            break
        if kind == "alloc":
            live[key] = (n, phase, layer, op)
        else:
            live.pop(key, None)
    return list(live.values())


def saved_by_layer(events, step, n_layers):
    """Per layer, the bytes alive at the start of backward that its forward
    made, by op, with its input (the layer below's output, or the
    embedding's) under "input"."""
    out = {layer: {} for layer in range(n_layers)}
    for n, phase, layer, op in live_when_backward_starts(events, step):
        op = op.replace("aten.", "")
        if phase == "embed_fwd" and op == "embedding":
            out[0]["input"] = out[0].get("input", 0) + n
        elif phase == "layer_fwd" and op == "add":
            # the layer's output: the next layer's input, or the final norm's
            at, name = (layer + 1, "input") if layer + 1 < n_layers else (layer, "output")
            out[at][name] = out[at].get(name, 0) + n
        elif phase == "layer_fwd":
            out[layer][op] = out[layer].get(op, 0) + n
    return out


def llama_expected_saved(cfg, train, kernel):
    """What the torchtitan policy keeps per Llama layer, by op, and the
    layer's input (kept by the checkpoint for its recompute): the 1st, 3rd,
    5th and 7th aten.mm (q, v, gate and down projections), the attention
    kernel's output, log-sum-exp and its two philox tensors. The last
    layer's output is left out: whether it stays is the final norm's business
    (it does when the residual stream is fp32)."""
    from tracker import block_bytes
    b, s = train["micro_batch"], train["seq_len"]
    hidden, inter = cfg["hidden_size"], cfg["intermediate_size"]
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    d = cfg.get("head_dim") or hidden // heads
    compute = 4 if train["precision"] == "fp32" else 2
    residual = 2 if train["precision"] == "bf16" else 4
    tokens = b * s
    expected = {"mm": sum(block_bytes(tokens * w * compute) for w in (heads * d, kv * d, inter, hidden)),
                "input": block_bytes(tokens * hidden * residual)}
    if kernel == "flash":
        expected["_scaled_dot_product_flash_attention"] = \
            block_bytes(tokens * heads * d * compute) + block_bytes(b * heads * s * 4) + 512 + 512
    elif kernel == "efficient":
        expected["_scaled_dot_product_efficient_attention"] = \
            block_bytes(tokens * heads * d * compute) + block_bytes(b * heads * _ceil32(s) * 4) + 512 + 512
    return expected


SAC_CASES = [
    # (config, train, kernel emulate.py picks)
    ("llama", {"precision": "bf16-mixed", "attention": "sdpa"}, "flash"),
    ("llama", {"precision": "bf16", "attention": "sdpa"}, "flash"),
    ("llama-mha", {"precision": "fp32", "attention": "sdpa"}, "efficient"),
    ("llama", {"precision": "bf16-mixed", "attention": "eager"}, None),
    ("llama", {"precision": "fp32", "attention": "eager"}, None),
]


def sac_checks():
    """selective-op on tiny Llamas with every emulation on, the CPU with the
    attention stand-ins: the peaks agree to the byte, and each layer keeps
    what the policy says between forward and backward."""
    import accountant
    configs = {"llama": TINY["llama"], "llama-mha": {**TINY["llama"], "num_key_value_heads": 4}}
    bad = 0
    for name, over, kernel in SAC_CASES:
        cfg = configs[name]
        train = {"micro_batch": 2, "seq_len": 64, "optimizer": "adamw", "checkpointing": "selective-op", **over}
        sc = {"model": {"config": cfg, "id": name}, "train": train, "hardware": {"gpu": "h100-sxm-80gb"}}
        runs = {}
        for device in ("meta", "cpu"):
            log = []
            accountant.SAC_POLICY_LOG = log
            try:
                with cpu_attention_kernels():
                    runs[device] = accountant.run(sc, keep_events=True, device=device)
            finally:
                accountant.SAC_POLICY_LOG = None
            runs[device]["policy"] = log
        meta, cpu = runs["meta"], runs["cpu"]
        mp = [s["peak_allocated_bytes"] for s in meta["steps"]]
        cp = [s["peak_allocated_bytes"] for s in cpu["steps"]]
        same = mp == cp and [s["allocated_after_bytes"] for s in meta["steps"]] == \
            [s["allocated_after_bytes"] for s in cpu["steps"]]
        kept = [str(f.overloadpacket).replace("aten.", "") for rc, f, keep in meta["policy"] if keep and not rc]
        same_policy = [(rc, f, k) for rc, f, k in meta["policy"]] == [(rc, f, k) for rc, f, k in cpu["policy"]]
        expected = llama_expected_saved(cfg, train, kernel)
        layers_ok = True
        for device in ("meta", "cpu"):
            per_layer = saved_by_layer(runs[device]["events"], 1, cfg["num_hidden_layers"])
            for layer in range(cfg["num_hidden_layers"]):
                got = {op: n for op, n in per_layer.get(layer, {}).items() if op != "output"}
                if got != expected:
                    layers_ok = False
                    print(f"     {device} layer {layer}: kept {got}, the policy implies {expected}")
        ok = same and same_policy and layers_ok
        bad += not ok
        n_layers = cfg["num_hidden_layers"]
        print(f"{'ok ' if ok else 'DIFF'} selective-op {name:9s} {str(over):50s} meta {mp} cpu {cp}, policy "
              f"{'the same' if same_policy else 'DIFFERENT'} on both; kept in a layer's forward: "
              f"{' '.join(kept[:len(kept) // cfg['num_hidden_layers']])}; alive per layer at backward start "
              f"{sum(expected.values())} bytes {expected}, {'as' if layers_ok else 'NOT as'} the policy implies")
    return bad


def main():
    torch.manual_seed(0)
    bad = sac_checks()
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
