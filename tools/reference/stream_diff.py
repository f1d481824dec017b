# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads a reference case's PyTorch allocation stream against the plan's, phase by phase.

Reference tooling for Headroom (tools/reference/README.md).

    .venv-ref/bin/python tools/reference/stream_diff.py CASE [--step 1] [--layer 10]

CASE is an id of tests/data/reference/pytorch_reference.json, or a
headroom.scenario/1 file (a .json path). The accountant
records the case's two steps (accountant.py, as reference_set.py does); the
plan's stream is what `headroom-cli plan --allocator-trace` writes, the one
its reserved figure is simulated on. Both are cut at the start of every
phase (the "# event" comments both writers put in) and each prefix is
replayed through `headroom-cli replay --gpu` (the same simulation), so each
row shows, at the end of a phase of the chosen step: bytes allocated, bytes
reserved, and the peak reserved so far, on both sides. `--layer N` also
lists that layer's backward request by request on both sides.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REFERENCE = os.path.join(ROOT, "tests", "data", "reference", "pytorch_reference.json")

# The plan's event labels (engine/plan/plan.cpp phaseName) as the accountant names its phases.
PLAN_PHASES = {"load": "load", "embedding forward": "embed_fwd", "forward": "layer_fwd", "head forward": "head_fwd",
               "loss forward": "loss_fwd", "loss backward": "loss_bwd", "head backward": "head_bwd",
               "backward": "layer_bwd", "embedding backward": "embed_bwd", "optimizer step": "optimizer_step"}


def read_trace(path, plan):
    """Lines of the trace and the phases in it: [(step, phase, layer, first line index)]."""
    with open(path) as f:
        lines = f.read().splitlines()
    marks = []
    for k, line in enumerate(lines):
        if not line.startswith("# event "):
            continue
        words = line[len("# event "):].split()
        step = int(words[0])
        if plan:
            label = " ".join(words[1:])
            layer = -1
            if " layer " in label:
                label, layer = label.rsplit(" layer ", 1)
                layer = int(layer)
            phase = PLAN_PHASES[label]
        else:
            phase, layer = words[1], int(words[2])
        if marks and marks[-1][:3] == (step, phase, layer):
            continue
        marks.append((step, phase, layer, k))
    return lines, marks


def replay(cli, lines, end, gpu):
    fd, path = tempfile.mkstemp(suffix=".trace")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines[:end]) + "\n")
    try:
        out = subprocess.run([cli, "replay", path, "--json", "--gpu", gpu], capture_output=True, text=True, check=True)
    finally:
        os.unlink(path)
    return json.loads(out.stdout)


def by_phase(cli, lines, marks, step, gpu):
    """{(phase, layer): (allocated, reserved, peak reserved so far)} at the end of each phase of `step`."""
    out = {}
    for n, (s, phase, layer, _k) in enumerate(marks):
        if s != step:
            continue
        end = marks[n + 1][3] if n + 1 < len(marks) else len(lines)
        r = replay(cli, lines, end, gpu)
        key = (phase, layer)
        # a phase seen twice in a step (accumulation): the last one
        out[key] = (r["final_allocated_bytes"], r["final_reserved_bytes"], r["peak_reserved_bytes"])
    return out


def requests(lines, marks, step, phase, layer):
    """The requests of one phase of one step, as written."""
    for n, (s, p, ly, k) in enumerate(marks):
        if (s, p, ly) == (step, phase, layer):
            end = marks[n + 1][3] if n + 1 < len(marks) else len(lines)
            return [line for line in lines[k + 1:end] if not line.startswith("#")]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case")
    ap.add_argument("--step", type=int, default=1, help="which step's phases to show (0 or 1; default 1)")
    ap.add_argument("--layer", type=int, help="also list this layer's backward requests on both sides")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "headroom-cli"))
    args = ap.parse_args()
    if args.case.endswith(".json") and os.path.exists(args.case):
        # a headroom.scenario/1 file (torch_peaks.py's scenarios, for one)
        with open(args.case) as f:
            scenario = json.load(f)
    else:
        with open(REFERENCE) as f:
            case = next((c for c in json.load(f)["cases"] if c["id"] == args.case), None)
        if case is None:
            raise SystemExit(f"{args.case}: not a case of {os.path.relpath(REFERENCE, ROOT)}")
        scenario = case["scenario"]
    gpu = scenario.get("hardware", {}).get("gpu", "h100-sxm-80gb")

    sys.path.insert(0, HERE)
    import accountant
    with tempfile.TemporaryDirectory() as tmp:
        torch_trace = os.path.join(tmp, "pytorch.trace")
        plan_trace = os.path.join(tmp, "plan.trace")
        scenario_path = os.path.join(tmp, "scenario.json")
        accountant.run(scenario, steps=2, keep_events=True, events_out=torch_trace)
        with open(scenario_path, "w") as f:
            json.dump(scenario, f)
        subprocess.run([args.cli, "plan", "--scenario", scenario_path, "--json", "--allocator-trace", plan_trace],
                       check=True, capture_output=True)
        torch_lines, torch_marks = read_trace(torch_trace, plan=False)
        plan_lines, plan_marks = read_trace(plan_trace, plan=True)
        whole_torch = replay(args.cli, torch_lines, len(torch_lines), gpu)
        whole_plan = replay(args.cli, plan_lines, len(plan_lines), gpu)
        torch_rows = by_phase(args.cli, torch_lines, torch_marks, args.step, gpu)
        plan_rows = by_phase(args.cli, plan_lines, plan_marks, args.step, gpu)

        gib = 2 ** 30
        print(f"{args.case}: peak reserved PyTorch {whole_torch['peak_reserved_bytes'] / gib:.3f} GiB, "
              f"plan {whole_plan['peak_reserved_bytes'] / gib:.3f} GiB; peak allocated "
              f"{whole_torch['peak_allocated_bytes'] / gib:.3f} / {whole_plan['peak_allocated_bytes'] / gib:.3f} GiB")
        print(f"\nstep {args.step}, at the end of each phase (GiB): allocated, reserved, peak reserved so far\n")
        print(f"{'phase':18s} {'layer':>5s} | {'PyTorch':>26s} | {'plan':>26s}")
        keys = [(p, ly) for s, p, ly, _k in torch_marks if s == args.step]
        keys += [k for k in ((p, ly) for s, p, ly, _k in plan_marks if s == args.step) if k not in keys]
        seen = set()
        for key in keys:
            if key in seen:
                continue
            seen.add(key)

            def cell(row):
                return " ".join(f"{v / gib:8.3f}" for v in row) if row else f"{'-':>26s}"
            print(f"{key[0]:18s} {key[1]:5d} | {cell(torch_rows.get(key))} | {cell(plan_rows.get(key))}")
        if args.layer is not None:
            for name, lines, marks in (("PyTorch", torch_lines, torch_marks), ("plan", plan_lines, plan_marks)):
                print(f"\n{name}: backward of layer {args.layer}, step {args.step}")
                for line in requests(lines, marks, args.step, "layer_bwd", args.layer):
                    print("  " + line)


if __name__ == "__main__":
    main()
