"""The device's memories: a core Memory that counts the times its init map lost written bytes.

Init bytes only ever go from 0 to 1, except through ``forget`` or ``fill(mark_written=False)``. Counting
those lets a tensor remember "all my bytes were written" (initmap.is_written) until the count moves, so
a GDMA that re-reads a checked source skips the check. Code that clears ``init`` bytes by hand must call
``forget`` instead.
"""
from __future__ import annotations

from ..core.memory import Memory


class DeviceMemory(Memory):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.generation = 0     # bumped whenever some init bytes may have gone back to 0

    def forget(self, offset: int = 0, nbytes: int | None = None) -> None:
        self.generation += 1
        super().forget(offset, nbytes)

    def fill(self, offset: int, nbytes: int, value: int = 0, mark_written: bool = True) -> None:
        if not mark_written:
            self.generation += 1
        super().fill(offset, nbytes, value, mark_written)
