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
        self.init = zeroed(self.size, small_pages)     # 1 where the byte was ever written
        self.generation = 0     # bumped whenever some init bytes may have gone back to 0
        self._init_pages = _droppable_mapping(self.init)    # (forget_all)

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
        self.init[offset:offset + b.size] = 1

    def read_bytes(self, offset: int, nbytes: int, api: str | None = None) -> np.ndarray:
        """A copy of ``nbytes`` raw bytes at ``offset`` (never-written bytes read as stored: zero)."""
        self.check_range(offset, nbytes, api)
        return self.data[offset:offset + nbytes].copy()

    def fill(self, offset: int, nbytes: int, value: int = 0, mark_written: bool = True) -> None:
        self.check_range(offset, nbytes)
        self.data[offset:offset + nbytes] = value
        if not mark_written:
            self.generation += 1
        self.init[offset:offset + nbytes] = 1 if mark_written else 0

    def forget(self, offset: int = 0, nbytes: int | None = None) -> None:
        """Mark bytes as never written again (a freed buffer, a fresh allocation)."""
        nbytes = self.size - offset if nbytes is None else nbytes
        self.check_range(offset, nbytes)
        self.generation += 1
        self.init[offset:offset + nbytes] = 0

    def forget_lanes(self, lane_lo: int, lane_hi: int, byte_lo: int, byte_hi: int) -> None:
        """``forget`` for a box of a laned memory: bytes [byte_lo, byte_hi) of lanes [lane_lo, lane_hi)."""
        if not 0 <= lane_lo <= lane_hi <= self.lanes:
            raise OutOfBoundsError(self.name, (lane_lo, lane_hi), (0, self.lanes), what="lanes")
        if not 0 <= byte_lo <= byte_hi <= self.lane_bytes:
            raise OutOfBoundsError(self.name, (byte_lo, byte_hi), (0, self.lane_bytes), what="bytes of each lane")
        self.generation += 1
        self.init.reshape(self.lanes, self.lane_bytes)[lane_lo:lane_hi, byte_lo:byte_hi] = 0

    def forget_all(self) -> None:
        """``forget()`` of every byte. When the init map is a private anonymous mapping on Linux
        (``zeroed(small_pages=True)``) its pages go back to the OS instead of being overwritten
        (madvise MADV_DONTNEED: such pages read as zero again, and cost nothing until touched):
        an NKI launch that swept all of trn2's 27 MB SBUF init map spent 3 ms writing zeros."""
        self.generation += 1
        if self._init_pages is not None:
            self._init_pages.madvise(mmap.MADV_DONTNEED)
        else:
            self.init[...] = 0

    @property
    def drops_pages(self) -> bool:
        """``forget_all`` costs what the touched pages cost, not what the size does."""
        return self._init_pages is not None

    def initialized_fraction(self) -> float:
        return float(np.count_nonzero(self.init)) / self.size if self.size else 1.0
