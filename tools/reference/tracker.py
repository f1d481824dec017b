# SPDX-License-Identifier: GPL-3.0-or-later
"""Tracks every tensor storage a PyTorch program creates and frees.

Reference tooling for Headroom (tools/reference/README.md); Headroom itself
never runs Python.

A TorchDispatchMode sees the output of every aten op below autograd, so it
sees what the caching allocator would be asked for on a GPU: each new
storage is one allocation of storage.nbytes() bytes, and the storage's
death (a weakref callback on the untyped storage, which PyTorch keeps alive
as long as its StorageImpl) is the free. Views share their base's storage
and are not counted twice. This works the same on the meta device (no data)
and on the CPU (real data), which is how the meta run is checked.

Counting follows torch.cuda.max_memory_allocated: every request is rounded
up to 512 bytes (c10/cuda/CUDACachingAllocator.cpp, round_size, kMinBlockSize)
in the `allocated` counter; `requested` keeps the exact bytes.
"""

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

MIN_BLOCK = 512  # c10/cuda/CUDACachingAllocator.cpp kMinBlockSize


def block_bytes(n):
    """Bytes the CUDA caching allocator counts as allocated for an n-byte request."""
    if n == 0:
        return 0
    return (n + MIN_BLOCK - 1) // MIN_BLOCK * MIN_BLOCK


class Tracker:
    """The live set, its peak, and the event stream, with a phase label.

    `phase` and `layer` are set by the caller (accountant.py hooks) as the
    step moves on; each allocation remembers the phase it was made in, so a
    category can be given to what is alive at the peak.
    """

    def __init__(self, keep_events=False):
        self.live = {}            # storage key -> (bytes, phase, layer, op)
        self.allocated = 0
        self.peak = 0
        self.peak_info = None
        self.phase = "load"
        self.layer = -1
        self.keep_events = keep_events
        self.events = []
        self.labels = {}          # storage key -> category forced by the caller
        self._seq = 0
        self.window_peak = 0      # peak since the last reset_window()
        self.window_info = None
        self.snapshot_at = None   # (step, allocated bytes): keep the live set when the peak is reached
        self.snapshot = None
        self.step = 0

    # -- registration -------------------------------------------------------
    def _key(self, storage):
        return id(storage)

    def add_storage(self, storage, op):
        key = self._key(storage)
        if key in self.live:
            return False
        n = block_bytes(storage.nbytes())
        if n == 0:
            return False
        self.live[key] = (n, self.phase, self.layer, op)
        self.allocated += n
        self._seq += 1
        if self.keep_events:
            self.events.append(("alloc", self._seq, key, n, self.phase, self.layer, op))
        weakref.finalize(storage, self._free, key)
        self._check_peak(op)
        return True

    def add_tensor(self, t, op):
        if isinstance(t, torch.Tensor) and not t.is_sparse:
            return self.add_storage(t.untyped_storage(), op)
        return False

    def transient(self, nbytes, op):
        """An allocation that lives for one op only (a kernel's scratch): it
        counts toward the peak, then is gone."""
        n = block_bytes(nbytes)
        if n == 0:
            return
        self.allocated += n
        self._seq += 1
        key = ("scratch", self._seq)
        self.live[key] = (n, self.phase, self.layer, op)
        if self.keep_events:
            self.events.append(("alloc", self._seq, key, n, self.phase, self.layer, op))
        self._check_peak(op)
        self._free(key)

    def _free(self, key):
        entry = self.live.pop(key, None)
        if entry is None:
            return
        self.allocated -= entry[0]
        self.labels.pop(key, None)
        if self.keep_events:
            self._seq += 1
            self.events.append(("free", self._seq, key, entry[0], self.phase, self.layer, entry[3]))

    def fixed(self, nbytes, op, category):
        """An allocation made outside aten ops that stays (a library workspace)."""
        n = block_bytes(nbytes)
        self._seq += 1
        key = ("fixed", self._seq)
        self.live[key] = (n, self.phase, self.layer, op)
        self.labels[key] = category
        self.allocated += n
        if self.keep_events:
            self.events.append(("alloc", self._seq, key, n, self.phase, self.layer, op))
        self._check_peak(op)

    def _check_peak(self, op):
        if self.allocated > self.window_peak:
            self.window_peak = self.allocated
            self.window_info = {"phase": self.phase, "layer": self.layer, "op": op,
                                "categories": self.categorize()}
            if self.snapshot_at == (self.step, self.allocated):
                self.snapshot = [(n, self.labels.get(k) or _phase_category(ph), ph, ly, o)
                                 for k, (n, ph, ly, o) in self.live.items()]
        if self.allocated > self.peak:
            self.peak = self.allocated
            self.peak_info = self.window_info if self.allocated == self.window_peak else None

    def reset_window(self):
        self.window_peak = self.allocated
        self.window_info = {"phase": self.phase, "layer": self.layer, "op": "(step start)",
                            "categories": self.categorize()}

    def write_events(self, path):
        """The allocation/free stream in the plain format Headroom's caching
        allocator simulator reads: `a <id> <bytes>` and `f <id>`. Comments
        (which the reader skips) mark where each phase begins, `# event
        <step> <phase> <layer>`, and name each allocation's op, so the stream
        can be read against the plan's (stream_diff.py)."""
        ids = {}
        next_id = 0
        step, at = 0, None
        with open(path, "w") as out:
            out.write("# headroom allocator events: a <id> <bytes> | f <id>\n")
            for kind, _seq, key, n, phase, layer, op in self.events:
                if (phase, layer) != at:
                    if at is not None and at[0] == "optimizer_step":
                        step += 1
                    at = (phase, layer)
                    out.write(f"# event {step} {phase} {layer}\n")
                if kind == "alloc":
                    next_id += 1
                    ids[key] = next_id
                    out.write(f"a {next_id} {n} # {op}\n")
                elif key in ids:
                    out.write(f"f {ids.pop(key)}\n")

    # -- categories at the peak ---------------------------------------------
    def label(self, tensor, category):
        if isinstance(tensor, torch.Tensor):
            key = self._key(tensor.untyped_storage())
            if key in self.live:
                self.labels[key] = category

    def categorize(self):
        out = {}
        for key, (n, phase, _layer, _op) in self.live.items():
            cat = self.labels.get(key)
            if cat is None:
                cat = _phase_category(phase)
            out[cat] = out.get(cat, 0) + n
        return out


