"""The state of the vector core a kernel block is running on: its UB, pipes, mask register, flags.

``launch`` makes one ``CoreContext`` per block and makes it current while that block runs; every API
call reaches it through ``current()`` (as the C++ intrinsics reach the core they run on).
"""
from __future__ import annotations

from collections import defaultdict, deque

import numpy as np

from ..core.errors import ConstraintError, NpuSimError, RaceError
from ..core.memory import Memory
from ..core.timeline import Timeline
from ..core.trace import Trace
from ..core.view import TensorView
from .soc import SocSpec

PIPES = ("PIPE_S", "PIPE_V", "PIPE_MTE2", "PIPE_MTE3")
FULL64 = (1 << 64) - 1


class CoreContext:
    def __init__(self, soc: SocSpec, block_idx: int, block_num: int, gm: Memory, trace: Trace,
                 active_cores: int = 1, core_name: str | None = None, float_overflow: str = "inf",
                 check_pipe_v: bool = True, sync: str = "auto"):
        if sync not in ("auto", "manual"):
            raise ConstraintError("launch", "sync", "'auto' (the compiler inserts flags and barriers) or "
                                  "'manual' (every missing flag or barrier is a race)", sync)
        self.soc = soc
        # sync="auto": before each instruction, a flag pair from every pipe whose conflicting access nothing
        # orders yet, and a PipeBarrier<PIPE_V> before a vector read-after-write, as the compiler's
        # auto-sync inserts them (ascendc_sync.py); "manual": those are RaceErrors.
        self.auto_sync = sync == "auto"
        self.auto_syncs = 0          # flag pairs and barriers auto-sync inserted
        self.block_idx = block_idx
        self.block_num = block_num
        self.gm = gm
        self.active_cores = active_cores
        self.ub = Memory(f"UB(aiv{block_idx})", soc.ub_bytes)
        self.timeline = Timeline({p: soc.freq_hz for p in PIPES}, core=core_name or f"aiv{block_idx}",
                                 trace=trace)
        # Float overflow of half/float results: chips that only saturate force it; A2/A3 follow the runtime
        # mode (INF/NaN by default, ascendc.md §2.3), which npusim takes from options().float_overflow.
        self.float_overflow = "saturate" if soc.float_overflow == "saturate" else float_overflow
        # Mask register: 128 bits as (high, low) words, and the CTRL counter-mode bit.
        self.mask_high = FULL64
        self.mask_low = FULL64
        self.counter_mode = False
        self.deq_scale = 1.0
        self.pad_value = None       # SetPadValue's value (DataCopyPad with isPad false)
        # SetFlag tokens waiting for their WaitFlag: (event, id) -> FIFO of tokens (counting semantics).
        self.flags: dict = defaultdict(deque)
        self.ub_used = 0          # TPipe allocation pointer (bytes)
        self.pipes = []
        self._views: dict = {}
        # PIPE_V issues in order but its instructions may overlap: a vector instruction that reads or
        # rewrites what a recent one wrote needs PipeBarrier<PIPE_V> (ascendc.md §4.4). Recent writes since
        # the last barrier are kept here (the last few: older ones have drained).
        self.check_pipe_v = check_pipe_v
        self.v_writes: list = []
        self.v_span = (1 << 62, -1)
        self.plans: dict = {}
        self.computes: dict = {}
        self.fast: dict = {}        # whole calls by argument key (repeat.cached_call)
        self.fast_pending = None
        self.gm_accesses: list = []  # (view, is_write, api) of this block, for launch's cross-core check  # compute closures by (api, src, dst, overflow mode, deq scale)     # level-0 instruction plans by geometry (repeat._plan)

    def view(self, addr: int, shape: tuple, strides, dtype, api: str, memory: Memory | None = None) -> TensorView:
        """A UB TensorView, cached by geometry: kernels issue the same operand shapes over and over, and a
        view's bounds check and numpy array are then paid once."""
        mem = self.ub if memory is None else memory
        key = (mem.id, addr, shape, strides, dtype.name)
        v = self._views.get(key)
        if v is None:
            if len(self._views) > 4096:
                self._views.clear()
            v = self._views[key] = TensorView(mem, addr, shape, strides, dtype, api=api)
        return v

    def drain_v(self) -> None:
        """Every earlier vector instruction has completed (PipeBarrier<PIPE_V>, a V-side SetFlag, V_V)."""
        self.v_writes.clear()
        self.v_span = (1 << 62, -1)

    def place(self, pipe: str, name: str, cycles: float, reads=(), writes=(), **kw):
        if pipe == "PIPE_V" and self.check_pipe_v and (reads or writes):
            self._check_pipe_v(name, reads, writes)
        if self.auto_sync and (reads or writes):
            return place_auto(self, pipe, name, cycles, reads, writes, **kw)
        return self.timeline.place(pipe, name, cycles, reads=reads, writes=writes, order="sync", **kw)


V_WINDOW = 4       # vector instructions that may still be in flight when the next one issues (assumption)


def _pipe_v_check(self, name, reads, writes):
    """Read-after-write inside PIPE_V with no barrier: a RaceError (write-after-write in one in-order unit
    is left alone), or under auto-sync an inserted PipeBarrier<PIPE_V>. ``v_span`` bounds every remembered
    write, so the usual call is rejected in one test."""
    if self.v_writes:
        lo, hi = self.v_span
        for fp in reads:
            if fp.lo < hi and lo < fp.hi:
                for prev_name, prev_fps in self.v_writes:
                    for w in prev_fps:
                        if fp.lo < w.hi and w.lo < fp.hi and fp.memory is w.memory and fp.overlaps_exactly(w):
                            if self.auto_sync:
                                auto_barrier_v(self, name, prev_name)
                                break
                            raise RaceError(
                                f"race (read-after-write) on {fp.describe()} inside PIPE_V: {name} reads what "
                                f"{prev_name} wrote with no PipeBarrier<PIPE_V>() between them (vector "
                                f"instructions may overlap in the pipe)")
    if writes:
        self.v_writes.append((name, writes))
        if len(self.v_writes) > V_WINDOW:
            del self.v_writes[0]
        lo, hi = self.v_span                     # a superset since the last drain: cheap and safe
        for w in writes:
            lo, hi = min(lo, w.lo), max(hi, w.hi)
        self.v_span = (lo, hi)


CoreContext._check_pipe_v = _pipe_v_check

from .auto_sync import auto_barrier_v, place_auto  # noqa: E402  (auto_sync places events on a CoreContext)


_stack: list[CoreContext] = []


def current() -> CoreContext:
    if not _stack:
        raise NpuSimError("no kernel is running: call Ascend C APIs inside a kernel started with "
                          "asc.launch(kernel, block_num, *arrays)")
    return _stack[-1]


_saved_err: list = []


def push(ctx: CoreContext) -> None:
    """Make ``ctx`` the running core. The vector unit raises no floating-point exceptions (overflow gives
    inf or saturates, 0/0 gives NaN), so numpy's warnings are silenced while a core runs (once here, not
    per instruction) and restored by ``pop``."""
    _saved_err.append(np.seterr(all="ignore"))
    _stack.append(ctx)


def pop() -> None:
    _stack.pop()
    np.seterr(**_saved_err.pop())
