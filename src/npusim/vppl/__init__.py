"""npusim.vppl: TOPS SMYLEvideo GEN.2 VPPL vector dot operators and the VPPL text language.

    from npusim import vppl
    v = vppl.Vector("i16", 32, 99)            # vTest0 : i16[32] = 99,
    w = vppl.vList([55, 99, 33, ...], "i16")  # vList[...]
    v.min_IW(w)                               # min$IW, in place on v, returns v
    res = vppl.run(source_text)               # runs VPPL text; returns its variables
"""
from __future__ import annotations

from . import spec
from .execute import attach_methods, execute
from .machine import Machine, machine, mode, reset, using
from .pointer import Pointer
from .readings import Readings
from .semantics import ROWS, TABLE
from .types import elem_type
from .vector import Integer, Vector, alloc_vector, vList

from .lang_part_two import install as _install_part_two, run_with  # noqa: E402  (part two)
from .semantics_part_two import attach as _attach_part_two, info as _info_part_two  # noqa: E402  (part two)
from .procedures import install as _install_procedures  # noqa: E402  (issue 9: procedures, byName)
from .pointers import ByName, PointerVariable, dm_alloc, dm_put, dm_read, dm_write  # noqa: E402  (part two)
_install_part_two()
_install_procedures()
attach_methods()
_attach_part_two()


def run(source: str, images: dict | None = None, mode: str = "gen2", filename: str = "<vppl>",
        readings: Readings | None = None) -> dict:
    """Run VPPL text on a fresh machine; returns its variables (vectors as numpy arrays, scalars as int)."""
    from .interpreter import run as _run
    m = Machine(mode, readings=readings) if readings is not None else None
    return _run(source, images=images, mode=mode, filename=filename, machine=m)


def info() -> dict[str, dict[str, object]]:
    return {"SMYLEvideo GEN.2": {
        "clock (Hz)": spec.FREQ_HZ, "vector register (bits, estimate)": spec.REG_BITS,
        "cores": spec.CORES, "data memory (bytes, --EXM)": spec.DM_BYTES,
        "shift_up/down max bits": spec.SHIFT_MAX_BITS, "dot operators (rows)": len(ROWS),
        "GEN.2 rows": sum(r.gen2 for r in ROWS),
        **_info_part_two()}}


__all__ = ["Vector", "vList", "Integer", "alloc_vector", "run", "info", "Machine", "machine", "reset", "mode",
           "using", "Pointer", "Readings", "TABLE", "ROWS", "execute", "elem_type",
           "PointerVariable", "ByName", "dm_alloc", "dm_put", "dm_read", "dm_write", "run_with"]  # part two
