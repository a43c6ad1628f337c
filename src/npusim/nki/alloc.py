"""The on-chip allocator: next-fit over the per-partition bytes, on top of core's first-fit Allocator.

A tile allocated in a loop body is a new tensor each iteration. First-fit would hand it the bytes its
predecessor just released, so every iteration would wait for the previous one to stop reading them
(a write-after-read on the timeline), and nothing would pipeline. The NKI compiler instead rotates
loop tiles through free SBUF (multi-buffering) when space allows. Next-fit models that: each request
is placed after the previous one, wrapping around, and falls back to first-fit. Capacity is the same
either way: the live tensors must fit, or the error lists them.

A tile's bytes are held by a ``TileBlock``: the allocator's block and a weak reference to the tile in
one object, so the tile's death frees its bytes (runtime.Run._place).
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
        self.high = self.start      # the highest block end so far (the run's peak), kept by reserve
        #: blocks of tiles whose loop iteration ended while they were alive (scope.py), oldest first:
        #: what Run evicts when a request does not fit. Freed ones stay until evict_one or a prune skips them.
        self.lapsed: list = []

    def reserve(self, size: int, name: str = "", api: str = "alloc", align: int | None = None) -> tuple:
        """Where next fit puts ``size`` bytes: (offset, index in ``blocks``), or the capacity error.
        The cursor and ``high`` move as for an allocation; the caller inserts its block at that index
        before anything else allocates or frees (``alloc`` below, runtime.Run._place)."""
        align = align or self.align
        if type(size) is not int:
            size = int(size)
        blocks = self.blocks
        if size > 0:
            at = -(-self.cursor // align) * align
            last = blocks[-1] if blocks else None
            if last is None or last.offset + last.size <= at:     # past every block (a loop's usual case)
                if at + size <= self.start + self.capacity:
                    self.cursor = end = at + size
                    if end > self.high:
                        self.high = end
                    return at, len(blocks)
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
            if at + size <= self.start + self.capacity:
                self.cursor = end = at + size
                if end > self.high:
                    self.high = end
                return at, index
        # Wrap around: core's first fit (or its capacity error, which lists the live blocks). It inserts
        # a block of its own: take it out again, the caller inserts its own.
        block = super().alloc(size, name, api, align)
        at = block.offset
        for index, b in enumerate(blocks):      # (by identity, not bisection: rare, and sure)
            if b is block:
                del blocks[index]
                break
        self.cursor = end = at + size
        if end > self.high:
            self.high = end
        return at, index

    def alloc(self, size: int, name: str = "", api: str = "alloc", align: int | None = None) -> Block:
        at, index = self.reserve(size, name, api, align)
        block = _new_block(Block)           # Block(at, size, name)
        _set_offset(block, at)
        _set_size(block, int(size))
        _set_name(block, name)
        self.insert(index, block)
        return block

    def insert(self, index: int, block) -> None:
        """Put the block ``reserve`` placed at ``index`` into ``blocks``. Making the block (or the tile)
        in between may have run the garbage collector, and a tile dying in a reference cycle frees its
        block: one before ``index`` moves the rest down (frees only, so the offset still fits)."""
        blocks = self.blocks
        if index > len(blocks) or index and blocks[index - 1].offset > block.offset:
            index = bisect.bisect_left(blocks, block.offset, key=_offset)
        blocks.insert(index, block)

    def free(self, block) -> None:
        """``blocks.remove(block)`` by identity: offsets are unique and sorted, so only the block at
        ``block.offset`` can be it (a Block equal to it by value is taken too, as list.remove would)."""
        blocks = self.blocks
        i = bisect.bisect_left(blocks, block.offset, key=_offset)
        if i < len(blocks) and (blocks[i] is block or type(block) is Block and blocks[i] == block):
            del blocks[i]
        else:
            raise ValueError(f"{self.name}: no block at {block.offset:#x}+{block.size} ({block.name}) to free")

    def prune_lapsed(self) -> None:
        """Drop freed blocks from ``lapsed`` (in place: placement.py holds the list)."""
        self.lapsed[:] = [b for b in self.lapsed if b.allocator is not None]


class TileBlock(weakref.ref):
    """The allocator block holding one tile's bytes, which is also a weak reference to that tile.

    One object per allocation instead of three (a Block, a weak reference and a finalizer that frees
    the block; the standard library's WeakMethod subclasses weakref.ref the same way). While the bytes
    are allocated the allocator's ``blocks`` list holds it, which keeps the weak reference alive, so the
    tile's death calls ``release`` (as weakref.finalize would, even when the tile dies in a reference
    cycle). ``block()`` is the tile, None once it died. ``allocator`` is None once the block was freed:
    by the tile's death, the end of a strict loop iteration or an eviction, whichever comes first.

    It has a Block's fields (offset, size, name), so the allocator, its capacity error and placement.py
    read it as one; equality is a weak reference's (identity here), never a Block's.
    """
    __slots__ = ("offset", "size", "name", "allocator")

    @property
    def alive(self) -> bool:
        """Still allocated (the pending finalizer of ``weakref.finalize``)."""
        return self.allocator is not None

    def release(self) -> None:
        """Free the bytes now (once; later calls and the tile's death do nothing)."""
        allocator = self.allocator
        if allocator is not None:
            self.allocator = None
            blocks = allocator.blocks       # allocator.free(self), without a second call per tile
            i = bisect.bisect_left(blocks, self.offset, key=_offset)
            if i < len(blocks) and blocks[i] is self:
                del blocks[i]
            else:
                allocator.free(self)        # (its error)

    def __repr__(self) -> str:
        return f"TileBlock({self.offset:#x}+{self.size}, {self.name!r}, {'held' if self.alive else 'freed'})"


def hold(tile, allocator: NextFitAllocator, offset: int, size: int, name: str, index: int) -> TileBlock:
    """Allocate the bytes ``reserve`` gave (offset, index) to ``tile`` until it dies or is released."""
    block = TileBlock(tile, _tile_died)
    block.offset = offset
    block.size = size
    block.name = name
    block.allocator = allocator
    allocator.insert(index, block)
    return block


_tile_died = TileBlock.release      # the weak reference's callback: called with the block
