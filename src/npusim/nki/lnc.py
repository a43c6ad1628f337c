"""The programs of a launch grid, and what passes between them: ``nisa.sendrecv`` and ``nisa.core_barrier``
on a Logical NeuronCore of two cores (LNC2, ``kernel[2]``).

The programs run one at a time, in order, as before: program 0 to its end, then program 1 ... Each runs
in a thread of its own, so that one may stop inside a ``sendrecv`` or ``core_barrier`` until the other
reaches the matching call; control passes only there or when a program ends (cooperative: never two
threads in a kernel at once, so the launch's Run needs no locks and runs are deterministic). A program
waiting for a peer that ended, or programs all waiting on each other, raise a ConstraintError naming the
call. A grid of one program runs inline, with no thread.

Timing. An LNC2 launch (``kernel[2]`` on NeuronCore-v3 or newer: trn2, trn3) runs program k on physical
core k ("How to tell which core a kernel is running on": ``nl.program_id(0)``); each core has its own
engines and DMA queues, so each has its own timeline (trace core "nc0" / "nc1", one shared trace) and its
own DMA engines' busy intervals (``Cores``). A program switch swaps ``run.timeline`` and those, nothing
else: ``Run.issue`` places on the running core. The cores order each other only where the kernel
synchronises them, as on the chip (they share HBM but no semaphores): a sendrecv's receive starts after
the sender's tile was written, a collective's transfers after every rank's sources were written, and a
core_barrier starts when the last core arrived (its writes to ``data`` done) and counts as a write of
``data`` on each core, so what a core does with ``data`` afterwards waits for it. Every other grid (trn1,
one program, more programs than cores) keeps the launch's one timeline: all its programs on core "nc0".
"""
from __future__ import annotations

import threading

import numpy as np

from ..core.errors import ConstraintError
from ..core.timeline import Timeline
from . import rules as R
from .dma import DmaEngines
from .runtime import NkiInstruction, current
from .tensor import MemoryRegion, NkiTensor

BARRIER_CYCLES = 64.0       # a remote semaphore write and a local wait (unpublished: one MIN_II assumed)
LNC2_CORES = 2              # physical NeuronCores of a Logical NeuronCore at LNC degree 2
_PEER = "another core"      # an engine name no timeline has: its dependency scans skip nothing


class _Core:
    """One physical core's timing state: its timeline, its DMA engines' busy intervals, the TensorE
    weight-load state isa_matmul keeps on the run."""
    __slots__ = ("timeline", "dma_engines", "ls_end_ns", "mm_last_start_ns")

    def __init__(self, timeline, dma_engines):
        self.timeline, self.dma_engines = timeline, dma_engines
        self.ls_end_ns = self.mm_last_start_ns = 0.0


def lnc2_cores(run) -> "list[_Core] | None":
    """The two cores of an LNC2 launch, core 0 with the run's own timeline; None for any other grid."""
    if run.chip.nc_version < 3 or int(np.prod(run.grid)) != LNC2_CORES:
        return None
    tl0 = run.timeline
    freqs = {name: e.freq_hz for name, e in tl0.engines.items()}
    cores = [_Core(tl0, run.dma_engines)]
    for k in range(1, LNC2_CORES):
        cores.append(_Core(Timeline(freqs, core=f"nc{k}", trace=tl0.trace), DmaEngines(len(run.dma_engines.floor))))
    return cores


def data_ready_ns(run, tensors) -> float:
    """When the running core's writes to ``tensors`` end (what a peer core reading them waits for)."""
    return run.timeline.dependencies_end([t.tv for t in tensors], [], _PEER)


class _Abort(BaseException):
    """Unwinds a waiting program when the launch fails elsewhere (not an Exception: kernels can't catch it)."""


class _Program:
    def __init__(self, index: int, coords: tuple):
        self.index = index
        self.coords = coords
        self.thread = None
        self.waiting_for = None     # a callable: True when this program may go on; None when not waiting
        self.what = ""              # the call it waits in (for the deadlock message)
        self.done = False
        self.result = None
        self.error = None
        self.shared_next = 0
        self.scopes: list = []


