"""``nki.language`` names of the current API: ``nl.bypass`` (no ALU stage), ``nl.prelu`` and ``nl.erf_dx``
(activation functions of the current table, [SDK] nki.api.shared.rst ``tbl-act-func``), the names
``nisa.activate2`` takes; and ``nl.shared_constant`` (an array or a ``.npy`` file as an HBM tensor).
Re-exported into ``nki.language`` by one import line at the end of language.py."""
from __future__ import annotations

import os

import numpy as np

from ..core.errors import ConstraintError
from .actfuncs import ACT
from .runtime import current
from .tensor import MemoryRegion, dtype_of

prelu = ACT["prelu"]
erf_dx = ACT["erf_dx"]


class Bypass:
    """``nl.bypass``: "No-op operator that passes data through unchanged", the ``op0`` / ``op1`` of a
    tensor-scalar stage that is skipped (the language stub). Not an ALU op: only activate2 takes it."""
    name = "bypass"

    def __repr__(self) -> str:
        return "nl.bypass"


bypass = Bypass()

#: The element types the stub lists as supported ("Packed types ... and tfloat32 are supported at the
#: MLIR level but not yet tested end-to-end": refused here).
SHARED_CONSTANT_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8",
                          "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu")


def shared_constant(constant):
    """``nl.shared_constant(constant)``: a tensor in shared HBM holding ``constant`` (a numpy array, or the
    path of a ``.npy`` file), its dtype the array's. On the chip the constant sits in the binary and both
    LNC2 cores share it; it is read-only data, so npusim gives each call its own HBM copy."""
    api = "nl.shared_constant"
    if isinstance(constant, (str, os.PathLike)):
        if not str(constant).endswith(".npy") or not os.path.isfile(constant):
            raise ConstraintError(api, "constant", "a numpy array or the path of an existing .npy file", constant)
        value = np.load(constant, allow_pickle=False)
    elif isinstance(constant, np.ndarray):
        value = constant
    else:
        raise ConstraintError(api, "constant", "a numpy array or the path of a .npy file", type(constant).__name__)
    dt = dtype_of(value.dtype, api, "constant")
    if dt.name not in SHARED_CONSTANT_DTYPES:
        raise ConstraintError(api, "constant", f"an element type of {', '.join(SHARED_CONSTANT_DTYPES)}", dt.name)
    t = current(api).hbm_tensor(value.shape if value.ndim else (1,), dt, MemoryRegion.shared_hbm,
                                "shared_constant")
    t.write(value.reshape(t.shape))
    return t


__all__ = ["bypass", "prelu", "erf_dx", "shared_constant"]
