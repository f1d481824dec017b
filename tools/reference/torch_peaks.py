#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch reference for Headroom's planner: what real training steps use.

Reference tooling only, run on the GPU machine (it has torch, transformers,
peft; bitsandbytes optional); Headroom never ships or runs this script.

For each scenario it builds a Hugging Face model from its config with random
weights (transformers AutoModelForCausalLM.from_config: nothing is
downloaded), runs a few training steps and records

  - max_allocated_bytes   torch.cuda.max_memory_allocated()
  - max_reserved_bytes    torch.cuda.max_memory_reserved()
  - device_used_bytes     the largest total − free of torch.cuda.mem_get_info()
                          (cudaMemGetInfo) sampled after every forward,
                          backward and optimizer step; includes the CUDA
                          context, cuBLAS workspaces and other processes
  - baseline_used_bytes   nvidia-smi's memory.used before this process
                          touched the device (other processes), when available
  - step_seconds, tokens_per_second (the median of the steps after the first)

Every scenario runs in a child process of its own, so the caching allocator,
the context and an out-of-memory in one scenario do not leak into another.

HEADROOM_MEMORY_HISTORY=DIR records each scenario's whole allocator history
(from model.to("cuda") to the last step) into DIR/<scenario>.pickle.gz, for
tools/reference/snapshot_trace.py and `headroom-cli replay`.

With --compare, the same scenario (a headroom.scenario/1 file with the model's
config inline and profile "pytorch") goes through `headroom-cli plan --json
--scenario FILE`, and the planner's peak_allocated_bytes, peak_reserved_bytes
and device_used_bytes are printed next to the measurements with their errors.

Examples:
  python3 tools/reference/torch_peaks.py --list
  python3 tools/reference/torch_peaks.py --preset quick --steps 3 --out peaks.json
  python3 tools/reference/torch_peaks.py --preset standard --compare \\
      --headroom-cli build-gpu/app/headroom-cli --out docs/validation/torch-peaks.json
  python3 tools/reference/torch_peaks.py --preset speed     # Llama ~1B bf16 seq 2048 step time
  python3 tools/reference/torch_peaks.py --preset speed --headroom-run \
      --headroom-cli build-gpu/app/headroom-cli  # the same steps on Headroom's CUDA engine, side by side