class Programs:
    """The cooperative scheduler of one launch's programs (``run.programs`` while they run)."""

    def __init__(self, run, fn, args, kwargs):
        self.run, self.fn, self.args, self.kwargs = run, fn, args, kwargs
        self.progs = [_Program(i, tuple(int(c) for c in p)) for i, p in enumerate(np.ndindex(*run.grid))]
        self.cv = threading.Condition()
        self.turn = None            # the program allowed to run now
        self.abort = False
        self.mail: dict = {}        # (pipe_id, sender, receiver) -> list of (values, dtype name, shape)
        self.barriers: dict = {}    # cores tuple -> list of arrival records of the open round
        self.rounds: dict = {}      # (collective, group) -> [ {rank: payload} per round ]
        self.calls: dict = {}       # (collective, group, rank) -> calls made so far
        self.cores = lnc2_cores(run)    # LNC2: program k runs on core k (its own timeline); else None
        self.ready: dict = {}       # ((collective, group), round) -> {rank: when its sources were written}
        self._arrived: dict = {}    # rank -> arrived_ns of its latest exchange

    # ---- the scheduler (main thread) ----

    def run_all(self):
        for p in self.progs:
            p.thread = threading.Thread(target=self._body, args=(p,), name=f"nki-program-{p.index}", daemon=True)
            p.thread.start()
        try:
            while True:
                nxt = self._next()
                if nxt is None:
                    break
                with self.cv:
                    self.turn = nxt.index
                    self.cv.notify_all()
                    while self.turn is not None:
                        self.cv.wait()
                failed = next((p for p in self.progs if p.error is not None), None)
                if failed is not None:
                    raise failed.error
        finally:
            self._stop()
            if self.cores is not None:      # the run's timeline is core 0's again (last_run().timeline)
                self._switch(self.cores[0])
        return self.progs[0].result

    def _next(self):
        for p in self.progs:
            if not p.done and (p.waiting_for is None or p.waiting_for()):
                return p
        stuck = [p for p in self.progs if not p.done]
        if stuck:
            p = stuck[0]
            raise ConstraintError(p.what.split("(")[0] or "nki", "program",
                                  "every core reaches the matching call (a program waits for a peer that ended "
                                  "or that waits too)", f"program {p.index} waits in {p.what}")
        return None

    def _stop(self):
        with self.cv:
            self.abort = True
            self.cv.notify_all()
        for p in self.progs:
            if p.thread is not None:
                p.thread.join()

    # ---- a program (its own thread) ----

    def _body(self, p: _Program):
        with self.cv:
            while self.turn != p.index and not self.abort:
                self.cv.wait()
        try:
            if not self.abort:
                self._enter(p)
                with np.errstate(all="ignore"):         # errstate is per thread (runtime.activate sets it)
                    p.result = self.fn(*self.args, **self.kwargs)
        except _Abort:
            pass
        except BaseException as e:                     # noqa: BLE001  (re-raised by the scheduler)
            p.error = e
        finally:
            p.done = True
            with self.cv:
                self.turn = None
                self.cv.notify_all()

    def _enter(self, p: _Program):
        run = self.run
        run.program, run._shared_next, run.scopes = p.coords, p.shared_next, p.scopes
        if self.cores is not None:
            self._switch(self.cores[p.index])

    def _switch(self, core: _Core):
        """Make ``core`` the one instructions are placed on (saving the running core's matmul state)."""
        run = self.run
        for c in self.cores:
            if c.timeline is run.timeline:
                c.ls_end_ns = getattr(run, "_ls_end_ns", 0.0)
                c.mm_last_start_ns = getattr(run, "_mm_last_start_ns", 0.0)
        run.timeline, run.dma_engines = core.timeline, core.dma_engines
        run._ls_end_ns, run._mm_last_start_ns = core.ls_end_ns, core.mm_last_start_ns

    def wait(self, what: str, ready) -> None:
        """Stop the running program until ``ready()`` holds; the others run meanwhile."""
        if ready():
            return
        p = self.progs[self.current_index()]
        run = self.run
        p.shared_next, p.scopes = run._shared_next, run.scopes
        p.waiting_for, p.what = ready, what
        with self.cv:
            self.turn = None
            self.cv.notify_all()
            while self.turn != p.index and not self.abort:
                self.cv.wait()
        if self.abort:
            raise _Abort()
        p.waiting_for = None
        self._enter(p)

    def current_index(self) -> int:
        return self.turn

    def exchange(self, what: str, kind: str, group: tuple, payload, sources=()) -> dict:
        """Post this program's ``payload`` to its next ``kind`` round among ``group``; wait until every
        member posted; every member's payload by rank. On LNC2, ``arrived_ns(rank)`` is then when the
        last member's ``sources`` were written (a collective's transfers start no earlier)."""
        me = self.current_index()
        key = (kind, group)
        n = self.calls.get(key + (me,), 0)
        self.calls[key + (me,)] = n + 1
        rounds = self.rounds.setdefault(key, [])
        while len(rounds) <= n:
            rounds.append({})
        rnd = rounds[n]
        rnd[me] = payload
        ready = self.ready.setdefault((key, n), {})
        ready[me] = data_ready_ns(self.run, sources) if self.cores is not None and sources else 0.0
        self.wait(what, lambda: len(rnd) == len(group))
        self._arrived[me] = max(ready.values())
        return rnd

    def arrived_ns(self, rank: int) -> float:
        """When every member of ``rank``'s latest exchange had its sources written (0 off LNC2)."""
        return self._arrived.get(rank, 0.0)


def run_programs(run, fn, args, kwargs):
    """Run the kernel body once per program of ``run.grid``; the first program's return value."""
    run.timelines = [run.timeline]      # one per physical core the launch uses (LNC2: two)
    if int(np.prod(run.grid)) == 1:
        run.program = (0,) * len(run.grid)
        run._shared_next = 0
        return fn(*args, **kwargs)
    progs = Programs(run, fn, args, kwargs)
    if progs.cores is not None:
        run.timelines = [c.timeline for c in progs.cores]
    run.programs = progs
    try:
        return progs.run_all()
    finally:
        run.programs = None


