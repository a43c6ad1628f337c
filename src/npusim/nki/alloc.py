"""The on-chip allocator: next-fit over the per-partition bytes, on top of core's first-fit Allocator.

A tile allocated in a loop body is a new tensor each iteration. First-fit would hand it the bytes its
predecessor just released, so every iteration would wait for the previous one to stop reading them
(a write-after-read on the timeline), and nothing would pipeline. The NKI compiler instead rotates
loop tiles through free SBUF (multi-buffering) when space allows. Next-fit models that: each request
is placed after the previous one, wrapping around, and falls back to first-fit. Capacity is the same
either way: the live tensors must fit, or the error lists them.
"""
from __future__ import annotations

import bisect
import operator
import weakref

from ..core.allocator import Allocator, Block

_offset = operator.attrgetter("offset")     # a C-level bisection key (a def costs a Python call per probe)

# Block is a frozen dataclass: its __init__ sets each field through object.__setattr__. alloc sets the
# slots through their descriptors instead (the same object, a third of the cost).
_new_block = Block.__new__
_set_offset, _set_size, _set_name = Block.offset.__set__, Block.size.__set__, Block.name.__set__


class NextFitAllocator(Allocator):
    def __init__(self, name: str, capacity: int, align: int = 1, start: int = 0):
        super().__init__(name, capacity, align, start)
        self.cursor = start
        self.high = self.start      # the highest block end so far (the run's peak), kept by alloc

    def alloc(self, size: int, name: str = "", api: str = "alloc", align: int | None = None) -> Block:
        align = align or self.align
        if type(size) is not int:
            size = int(size)
        if size > 0:
            at = -(-self.cursor // align) * align
            end = self.start + self.capacity
            blocks = self.blocks
            # blocks are sorted by offset and never overlap, so their ends are sorted too: skip those
            # ending at or before the cursor by bisection (the scan would pass them one by one). The
            # first block starting at or after ``at``, or the one before it when that one reaches past
            # ``at``: every earlier block ends at or before ``at`` (the loop skips any that do).
            index = bisect.bisect_left(blocks, at, key=_offset)
            if index and blocks[index - 1].offset + blocks[index - 1].size > at:
                index -= 1
            if index < len(blocks):             # (past the last block: nothing to scan)
                for index in range(index, len(blocks)):
                    b = blocks[index]
                    if b.offset + b.size <= at:         # inside the alignment gap after the previous one
                        continue
                    if at + size <= b.offset:
                        break
                    at = -(-(b.offset + b.size) // align) * align
                else:
                    index = len(blocks)
            if at + size <= end:
                block = _new_block(Block)           # Block(at, size, name)
                _set_offset(block, at)
                _set_size(block, size)
                _set_name(block, name)
                blocks.insert(index, block)
                self.cursor = at = at + size
                if at > self.high:
                    self.high = at
                return block
        block = super().alloc(size, name, api, align)      # wrap around: first fit (or the capacity error)
        self.cursor = at = block.offset + block.size
        if at > self.high:
            self.high = at
        return block

    def free(self, block: Block) -> None:
        """``blocks.remove(block)`` without comparing every block before it: offsets are unique and
        sorted, so only the block at ``block.offset`` can be equal to it."""
        blocks = self.blocks
        i = bisect.bisect_left(blocks, block.offset, key=_offset)
        if i < len(blocks) and (blocks[i] is block or blocks[i] == block):    # (is: no dataclass __eq__)
            del blocks[i]
        else:
            blocks.remove(block)            # not there: list.remove's own ValueError


class TileRelease:
    """Frees a tile's block when the tile is garbage (or when called, once): what
    ``weakref.finalize(tile, allocator.free, block)`` did, at a fraction of its cost (one is made per
    allocation). Like finalize, a pending release is kept alive by a registry (``_PENDING``), so it fires
    even when the tile dies in a reference cycle."""
    __slots__ = ("ref", "allocator", "block", "__weakref__")

    def __init__(self, tile, allocator: Allocator, block: Block):
        self.allocator, self.block = allocator, block
        self.ref = weakref.ref(tile, _PENDING_CALLBACK)
        _PENDING[self.ref] = self

    @property
    def alive(self) -> bool:
        return self.ref in _PENDING

    def __call__(self) -> None:
        """Free the block now (once; later calls and the tile's death do nothing)."""
        if _PENDING.pop(self.ref, None) is not None:
            self.allocator.free(self.block)


#: weakref of a live tile -> its pending release (the weakref's hash is taken while the tile is alive)
_PENDING: dict = {}


def _tile_died(ref) -> None:
    release = _PENDING.pop(ref, None)
    if release is not None:
        release.allocator.free(release.block)


_PENDING_CALLBACK = _tile_died
