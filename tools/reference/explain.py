# SPDX-License-Identifier: GPL-3.0-or-later
"""What is alive at one reference case's peak, grouped by category, phase and op.

    .venv-ref/bin/python tools/reference/explain.py CASE_ID [--top 25]

Runs the case twice through accountant.py: once for the peak, once to keep
the live set when the last step reaches it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import accountant  # noqa: E402
import reference_set  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    cases = {c["id"]: c for c in reference_set.build_cases()}
    case = cases.get(args.case) or next((c for i, c in cases.items() if args.case in i), None)
    if case is None:
        raise SystemExit(f"no case matches {args.case}")
    first = accountant.run(case["scenario"])
    steps = len(first["steps"])
    second = accountant.run(case["scenario"], snapshot_at=(steps - 1, first["peak_allocated_bytes"]))
    print(f"{case['id']}: peak {first['peak_allocated_bytes'] / 2**30:.3f} GiB in {first['peak_phase']} "
          f"layer {first['peak_layer']} at {first['peak_op']}")
    for cat, n in sorted(first["categories"].items(), key=lambda kv: -kv[1]):
        print(f"  {cat:16s} {n / 2**20:12.1f} MiB")
    print("alive at the peak (category, phase made in, layer, op, MiB, count):")
    for cat, phase, layer, op, n, count in second.get("snapshot", [])[:args.top]:
        print(f"  {cat:16s} {phase:15s} {layer:9s} {op:45s} {n / 2**20:10.1f} {count:6d}")


if __name__ == "__main__":
    main()
