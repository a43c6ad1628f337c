"""One kernel run: the chip's memories, on-chip allocators, the per-engine timeline, the SPMD grid.

How an ISA op plugs in (isa.py is the pattern; keep new ops the same shape):

    def my_op(dst, data, ..., engine=engine.unknown, name=None):
        api = "nisa.my_op"
        run = current()                                    # the active kernel run
        rules.tile(api, "dst", dst); ...                   # every documented rule -> ConstraintError
        eng = isa.choose_engine(api, run, engine, {"vector": None, "gpsimd": "why not"})   # or a fixed name
        x = data.read(api)                                 # NkiTensor.read/write/mark_written only:
        dst.write(cast(result(x), dst.tv.dtype))         # they keep the per-allocation init flags
        return run.issue(api, eng, cost.xxx(...), reads=[data], writes=[dst])   # one timeline event

``issue`` orders the event after every earlier conflicting access on another engine (the compiler's
semaphores, core Timeline order="data") and returns an ``NkiInstruction``.
"""
from __future__ import annotations

import contextlib
import math
import operator
from typing import NamedTuple

import numpy as np

from .alloc import NextFitAllocator as Allocator, TileBlock as _TileBlock, hold, _tile_died
from ..core.errors import ConstraintError
from ..core.memory import Memory
from ..core.timeline import Timeline
from ..core.view import TensorView
from . import args as _args
from . import plan as _plan
from . import spec as _spec
from .dma import DmaEngines
from . import native_tile as _native_tile
from . import scope as _scope
from .tensor import PSUM, SBUF, MemoryRegion, NkiTensor, _c_strides, dtype_of

COMPUTE_ENGINES = ("tensor", "vector", "scalar", "gpsimd")
DMA_CLOCK_HZ = 1e9          # DMA queues count time in ns (cycles at 1 GHz)
SBUF_ALIGN = 4              # sbuf_min_align is unpublished (reference "Open questions" 8): 4 B assumed

_current: "Run | None" = None

#: NC-v2 port sharing: engine -> {memory: the engine it cannot access that memory in parallel with}.
_SHARED_PORTS = {"vector": {"sbuf": "gpsimd", "psum": "scalar"}, "gpsimd": {"sbuf": "vector"},
                 "scalar": {"psum": "vector"}}


class AllocPlan(NamedTuple):
    """What every on-chip allocation of one checked (shape, dtype, buffer) shares."""
    dt: object              # npusim DType
    shape: tuple
    strides: tuple          # bytes: the lane size, then C order over the free dims
    free_size: int          # elements per partition
    free_bytes: int         # bytes per partition (the allocator's request)
    nbytes: int
    block_name: str         # the allocator's name for an unnamed tile
    rows: "np.ndarray | None"   # 2-D tiles: every partition's bytes as ``dt`` elements; a tile's array
    #                             is a column slice of it (cheaper than np.ndarray(buffer=...) per tile)
    mem: Memory             # the run's SBUF or PSUM
    allocator: Allocator    # ... and its allocator
    sig: "int | None" = None    # plan.sig of its tiles (their geometry: all alike), set after the first one
    align: int = 1          # the allocator's alignment and min(its end, the memory's lane bytes): constants
    limit: int = 0          # of the run that native_tile.place reads here instead of from the objects


#: ``_new_object(TensorView)`` / ``_new_object(NkiTensor)``: Run._place sets every slot itself
_new_object = object.__new__


class NkiInstruction:
    """What an ISA call returns: its timeline event. ``depends_on`` exists for API compatibility;
    data dependencies already order instructions here."""
    __slots__ = ("event",)

    def __init__(self, event):
        self.event = event

    def depends_on(self, *producers) -> "NkiInstruction":
        return self

    def __repr__(self) -> str:
        e = self.event
        return f"<{e.name} on {e.engine}: {e.start_ns:.0f}-{e.end_ns:.0f} ns, {e.cycles:.0f} cycles>"


