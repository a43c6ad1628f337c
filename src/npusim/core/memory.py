"""Byte-addressed memories: one numpy uint8 array each, optionally split into lanes.

A laned memory (BM1684 NPU local memories, Trainium SBUF/PSUM partitions) is ``lanes`` rows of
``lane_bytes`` bytes, stored back to back: byte ``b`` of lane ``l`` is element ``l * lane_bytes + b``.
Every TensorView of it must stay inside one lane in its byte dimensions.

Storage comes from ``np.zeros``, which the OS maps lazily: a 4 GiB global memory costs nothing until a
page is touched. A second array of the same size records which bytes were ever written, so a read of
never-written bytes can be reported (or made to read as poison).

``small_pages=True`` maps the two arrays with ordinary 4 KiB pages instead (see ``zeroed``): for address
spaces a kernel touches sparsely (a few KiB of each of 64 lanes of 512 KiB), where numpy's huge pages
make every first touch fault in and zero 2 MiB.

Init bytes only go from 0 to 1, except through ``forget``, ``forget_lanes`` and
``fill(mark_written=False)``. Each of those bumps ``generation``, so a TensorView can remember "all my
bytes were written at generation g" and skip its init check until the count moves. Code that clears
``init`` bytes by hand must call ``forget``/``forget_lanes`` instead (or bump ``generation`` itself).

``marked`` bounds the init bytes that may be 1: a box (lane_lo, lane_hi, lo, hi) of lanes x in-lane
bytes (an unlaned memory is one lane of ``size`` bytes), grown by every mark made through the memory
and its TensorViews (``note_marked``). A clear zeroes only its part inside that box, since the bytes
outside it are 0 already: NKI clears the used bytes of every partition of SBUF after each launch
(27 MB, ~3.5 ms) although a launch's tiles mostly mark no init byte at all (a write covering a whole
tile records it on the tile instead). Whoever takes the raw ``init`` array may write 1s the box does
not see, so taking it ends the tracking for good (``marked`` None: every clear zeroes its whole range,
as before); the core's own views use ``_init`` and report their marks.
"""
from __future__ import annotations

import itertools
import mmap
import sys

import numpy as np

from .errors import OutOfBoundsError

_ids = itertools.count()

_SMALL_PAGES_FROM = 1 << 21      # below one huge page numpy's allocation is already small pages


def zeroed(nbytes: int, small_pages: bool = False) -> np.ndarray:
    """``np.zeros(nbytes, np.uint8)``; with ``small_pages`` a private anonymous mapping advised
    MADV_NOHUGEPAGE. numpy advises MADV_HUGEPAGE on large arrays, so the first touch of a 512 KiB okk
    lane faults in and zeroes a 2 MiB page, the kernel compacting memory first when it must: touching
    one byte of each of 64 lanes in data and init cost 5-12 ms (65 ms once) on the 2-core VM, 0.2 ms with
    4 KiB pages. Contents are the same: zero bytes, lazily mapped."""
    if not small_pages or nbytes < _SMALL_PAGES_FROM or not hasattr(mmap, "MAP_PRIVATE"):
        return np.zeros(nbytes, np.uint8)
    m = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        m.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(m, np.uint8)


def _droppable_mapping(array: np.ndarray):
    """The mmap under an array ``zeroed`` made with small pages, when MADV_DONTNEED zero-fills it
    (Linux, private anonymous mappings; other systems may keep the old bytes); else None."""
    if not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_DONTNEED"):
        return None
    base = array.base
    if isinstance(base, memoryview):
        base = base.obj
    return base if isinstance(base, mmap.mmap) else None


