"""TQueSync<src, dst>: a flag between two pipes named by the pipes instead of the HardEvent (TQueSync.md):
``TQueSync(PIPE_V, PIPE_MTE3).SetFlag(id)`` is ``SetFlag(HardEvent.V_MTE3, id)``, with the same rules."""
from __future__ import annotations

from ..core.errors import ConstraintError
from .sync import HardEvent, SetFlag, WaitFlag, pipe_t


class TQueSync:
    def __init__(self, src, dst):
        try:
            src, dst = pipe_t(src), pipe_t(dst)
        except ValueError:
            raise ConstraintError("TQueSync", "pipe", "a pipe_t (PIPE_S, PIPE_V, PIPE_MTE2, PIPE_MTE3 ...)",
                                  (src, dst)) from None
        self.event = next((e for e in HardEvent if e.value == (src.value, dst.value)), None)
        if self.event is None:
            raise ConstraintError("TQueSync", "pipe", "a (src, dst) pair of one of the vector core's HardEvents "
                                  f"({', '.join(e.name for e in HardEvent)})", (src.name, dst.name))

    def SetFlag(self, eventID: int) -> None:
        SetFlag(self.event, eventID)

    def WaitFlag(self, eventID: int) -> None:
        WaitFlag(self.event, eventID)
