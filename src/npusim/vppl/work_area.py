"""The target vector of the image, BLAS-like and DNN operators: a work area (seed 003: "ターゲットベクタを
作業領域として使うため、alloc_vector()によりアロケートしたベクタを指定しなければなりません")."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError


def check_allocated(api: str, param: str, v) -> None:
    from .vector import Vector
    if not isinstance(v, Vector):
        raise ConstraintError(api, param, "an allocated vector (alloc_vector)", type(v).__name__)
    if not v.allocated:
        raise ConstraintError(api, param, "the operator uses this vector as a work area: it must be a vector "
                              "allocated with alloc_vector()", v.name)


def capacity16(v) -> int:
    """How many 16-bit (F16Qq) elements the vector's bytes hold."""
    return v.nbytes // 2


def leave(v, data: np.ndarray) -> None:
    """The work vector ends holding the last block moved through it: the first bytes of ``data`` (as many
    as fit); the rest of the vector keeps its old bytes. Deterministic, documented, and never poison."""
    raw = np.ascontiguousarray(data).view(np.uint8).ravel()
    n = min(raw.size, v.nbytes)
    v.a.view(np.uint8)[:n] = raw[:n]
    v.valid = True