#: ``ins = _new_instruction(NkiInstruction); ins.event = ev`` is ``NkiInstruction(ev)`` without the
#: __init__ frame (one per instruction: the issue methods below)
_new_instruction = object.__new__
_TV = operator.attrgetter("tv")      # an operand's view (its footprint): tuple(map(_TV, reads)) makes no frame


#: init-map bytes release zeroes itself; above, it hands the pages back (Memory.forget_all)
_ZEROING_LIMIT = 1 << 20


class Run:
    """The state of one kernel launch on one NeuronCore."""

    def __init__(self, chip: _spec.Chip, grid: tuple = (1,), trace=None):
        self.chip = chip
        self._shared_ports = chip.nc_version == 2     # NC-v2 port sharing (issue): read once, not per call
        self.grid = tuple(grid)
        self.program = (0,) * len(self.grid)
        self.grid_ndim = len(self.grid)     # nl.program_ndim(); a launch without a grid sets 0
        self.sbuf, self.psum = _take_memories(chip)
        self.alloc = {
            MemoryRegion.sbuf: Allocator(f"SBUF ({chip.name}: usable bytes per partition)", chip.sbuf_usable,
                                         align=SBUF_ALIGN),
            # A PSUM tensor starts on a bank boundary: a tile must sit inside one 2 KiB bank.
            MemoryRegion.psum: Allocator(f"PSUM ({chip.name}: bytes per partition)", chip.psum_bytes,
                                         align=chip.psum_bank_bytes),
        }
        self._sbuf_alloc, self._psum_alloc = self.alloc[MemoryRegion.sbuf], self.alloc[MemoryRegion.psum]
        self._sbuf_plans: dict = {}     # (shape as given, dtype as given) -> AllocPlan (``allocate``)
        self._psum_plans: dict = {}
        engines = {e: chip.clocks_hz[e] for e in COMPUTE_ENGINES}
        engines.update({f"dma-q{i}": DMA_CLOCK_HZ for i in range(chip.dma_queues)})
        engines["sync"] = DMA_CLOCK_HZ      # the Sync engine's sequencer: register loads/stores (registers.py)
        self.timeline = Timeline(engines, core="nc0", trace=trace)
        self._dma_names = [f"dma-q{i}" for i in range(chip.dma_queues)]
        self.dma_engines = DmaEngines(chip.dma_queues)     # the engines' data paths (busy intervals)
        self.shared: list[NkiTensor] = []      # shared_hbm tensors, in allocation order (one per grid)
        self._shared_next = 0
        self._hbm_count = 0
        self.released = False   # release() gave SBUF/PSUM to a later launch: on-chip tensors are gone
        self.scopes: list = []  # open loop-iteration scopes, innermost last (scope.py)
        #: tiles of finished unrolled-loop iterations, oldest first: evicted when an allocation needs room
        #: (each allocator's own list, by region for scope.evict_one and placement.py)
        self.lapsed = {MemoryRegion.sbuf: self._sbuf_alloc.lapsed, MemoryRegion.psum: self._psum_alloc.lapsed}
        self.programs = None    # the lnc.Programs scheduler while a grid of several programs runs
        native = _native_tile.module()
        self._native_allocate = native.allocate if native is not None else None   # (allocate's usual case in C)

    def release(self) -> None:
        """The launch is over: hand SBUF/PSUM back for the next launch on this chip. Only the bytes up
        to the allocators' high-water marks were touched; their init map is cleared so nothing of this
        launch reads as written in the next one (stale data bytes read as poison there)."""
        if self.sbuf is None:
            return
        for mem, region in ((self.sbuf, MemoryRegion.sbuf), (self.psum, MemoryRegion.psum)):
            used = self.peak[region]
            if used:
                # Both bump the generation: cached init flags drop. forget_lanes zeroes only what the
                # memory's marked box holds (core Memory.marked: usually little, since a write covering
                # a whole tile marks nothing). When the box is untracked or large (next fit sweeps all
                # of SBUF in a kernel of thousands of small tiles: up to 27 MB, 3 ms of zeros), handing
                # the init pages back to the OS is cheaper, where it can take them.
                box = mem.marked
                if mem.drops_pages and (box is None or (box[1] - box[0]) * (box[3] - box[2]) > _ZEROING_LIMIT):
                    mem.forget_all()
                else:
                    mem.forget_lanes(0, mem.lanes, 0, used)
        _POOL.setdefault(self.chip.name, []).append((self.sbuf, self.psum))
        self.released = True
        self.timeline.forget_accesses()

    # ---- allocation ----

    @property
    def peak(self) -> dict:
        """The allocators' high-water marks (bytes per partition), by region."""
        return {MemoryRegion.sbuf: self.alloc[MemoryRegion.sbuf].high,
                MemoryRegion.psum: self.alloc[MemoryRegion.psum].high}

    def allocate(self, shape, dtype, buffer: MemoryRegion, name: str = "", api: str = "nl.ndarray") -> NkiTensor:
        native = self._native_allocate
        if native is not None:      # native_tile.py: the plan hit below with next fit's usual case, in C
            t = native(self, shape, dtype, buffer, name)
            if t is not None:
                return t
        plans = self._sbuf_plans if buffer is SBUF else self._psum_plans if buffer is PSUM else None
        if plans is not None and type(shape) is tuple:
            # An on-chip (shape, dtype) seen before in this launch: its checks passed, its geometry is
            # known. Only a shape of Python ints has a plan (a bool or numpy int dim hashes like an int:
            # those take the general path, which checks them).
            try:
                plan = plans.get((shape, dtype))
            except TypeError:               # an unhashable dtype: the general path names it
                plan = None
            if plan is not None:
                if len(shape) == 2:         # (the usual 2-D tile: two type tests, not a set)
                    ints = type(shape[0]) is int and type(shape[1]) is int
                else:
                    ints = {*map(type, shape)} == _INT_ONLY
                if ints:
                    return self._place(plan, buffer, name, api)
        dt = dtype_of(dtype, api)
        normal = _args.shape(api, shape, dt.itemsize, buffer.on_chip)
        if buffer.on_chip:
            plan = self._plan(normal, dt, buffer, api)
            if plan is None:
                return self._allocate_over_wide(normal, dt, buffer, name, api)
            t = self._place(plan, buffer, name, api)
            if type(shape) is tuple and {*map(type, shape)} == _INT_ONLY:
                # Every tile of the plan has the first one's sig: later ones get it without the lookup.
                plans[(shape, dtype)] = plan._replace(sig=_plan.sig(t))
            return t
        if buffer is MemoryRegion.shared_hbm and self._shared_next < len(self.shared):
            # Every program of an SPMD grid sees the same shared_hbm tensor (allocation order matches).
            t = self.shared[self._shared_next]
            self._shared_next += 1
            if t.shape != normal or t.tv.dtype != dt:
                raise ConstraintError(api, "shape", "every SPMD program allocates the same shared_hbm tensors",
                                      (normal, str(dt)))
            return t
        t = self.hbm_tensor(normal, dt, buffer, name)
        if buffer is MemoryRegion.shared_hbm:
            self.shared.append(t)
            self._shared_next += 1
        return t

    def hbm_tensor(self, shape, dt, buffer=MemoryRegion.private_hbm, name: str = "") -> NkiTensor:
        self._hbm_count += 1
        name = name or f"hbm{self._hbm_count}"
        nbytes = max(1, math.prod(shape) * dt.itemsize)
        mem = Memory(f"HBM:{name}", nbytes)
        mem.written = False
        view = TensorView(mem, 0, shape, _c_strides(shape, dt.itemsize), dt)
        return NkiTensor(view, buffer, name, None, self)

    def _plan(self, shape, dt, buffer, api) -> "AllocPlan | None":
        """The geometry of an on-chip tile of checked ``shape`` and ``dt`` (None: an over-wide tile)."""
        if len(shape) < 2:
            raise ConstraintError(api, "shape", "SBUF and PSUM tensors must have at least 2 dimensions "
                                  "(partition-dim and free-dim)", shape)
        in_sbuf = buffer is MemoryRegion.sbuf
        if shape[0] > (self.sbuf if in_sbuf else self.psum).lanes:
            return None
        free_size = math.prod(shape[1:])
        free_bytes = free_size * dt.itemsize
        block_name = _DEFAULT_NAMES.get((in_sbuf, shape))   # the default block name, formatted once
        if block_name is None:
            block_name = _DEFAULT_NAMES[(in_sbuf, shape)] = f"{'sbuf' if in_sbuf else 'psum'}[{shape}]"
        mem = self.sbuf if in_sbuf else self.psum
        item = dt.itemsize
        strides = (mem.lane_bytes, *_c_strides(shape[1:], item))
        rows = None
        if len(shape) == 2:
            rows = np.ndarray((shape[0], mem.lane_bytes // item), dt.np, buffer=mem.data,
                              strides=(mem.lane_bytes, item))
        alloc = self.alloc[buffer]
        return AllocPlan(dt, shape, strides, free_size, free_bytes, shape[0] * free_bytes, block_name, rows, mem,
                         alloc, None, alloc.align, min(alloc.start + alloc.capacity, mem.lane_bytes))

    def _reserve(self, alloc, buffer, nbytes, name, api) -> tuple:
        """``alloc.reserve``; when it does not fit, evict lapsed loop tiles (scope.py) oldest first and retry."""
        while True:
            try:
                return alloc.reserve(nbytes, name, api)
            except ConstraintError as full:
                if not _scope.evict_one(self, buffer, f"{api} of {name} ({full.args[0]})"):
                    raise

    def _place(self, plan: "AllocPlan", buffer, name, api) -> NkiTensor:
        """A new tile of ``plan``'s geometry in the bytes the next-fit allocator hands out.

        The hot path of every on-chip allocation (about one per instruction), so it builds the tile in
        one frame: ``TensorView.placed``, ``NkiTensor.placed`` and ``alloc.hold`` written out (the plan
        proved the geometry; tests/nki/test_alloc_tile_build.py checks that every slot matches theirs). Its
        usual case runs in C (native_tile.py) through ``allocate``; this stays the reference."""
        dt, shape, strides, free_size, free_bytes, nbytes, block_name, rows, mem, alloc, sig, _, _ = plan
        name_or_default = name or block_name
        try:
            offset, index = alloc.reserve(free_bytes, name_or_default, api)
        except ConstraintError:         # full: _reserve evicts lapsed tiles and retries
            offset, index = self._reserve(alloc, buffer, free_bytes, name_or_default, api)
        end = offset + free_bytes
        if end > mem.lane_bytes:        # (never: the allocator's capacity is a lane's bytes)
            TensorView(mem, offset, shape, strides, dt, api=api)    # (its own bounds error)
        # The view: lanes [0, p), bytes [offset, end) is its box (what TensorView's bounds check computes).
        view = _new_object(TensorView)
        view.memory = mem
        view.offset = view.lo = offset
        view.shape = shape
        view.strides = strides
        view.dtype = dt
        view.lane_lo = 0
        view.lane_hi = shape[0]
        view.hi = end
        # Its numpy array, sliced from the plan's rows (a fraction of an np.ndarray(buffer=...) call).
        if rows is not None and offset % strides[1] == 0:
            column = offset // strides[1]
            view._array = rows[:, column:column + free_size]
        else:
            view._array = None
        view._iv = view._ibox = view._iwords = view._written_gen = None
        # The tile: never written, its init bytes stale (cleared when a partial access first needs them).
        t = _new_object(NkiTensor)
        t.tv = view
        t.buffer = buffer
        t.name = name
        t.run = self
        t.full = t.checked = False
        t.stale = t.on_chip = True
        t.sig = sig
        t.root = t.scope = t.ind = None
        t.in_psum = buffer is PSUM
        t.free_size = free_size
        t.partitions = shape[0]
        t.nbytes = nbytes
        t.shape = shape
        t.start_partition = 0
        # The block holds the bytes until the kernel drops its last reference to the tile ...
        block = _TileBlock(t, _tile_died)
        block.offset = offset
        block.size = free_bytes
        block.name = name_or_default
        block.allocator = alloc
        blocks = alloc.blocks
        if index == len(blocks) and (not index or blocks[-1].offset < offset):     # (a loop's usual case)
            blocks.append(block)        # (alloc.insert's own check: a block freed meanwhile moves index)
        else:
            alloc.insert(index, block)
        scopes = self.scopes
        if scopes:                              # ... or lapses when its loop iteration ends (scope.py)
            t.scope = scope = scopes[-1]
            scope.tiles.append(block)
        return t

    def _allocate_over_wide(self, shape, dt, buffer, name, api) -> NkiTensor:
        """The official simulator allocates an over-wide tile and fails at the first ISA op that touches
        it ("<op> <operand> partition dimension 256 exceeds maximum 128", rules.py). Its rows live in a
        memory of their own (no SBUF/PSUM has them); capacity counts its bytes per partition like any
        tile's."""
        in_sbuf = buffer is MemoryRegion.sbuf
        free_bytes = math.prod(shape[1:]) * dt.itemsize
        alloc = self.alloc[buffer]
        block_name = name
        if not name:
            block_name = _DEFAULT_NAMES.get((in_sbuf, shape))
            if block_name is None:
                block_name = _DEFAULT_NAMES[(in_sbuf, shape)] = f"{'sbuf' if in_sbuf else 'psum'}[{shape}]"
        offset, index = self._reserve(alloc, buffer, free_bytes, block_name, api)
        label = "SBUF" if in_sbuf else "PSUM"
        mem = Memory(f"{label} (over-wide {shape[0]}-partition tile)", free_bytes, shape[0])
        strides = [mem.lane_bytes] + _c_strides(shape[1:], dt.itemsize)
        view = TensorView(mem, 0, shape, strides, dt, api=api)
        t = NkiTensor(view, buffer, name, None, self)
        t.stale = True
        block = hold(t, alloc, offset, free_bytes, block_name, index)
        if self.scopes:
            t.scope = self.scopes[-1]
            t.scope.tiles.append(block)
        return t

    # ---- placing instructions ----

    #: ready_ns's last question and answer: (engine, reads, writes, the engine's free time, the trace's
    #: event count, the answer). dma_issue asks ready_ns, then issues the same lists: unless something was
    #: placed since, the data-order start is max(not_before_ns, that answer) and the scan is not repeated.
    _ready: tuple | None = None

    def issue(self, api: str, engine: str, cycles: float, reads=(), writes=(), args: dict | None = None,
              elements: int = 0, not_before_ns: float = 0.0) -> NkiInstruction:
        rfp = [t.tv for t in reads if isinstance(t, NkiTensor)]     # (scalars are not tensors)
        if type(writes) is list and len(writes) == 1:      # the common case: one dst
            t = writes[0]
            wfp = [t.tv]
            nbytes = t.nbytes
            if not t.on_chip:
                t.tv.memory.written = True
        else:
            wfp = []
            nbytes = 0
            for t in writes:
                wfp.append(t.tv)
                nbytes += t.nbytes
                if not t.on_chip:
                    t.tv.memory.written = True
        if self._shared_ports and engine in _SHARED_PORTS:
            not_before_ns = max(not_before_ns, self._shared_port_free(engine, reads, writes))
        order = "data"
        asked = self._ready
        if asked is not None:
            self._ready = None
            tl = self.timeline
            if (asked[1] is reads and asked[2] is writes and asked[0] == engine
                    and asked[3] == tl.engines[engine].free_ns and asked[4] == len(tl.trace.events)):
                order = "none"      # max(free, not_before, dependencies) = max(not_before, the answer)
                if asked[5] > not_before_ns:
                    not_before_ns = asked[5]
        if order == "data" and len(wfp) == 1:
            # (place's own path for one write in data order: nothing to bind or normalise)
            ev = self.timeline.place_data(engine, api, cycles, rfp, wfp[0], nbytes, elements, args, not_before_ns)
        else:
            ev = self.timeline.place(engine, api, cycles, reads=rfp, writes=wfp, nbytes=nbytes, order=order,
                                     elements=elements, args=args, not_before_ns=not_before_ns)
        ins = _new_instruction(NkiInstruction)
        ins.event = ev
        return ins

    def issue_tiles(self, api: str, engine: str, cycles: float, reads: tuple, dst: NkiTensor, elements: int,
                    args: dict | None, not_before_ns: float = 0.0) -> NkiInstruction:
        """``issue(api, engine, cycles, reads=list(reads), writes=[dst], ...)`` when every read and ``dst`` are
        on-chip NkiTensors (a checked TensorE/compute op): nothing to filter, no HBM written flag."""
        if self._shared_ports and engine in _SHARED_PORTS:
            return self.issue(api, engine, cycles, reads=list(reads), writes=[dst], args=args, elements=elements,
                              not_before_ns=not_before_ns)
        if self._ready is not None:
            self._ready = None      # (issue drops ready_ns's answer: these lists were never asked about)
        ev = self.timeline.place_data(engine, api, cycles, tuple(map(_TV, reads)), dst.tv, dst.nbytes, elements,
                                      args, not_before_ns)
        ins = _new_instruction(NkiInstruction)
        ins.event = ev
        return ins

    def issue_one(self, api: str, engine: str, cycles: float, src: NkiTensor, dst: NkiTensor, args: dict,
                  elements: int, nbytes: int) -> NkiInstruction:
        """``issue`` for one on-chip read and one on-chip write (the tiny-tile hot path: no lists to filter);
        ``nbytes`` is dst.nbytes (the caller keeps it with its cached plan)."""
        if self._shared_ports and engine in _SHARED_PORTS:
            return self.issue(api, engine, cycles, reads=[src], writes=[dst], args=args, elements=elements)
        ev = self.timeline.place_rw(engine, api, cycles, src.tv, dst.tv, nbytes, elements, args)
        ins = _new_instruction(NkiInstruction)
        ins.event = ev
        return ins

    def issue_dma(self, api: str, queue: "str | None", cycles: float, src: NkiTensor, dst: NkiTensor,
                  elements: int, groups: list, data_ns: float) -> NkiInstruction:
        """One ``src -> dst`` transfer on DMA ``queue`` (None: the one ``dma_queue()`` picks) (isa._dma_place
        for one read and one write): when its data is ready (``ready_ns``), the first fit of its data phase on
        the DMA engines ``groups`` after the fixed latency, its event, the engines' reservation. ``ready_ns``'s answer is used directly: nothing is
        placed between the question and the event, so ``issue``'s reuse of it always holds here."""
        tl = self.timeline
        if queue is None:                   # the DMA queue free first (dma_queue, with its Engine at hand)
            cached = self._dma_queues       # (_dma_queue_engines' answer when it holds for this timeline)
            eng = min(cached[1] if cached is not None and cached[0] is tl else self._dma_queue_engines(),
                      key=_FREE_NS)
            queue = eng.name
        else:
            eng = tl.engines[queue]
        t = eng.free_ns
        reads, writes = (src.tv,), (dst.tv,)     # (the same footprint tuples for both questions)
        t = tl._dependencies_end(reads, writes, queue, t)
        fixed = self.chip.dma_fixed_ns
        engines = self.dma_engines
        not_before = engines.earliest(groups, t + fixed, data_ns) - fixed
        if t > not_before:
            not_before = t          # (issue: max(not_before_ns, the ready answer), the first of equals)
        if not dst.on_chip:
            dst.tv.memory.written = True
        if self._ready is not None:
            self._ready = None
        ev = tl.place(queue, api, cycles, reads=reads, writes=writes, nbytes=dst.nbytes, order="none",
                      elements=elements, not_before_ns=not_before)
        engines.reserve(groups, ev.end_ns - data_ns, data_ns)
        ins = _new_instruction(NkiInstruction)
        ins.event = ev
        return ins

    def _shared_port_free(self, engine: str, reads, writes) -> float:
        """NC-v2 only: VectorE and GpSimd cannot access SBUF in parallel, VectorE and ScalarE cannot
        access PSUM in parallel (§4.1; lifted on NC-v3): wait for the engine sharing the port."""
        t = 0.0
        engines = self.timeline.engines
        for x in (*reads, *writes):
            if not isinstance(x, NkiTensor) or not x.on_chip:
                continue
            other = _SHARED_PORTS[engine].get("psum" if x.in_psum else "sbuf")
            if other is not None:
                t = max(t, engines[other].free_ns)
        return t

    def ready_ns(self, engine: str, reads=(), writes=()) -> float:
        """When an instruction on ``engine`` could start: its queue is free and its data is ready."""
        tl = self.timeline
        free = tl.engines[engine].free_ns
        t = tl._dependencies_end([x.tv for x in reads], [x.tv for x in writes], engine, free)
        self._ready = (engine, reads, writes, free, len(tl.trace.events), t)
        return t

    _dma_queues: tuple | None = None     # (timeline, its DMA queues' Engine objects in queue order)
    #: TensorE's weight pipeline (isa_matmul.nc_matmul): when the last LoadStationary ended and the last
    #: MultiplyMoving started (lnc.py saves and restores them per core)
    _ls_end_ns: float = 0.0
    _mm_last_start_ns: float = 0.0

    def dma_queue(self) -> str:
        """The DMA queue free first (the first of equals, as min() picks)."""
        return min(self._dma_queue_engines(), key=_FREE_NS).name     # (a C-level key)

    def _dma_queue_engines(self) -> list:
        """The running core's DMA queues' Engine objects, in queue order."""
        tl = self.timeline
        cached = self._dma_queues
        if cached is None or cached[0] is not tl:       # an LNC2 launch swaps timelines per core (lnc.py)
            cached = self._dma_queues = (tl, [tl.engines[name] for name in self._dma_names])
        return cached[1]

    @property
    def trace(self):
        return self.timeline.trace

    def allocations(self) -> str:
        return "\n".join(f"{k.value}:\n{a.describe()}" for k, a in self.alloc.items())


_FREE_NS = operator.attrgetter("free_ns")
_INT_ONLY = {int}       # {*map(type, shape)} of a shape of Python ints (bool and numpy ints are not int)

#: (in SBUF?, shape) -> the default name of an unnamed on-chip allocation ("sbuf[(128, 64)]")
_DEFAULT_NAMES: dict = {}

#: chip name -> idle (SBUF, PSUM) pairs. Fresh memories cost ~27 MB of np.zeros and their page faults on
#: first touch in every launch; a launch takes an idle pair and gives it back when it ends.
_POOL: dict[str, list] = {}


def _take_memories(chip: _spec.Chip):
    idle = _POOL.get(chip.name)
    if idle:
        return idle.pop()
    p = chip.partitions
    # 4 KiB pages (core.memory.zeroed): every tile touches all its partitions, 192 KiB apart; with huge
    # pages the first (128, 8) tile of a fresh SBUF faulted in and zeroed twelve 2 MiB pages.
    return (Memory("SBUF", chip.sbuf_usable, p, small_pages=True),
            Memory("PSUM", chip.psum_bytes, p, small_pages=True))


def _shape(shape, api) -> tuple:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(map(int, shape))
    except TypeError:
        raise ConstraintError(api, "shape", "a tuple of ints", shape) from None
    if not shape or min(shape) <= 0:
        raise ConstraintError(api, "shape", "every dim is a positive int", shape)
    return shape


def current(api: str = "nki") -> Run:
    if _current is None:
        raise ConstraintError(api, "context", "NKI calls run inside a kernel launched with nki.simulate / "
                              "nki.jit (or a `with npusim.nki.run_context():` block)", None)
    return _current


@contextlib.contextmanager
def activate(run: Run):
    global _current
    previous, _current = _current, run
    try:
        # The engines raise no floating-point exceptions: overflow to inf, NaN from 0/0 and the like
        # are results, not warnings. One errstate for the whole run keeps it off the per-op path.
        with np.errstate(all="ignore"):
            yield run
    finally:
        _current = previous


@contextlib.contextmanager
def run_context(target: str | None = None):
    """A kernel context outside any kernel (tests, notebooks): ``with run_context("trn2") as run:``."""
    with activate(Run(_spec.chip(target))) as run:
        yield run
