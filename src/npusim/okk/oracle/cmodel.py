"""Sophgo's BM1684 C-model (tpu-mlir 1.30.2) driven through ctypes, in a worker process.

Reference: docs okkernel.md §6 and okkernel_cycles.md §2.  ``cmodel_init(0, bytes)`` allocates the
global memory and fills the lookup tables; ``get_global_memaddr(0)`` is the host pointer of device
address ``0x1_0000_0000``; ``get_local_memaddr_by_node(0, 0)`` is the 64 x 512 KiB local memory, one
contiguous buffer with NPU i at byte ``i * 0x80000`` (so a ``local_addr_t`` is the byte offset).

The C-model reports errors with ``exit(-1)`` and executes calls eagerly, so it runs in a separate
process (:class:`Oracle`): a failed assertion ends that process, never pytest.  A *program* is a list
of steps sent in one message (batched, so thousands of cases cost a few pipe round trips):

* ``("ws", system_addr, bytes)`` / ``("wl", local_addr, bytes)``: host writes;
* ``("rs", system_addr, nbytes)`` / ``("rl", local_addr, nbytes)``: host reads, returned in order;
* ``("wls", offset, npus, bytes)`` / ``("rls", offset, npus, span)``: the same offset of several NPUs
  (``bytes`` holds ``len(npus)`` equal spans back to back; the read returns them likewise);
* ``("call", "okk_name", args)``: one okk call, arguments in C order as :mod:`signatures` types them.

With ``libbackend_bm1684.so`` (the default; the C-model built with statistics, numerically identical
to ``libcmodel_bm1684.so``) every call also yields Sophgo's per-instruction cycle records: the worker
turns on the profile dump (``bm_set_profile_dump``), reads the rows ``okk_poll`` appends, and maps
them to calls through the BD/GDMA command ids of the okk command-id node (``okk_get_id_node``).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import re
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from .fetch import available, library_path
from .signatures import SIGNATURES

GLOBAL_START = 0x1_0000_0000
GLOBAL_BYTES = 1 << 28          # what the worker asks cmodel_init for (256 MiB is plenty for tests)
LANE_BYTES = 0x80000
LOCAL_BYTES = 64 * LANE_BYTES
NODE_BYTES = 0x84               # CMD_ID_NODE under BM_STAS_GEN (okkernel_cycles.md §1)
LIBRARIES = {"backend": "libbackend_bm1684.so", "cmodel": "libcmodel_bm1684.so"}

_ROW = re.compile(r"\|([A-Z_0-9]+)\|s:(\d+)\|b:(\d+)\|g:(\d+)\|e:(\d+)\|t:(\d+)(?:\|dr:(\d+)\|sz:(\d+))?")
_END = re.compile(r"API_END total_cycle:(\d+)")
GDMA_DIRECTIONS = {0: "S2L", 1: "L2S", 2: "S2S", 3: "L2L"}


@dataclass(frozen=True)
class Instruction:
    """One hardware instruction as Sophgo's cost model scheduled it."""
    engine: str          # "BD" or "GDMA"
    name: str            # MD_SCALAR, MD_SFU, TABLE_LOOKUP, TENSOR_GDMA, ...
    start: int
    end: int             # inclusive: end == start + cycles - 1
    cycles: int
    bd_id: int
    gdma_id: int
    direction: str | None = None
    size: int | None = None


@dataclass
class CallRecord:
    name: str
    bd_ids: tuple[int, int]       # (before, after): the call issued BD ids before+1 .. after
    gdma_ids: tuple[int, int]
    cycle_count: int | None       # node cycle_count after the call (modelled elapsed time)
    instructions: list[Instruction] = field(default_factory=list)

    @property
    def cycles(self) -> int:
        return sum(i.cycles for i in self.instructions)


@dataclass
class Result:
    reads: list[bytes]
    calls: list[CallRecord]
    totals: list[int]             # API_END total_cycle of each okk_poll section
    seconds: float                # wall time spent inside the C-model calls only
    error: str | None = None      # set when the C-model aborted (exit/assert): its last output


