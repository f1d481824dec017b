# SPDX-License-Identifier: GPL-3.0-or-later
"""A PyTorch allocator history as a headroom-cli replay trace.

    python3 tools/reference/snapshot_trace.py SNAPSHOT[.gz] > step.trace
    headroom-cli replay step.trace --json

SNAPSHOT is what torch.cuda.memory._dump_snapshot wrote after
_record_memory_history (tp_study.py --device cuda --memory-history,
cuda_check.py with HEADROOM_MEMORY_HISTORY). Its trace holds the requests made
while recording, in order, each with its stream; a block is back in the pool at
its free_completed (after the events record_stream waits for), so that is the
free written. Tensors made before the recording began and alive at its end
(parameters, buffers) are read from the snapshot's segments and written first,
in address order. The compute stream is the trace's stream 0; each other
stream becomes s1, s2... in the order it first appears. Replaying this through
Headroom's simulation of the caching allocator checks the simulation alone,
apart from the plan's tensors.
"""
import gzip
import pickle
import sys


def main():
    path = sys.argv[1]
    with (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) as f:
        snapshot = pickle.load(f)
    trace = snapshot["device_traces"][0]
    streams = {}

    def tag(stream):
        if stream == 0:
            return ""
        streams.setdefault(stream, len(streams) + 1)
        return f" s{streams[stream]}"

    alive_at_end = {}
    for e in trace:
        if e["action"] == "alloc":
            alive_at_end[e["addr"]] = e["size"]
        elif e["action"] == "free_completed":
            alive_at_end.pop(e["addr"], None)
    before = []
    for segment in snapshot["segments"]:
        addr = segment["address"]
        for block in segment["blocks"]:
            if block["state"] == "active_allocated" and addr not in alive_at_end:
                before.append((addr, block["size"], segment["stream"]))
            addr += block["size"]
    out, ids, next_id = [], {}, 0
    out.append(f"# made before the recording: {len(before)} tensors, {sum(b[1] for b in before)} bytes")
    for _, size, stream in sorted(before):
        out.append(f"a {next_id} {size}{tag(stream)}")
        next_id += 1
    for e in trace:
        if e["action"] == "alloc":
            ids[e["addr"]] = next_id
            out.append(f"a {next_id} {e['size']}{tag(e['stream'])}")
            next_id += 1
        elif e["action"] == "free_completed" and e["addr"] in ids:
            out.append(f"f {ids.pop(e['addr'])}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