# ------------------------------------------------------------------------------------------ sendrecv

def _lnc(api, run):
    if run.chip.nc_version < 3:
        raise ConstraintError(api, "target", "NeuronCore-v3 or newer (trn2, trn3) with LNC2", run.chip.name)
    progs = getattr(run, "programs", None)
    n = int(np.prod(run.grid))
    if progs is None or n != 2:
        raise ConstraintError(api, "grid", "a kernel launched on two cores (LNC2: kernel[2])",
                              f"{n} program(s)")
    return progs


def _rank(api, param, r):
    if not isinstance(r, (int, np.integer)) or isinstance(r, bool) or r not in (0, 1):
        raise ConstraintError(api, param, "0 or 1 (the two cores of an LNC2)", r)
    return int(r)


def sendrecv(src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=None, name=None) -> NkiInstruction:
    """Send ``src`` to ``dst`` of core ``send_to_rank`` and receive ``dst`` from core ``recv_from_rank``; the
    call returns once this core's receive arrived (operations of one ``pipe_id`` complete together)."""
    api = "nisa.sendrecv"
    run = current(api)
    for p, t in (("src", src), ("dst", dst)):
        R.tile(api, p, t)
        if t.buffer is not MemoryRegion.sbuf:
            raise ConstraintError(api, p, "a tile in SBUF", t.buffer)
    if src.tv.dtype != dst.tv.dtype:
        raise ConstraintError(api, "dst", "src and dst have the same dtype", (src.tv.dtype.name, dst.tv.dtype.name))
    if tuple(src.shape) != tuple(dst.shape):
        raise ConstraintError(api, "dst", "src and dst have the same shape", (src.shape, dst.shape))
    if dma_engine is not None and getattr(dma_engine, "name", None) == "gpsimd_dma":
        limit = {4: 1024, 2: 512, 1: 256}.get(src.itemsize, 1024)
        if src.free_size * src.itemsize > limit:
            raise ConstraintError(api, "dma_engine", f"gpsimd_dma moves at most {limit} bytes per partition "
                                  f"for {8 * src.itemsize}-bit data", src.free_size * src.itemsize)
    progs = _lnc(api, run)
    to, frm = _rank(api, "send_to_rank", send_to_rank), _rank(api, "recv_from_rank", recv_from_rank)
    me = progs.current_index()
    # What the peer receives, and when it was written on this core (the receive cannot start before)
    sent = (np.array(src.read(api), copy=True), data_ready_ns(run, [src]))
    progs.mail.setdefault((pipe_id, me, to), []).append(sent)
    key = (pipe_id, frm, me)
    progs.wait(f"{api}(pipe_id={pipe_id}, recv_from_rank={frm})", lambda: bool(progs.mail.get(key)))
    values, sent_ns = progs.mail[key].pop(0)
    if values.shape != tuple(dst.shape):
        raise ConstraintError(api, "dst", "the peer's src has this dst's shape", (values.shape, dst.shape))
    dst.write(values)
    from .isa import dma_issue
    # One DMA on this core's queue: it reads src (sent) and writes dst (received), after the peer's src
    return dma_issue(api, run, dst, src, [src], [dst], not_before_ns=sent_ns)


def core_barrier(data, cores, engine=None, name=None) -> NkiInstruction:
    """Every core of ``cores`` (only ``(0, 1)``) reaches the barrier before any goes on; ``data`` is the
    shared HBM tensor they synchronise on."""
    api = "nisa.core_barrier"
    run = current(api)
    if not isinstance(data, NkiTensor) or data.buffer is not MemoryRegion.shared_hbm:
        raise ConstraintError(api, "data", "a tensor in shared HBM", getattr(data, "buffer", type(data).__name__))
    try:
        cores = tuple(int(c) for c in cores)
    except (TypeError, ValueError):
        cores = None
    if cores != (0, 1):
        raise ConstraintError(api, "cores", "(0, 1): the two cores of an LNC2", cores)
    from .isa import engine as _engine_enum, choose_engine
    eng = choose_engine(api, run, engine if engine is not None else _engine_enum.gpsimd,
                        {"gpsimd": None, "vector": None, "scalar": None, "tensor": None}, order=("gpsimd",))
    progs = _lnc(api, run)
    arrive = run.ready_ns(eng, reads=[data])
    rounds = progs.barriers.setdefault(cores, [])
    if not rounds or len(rounds[-1]) == len(cores):
        rounds.append([])
    rnd = rounds[-1]
    rnd.append(arrive)
    progs.wait(f"{api}(cores={cores})", lambda: len(rnd) == len(cores))
    # The barrier ends each core's writes to ``data`` before anything later on this core touches it: it
    # is placed as a write of ``data`` (no bytes move), starting when the last core arrived.
    ev = run.timeline.place(eng, api, BARRIER_CYCLES, reads=[], writes=[data.tv], not_before_ns=max(rnd))
    return NkiInstruction(ev)