def _phase_category(phase):
    # What is alive at the peak and was made in a phase, when the caller gave
    # it no label: forward saves are activations, the head and loss make the
    # logits, backward makes temporaries (gradients are labelled by the caller
    # once they reach .grad), the optimizer step makes its temporaries.
    if phase in ("embed_fwd", "layer_fwd"):
        return "activations"
    if phase in ("head_fwd", "loss_fwd", "loss_bwd"):
        return "logits"
    if phase == "load":
        return "weights"
    return "temporaries"


# The aten ops that run through a cuBLAS handle.
CUBLAS_OPS = frozenset({"aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm", "aten.addbmm", "aten.mv", "aten.addmv",
                        "aten._scaled_mm"})


class TrackingMode(TorchDispatchMode):
    """Registers the storage of every op's outputs with the tracker.

    `before_op(func, args, kwargs)` and `after_op(func, args, kwargs, out)`
    let emulate.py add what a CUDA kernel allocates inside itself.
    """

    def __init__(self, tracker, emulations=None):
        super().__init__()
        self.tracker = tracker
        self.emulations = emulations

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.emulations is not None:
            self.emulations.before_op(self.tracker, func, args, kwargs)
        out = func(*args, **kwargs)
        name = str(func.overloadpacket)
        for t in tree_flatten(out)[0]:
            self.tracker.add_tensor(t, name)
        # A cuBLAS handle's workspace comes from the caching allocator when the
        # handle first runs a matmul on its stream, after that matmul's output
        # (aten/src/ATen/cuda/CublasHandlePool.cpp getCurrentCUDABlasHandle):
        # accountant.run leaves the autograd thread's pending until then.
        pending = getattr(self.tracker, "pending_workspace", None)
        if pending is not None and name in CUBLAS_OPS:
            self.tracker.pending_workspace = None
            self.tracker.fixed(*pending)
        return out