def parse_dump(text: str) -> tuple[list[Instruction], list[int]]:
    """Rows and API_END totals of profile-dump sections (format: okkernel_cycles.md §2)."""
    rows = []
    for line in text.splitlines():
        for m in _ROW.finditer(line):
            engine = "BD" if m.start() < 5 else "GDMA"
            dr = m.group(7)
            rows.append(Instruction(engine, m.group(1), int(m.group(2)), int(m.group(5)), int(m.group(6)),
                                    int(m.group(3)), int(m.group(4)),
                                    GDMA_DIRECTIONS.get(int(dr)) if dr is not None else None,
                                    int(m.group(8)) if m.group(8) is not None else None))
    return rows, [int(t) for t in _END.findall(text)]


class _Dim4(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("c", ctypes.c_int), ("h", ctypes.c_int), ("w", ctypes.c_int)]


_CTYPES = {"L": ctypes.c_uint32, "S": ctypes.c_uint64, "D4": ctypes.c_void_p, "i": ctypes.c_int,
           "x32": ctypes.c_uint32, "x16": ctypes.c_uint16, "x8": ctypes.c_uint8, "f": ctypes.c_float,
           "P": ctypes.c_void_p}   # P: any other struct pointer, given as its packed bytes (or None)


class CModel:
    """The library loaded in *this* process. Use it only inside a worker (see :class:`Oracle`)."""

    def __init__(self, which: str = "backend", profile_dir: str | None = None):
        path = str(library_path(LIBRARIES[which]))
        # libbackend leaves fw_log unresolved (a lazy PLT slot never reached): load lazily.
        self.lib = lib = ctypes.CDLL(path, mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
        self.stats = which == "backend"
        lib.cmodel_init.argtypes = [ctypes.c_int32, ctypes.c_int64]
        lib.cmodel_init.restype = ctypes.c_int32
        if lib.cmodel_init(0, GLOBAL_BYTES) != 0:
            raise RuntimeError("cmodel_init failed")
        lib.get_global_memaddr.argtypes = [ctypes.c_int32]
        lib.get_global_memaddr.restype = ctypes.c_void_p
        lib.get_local_memaddr_by_node.argtypes = [ctypes.c_int32, ctypes.c_int32]
        lib.get_local_memaddr_by_node.restype = ctypes.c_void_p
        self.ddr = (ctypes.c_uint8 * GLOBAL_BYTES).from_address(lib.get_global_memaddr(0))
        self.lmem = (ctypes.c_uint8 * LOCAL_BYTES).from_address(lib.get_local_memaddr_by_node(0, 0))
        self.funcs = {}
        for name, kinds in SIGNATURES.items():
            f = getattr(lib, name)
            f.argtypes = [_CTYPES[k] for k in kinds]
            f.restype = None
            self.funcs[name] = (f, kinds)
        self._node = (ctypes.c_uint8 * NODE_BYTES)()
        lib.okk_get_id_node.argtypes = [ctypes.c_void_p]
        self._dump = None
        self._dump_pos = 0
        if self.stats:
            # The dump goes to "<prefix>_0.dat" in the cwd; bm_set_profile_path with an absolute path
            # made fopen fail here, so the worker chdirs into a private directory instead.
            d = profile_dir or tempfile.mkdtemp(prefix="npusim-cmodel-")
            os.chdir(d)
            lib.bm_stas_gen_init(0)
            lib.bm_set_profile_dump.argtypes = [ctypes.c_bool]
            lib.bm_set_profile_dump(True)
            self._dump = os.path.join(d, "_0.dat")
        self._libc = ctypes.CDLL(None)

    # -- memory -------------------------------------------------------------------------------
    def _span(self, addr: int, n: int, local: bool):
        if local:
            if not 0 <= addr and addr + n <= LOCAL_BYTES:
                raise ValueError(f"local range 0x{addr:x}+{n} outside local memory")
            return self.lmem, addr
        off = addr - GLOBAL_START
        if not 0 <= off and off + n <= GLOBAL_BYTES:
            raise ValueError(f"system range 0x{addr:x}+{n} outside the C-model's {GLOBAL_BYTES} B")
        return self.ddr, off

    def write(self, addr: int, data: bytes, local: bool) -> None:
        buf, off = self._span(addr, len(data), local)
        ctypes.memmove(ctypes.addressof(buf) + off, data, len(data))

    def read(self, addr: int, n: int, local: bool) -> bytes:
        buf, off = self._span(addr, n, local)
        return ctypes.string_at(ctypes.addressof(buf) + off, n)

    # -- calls --------------------------------------------------------------------------------
    def node(self) -> tuple[int, int, int]:
        self.lib.okk_get_id_node(self._node)
        b = bytes(self._node)
        u = lambda o: int.from_bytes(b[o:o + 4], "little")  # noqa: E731
        return u(0), u(4), (u(0xC) if self.stats else None)

    def call(self, name: str, args) -> None:
        f, kinds = self.funcs[name]
        if len(args) != len(kinds):
            raise TypeError(f"{name} takes {len(kinds)} arguments, got {len(args)}")
        keep = []
        cargs = []
        for kind, a in zip(kinds, args):
            if kind == "D4":
                if a is None:
                    cargs.append(None)
                else:
                    d = _Dim4(*a)
                    keep.append(d)
                    cargs.append(ctypes.addressof(d))
            elif kind == "P" and a is not None:
                from .signatures_part_two import pack_struct
                raw = pack_struct(a)
                b = ctypes.create_string_buffer(raw, len(raw))
                keep.append(b)
                cargs.append(ctypes.addressof(b))
            else:
                cargs.append(a)
        f(*cargs)

    def new_dump_text(self) -> str:
        if self._dump is None:
            return ""
        self._libc.fflush(None)
        with open(self._dump, "r", errors="replace") as fh:
            fh.seek(self._dump_pos)
            text = fh.read()
            self._dump_pos = fh.tell()
        return text

    def run(self, program) -> Result:
        reads, calls = [], []
        seconds = 0.0
        for step in program:
            op = step[0]
            if op == "ws":
                self.write(step[1], step[2], False)
            elif op == "wl":
                self.write(step[1], step[2], True)
            elif op == "wls":          # same offset on several NPUs: (op, offset, npus, bytes)
                data, npus = step[3], step[2]
                span = len(data) // max(len(npus), 1)
                for k, p in enumerate(npus):
                    self.write(p * LANE_BYTES + step[1], data[k * span:(k + 1) * span], True)
            elif op == "rls":          # (op, offset, npus, span): one read of len(npus)*span bytes
                reads.append(b"".join(self.read(p * LANE_BYTES + step[1], step[3], True) for p in step[2]))
            elif op == "rs":
                reads.append(self.read(step[1], step[2], False))
            elif op == "rl":
                reads.append(self.read(step[1], step[2], True))
            elif op == "call":
                bd0, g0, _ = self.node()
                t = time.perf_counter()
                self.call(step[1], step[2])
                seconds += time.perf_counter() - t
                bd1, g1, cyc = self.node()
                calls.append(CallRecord(step[1], (bd0, bd1), (g0, g1), cyc))
            else:
                raise ValueError(f"unknown program step {op!r}")
        text = self.new_dump_text()
        _attach(calls, text)
        return Result(reads, calls, parse_dump(text)[1], seconds)


def _sections(text: str) -> list[list[Instruction]]:
    """The rows of each okk_poll section (each section ends with its API_END line)."""
    parts = re.split(r"API_END total_cycle:\d+[^\n]*\n?", text)
    return [parse_dump(p)[0] for p in parts[:-1]] if len(parts) > 1 else []


def _attach(calls: list[CallRecord], text: str) -> None:
    """Give each call the instructions whose command ids it issued. Ids restart at okk_initialize;
    the j-th okk_poll writes section j, which holds the calls issued since the previous poll."""
    maps = [({r.bd_id: r for r in rows if r.engine == "BD"}, {r.gdma_id: r for r in rows if r.engine == "GDMA"})
            for rows in _sections(text)]
    sec = 0
    for c in calls:
        bd, gd = maps[sec] if sec < len(maps) else ({}, {})
        c.instructions.extend(bd[i] for i in range(c.bd_ids[0] + 1, c.bd_ids[1] + 1) if i in bd)
        c.instructions.extend(gd[i] for i in range(c.gdma_ids[0] + 1, c.gdma_ids[1] + 1) if i in gd)
        if c.name == "okk_poll":
            sec += 1


# ---- worker process ----------------------------------------------------------------------------
# A plain subprocess (``python -m npusim.okk.oracle.cmodel``) speaking length-prefixed pickles over
# its stdin and a duplicate of its original stdout: unlike multiprocessing's spawn it never
# re-imports the caller's __main__, so scripts and benchmarks can use it without a main guard.

def _send(fh, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(struct.pack("<Q", len(data)))
    fh.write(data)
    fh.flush()


def _recv(fh):
    head = fh.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = fh.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


def _serve(which: str, log_path: str) -> None:
    out = os.fdopen(os.dup(1), "wb")
    inp = os.fdopen(os.dup(0), "rb")
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)   # the C-model prints (and asserts) on stdout/stderr: keep it for error reports
    os.dup2(fd, 2)
    cm = CModel(which)
    _send(out, "ready")
    while True:
        try:
            program = _recv(inp)
        except EOFError:
            return
        try:
            result = cm.run(program)
        except Exception as exc:  # a Python-side error (bad program); the C-model state survives
            result = exc
        _send(out, result)


class OracleCrash(RuntimeError):
    """The C-model process ended (exit/abort inside the library)."""


class Oracle:
    """Client of one C-model worker process; restarts it after a crash."""

    def __init__(self, which: str = "backend"):
        if not available():
            raise FileNotFoundError("C-model libraries absent: run python -m npusim.okk.oracle.fetch")
        self.which = which
        self._proc = None
        self._log = os.path.join(tempfile.mkdtemp(prefix="npusim-oracle-"), "cmodel.log")

    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self._proc = subprocess.Popen([sys.executable, "-m", "npusim.okk.oracle.cmodel", self.which,
                                       self._log], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      env=env)
        try:
            ready = _recv(self._proc.stdout)
        except EOFError:
            ready = None
        if ready != "ready":
            raise OracleCrash(f"C-model worker failed to start: {self.log_tail()}")

    def log_tail(self, n: int = 2000) -> str:
        try:
            with open(self._log, "r", errors="replace") as fh:
                return fh.read()[-n:]
        except OSError:
            return ""

    def submit(self, program) -> None:
        """Send a program without waiting: the C-model runs while the caller does other work
        (the differential tests run npusim meanwhile). Collect with :meth:`collect`."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        try:
            _send(self._proc.stdin, list(program))
        except (BrokenPipeError, ConnectionResetError):
            pass   # reported by collect()

    def collect(self) -> Result:
        try:
            out = _recv(self._proc.stdout)
        except (EOFError, BrokenPipeError, ConnectionResetError):
            code = self._proc.wait(10)
            err = f"C-model exited with code {code}: {self.log_tail()}"
            self._proc = None
            return Result([], [], [], 0.0, error=err)
        if isinstance(out, Exception):
            raise out
        return out

    def run(self, program) -> Result:
        """Run one program; a C-model abort gives a Result with ``error`` set (and a fresh worker)."""
        self.submit(program)
        return self.collect()

    def close(self) -> None:
        if self._proc is not None:
            try:
                self._proc.stdin.close()
                self._proc.wait(5)
            except Exception:
                self._proc.kill()
                self._proc.wait(5)
            self._proc.stdout.close()
            self._proc = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


if __name__ == "__main__":
    # Serve from the imported module, not __main__, so the pickled Result classes resolve in clients.
    from npusim.okk.oracle import cmodel as _module
    _module._serve(sys.argv[1], sys.argv[2])