With --headroom-run, each scenario also runs as `headroom-cli validate
--backend cuda --json` right after the PyTorch child, on the same device, and
the two step times are printed side by side with their ratio (PyTorch eager /
Headroom: above 1 means Headroom's step is faster).
"""

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# --- Model configs (config.json contents; random weights) ---------------------

# Small Llama-style model (GQA, SwiGLU, RoPE): the shape of Llama 3 at ~0.2B.
LLAMA_SMALL = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"],
    "hidden_size": 768, "intermediate_size": 2048, "num_hidden_layers": 12,
    "num_attention_heads": 12, "num_key_value_heads": 4, "vocab_size": 32000,
    "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "tie_word_embeddings": False, "torch_dtype": "float32",
}
# GPT-2 small (openai-community/gpt2 config.json).
GPT2_SMALL = {
    "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
    "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024, "n_ctx": 1024,
    "vocab_size": 50257, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
    "tie_word_embeddings": True,
}
# Llama 3.2 1B (meta-llama/Llama-3.2-1B config.json; rope_scaling left out:
# it changes frequencies, not memory).
LLAMA_1B = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"],
    "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "tie_word_embeddings": True, "torch_dtype": "bfloat16",
}
MODELS = {"llama-small": LLAMA_SMALL, "gpt2-small": GPT2_SMALL, "llama-1b": LLAMA_1B}


def scenario(model, precision="bf16-mixed", optimizer="adamw", batch=2, seq=512, checkpointing="none",
             attention="sdpa", peft="none", lora_rank=16, lora_alpha=32, lora_targets=("q_proj", "v_proj")):
    name = f"{model} {precision} {optimizer} b{batch} s{seq} ckpt-{checkpointing} {attention}"
    if peft != "none":
        name += f" {peft}-r{lora_rank}"
    return {"name": name, "model": model, "precision": precision, "optimizer": optimizer, "batch": batch,
            "seq": seq, "checkpointing": checkpointing, "attention": attention, "peft": peft,
            "lora_rank": lora_rank, "lora_alpha": lora_alpha, "lora_targets": list(lora_targets)}


def preset(name):
    if name == "quick":
        return [scenario("llama-small"), scenario("gpt2-small", attention="eager"),
                scenario("llama-small", precision="fp32", optimizer="sgd"),
                scenario("llama-small", peft="lora")]
    if name == "standard":  # 36 scenarios: the agreement set of issue 5
        out = []
        for model, precision, optimizer, ckpt in itertools.product(
                ("llama-small", "gpt2-small"), ("fp32", "bf16-mixed", "fp16-mixed"),
                ("adamw", "sgd-momentum", "adafactor"), ("none", "full")):
            out.append(scenario(model, precision, optimizer, checkpointing=ckpt,
                                attention="eager" if model == "gpt2-small" else "sdpa"))
        return out
    if name == "techniques":  # attention, LoRA, pure bf16, 8-bit AdamW, longer sequences
        return [scenario("llama-small", attention="eager"), scenario("llama-small", attention="sdpa"),
                scenario("llama-small", attention="flash"), scenario("llama-small", precision="bf16"),
                scenario("llama-small", optimizer="adamw-8bit"), scenario("llama-small", optimizer="lion"),
                scenario("llama-small", peft="lora"), scenario("llama-small", peft="lora", checkpointing="full"),
                scenario("llama-small", batch=1, seq=2048), scenario("gpt2-small", batch=8, seq=1024)]
    if name == "speed":
        return [scenario("llama-1b", "bf16-mixed", "adamw", batch=1, seq=2048, attention="eager"),
                scenario("llama-1b", "bf16-mixed", "adamw", batch=1, seq=2048, attention="sdpa")]
    raise SystemExit(f"torch_peaks.py: unknown preset '{name}' (quick, standard, techniques, speed)")


# --- The Headroom side ---------------------------------------------------------

def headroom_scenario(s, gpu):
    """The same scenario as a headroom.scenario/1 document (docs/planner.md)."""
    train = {"precision": s["precision"], "optimizer": s["optimizer"], "micro_batch": s["batch"],
             "seq_len": s["seq"], "grad_accum": 1, "checkpointing": s["checkpointing"],
             "attention": s["attention"]}
    if s["peft"] != "none":
        train["peft"] = {"method": s["peft"], "rank": s["lora_rank"], "alpha": s["lora_alpha"],
                         "targets": s["lora_targets"]}
    return {"schema": "headroom.scenario/1", "model": {"config": MODELS[s["model"]], "id": s["model"]},
            "train": train, "hardware": {"gpu": gpu, "count": 1, "sharding": "none"}, "profile": "pytorch"}


def plan(cli, s, gpu):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(headroom_scenario(s, gpu), f)
        path = f.name
    try:
        r = subprocess.run([cli, "plan", "--json", "--scenario", path], capture_output=True, text=True, check=False)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return {"error": r.stderr.strip() or f"exit {r.returncode}"}
    return json.loads(r.stdout)


def catalog_gpu(device_name):
    """The catalog id (resources/catalog/gpus.json) for a torch device name, or None."""
    n = device_name.lower()
    rules = [("h200", "h200"), ("b200", "b200"), ("h100 nvl", "h100-nvl-94gb"), ("h100 pcie", "h100-pcie-80gb"),
             ("h100", "h100-sxm-80gb"), ("a100", "a100-80gb" if "80g" in n else "a100-40gb"), ("l40s", "l40s"),
             ("l4", "l4"), ("a10g", "a10g"), ("rtx 4090", "rtx-4090"), ("rtx 5090", "rtx-5090"),
             ("rtx 3090", "rtx-3090"), ("t4", "t4")]
    for key, gpu in rules:
        if key in n:
            return gpu
    return None


# --- One scenario, in a child process -------------------------------------------

def nvidia_smi_used(index=0):
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", str(index)],
                           capture_output=True, text=True, check=True, timeout=20)
        return int(float(r.stdout.strip().splitlines()[0]) * 2**20)
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def run_one(s, steps):
    baseline = nvidia_smi_used()  # before this process creates a CUDA context
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    result = {"status": "ok", "baseline_used_bytes": baseline}
    device = torch.device("cuda")
    torch.cuda.reset_peak_memory_stats()
    peak_used = [0]

    def sample():
        free, total = torch.cuda.mem_get_info()
        peak_used[0] = max(peak_used[0], total - free)

    cfg = dict(MODELS[s["model"]])
    model_type = cfg.pop("model_type")
    config = AutoConfig.for_model(model_type, **{k: v for k, v in cfg.items() if k != "torch_dtype"})
    attn = {"eager": "eager", "sdpa": "sdpa", "flash": "flash_attention_2"}[s["attention"]]
    try:
        model = AutoModelForCausalLM.from_config(config, attn_implementation=attn, torch_dtype=torch.float32)
    except (ImportError, ValueError) as e:
        return {"status": "unsupported", "message": f"attention {attn}: {e}"}
    if s["precision"] == "bf16":
        model = model.to(torch.bfloat16)
    elif s["precision"] == "fp16":
        model = model.to(torch.float16)
    elif s["peft"] != "none" and s["precision"] in ("bf16-mixed", "fp16-mixed"):
        # A LoRA base is loaded in the autocast dtype, as Headroom's scenario
        # plans it and its exported script loads it (torch_dtype); PEFT keeps
        # the adapters in fp32 (autocast_adapter_dtype). Before 2026-11-25 the
        # base stayed fp32 here, so those rows compared different setups
        # (docs/validation/gpu-h200-2026-11-25.md).
        model = model.to(torch.bfloat16 if s["precision"] == "bf16-mixed" else torch.float16)
    if s["checkpointing"] == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if s["peft"] == "lora":
        try:
            from peft import LoraConfig, get_peft_model
        except ImportError:
            return {"status": "unsupported", "message": "peft is not installed"}
        targets = s["lora_targets"] if model_type != "gpt2" else ["c_attn"]
        model = get_peft_model(model, LoraConfig(r=s["lora_rank"], lora_alpha=s["lora_alpha"], lora_dropout=0.0,
                                                 target_modules=targets, task_type="CAUSAL_LM"))
    elif s["peft"] != "none":
        return {"status": "unsupported", "message": f"{s['peft']} needs quantized weights (not built here)"}
    history = os.environ.get("HEADROOM_MEMORY_HISTORY")  # a folder: the whole run's allocator history
    if history:
        torch.cuda.memory._record_memory_history(max_entries=1000000, stacks="python")
    model.to(device)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    lr = 1e-4
    opt_name = s["optimizer"]
    if opt_name == "adamw":
        optimizer = torch.optim.AdamW(params, lr=lr)
    elif opt_name == "sgd":
        optimizer = torch.optim.SGD(params, lr=lr)
    elif opt_name == "sgd-momentum":
        optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9)
    elif opt_name == "adafactor":
        from transformers.optimization import Adafactor
        optimizer = Adafactor(params, lr=lr, scale_parameter=False, relative_step=False, warmup_init=False)
    elif opt_name in ("adamw-8bit", "paged-adamw-8bit"):
        try:
            import bitsandbytes as bnb
        except ImportError:
            return {"status": "unsupported", "message": "bitsandbytes is not installed"}
        cls = bnb.optim.PagedAdamW8bit if opt_name.startswith("paged") else bnb.optim.AdamW8bit
        optimizer = cls(params, lr=lr)
    elif opt_name == "lion":
        try:
            from lion_pytorch import Lion
        except ImportError:
            return {"status": "unsupported", "message": "lion-pytorch is not installed"}
        optimizer = Lion(params, lr=lr)
    else:
        return {"status": "unsupported", "message": f"optimizer {opt_name}"}

    autocast_dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(s["precision"])
    scaler = torch.amp.GradScaler("cuda") if s["precision"] == "fp16-mixed" else None
    vocab = config.vocab_size
    times = []
    try:
        for _ in range(steps):
            ids = torch.randint(0, vocab, (s["batch"], s["seq"]), device=device)
            torch.cuda.synchronize()
            start = time.perf_counter()
            with torch.autocast("cuda", dtype=autocast_dtype, enabled=autocast_dtype is not None):
                loss = model(input_ids=ids, labels=ids).loss
            sample()
            if scaler:
                scaler.scale(loss).backward()
                sample()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                sample()
                optimizer.step()
            sample()
            optimizer.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    except torch.cuda.OutOfMemoryError as e:
        result["status"] = "out_of_memory"
        result["message"] = str(e).splitlines()[0]
    if history:
        import gzip
        import pickle
        os.makedirs(history, exist_ok=True)
        path = os.path.join(history, s["name"].replace(" ", "_") + ".pickle.gz")
        with gzip.open(path, "wb") as f:
            pickle.dump(torch.cuda.memory._snapshot(), f)
        torch.cuda.memory._record_memory_history(enabled=None)
        result["memory_history"] = path
    result.update({
        "max_allocated_bytes": torch.cuda.max_memory_allocated(),
        "max_reserved_bytes": torch.cuda.max_memory_reserved(),
        "device_used_bytes": peak_used[0],
        "device": torch.cuda.get_device_name(0),
        "step_seconds": statistics.median(times[1:]) if len(times) > 1 else (times[0] if times else None),
    })
    if result["step_seconds"]:
        result["tokens_per_second"] = s["batch"] * s["seq"] / result["step_seconds"]
    return result


def run_child(s, steps, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--run-one", json.dumps(s), "--steps", str(steps)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "error", "message": f"timed out after {timeout} s"}
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if r.returncode != 0 or not lines:
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "error", "message": f"exit {r.returncode}: {tail}"}
    return json.loads(lines[-1])


def headroom_run(cli, s, gpu, steps, timeout):
    """The scenario on Headroom's own CUDA step (headroom-cli validate)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(headroom_scenario(s, gpu or "h100-sxm-80gb"), f)
        path = f.name
    try:
        r = subprocess.run([cli, "validate", "--backend", "cuda", "--json", "--steps", str(steps), "--scenario", path],
                           capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return {"error": r.stderr.strip() or f"exit {r.returncode}"}
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError as e:
        return {"error": f"unreadable validate output: {e}"}


def relative_error(planned, measured):
    if not planned or not measured:
        return None
    return (planned - measured) / measured


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--preset", default="quick", help="quick | standard (36) | techniques | speed")
    ap.add_argument("--scenario-file", help="a JSON list of scenarios (the fields of scenario() here)")
    ap.add_argument("--steps", type=int, default=3, help="training steps per scenario (default 3)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per scenario")
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("--compare", action="store_true", help="also run `headroom-cli plan` and print the errors")
    ap.add_argument("--headroom-cli", default="headroom-cli", help="path of headroom-cli for --compare")
    ap.add_argument("--headroom-run", action="store_true",
                    help="also run each scenario on Headroom's CUDA step (headroom-cli validate) and compare step times")
    ap.add_argument("--gpu", help="catalog GPU id for --compare (default: from the device name)")
    ap.add_argument("--list", action="store_true", help="list the preset's scenarios and exit")
    ap.add_argument("--run-one", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.run_one:
        print(json.dumps(run_one(json.loads(args.run_one), args.steps)))
        return 0
    scenarios = json.load(open(args.scenario_file)) if args.scenario_file else preset(args.preset)
    if args.list:
        for s in scenarios:
            print(s["name"])
        return 0
    import torch  # only now: --help and --list work without torch
    if not torch.cuda.is_available():
        print("torch_peaks.py: no CUDA device visible to torch", file=sys.stderr)
        return 3
    device = torch.cuda.get_device_name(0)
    gpu = args.gpu or catalog_gpu(device)
    report = {"schema": "headroom.torch-peaks/1", "device": device, "torch": torch.__version__,
              "steps": args.steps, "catalog_gpu": gpu, "scenarios": []}
    try:
        import transformers
        report["transformers"] = transformers.__version__
    except ImportError:
        pass
    fmt = "{:<62} {:>9} {:>9} {:>9} {:>8}"
    print(fmt.format("scenario", "alloc MiB", "resv MiB", "used MiB", "step s"))
    for s in scenarios:
        measured = run_child(s, args.steps, args.timeout)
        entry = {"scenario": s, "measured": measured}
        mib = lambda b: f"{b / 2**20:.0f}" if isinstance(b, (int, float)) and b else "-"
        step = measured.get("step_seconds")
        print(fmt.format(s["name"][:62], mib(measured.get("max_allocated_bytes")),
                         mib(measured.get("max_reserved_bytes")), mib(measured.get("device_used_bytes")),
                         f"{step:.3f}" if step else measured["status"]))
        if args.compare:
            if not gpu:
                print("  --compare needs --gpu (no catalog id for this device name)")
            else:
                p = plan(args.headroom_cli, s, gpu)
                entry["planned"] = p
                if "error" in p:
                    print(f"  plan: {p['error']}")
                else:
                    errors = {k: relative_error(p.get(pk), measured.get(mk)) for k, pk, mk in (
                        ("allocated", "peak_allocated_bytes", "max_allocated_bytes"),
                        ("reserved", "peak_reserved_bytes", "max_reserved_bytes"),
                        ("device_used", "device_used_bytes", "device_used_bytes"))}
                    entry["relative_errors"] = errors
                    print("  planned vs measured: " + ", ".join(
                        f"{k} {v:+.1%}" if v is not None else f"{k} -" for k, v in errors.items()))
        if args.headroom_run:
            ours = headroom_run(args.headroom_cli, s, gpu, args.steps, args.timeout)
            entry["headroom"] = ours
            if "error" in ours:
                print(f"  headroom: {ours['error']}")
            else:
                our_step = ours.get("step_seconds")
                ratio = step / our_step if step and our_step else None
                entry["speed_ratio_torch_over_headroom"] = ratio
                print(f"  headroom: status {ours.get('status')}, step {our_step:.3f} s" if our_step else
                      f"  headroom: status {ours.get('status')}: {ours.get('message', '')}")
                if ratio:
                    print(f"  step time PyTorch (not compiled) / Headroom: {ratio:.2f}")
        report["scenarios"].append(entry)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
        print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
