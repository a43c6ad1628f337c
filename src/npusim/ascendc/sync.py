"""Pipes, HardEvent flags and PipeBarrier (ascendc.md §4.4).

Order across pipes comes only from these (and the queues' implicit flags): the timeline runs in
``order="sync"``, so a cross-pipe read-after-write with nothing ordering it raises RaceError, as
msSanitizer's racecheck would report it on the device.
"""
from __future__ import annotations

import enum

from ..core.errors import ConstraintError
from . import cost
from .context import PIPES, current
from .args import as_int


class pipe_t(enum.Enum):
    PIPE_S = "PIPE_S"
    PIPE_V = "PIPE_V"
    PIPE_M = "PIPE_M"
    PIPE_MTE1 = "PIPE_MTE1"
    PIPE_MTE2 = "PIPE_MTE2"
    PIPE_MTE3 = "PIPE_MTE3"
    PIPE_FIX = "PIPE_FIX"
    PIPE_ALL = "PIPE_ALL"


PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1 = pipe_t.PIPE_S, pipe_t.PIPE_V, pipe_t.PIPE_M, pipe_t.PIPE_MTE1
PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL = pipe_t.PIPE_MTE2, pipe_t.PIPE_MTE3, pipe_t.PIPE_FIX, pipe_t.PIPE_ALL

_P = {"S": "PIPE_S", "V": "PIPE_V", "MTE2": "PIPE_MTE2", "MTE3": "PIPE_MTE3"}


class HardEvent(enum.Enum):
    """The 13 events an AIV supports on 2201 (kernel_event.h): value = (source pipe, destination pipe)."""
    MTE2_V = ("PIPE_MTE2", "PIPE_V")
    V_MTE2 = ("PIPE_V", "PIPE_MTE2")
    MTE3_V = ("PIPE_MTE3", "PIPE_V")
    V_MTE3 = ("PIPE_V", "PIPE_MTE3")
    V_V = ("PIPE_V", "PIPE_V")
    MTE3_MTE2 = ("PIPE_MTE3", "PIPE_MTE2")
    MTE2_MTE3 = ("PIPE_MTE2", "PIPE_MTE3")
    S_V = ("PIPE_S", "PIPE_V")
    V_S = ("PIPE_V", "PIPE_S")
    S_MTE2 = ("PIPE_S", "PIPE_MTE2")
    MTE2_S = ("PIPE_MTE2", "PIPE_S")
    S_MTE3 = ("PIPE_S", "PIPE_MTE3")
    MTE3_S = ("PIPE_MTE3", "PIPE_S")


def _check(api: str, event, event_id) -> tuple[HardEvent, int]:
    ctx = current()
    if not isinstance(event, HardEvent):
        raise ConstraintError(api, "HardEvent", "a HardEvent the vector core supports", event)
    eid = as_int(api, "eventID", event_id)
    if not 0 <= eid < ctx.soc.event_ids:
        raise ConstraintError(api, "eventID", f"0 <= id < {ctx.soc.event_ids} on {ctx.soc.name} (the top two "
                              "ids are reserved for the framework)", eid)
    return event, eid


def SetFlag(event: HardEvent, event_id: int = 0) -> None:
    """Fires when every earlier instruction on the source pipe is complete (SetFlag<event>(id))."""
    event, eid = _check("SetFlag", event, event_id)
    ctx = current()
    src, _ = event.value
    if ctx.flags[(event, eid)]:
        raise ConstraintError("SetFlag", "eventID", "each SetFlag is consumed by its WaitFlag before the same "
                              "(event, id) is set again (setting it twice is undefined behaviour)",
                              f"{event.name}, {eid}")
    if src == "PIPE_V":
        ctx.drain_v()          # SetFlag fires only once every earlier V instruction completed
    ctx.place(src, "SetFlag", cost.FLAG_CYCLES, args={"event": event.name, "id": eid})
    ctx.flags[(event, eid)].append(ctx.timeline.signal(src))


def WaitFlag(event: HardEvent, event_id: int = 0) -> None:
    """Blocks the destination pipe until the matching SetFlag fired, then clears it (WaitFlag<event>(id))."""
    event, eid = _check("WaitFlag", event, event_id)
    ctx = current()
    pending = ctx.flags[(event, eid)]
    if not pending:
        raise ConstraintError("WaitFlag", "eventID", "a SetFlag with the same event and id precedes each "
                              "WaitFlag (the NPU hangs here)", f"{event.name}, {eid}")
    _, dst = event.value
    if event is HardEvent.V_V:
        ctx.drain_v()
    ctx.timeline.wait(dst, pending.popleft())
    ctx.place(dst, "WaitFlag", cost.FLAG_CYCLES, args={"event": event.name, "id": eid})


def PipeBarrier(pipe: pipe_t) -> None:
    """``PipeBarrier<pipe>()``: PIPE_ALL drains every pipe; one pipe orders its own instructions."""
    ctx = current()
    if not isinstance(pipe, pipe_t):
        raise ConstraintError("PipeBarrier", "pipe", "a pipe_t (PIPE_V, PIPE_MTE2, ..., PIPE_ALL)", pipe)
    if pipe in (pipe_t.PIPE_ALL, pipe_t.PIPE_V):
        ctx.drain_v()
    if pipe is pipe_t.PIPE_ALL:
        ctx.timeline.barrier()
        for p in PIPES:
            ctx.place(p, "PipeBarrier", cost.BARRIER_CYCLES)
        return
    if pipe.value not in PIPES:
        raise ConstraintError("PipeBarrier", "pipe", "a pipe of the vector core: PIPE_S, PIPE_V, PIPE_MTE2, "
                              "PIPE_MTE3 or PIPE_ALL", pipe.name)
    ctx.place(pipe.value, "PipeBarrier", cost.BARRIER_CYCLES)
