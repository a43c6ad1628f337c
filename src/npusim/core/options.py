"""Fidelity switches, in one frozen dataclass.

A front end reads the options that are current (``options()``); a user changes them for a block of code
with ``npusim.configure(strict=True)`` used as a context manager, or for the rest of the program with
``npusim.set_options(...)``. Frozen so that nothing changes them behind an instruction's back.
"""
from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from typing import Iterator, Literal


@dataclass(frozen=True)
class Options:
    #: Report documented data-range remarks (e.g. "exp input in [-103, 88]") as errors, and read of
    #: never-written memory as an error. Off: the hardware computes something, and so do we.
    strict: bool = False
    #: What reading never-written bytes does: "poison" fills them with the poison pattern of the dtype
    #: read (NaN for floats, a sentinel for integers) and goes on; "error" raises UninitializedReadError.
    #: strict=True implies "error".
    uninitialized: Literal["poison", "error"] = "poison"
    #: Track which bytes were ever written. Off saves one pass over each operand; uninitialised reads
    #: then go unnoticed and read whatever the memory holds (zeros).
    track_init: bool = True
    #: Report unordered cross-engine conflicts (RaceError) where a front end can see them.
    check_races: bool = True
    #: Float overflow on narrowing float casts: "inf" (IEEE, inf/NaN kept) or "saturate" (inf -> +-max,
    #: NaN -> 0). Front ends whose chip fixes the mode pass it explicitly.
    float_overflow: Literal["inf", "saturate"] = "inf"
    #: Record the user's file:line on each event (one stack walk per instruction).
    record_source: bool = True

    def uninitialized_is_error(self) -> bool:
        return self.strict or self.uninitialized == "error"


_current = Options()


def options() -> Options:
    return _current


def set_options(**changes) -> Options:
    """Change options for the rest of the program; returns the previous options."""
    global _current
    previous = _current
    _current = dataclasses.replace(_current, **changes)
    return previous


@contextlib.contextmanager
def configure(**changes) -> Iterator[Options]:
    """``with npusim.configure(strict=True): ...`` changes options inside the block only."""
    global _current
    previous = set_options(**changes)
    try:
        yield _current
    finally:
        _current = previous
