"""``nl.ndarray(..., address=(partition_offset, free_offset))``: a tile the kernel places itself.

nki-library's ``SbufManager`` (utils/allocator.py, ``use_auto_alloc=False``, its default) and
attention_cte's PSUM buffers place their tiles by hand: a stack that hands the same bytes to a new
tile once a scope closes, PSUM tiles on chosen banks. So placed tiles may overlap each other: the kernel
owns those bytes, and a placed tile is new (its bytes read as poison until written, like any fresh
tile; an older tile on the same bytes sees what the new one writes, as on the chip).

The automatic allocator keeps away from the bytes live placed tiles cover (their union is held as
blocks in it), and a placement onto bytes an automatic tile still holds is refused (a lapsed loop
tile there is evicted first, scope.py). The timeline orders accesses by address, so reuse of placed
bytes waits for the earlier tile's readers (WAR) as it would on the chip.
"""
from __future__ import annotations

import math
import weakref

from ..core.allocator import Block
from ..core.errors import ConstraintError
from ..core.memory import Memory
from ..core.view import TensorView
from . import scope as _scope
from . import args as _args
from .tensor import MemoryRegion, NkiTensor, _c_strides, dtype_of

API = "nl.ndarray"
PLACED = "placed tiles (address=)"     # the name of the union blocks in the allocator


def _int(param: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
        raise ConstraintError(API, param, "a non-negative int", v)
    v = int(v.__index__()) if not isinstance(v, int) else v
    if v < 0:
        raise ConstraintError(API, param, "a non-negative int", v)
    return v


def _state(run) -> dict:
    st = getattr(run, "_placed", None)
    if st is None:
        st = run._placed = {MemoryRegion.sbuf: [], MemoryRegion.psum: []}
    return st


def _sync(run, buffer) -> None:
    """Replace the union blocks in ``buffer``'s allocator by the union of its live placed tiles."""
    alloc = run.alloc[buffer]
    live = [(lo, hi) for ref, lo, hi in _state(run)[buffer] if ref() is not None]
    _state(run)[buffer][:] = [e for e in _state(run)[buffer] if e[0]() is not None]
    union: list[list[int]] = []
    for lo, hi in sorted(live):
        if union and lo <= union[-1][1]:
            union[-1][1] = max(union[-1][1], hi)
        else:
            union.append([lo, hi])
    blocks = [b for b in alloc.blocks if b.name != PLACED]
    blocks += [Block(lo, hi - lo, PLACED) for lo, hi in union]
    blocks.sort(key=lambda b: b.offset)
    alloc.blocks[:] = blocks


def _core_memory(run, buffer):
    """The SBUF/PSUM a placed tile lives in. Each NeuronCore of a grid has its own: the programs of an
    LNC2 launch run one after another, switching at sendrecv / barriers, so two programs placing tiles
    at the same address (nki-library's SbufManager does) must not see each other's bytes. Program 0
    uses the launch's memories; the others get their own (zero pages, mapped lazily). Automatic tiles
    stay in the launch's shared model (distinct addresses)."""
    shared = run.sbuf if buffer is MemoryRegion.sbuf else run.psum
    if run.programs is None or not any(run.program):
        return shared
    mems = _state(run).setdefault("cores", {})
    key = (tuple(run.program), buffer)
    mem = mems.get(key)
    if mem is None:
        mem = mems[key] = Memory(f"{shared.name} of program {tuple(run.program)}", shared.lane_bytes,
                                 shared.lanes, small_pages=True)
    return mem


def _overlapping_auto(alloc, lo: int, hi: int) -> list[Block]:
    return [b for b in alloc.blocks if b.name != PLACED and b.offset < hi and lo < b.offset + b.size]


def place(run, shape, dtype, buffer: MemoryRegion, name: str, address) -> NkiTensor:
    """The tile ``shape``/``dtype`` at ``address`` = (first partition, byte offset in each partition)."""
    dt = dtype_of(dtype, API)
    shape = _args.shape(API, shape, dt.itemsize, buffer.on_chip)
    if not buffer.on_chip:
        raise ConstraintError(API, "address", "only SBUF and PSUM tiles are placed by address", buffer.value)
    if not isinstance(address, (tuple, list)) or len(address) != 2:
        raise ConstraintError(API, "address", "a pair (partition_offset, free_offset)", address)
    if len(shape) < 2:
        raise ConstraintError(API, "shape", "SBUF and PSUM tensors must have at least 2 dimensions "
                              "(partition-dim and free-dim)", shape)
    p0, lo = _int("address[0] (partition_offset)", address[0]), _int("address[1] (free_offset)", address[1])
    mem = _core_memory(run, buffer)
    alloc = run.alloc[buffer]
    if p0 + shape[0] > mem.lanes:
        raise ConstraintError(API, "address", f"partition_offset + shape[0] <= {mem.lanes}",
                              f"{p0} + {shape[0]}")
    if lo % dt.itemsize:
        raise ConstraintError(API, "address", f"free_offset a multiple of the dtype's size ({dt.itemsize} B)", lo)
    nbytes = math.prod(shape[1:]) * dt.itemsize
    hi = lo + nbytes
    if hi > alloc.start + alloc.capacity:
        raise ConstraintError(API, "address", f"free_offset + bytes per partition <= {alloc.capacity} "
                              f"({alloc.name})", f"{lo} + {nbytes}")
    while _overlapping_auto(alloc, lo, hi):
        if not _evict_overlapping(run, buffer, lo, hi):
            held = ", ".join(f"{b.name}@{b.offset:#x}+{b.size}" for b in _overlapping_auto(alloc, lo, hi))
            raise ConstraintError(API, "address", "placed bytes are not held by a live automatically "
                                  "allocated tile", f"[{lo:#x}, {hi:#x}) overlaps {held}")
    strides = [mem.lane_bytes] + _c_strides(shape[1:], dt.itemsize)
    view = TensorView(mem, p0 * mem.lane_bytes + lo, shape, strides, dt, api=API)
    t = NkiTensor(view, buffer, name, None, run)
    t.stale = True          # a new tile: its bytes read as poison until written
    entries = _state(run)[buffer]
    entries.append((weakref.ref(t, lambda _r, run=run, buffer=buffer: _sync(run, buffer)), lo, hi))
    _sync(run, buffer)
    if hi > alloc.high:     # the run's peak (Run.peak, and what release clears) counts placed bytes too
        alloc.high = hi
    return t


def _evict_overlapping(run, buffer, lo: int, hi: int) -> bool:
    """Evict lapsed loop tiles until none overlaps [lo, hi) or none is left; True if one was evicted."""
    lapsed = run.lapsed[buffer]
    for i, b in enumerate(lapsed):          # alloc.TileBlock: the block, and a weak reference to the tile
        tile = b()
        if tile is None or not b.alive:
            continue
        if b.offset < hi and lo < b.offset + b.size:
            del lapsed[i]
            _scope.evict(b, tile, f"{API} address=({lo:#x}..{hi:#x})")
            return True
    return False