class Memory:
    """A named byte space. ``base`` is the address of byte 0 in the owner's address map (for messages)."""

    def __init__(self, name: str, lane_bytes: int, lanes: int = 1, base: int = 0, int_poison: int = 4,
                 small_pages: bool = False):
        self.name = name
        self.lanes = int(lanes)
        self.lane_bytes = int(lane_bytes)
        self.size = self.lanes * self.lane_bytes
        self.base = int(base)
        self.int_poison = int_poison
        self.id = next(_ids)
        self.data = zeroed(self.size, small_pages)
        self._init = zeroed(self.size, small_pages)    # 1 where the byte was ever written (``init``)
        self.generation = 0     # bumped whenever some init bytes may have gone back to 0
        self._init_pages = _droppable_mapping(self._init)   # (forget_all)
        self.marked = NOTHING_MARKED    # a box holding every init byte that may be 1 (None: not tracked)

    @property
    def init(self) -> np.ndarray:
        """The init map: 1 where the byte was ever written. Taking it ends the tracking of ``marked``
        (the taker may write 1s outside the box): later clears zero their whole range."""
        self.marked = None
        return self._init

    def note_marked(self, lane_lo: int, lane_hi: int, lo: int, hi: int) -> None:
        """Init bytes inside lanes [lane_lo, lane_hi) x in-lane bytes [lo, hi) may have become 1 (an
        unlaned memory: lane 0, bytes from its start). Noting more than was marked is always safe."""
        m = self.marked
        if m is None or lane_lo >= lane_hi or lo >= hi:
            return
        if m is NOTHING_MARKED:
            self.marked = (lane_lo, lane_hi, lo, hi)
        else:
            self.marked = (min(m[0], lane_lo), max(m[1], lane_hi), min(m[2], lo), max(m[3], hi))

    def init_to_mark(self, lane_lo: int, lane_hi: int, lo: int, hi: int) -> np.ndarray:
        """The init map, for a caller that sets init bytes to 1 only inside the box given (noted as
        marked now, so the tracking stays on; ``init`` would end it)."""
        self.note_marked(lane_lo, lane_hi, lo, hi)
        return self._init

    def flat_box(self, offset: int, nbytes: int) -> tuple:
        """The lanes x in-lane bytes box holding the flat byte range [offset, offset + nbytes)."""
        if nbytes <= 0:
            return NOTHING_MARKED
        lb = self.lane_bytes
        first, last = divmod(offset, lb), divmod(offset + nbytes - 1, lb)
        if first[0] == last[0]:
            return first[0], first[0] + 1, first[1], last[1] + 1
        return first[0], last[0] + 1, 0, lb

    @property
    def laned(self) -> bool:
        return self.lanes > 1

    def __repr__(self) -> str:
        shape = f"{self.lanes} lanes x {self.lane_bytes} B" if self.laned else f"{self.size} B"
        return f"Memory({self.name!r}, {shape})"

    # ---- raw byte access (host uploads/downloads, device-side copies of plain byte ranges) ----

    def check_range(self, offset: int, nbytes: int, api: str | None = None) -> None:
        if offset < 0 or nbytes < 0 or offset + nbytes > self.size:
            raise OutOfBoundsError(self.name, (self.base + offset, self.base + offset + nbytes),
                                   (self.base, self.base + self.size), api=api)

    def write_bytes(self, offset: int, raw, api: str | None = None) -> None:
        """Store the raw bytes of ``raw`` (any array or bytes object) at byte ``offset``."""
        b = np.frombuffer(memoryview(np.ascontiguousarray(raw)).cast("B"), np.uint8) \
            if not isinstance(raw, (bytes, bytearray)) else np.frombuffer(raw, np.uint8)
        self.check_range(offset, b.size, api)
        self.data[offset:offset + b.size] = b
        self._init[offset:offset + b.size] = 1
        self.note_marked(*self.flat_box(offset, b.size))

    def read_bytes(self, offset: int, nbytes: int, api: str | None = None) -> np.ndarray:
        """A copy of ``nbytes`` raw bytes at ``offset`` (never-written bytes read as stored: zero)."""
        self.check_range(offset, nbytes, api)
        return self.data[offset:offset + nbytes].copy()

    def fill(self, offset: int, nbytes: int, value: int = 0, mark_written: bool = True) -> None:
        self.check_range(offset, nbytes)
        self.data[offset:offset + nbytes] = value
        if mark_written:
            self._init[offset:offset + nbytes] = 1
            self.note_marked(*self.flat_box(offset, nbytes))
        else:
            self.generation += 1
            self._clear_flat(offset, nbytes)

    def forget(self, offset: int = 0, nbytes: int | None = None) -> None:
        """Mark bytes as never written again (a freed buffer, a fresh allocation)."""
        nbytes = self.size - offset if nbytes is None else nbytes
        self.check_range(offset, nbytes)
        self.generation += 1
        self._clear_flat(offset, nbytes)

    def _clear_flat(self, offset: int, nbytes: int) -> None:
        """Zero the init bytes [offset, offset + nbytes) (checked), skipped when none may be 1."""
        m = self.marked
        if m is not None:
            box = self.flat_box(offset, nbytes)
            if box is NOTHING_MARKED or m is NOTHING_MARKED or not _boxes_meet(box, m):
                return                  # every byte of the range is 0 already
            lb = self.lane_bytes
            if offset <= m[0] * lb + m[2] and (m[1] - 1) * lb + m[3] <= offset + nbytes:
                self.marked = NOTHING_MARKED        # the range holds every byte that may be 1
        self._init[offset:offset + nbytes] = 0

    def forget_lanes(self, lane_lo: int, lane_hi: int, byte_lo: int, byte_hi: int) -> None:
        """``forget`` for a box of a laned memory: bytes [byte_lo, byte_hi) of lanes [lane_lo, lane_hi)."""
        if not 0 <= lane_lo <= lane_hi <= self.lanes:
            raise OutOfBoundsError(self.name, (lane_lo, lane_hi), (0, self.lanes), what="lanes")
        if not 0 <= byte_lo <= byte_hi <= self.lane_bytes:
            raise OutOfBoundsError(self.name, (byte_lo, byte_hi), (0, self.lane_bytes), what="bytes of each lane")
        self.generation += 1
        m = self.marked
        if m is not None:
            if m is NOTHING_MARKED:
                return                  # no init byte is 1
            # Only bytes inside the marked box may be 1: zero the part of the asked box inside it.
            box = (lane_lo, lane_hi, byte_lo, byte_hi)
            if lane_lo <= m[0] and m[1] <= lane_hi and byte_lo <= m[2] and m[3] <= byte_hi:
                self.marked = NOTHING_MARKED        # the asked box holds every byte that may be 1
            lane_lo, lane_hi = max(lane_lo, m[0]), min(lane_hi, m[1])
            byte_lo, byte_hi = max(byte_lo, m[2]), min(byte_hi, m[3])
            if not _boxes_meet(box, m):
                return
        self._init.reshape(self.lanes, self.lane_bytes)[lane_lo:lane_hi, byte_lo:byte_hi] = 0

    def forget_all(self) -> None:
        """``forget()`` of every byte. When the init map is a private anonymous mapping on Linux
        (``zeroed(small_pages=True)``) its pages go back to the OS instead of being overwritten
        (madvise MADV_DONTNEED: such pages read as zero again, and cost nothing until touched):
        an NKI launch that swept all of trn2's 27 MB SBUF init map spent 3 ms writing zeros."""
        self.generation += 1
        m = self.marked
        if m is NOTHING_MARKED:
            return                      # no init byte is 1
        if self._init_pages is not None:
            self._init_pages.madvise(mmap.MADV_DONTNEED)
        else:
            self._init[...] = 0
        if m is not None:
            self.marked = NOTHING_MARKED    # (None stays: the raw map's taker may still write 1s)

    @property
    def drops_pages(self) -> bool:
        """``forget_all`` costs what the touched pages cost, not what the size does."""
        return self._init_pages is not None

    def initialized_fraction(self) -> float:
        return float(np.count_nonzero(self._init)) / self.size if self.size else 1.0


#: ``Memory.marked`` when no init byte may be 1 (compared by identity).
NOTHING_MARKED = (0, 0, 0, 0)


def _boxes_meet(a: tuple, b: tuple) -> bool:
    """Do two non-empty (lane_lo, lane_hi, lo, hi) boxes share a byte?"""
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]
