# SPDX-License-Identifier: GPL-3.0-or-later
"""Reference cases on a real GPU, in the accountant's own loop.

    python3 tools/reference/cuda_check.py [--out FILE] [--timeout S] SUBSTRING...

For each case of reference_set.py whose id contains one of the substrings,
a child process builds the model as accountant.build_model does (from the
catalog's config.json, random weights, nothing downloaded) on the GPU and
runs the accountant's trainer loop (accountant.run: the batch made before
the forward, the outputs dropped before backward, AdamW with foreach,
zero_grad to None) under torch.autocast('cuda') where the precision is
mixed. torch.cuda.max_memory_allocated() is read per step after
reset_peak_memory_stats() at the step's start, and printed beside the
committed accountant figures of tests/data/reference/pytorch_reference.json.
Needs torch, transformers and peft of the pinned versions; no bitsandbytes
(QLoRA and 8-bit optimizers are not run here).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def run_one(case, log_policy, no_cudnn_sdp=False):
    import torch
    import accountant

    if no_cudnn_sdp:
        torch.backends.cuda.enable_cudnn_sdp(False)

    sc = case["scenario"]
    train = sc["train"]
    if train.get("loop", "trainer") != "trainer" or int(train.get("grad_accum", 1)) != 1:
        return {"status": "unsupported", "message": "trainer loop without accumulation only"}
    if train.get("optimizer", "adamw") != "adamw" and train.get("optimizer") != "sgd":
        return {"status": "unsupported", "message": f"optimizer {train.get('optimizer')}"}
    torch.manual_seed(0)
    model = accountant.build_model(sc, device="cuda")
    params = [p for p in model.parameters() if p.requires_grad]
    if train.get("optimizer", "adamw") == "sgd":
        optimizer = torch.optim.SGD(params, lr=1e-5, foreach=True)
    else:
        optimizer = torch.optim.AdamW(params, lr=1e-5, foreach=True)
    dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(train.get("precision", "bf16-mixed"))
    vocab = model.config.vocab_size
    log = [] if log_policy else None
    peaks, batch = [], None
    history = os.environ.get("HEADROOM_MEMORY_HISTORY")  # the second step's allocator history, for diagnosis
    for step in range(2):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        if history and step == 1:
            torch.cuda.memory._record_memory_history(max_entries=1000000, stacks="python")
        batch = None
        batch = accountant._inputs(model, train, "cuda", vocab)
        accountant.SAC_POLICY_LOG = log if step == 1 else None
        with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
            outputs = model(**batch)
        loss = outputs.loss
        outputs = None
        loss.backward()
        del loss
        accountant.SAC_POLICY_LOG = None
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        peaks.append(torch.cuda.max_memory_allocated())
    if history:
        torch.cuda.memory._dump_snapshot(history)
        torch.cuda.memory._record_memory_history(enabled=None)
    out = {"status": "ok", "step_peaks_bytes": peaks, "device": torch.cuda.get_device_name(0)}
    if log:
        n = model.config.num_hidden_layers
        fwd = [str(f.overloadpacket).replace("aten.", "") + ("*" if keep else "")
               for rc, f, keep in log if not rc and any(k in str(f) for k in ("mm", "attention"))]
        out["policy_first_layer_forward"] = " ".join(fwd[:len(fwd) // n])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--run-one", help=argparse.SUPPRESS)
    ap.add_argument("--log-policy", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-cudnn-sdp", action="store_true",
                    help="torch.backends.cuda.enable_cudnn_sdp(False): sdpa picks flash where it can, as "
                         "emulate.py assumes (PyTorch 2.11 on sm_90 picks cuDNN attention for 16-bit inputs)")
    args = ap.parse_args()
    if args.run_one:
        print(json.dumps(run_one(json.loads(args.run_one), args.log_policy, args.no_cudnn_sdp)), flush=True)
        return 0
    import reference_set
    committed = {c["id"]: c["pytorch"] for c in json.load(open(reference_set.OUT))["cases"]}
    every = reference_set.build_cases()
    cases, seen = [], set()
    for o in args.only:   # in the order asked for
        for c in every:
            if o in c["id"] and c["id"] not in seen and (o == c["id"] or not any(o == e["id"] for e in every)):
                cases.append(c)
                seen.add(c["id"])
    results = []
    for case in cases:
        t0 = time.time()
        cmd = [sys.executable, os.path.abspath(__file__), "--run-one", json.dumps(case)]
        if "selective-op" in case["id"]:
            cmd.append("--log-policy")
        if args.no_cudnn_sdp:
            cmd.append("--no-cudnn-sdp")
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
            got = json.loads(lines[-1]) if lines else {"status": "error", "message": (r.stderr.strip().splitlines()
                                                                                       or ["no output"])[-1]}
        except subprocess.TimeoutExpired:
            got = {"status": "error", "message": f"timed out after {args.timeout} s"}
        ref = committed.get(case["id"], {})
        got["id"], got["accountant_step_peaks_bytes"] = case["id"], ref.get("step_peaks_bytes")
        got["seconds"] = round(time.time() - t0, 1)
        got["cudnn_sdp"] = not args.no_cudnn_sdp
        results.append(got)
        if got["status"] == "ok":
            a, m = ref.get("step_peaks_bytes") or [0, 0], got["step_peaks_bytes"]
            print(f"{case['id']:72s} accountant {a[1]:>12d} measured {m[1]:>12d} diff {m[1] - a[1]:>+11d} "
                  f"({(m[1] - a[1]) / a[1]:+.3%}); step 1: {a[0]} vs {m[0]} ({got['seconds']} s)", flush=True)
            if got.get("policy_first_layer_forward"):
                print(f"    policy, layer 0 forward (* kept): {got['policy_first_layer_forward']}", flush=True)
        else:
            print(f"{case['id']:72s} {got['status']}: {got.get('message', '')}", flush=True)
        if args.out:
            with open(args.out, "w") as f:
                json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
