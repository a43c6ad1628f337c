"""Capacity is real: a first-fit allocator over a byte range, with names for its error messages.

Front ends use it wherever the vendor's runtime hands out on-chip memory (NKI SBUF/PSUM per partition,
Ascend C's TPipe over the UB). When a request does not fit, the error lists every live allocation.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ConstraintError


@dataclass(frozen=True, slots=True)
class Block:
    offset: int
    size: int
    name: str


class Allocator:
    def __init__(self, name: str, capacity: int, align: int = 1, start: int = 0):
        self.name, self.capacity, self.align, self.start = name, int(capacity), int(align), int(start)
        self.blocks: list[Block] = []          # sorted by offset

    @property
    def used(self) -> int:
        return sum(b.size for b in self.blocks)

    @property
    def peak_end(self) -> int:
        # blocks are sorted by offset and never overlap: the last one ends highest
        if not self.blocks:
            return self.start
        b = self.blocks[-1]
        return b.offset + b.size

    def alloc(self, size: int, name: str = "", api: str = "alloc", align: int | None = None) -> Block:
        align = align or self.align
        size = int(size)
        if size <= 0:
            raise ConstraintError(api, "size", "allocation size is > 0 bytes", size)
        at = self.start
        index = 0
        for index, b in enumerate(self.blocks):
            at = -(-at // align) * align
            if at + size <= b.offset:
                break
            at = b.offset + b.size
        else:
            index = len(self.blocks)
            at = -(-at // align) * align
        if at + size > self.start + self.capacity:
            live = ", ".join(f"{b.name or '?'}@{b.offset:#x}+{b.size}" for b in self.blocks) or "nothing"
            raise ConstraintError(api, "size", f"{self.name} holds at most {self.capacity} bytes "
                                  f"({self.used} in use: {live})", f"{name or 'request'} of {size} bytes")
        block = Block(at, size, name)
        self.blocks.insert(index, block)
        return block

    def free(self, block: Block) -> None:
        self.blocks.remove(block)

    def reset(self) -> None:
        self.blocks.clear()

    def describe(self) -> str:
        return "\n".join(f"{b.offset:#8x} {b.size:8d}  {b.name}" for b in self.blocks)
