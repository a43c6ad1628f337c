"""``nki.language`` names of the current API: ``nl.bypass`` (no ALU stage), ``nl.prelu`` and ``nl.erf_dx``
(activation functions of the current table, [SDK] nki.api.shared.rst ``tbl-act-func``), the names
``nisa.activate2`` takes; ``nl.shared_constant`` (an array or a ``.npy`` file as an HBM tensor); and the
runtime loops ``nl.fori_loop`` / ``nl.while_loop`` (NKI 0.6, replacing ``nl.dynamic_range``).
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


#: A while_loop whose condition never reaches 0 would hang the device; npusim stops it here.
WHILE_LOOP_MAX_TRIPS = 1 << 20


def fori_loop(lower, upper, body_fun, step=1):
    """``nl.fori_loop(lower, upper, body_fun, step=1)``: ``body_fun(i)`` for i in range(lower, upper, step),
    ``i`` a VirtualRegister holding the value (passed by value: writing it does not steer the loop). The
    bounds are ints or registers read once, at loop entry; ``step`` a compile-time positive int. Each
    iteration scopes its tiles as a compiled loop (as ``nl.dynamic_range``)."""
    from .registers import VirtualRegister, _bound
    from . import runtime as _runtime
    from . import scope as _scope
    api = "nl.fori_loop"
    if not isinstance(step, (int, np.integer)) or isinstance(step, bool) or step < 1:
        raise ConstraintError(api, "step", "a compile-time positive int (not a VirtualRegister)", step)
    if not callable(body_fun):
        raise ConstraintError(api, "body_fun", "a function (i: VirtualRegister) -> None", body_fun)
    r = range(_bound(api, "lower", lower), _bound(api, "upper", upper), int(step))
    run = _runtime._current
    for i in (r if run is None else _scope.iterate(run, r, api, True)):
        body_fun(VirtualRegister(i))


def while_loop(init, body_fun):
    """``nl.while_loop(init, body_fun)``: while the condition register is nonzero (checked before each
    iteration), ``r = body_fun(r)``; the body gets a register holding the current value and returns the
    next condition register. Iterations scope their tiles as a compiled loop; more than
    ``WHILE_LOOP_MAX_TRIPS`` iterations raise (the device would not stop)."""
    from .registers import VirtualRegister
    from . import runtime as _runtime
    from . import scope as _scope
    api = "nl.while_loop"
    if not isinstance(init, VirtualRegister):
        raise ConstraintError(api, "init", "a VirtualRegister (the initial condition)", init)
    if not callable(body_fun):
        raise ConstraintError(api, "body_fun", "a function (r: VirtualRegister) -> VirtualRegister", body_fun)
    cond = init.get(api)
    run = _runtime._current
    trips = range(WHILE_LOOP_MAX_TRIPS)
    for _ in (trips if run is None else _scope.iterate(run, trips, api, True)):
        if cond == 0:
            return None
        nxt = body_fun(VirtualRegister(cond))
        if not isinstance(nxt, VirtualRegister):
            raise ConstraintError(api, "body_fun", "returns the next condition register (a VirtualRegister)",
                                  type(nxt).__name__)
        cond = nxt.get(api)
    raise ConstraintError(api, "init", f"a condition that reaches 0 within {WHILE_LOOP_MAX_TRIPS} iterations",
                          cond)


__all__ = ["bypass", "prelu", "erf_dx", "shared_constant", "fori_loop", "while_loop"]
