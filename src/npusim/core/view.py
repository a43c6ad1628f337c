"""Zero-copy typed strided views of a Memory, and their footprints.

``TensorView(memory, offset, shape, strides, dtype)`` is a vendor tensor as the hardware sees it: a
start byte and a byte stride per dimension. Strides may be negative, zero (broadcast) or odd. Bounds are
checked once, on construction, from the footprint; after that ``array()`` is a plain numpy view into the
memory's bytes and costs one ``np.ndarray`` call.

In a laned memory each stride is either a multiple of the lane size (it steps across lanes) or smaller
than a lane (it steps inside one); every element of the view must stay inside its lane.

Init tracking works on the view's *byte box*: its bytes as a uint8 array with size-1 and broadcast axes
dropped and contiguous axes merged (an (8, 64, 64, 64) fp32 laned tensor is 512 runs of 16 KiB), read as
the widest unsigned words its contiguous run splits into (``word_box``: a (300, 64) box of 4-byte runs is
19,200 uint32, not 76,800 uint8 in runs of 4). Init bytes are 0 or 1, so "every byte written" is one
``min`` of that box equal to 0x0101..., and marking is one ``fill`` of it, instead of a pass per element.
A view that passed the check (or was marked whole) remembers the memory's ``generation``; until some
init bytes go back to 0 (which moves it) reads skip the check and whole writes skip the fill.

A view is its own footprint: it carries the box (``memory``, ``lane_lo``, ``lane_hi``, ``lo``, ``hi``) and
the ``Footprint`` methods, and ``view.footprint`` is the view itself. A separate ``Footprint`` object
cost a dataclass construction per view, several per instruction. (``footprint`` is a property, not a
slot holding the view: such a slot makes every view a reference cycle, so views are freed by the cyclic
collector instead of when their last reference goes, and an NKI launch leaves tens of thousands of
objects for a full collection. Front ends' hot paths pass the view itself.) ``Footprint`` stays for
boxes that are no view's (tests, hand-made accesses).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod as _prod

import numpy as np

from . import dtypes as _dt
import warnings

from .errors import ConstraintError, OutOfBoundsError, UninitializedReadError, UninitializedReadWarning
from .memory import Memory
from .options import options

def byte_box(shape, strides, itemsize: int) -> tuple[tuple, tuple]:
    """The bytes of a (shape, byte strides) view of ``itemsize``-byte elements as (shape, strides) of
    uint8: size-1 and stride-0 axes dropped (a broadcast axis revisits the same bytes: a (300, 64, 80)
    fp32 operand broadcast along its 80 is 77 KB of init bytes, not 6 MB), an axis merged into the next
    inner one when it steps right past it. Empty views keep their axes (their box is empty)."""
    if 0 in shape:
        return tuple(shape) + (itemsize,), tuple(strides) + (1,)
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1 and s != 0]
    merged = [(itemsize, 1)]
    for n, s in reversed(dims):
        inner_n, inner_s = merged[-1]
        if s == inner_n * inner_s:
            merged[-1] = (n * inner_n, inner_s)
        else:
            merged.append((n, s))
    merged.reverse()
    shape, strides = zip(*merged)       # (merged is never empty: it starts with the element itself)
    return shape, strides


_INIT_PATTERN = {1: (np.uint8, 0x01), 2: (np.uint16, 0x0101), 4: (np.uint32, 0x01010101),
                 8: (np.uint64, 0x0101010101010101)}


def word_box(shape: tuple, strides: tuple) -> tuple[tuple, tuple, int]:
    """A byte box (``byte_box``: innermost axis contiguous) as a box of ``word``-byte words, ``word`` the
    widest of 8, 4, 2, 1 dividing the contiguous run; the run axis is dropped when it is one word."""
    run = shape[-1]
    word = 8 if run % 8 == 0 else 4 if run % 4 == 0 else 2 if run % 2 == 0 else 1
    if run == word:
        return shape[:-1], strides[:-1], word
    return shape[:-1] + (run // word,), strides[:-1] + (word,), word


# Identity equality: `None in footprints` stays a C loop. Not frozen (though never changed after it is
# made): a frozen dataclass sets each field through object.__setattr__. A view's footprint is the view
# itself (TensorView has these fields and methods); this class is for boxes that are no view's.
@dataclass(slots=True, eq=False)
class Footprint:
    """The box of bytes a view may touch: lanes [lane_lo, lane_hi) x in-lane bytes [lo, hi). Immutable
    by convention."""
    memory: Memory
    lane_lo: int
    lane_hi: int
    lo: int
    hi: int
    view: "TensorView | None" = None   # for an exact check when two boxes overlap

    def overlaps(self, other: "Footprint") -> bool:
        return (self.memory is other.memory and self.lo < other.hi and other.lo < self.hi
                and self.lane_lo < other.lane_hi and other.lane_lo < self.lane_hi)

    def overlaps_exactly(self, other: "Footprint") -> bool:
        """True when some byte is touched by both (box test first, then the element byte sets)."""
        if not self.overlaps(other):
            return False
        if self.view is None or other.view is None:
            return True
        return views_overlap(self.view, other.view)

    @property
    def nbytes_box(self) -> int:
        return (self.lane_hi - self.lane_lo) * (self.hi - self.lo)

    def describe(self) -> str:
        m = self.memory
        if m.laned:
            return f"{m.name} lanes [{self.lane_lo}, {self.lane_hi}) bytes [{self.lo:#x}, {self.hi:#x})"
        return f"{m.name} [{m.base + self.lo:#x}, {m.base + self.hi:#x})"


class TensorView:
    # lane_lo, lane_hi, lo, hi: the footprint box (``Footprint``'s fields), checked on construction
    __slots__ = ("memory", "offset", "shape", "strides", "dtype", "lane_lo", "lane_hi", "lo", "hi",
                 "_array", "_iv", "_ibox", "_iwords", "_written_gen")

    def __init__(self, memory: Memory, offset: int, shape, strides=None, dtype="float32",
                 api: str | None = None):
        self.memory = memory
        self.offset = int(offset)
        self.shape = shape = tuple(map(int, shape))     # (map: a views-per-instruction hot path)
        self.dtype = dtype if type(dtype) is _dt.DType else _dt.dtype(dtype)
        if strides is None:
            strides, acc = [], self.dtype.itemsize
            for n in reversed(shape):
                strides.append(acc)
                acc *= max(n, 1)
            strides = strides[::-1]
        self.strides = tuple(map(int, strides))
        if len(self.strides) != len(shape):
            raise ConstraintError(api or "TensorView", "strides", "one stride per dimension",
                                  (shape, self.strides))
        if shape and min(shape) < 0:
            raise ConstraintError(api or "TensorView", "shape", "sizes are >= 0", shape)
        self.lane_lo, self.lane_hi, self.lo, self.hi = self._box(api)
        self._array = None
        self._iv = None          # the per-element init-map view, built on first use
        self._ibox = None        # the init bytes as a merged byte box, built on first use
        self._iwords = None      # the same box as (words, all-written word value), built on first use
        self._written_gen = None  # memory.generation at which every byte was known written

    @classmethod
    def derived(cls, base: "TensorView", offset: int, shape: tuple, strides: tuple,
                api: str | None = None) -> "TensorView":
        """``TensorView(base.memory, offset, shape, strides, base.dtype, api=api)`` for a front end's view
        of an existing view whose geometry is already tuples of Python ints (slicing, per instruction):
        no conversions, the same bounds check."""
        self = cls.__new__(cls)
        self.memory = base.memory
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.dtype = base.dtype
        if shape and min(shape) < 0:
            raise ConstraintError(api or "TensorView", "shape", "sizes are >= 0", shape)
        self.lane_lo, self.lane_hi, self.lo, self.hi = self._box(api)
        self._array = self._iv = self._ibox = self._iwords = self._written_gen = None
        return self

    @classmethod
    def placed(cls, memory: Memory, offset: int, shape: tuple, strides: tuple, dtype: _dt.DType,
               lane_lo: int, lane_hi: int, lo: int, hi: int, array: np.ndarray | None = None) -> "TensorView":
        """A view whose geometry the caller has already proved valid and inside ``memory``, with its
        footprint box computed by the caller: a front end's per-geometry plan (a tile placed by its
        allocator, a basic slice of a view that passed its own check, whose elements are a subset of
        that view's). Geometry is tuples of Python ints with no size-0 dim; the box is what
        ``_box`` would compute, without the loop over dims and the bounds checks.

        ``array``, when given, is the numpy view ``array()`` would build (same shape, strides, dtype and
        first byte of ``memory.data``), made more cheaply by slicing one the caller already has: numpy
        slicing costs a fraction of an ``np.ndarray(buffer=...)`` call."""
        self = cls.__new__(cls)
        self.memory = memory
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.dtype = dtype
        self.lane_lo = lane_lo
        self.lane_hi = lane_hi
        self.lo = lo
        self.hi = hi
        self._array = array
        self._iv = self._ibox = self._iwords = self._written_gen = None
        return self

    # ---- the footprint (a view is its own: see the module docstring) ----

    @property
    def footprint(self) -> "TensorView":
        """The view itself. (Not a slot holding it: that would make every view a reference cycle, which
        only the garbage collector frees. Hot paths pass the view where a footprint is wanted.)"""
        return self

    @property
    def view(self) -> "TensorView":
        """``Footprint.view``: the view whose bytes the box holds (for the exact overlap check)."""
        return self

    overlaps = Footprint.overlaps
    overlaps_exactly = Footprint.overlaps_exactly
    nbytes_box = Footprint.nbytes_box
    describe = Footprint.describe

    # ---- bounds ----

    def _footprint(self, api) -> Footprint:
        """The footprint box as a separate ``Footprint`` (checked again from the geometry)."""
        return Footprint(self.memory, *self._box(api), self)

    def _box(self, api) -> tuple[int, int, int, int]:
        """(lane_lo, lane_hi, lo, hi) of the view's bytes; raises when they leave the memory."""
        m, item = self.memory, self.dtype.np.itemsize      # (np.dtype's, not the DType property)
        if 0 in self.shape:
            lane = self.offset // m.lane_bytes if m.lane_bytes else 0
            return lane, lane, 0, 0
        if m.lanes <= 1:                                    # (not m.laned: no property call)
            lo = hi = self.offset
            for n, s in zip(self.shape, self.strides):
                span = s * (n - 1)
                lo += min(span, 0)
                hi += max(span, 0)
            hi += item
            if lo < 0 or hi > m.size:
                raise OutOfBoundsError(m.name, (m.base + lo, m.base + hi), (m.base, m.base + m.size), api=api)
            return 0, 1, lo, hi
        lb = m.lane_bytes
        lane_lo, byte_lo = divmod(self.offset, lb)
        lane_hi, byte_hi = lane_lo, byte_lo
        for n, s in zip(self.shape, self.strides):
            if n == 1 or s == 0:
                continue
            if s % lb == 0:
                span = (s // lb) * (n - 1)
                lane_lo += min(span, 0)
                lane_hi += max(span, 0)
            elif abs(s) < lb:
                span = s * (n - 1)
                byte_lo += min(span, 0)
                byte_hi += max(span, 0)
            else:
                raise ConstraintError(api or "TensorView", "strides",
                                      f"a stride of laned memory {m.name} is a multiple of its lane size "
                                      f"({lb} B) or smaller than a lane", self.strides)
        byte_hi += item
        lane_hi += 1
        if lane_lo < 0 or lane_hi > m.lanes:
            raise OutOfBoundsError(m.name, (lane_lo, lane_hi), (0, m.lanes), what="lanes", api=api)
        if byte_lo < 0 or byte_hi > lb:
            raise OutOfBoundsError(m.name, (byte_lo, byte_hi), (0, lb), what="bytes of each lane", api=api)
        return lane_lo, lane_hi, byte_lo, byte_hi

    # ---- numpy access ----

    def array(self) -> np.ndarray:
        """The writable zero-copy numpy view (no init check; use read()/write() in instructions)."""
        a = self._array
        if a is None:
            a = self._array = np.ndarray(self.shape, self.dtype.np, buffer=self.memory.data,
                                         offset=self.offset, strides=self.strides)
        return a

    def _init_view(self) -> tuple[np.ndarray, int]:
        iv = self._iv
        if iv is None:
            udt, full = _INIT_PATTERN[self.dtype.itemsize]
            iv = self._iv = (np.ndarray(self.shape, udt, buffer=self.memory._init, offset=self.offset,
                                        strides=self.strides), full)
        return iv

    def init_box(self) -> np.ndarray:
        """A writable uint8 view of the init bytes the view covers, as its merged byte box. (Like
        ``memory.init``, handing it out ends the memory's tracking of marked bytes.)"""
        self.memory.marked = None       # the caller may write 1s through it
        b = self._ibox
        if b is None:
            shape, strides = byte_box(self.shape, self.strides, self.dtype.itemsize)
            b = self._ibox = np.ndarray(shape, np.uint8, buffer=self.memory._init, offset=self.offset,
                                        strides=strides)
        return b

    def _init_words(self) -> tuple[np.ndarray, int]:
        """The init bytes the view covers as its word box, with the value of a word all of whose bytes
        were written (0x0101...): every byte written <=> min == that value (init bytes are 0 or 1)."""
        w = self._iwords
        if w is None:
            shape, strides = byte_box(self.shape, self.strides, self.dtype.itemsize)
            shape, strides, word = word_box(shape, strides)
            udt, full = _INIT_PATTERN[word]
            w = self._iwords = (np.ndarray(shape, udt, buffer=self.memory._init, offset=self.offset,
                                           strides=strides), full)
        return w

    def is_fully_written(self) -> bool:
        """Was every byte of the view written? One pass over its byte box, then remembered until the
        memory's generation moves (some init bytes went back to 0)."""
        gen = self.memory.generation
        if self._written_gen == gen:
            return True
        if not self._bytes_all_written():
            return False
        self._written_gen = gen
        return True

    def _bytes_all_written(self) -> bool:
        """The check itself: one min over the word box."""
        if not self.size:
            return True
        words, full = self._init_words()
        return words.min() == full

    def uninitialized_mask(self) -> np.ndarray | None:
        """Elements with a never-written byte, or None when every byte was written. Unlike read() this
        does not remember a passed check: front ends call it on buffers whose init bytes they may still
        clear by hand before the first real access (nki's stale allocations)."""
        if self._written_gen == self.memory.generation or self._bytes_all_written():
            return None
        iv, full = self._init_view()
        return iv != full

    def mark_written(self, where=None) -> None:
        """Record the view's bytes (or those ``where`` is true) as written, without storing values."""
        m = self.memory
        if where is None:
            gen = m.generation
            if self._written_gen != gen:     # known written: its init bytes are all 1 already
                if self.size:
                    words, full = self._init_words()
                    words.fill(full)
                    m.note_marked(self.lane_lo, self.lane_hi, self.lo, self.hi)
                self._written_gen = gen
        else:
            iv, full = self._init_view()
            np.copyto(iv, full, where=where, casting="unsafe")
            m.note_marked(self.lane_lo, self.lane_hi, self.lo, self.hi)

    def read(self, api: str | None = None) -> np.ndarray:
        """The operand's values: a view when every byte was written; otherwise a copy in which the
        never-written elements read as poison (or the read raises). Memory itself is never changed."""
        opts = options()
        if opts.track_init and not self.is_fully_written():
            iv, full = self._init_view()
            bad = iv != full
            idx = np.unravel_index(int(np.argmax(bad)), bad.shape)
            first = self.offset + sum(i * s for i, s in zip(idx, self.strides))
            err = UninitializedReadError(self.memory.name, self.memory.base + first,
                                         int(np.count_nonzero(bad)) * self.dtype.itemsize, api)
            if opts.uninitialized_is_error():
                raise err
            warnings.warn(f"{err} (they read as poison)", UninitializedReadWarning, stacklevel=3)
            values = self.array().copy()        # a read never changes memory: poison goes in a copy
            values[bad] = self.poison()
            return values
        return self.array()

    def write(self, values, where=None) -> None:
        """Store ``values`` (broadcast to the view's shape) through the view; only where ``where``."""
        a = self.array()
        if where is None:
            a[...] = values
        else:
            np.copyto(a, values, where=where, casting="unsafe")
        if options().track_init:
            self.mark_written(where)

    def poison(self):
        return np.nan if self.dtype.is_float else (self.memory.int_poison % (1 << self.dtype.bits)
                                                   if self.dtype.kind == "u" else self.memory.int_poison)

    # ---- shape helpers ----

    @property
    def size(self) -> int:
        return _prod(self.shape)

    @property
    def nbytes(self) -> int:
        return _prod(self.shape) * self.dtype.np.itemsize

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def is_contiguous(self) -> bool:
        acc = self.dtype.itemsize
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != acc:
                return False
            acc *= n
        return True

    def with_dtype(self, dtype) -> "TensorView":
        """The same bytes read as another dtype of the same size (a bit reinterpretation)."""
        d = _dt.dtype(dtype)
        if d.itemsize != self.dtype.itemsize:
            raise ConstraintError("TensorView.with_dtype", "dtype", "the new dtype has the same size",
                                  f"{self.dtype} -> {d}")
        return TensorView(self.memory, self.offset, self.shape, self.strides, d)

    def element_bytes(self) -> np.ndarray:
        """Every byte offset (into memory.data) the view touches, sorted and unique. For exact checks."""
        idx = np.full(self.shape, self.offset, np.int64)
        for axis, (n, s) in enumerate(zip(self.shape, self.strides)):
            shape = [1] * len(self.shape)
            shape[axis] = n
            idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
        return np.unique((idx.reshape(-1, 1) + np.arange(self.dtype.itemsize)).ravel())

    def __repr__(self) -> str:
        return (f"TensorView({self.memory.name}, offset={self.offset:#x}, shape={self.shape}, "
                f"strides={self.strides}, dtype={self.dtype})")


def views_overlap(a: TensorView, b: TensorView) -> bool:
    """Exact: does any byte belong to both views? (Box test first; byte sets only when boxes meet.)"""
    if not a.overlaps(b):
        return False
    if a.is_contiguous() or b.is_contiguous():
        dense, other = (a, b) if a.is_contiguous() else (b, a)
        lo, hi = dense.offset, dense.offset + dense.nbytes
        ob = other.element_bytes()
        return bool(np.any((ob >= lo) & (ob < hi)))
    return bool(np.intersect1d(a.element_bytes(), b.element_bytes(), assume_unique=True).size)
