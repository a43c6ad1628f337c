"""``nki.language`` names of the current API: ``nl.bypass`` (no ALU stage), ``nl.prelu`` and ``nl.erf_dx``
(activation functions of the current table, [SDK] nki.api.shared.rst ``tbl-act-func``), the names
``nisa.activate2`` takes; ``nl.shared_constant`` (an array or a ``.npy`` file as an HBM tensor); and the
runtime loops ``nl.fori_loop`` / ``nl.while_loop`` (NKI 0.6, replacing ``nl.dynamic_range``); the buffer
predicates ``nl.is_hbm`` / ``is_on_chip`` / ``is_psum`` / ``is_sbuf``; ``nl.no_reorder``; ``nl.all``;
``nl.load_transpose2d``.
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
    _not_in_no_reorder(api, run)
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
    _not_in_no_reorder(api, run)
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


# ---- buffers, ordering, reductions, loads ----

def _region(api, buffer):
    if not isinstance(buffer, MemoryRegion):
        raise ConstraintError(api, "buffer", "an nl buffer (nl.sbuf, nl.psum, nl.hbm, nl.private_hbm, "
                              "nl.shared_hbm)", buffer)
    return buffer


def is_hbm(buffer) -> bool:
    """Whether ``buffer`` is an HBM buffer (private or shared)."""
    return _region("nl.is_hbm", buffer) in (MemoryRegion.private_hbm, MemoryRegion.shared_hbm)


def is_on_chip(buffer) -> bool:
    """Whether ``buffer`` is SBUF or PSUM."""
    return _region("nl.is_on_chip", buffer) in (MemoryRegion.sbuf, MemoryRegion.psum)


def is_psum(buffer) -> bool:
    return _region("nl.is_psum", buffer) is MemoryRegion.psum


def is_sbuf(buffer) -> bool:
    return _region("nl.is_sbuf", buffer) is MemoryRegion.sbuf


def _not_in_no_reorder(api, run):
    if run is not None and getattr(run, "_no_reorder_depth", 0):
        raise ConstraintError(api, "body_fun", "not inside nl.no_reorder (register-based dynamic loops are not "
                              "supported there)", "inside a no_reorder block")


class no_reorder:
    """``with nl.no_reorder():`` keeps the block's operations in program order. npusim never reorders (each
    engine runs its instructions in program order; engines wait for data they depend on), so the block
    changes no event; ``nl.fori_loop`` / ``nl.while_loop`` inside it raise, as the docstring says they are
    not supported there."""

    def __enter__(self):
        from . import runtime as _runtime
        self._run = _runtime._current
        if self._run is not None:
            self._run._no_reorder_depth = getattr(self._run, "_no_reorder_depth", 0) + 1
        return self

    def __exit__(self, *exc):
        if self._run is not None:
            self._run._no_reorder_depth -= 1
        return False


def all(x, axis, dtype=None):  # noqa: A001 (vendor name)
    """``nl.all(x, axis)``: 1 where every element along the free ``axis`` is nonzero, else 0 (a VectorE
    ``tensor_reduce`` with ``nl.logical_and``), in x's dtype unless ``dtype`` is given."""
    from . import language_two as _l2
    from .alu import OPS
    return _l2._reduce("nl.all", OPS["logical_and"], x, axis, dtype, False)


def load_transpose2d(src, dtype=None):
    """``nl.load_transpose2d(src)``: a 2-D HBM ``[A, B]`` tensor loaded transposed into a new SBUF ``[B, A]``
    tile: one ``dma_copy`` through the swapped view (charged as a DMA of the same bytes, as the legacy
    version; a transposing DMA's element-wise descriptors are not modelled)."""
    from .language import load
    from .tensor import NkiTensor
    api = "nl.load_transpose2d"
    if not isinstance(src, NkiTensor) or src.on_chip or len(src.shape) != 2:
        raise ConstraintError(api, "src", "a 2-D HBM tensor", getattr(src, "shape", type(src).__name__))
    return load(src.permute(1, 0), dtype=dtype)


__all__ = ["bypass", "prelu", "erf_dx", "shared_constant", "fori_loop", "while_loop", "is_hbm", "is_on_chip",
           "is_psum", "is_sbuf", "no_reorder", "all", "load_transpose2d"]
