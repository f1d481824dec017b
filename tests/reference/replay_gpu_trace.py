# SPDX-License-Identifier: GPL-3.0-or-later
"""Headroom's caching-allocator simulation against an allocator the GPU ran.

    python3 tests/reference/replay_gpu_trace.py HEADROOM_CLI

Allocator histories of torchtitan's 70B Table 4 rank 0, both steps, recorded
on an H200 (tools/reference/tp_study.py --device cuda --memory-history): the
eager run (docs/validation/gpu-h200-2026-11-26.md), and the runs with each
block compiled (--compile), without and with Float8 linears (--float8),
gpu-h200-2026-11-26b.md. Each is turned into a
replay trace (tools/reference/snapshot_trace.py) and run through
`headroom-cli replay`; the eager one also with expandable_segments:True. The
expected figures are what torch.cuda.memory_stats() read on the GPU in those
runs (log2.txt there; log.txt and log2.txt in the -26b folder): max allocated and max reserved of the
second step (a step that made no new segment, so its max reserved is the
whole run's). Only the default eager run's history was recorded; it stands
in for the expandable run's, the same program (their max allocated differ by
3.2 MB). Fails if the simulation is more than 0.1 % from any figure. Needs
only the standard library: the snapshot holds plain dicts and lists.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VALIDATION = os.path.join(ROOT, "docs", "validation")
# (snapshot, replay options, max allocated, max reserved), bytes
CASES = {
    "eager": ("gpu-h200-2026-11-26/tp-table4-history-both-steps.pickle.gz", [], 61640200704, 76768346112),
    "eager, expandable": ("gpu-h200-2026-11-26/tp-table4-history-both-steps.pickle.gz",
                          ["--expandable-segments"], 61637022208, 70657245184),
    "compiled": ("gpu-h200-2026-11-26b/tp-table4-compiled-history.pickle.gz", [], 61639676416, 70325895168),
    "compiled, Float8": ("gpu-h200-2026-11-26b/tp-table4-compiled-float8-history.pickle.gz", [], 61641773568,
                         70327992320),
}


def main():
    cli = sys.argv[1]
    failed = False
    traces = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, (snapshot, options, allocated, reserved) in CASES.items():
            if snapshot not in traces:
                traces[snapshot] = os.path.join(tmp, f"{len(traces)}.trace")
                with open(traces[snapshot], "w") as f:
                    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "reference", "snapshot_trace.py"),
                                    os.path.join(VALIDATION, snapshot)], stdout=f, check=True)
            args = [cli, "replay", traces[snapshot], "--json"] + options
            got = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
            for name, measured, simulated in (("allocated", allocated, got["peak_allocated_bytes"]),
                                              ("reserved", reserved, got["peak_reserved_bytes"])):
                error = (simulated - measured) / measured
                ok = abs(error) <= 0.001
                failed |= not ok
                print(f"{mode:20s} {name:9s} measured {measured:>12d} simulated {simulated:>12d} "
                      f"({error:+.4%}) {'ok' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
