"""``nki.language`` names of the current API that ``nisa.activate2`` takes: ``nl.bypass`` (no ALU
stage), ``nl.prelu`` and ``nl.erf_dx`` (activation functions of the current table, [SDK]
nki.api.shared.rst ``tbl-act-func``). Re-exported into ``nki.language`` by one import line at the end
of language.py."""
from __future__ import annotations

from .actfuncs import ACT

prelu = ACT["prelu"]
erf_dx = ACT["erf_dx"]


class Bypass:
    """``nl.bypass``: "No-op operator that passes data through unchanged", the ``op0`` / ``op1`` of a
    tensor-scalar stage that is skipped (the language stub). Not an ALU op: only activate2 takes it."""
    name = "bypass"

    def __repr__(self) -> str:
        return "nl.bypass"


bypass = Bypass()

__all__ = ["bypass", "prelu", "erf_dx"]
