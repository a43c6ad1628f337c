"""VPPL vectors and integer scalars.

A ``Vector`` is a declared-length array of one element type held in its own core ``Memory`` (a vector
variable of the process), numpy-backed and array-like. Its dot operators are methods named
``op_SUFFIX`` (``min$IW`` -> ``min_IW``) attached from the semantics table; each works in place on the
vector and returns it, as ``vTest2 = vTest2.min$IW(vTest0);`` does.

An ``Integer`` is a 32-bit scalar variable, mutable so that operators can write results into it
(``r_max$IW(vTest0, scalar_result)``).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..core.errors import ConstraintError, UninitializedReadError, UninitializedReadWarning
from ..core.memory import Memory
from ..core.options import options
from ..core.view import TensorView
from . import args
from .types import ElemType, elem_type, wrap_int32



def _int_value(api: str, v) -> int:
    """An integer variable's value: an int, numpy integer or Integer (a VPPL integer is 32-bit; the low
    32 bits are kept), never a bool, float or None."""
    if isinstance(v, Integer):
        return v.value
    return args.integer(api, "value", v)


POISON_INT = 4      # what a never-assigned integer reads as (the core's integer poison)


class Integer:
    """A VPPL ``integer`` variable: 32-bit two's complement; assignment keeps the low 32 bits.
    ``Integer(None)`` is declared but never assigned: reading it warns and gives poison, or raises in
    strict mode (``read``)."""
    __slots__ = ("name", "_v", "valid")

    def __init__(self, value: int | None = 0, name: str | None = None):
        self.name = args.name("Integer", name, "integer")
        self.valid = value is not None
        self._v = wrap_int32(_int_value("Integer", value)) if value is not None else POISON_INT

    @property
    def value(self) -> int:
        return self._v

    @value.setter
    def value(self, v) -> None:
        self._v = wrap_int32(v)
        self.valid = True

    def set(self, v) -> "Integer":
        self.value = _int_value("Integer.set", v)
        return self

    def read(self, api: str) -> int:
        """The value an instruction reads: a never-assigned integer is reported like uninitialised memory."""
        if not self.valid:
            msg = f"{api}: reads integer '{self.name}', which was never assigned"
            if options().uninitialized_is_error():
                raise UninitializedReadError(f"integer {self.name}", 0, 4, api)
            warnings.warn(f"{msg} (it reads as poison {POISON_INT})", UninitializedReadWarning, stacklevel=4)
        return self._v

    def __int__(self) -> int:
        return self._v

    __index__ = __int__

    def __eq__(self, other) -> bool:
        return self._v == int(other) if isinstance(other, (int, np.integer, Integer)) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._v)

    def __repr__(self) -> str:
        return f"Integer({self._v})"


class Vector:
    """``Vector("i16", 32, 99)`` is ``vTest0 : i16[32] = 99``; ``init=None`` leaves it uninitialised."""
    __slots__ = ("name", "etype", "length", "memory", "view", "a", "allocated", "valid", "__weakref__")

    def __init__(self, etype, length: int, init=0, *, name: str | None = None, allocated: bool = False):
        et: ElemType = elem_type(etype)
        length = args.vector_length("vector declaration", length)
        from .machine import machine
        self.name = args.name("vector declaration", name) or machine().vector_name()
        self.etype = et
        self.length = length
        self.memory = Memory(f"vector {self.name}", length * et.np.itemsize)
        self.view = TensorView(self.memory, 0, (length,), None, et.np.name)
        self.a = self.view.array()
        self.allocated = allocated
        if init is None:
            self.a[...] = self.view.poison()
            self.valid = False
        else:
            self.assign(init)

    # ---- values ----

    def assign(self, init) -> "Vector":
        """Set from a scalar (every element; the low bits of the element size) or a same-length list."""
        if isinstance(init, (bool, np.bool_)) or init is None or isinstance(init, (float, complex, np.inexact, str, bytes)):
            raise ConstraintError("vector declaration", "init", "an integer, an integer variable, or one "
                                  "integer per element", init)
        if isinstance(init, (int, np.integer, Integer)):
            from .ops_common import low_bits
            self.a[...] = low_bits(int(init), self.etype.np)      # the element size's low bits
        else:
            try:
                vals = np.asarray(init.a if isinstance(init, Vector) else init)
            except (TypeError, ValueError, OverflowError):
                raise ConstraintError("vList", "values", "vector elements are integers", type(init).__name__) from None
            if vals.ndim != 1 or vals.shape[0] != self.length:
                raise ConstraintError("vList", "values", f"a vList initialiser gives all {self.length} elements "
                                      f"of {self.name}", int(vals.size))
            if vals.dtype.kind == "O" and all(isinstance(x, (int, np.integer)) for x in vals.tolist()):
                vals = np.array([int(x) & 0xFFFFFFFF for x in vals.tolist()], np.int64)   # huge ints: low bits
            if vals.dtype.kind not in "iub":
                raise ConstraintError("vList", "values", "vector elements are integers", str(vals.dtype))
            # an unsafe integer cast keeps the low bits of each value (as via int64), in one pass
            np.copyto(self.a, vals, casting="unsafe")
        # the vector is its own memory: every byte is now written (what view.write would record,
        # without copying the array onto itself)
        self.memory.init.fill(1)
        self.valid = True
        return self

    def check_valid(self, api: str, stacklevel: int = 4) -> None:
        """Reading a never-written (or clobbered work) vector: poison + warning, or an error in strict mode."""
        if self.valid:
            return
        err = UninitializedReadError(self.memory.name, 0, self.a.nbytes, api)
        if options().uninitialized_is_error():
            raise err
        warnings.warn(f"{err} (it reads as poison)", UninitializedReadWarning, stacklevel=stacklevel)

    def clobber(self) -> None:
        """The instruction used this vector as work space: its contents are now undefined (poison)."""
        self.a[...] = self.view.poison()
        self.valid = False

    def written(self) -> None:
        self.valid = True

    def to_float(self) -> np.ndarray:
        """F16Qq / F32Qq values as float64 (raw * 2**-q); plain integers as float64."""
        from ..core.dtypes import from_fixed
        return from_fixed(self.a, self.etype.q or 0)

    def call(self, op: str, *args) -> "Vector":
        """Run a dot operator by its VPPL name: ``v.call("min$IW", w)`` is ``v.min_IW(w)``."""
        from .execute import execute
        from .semantics import TABLE
        row = TABLE.get(op)
        if row is None:
            raise ConstraintError(op, "operator", "a dot operator of the seed (general, element, reduction)", op)
        return execute(row, self, args)

    # ---- array-likeness ----

    @property
    def nbytes(self) -> int:
        return self.a.nbytes

    @property
    def dtype(self) -> np.dtype:
        return self.a.dtype

    def __array__(self, dtype=None, copy=None):
        a = self.a
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):
        r = self.a[i]
        return int(r) if np.ndim(r) == 0 else r.copy()

    def tolist(self) -> list[int]:
        return self.a.tolist()

    def __repr__(self) -> str:
        body = np.array2string(self.a, threshold=16, separator=", ")
        return f"Vector({self.name}: {self.etype.name}[{self.length}] = {body})"


def vList(values, etype="i16", name: str | None = None) -> Vector:
    """``vList[55, 99, ...]``: a vector of exactly these elements."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ConstraintError("vList", "values", "a sequence of integers", type(values).__name__)
    vals = list(values)
    return Vector(etype, len(vals), vals, name=name)


def alloc_vector(name: str, type_name: str = "__I16V", length: int = 16) -> Vector:
    """``alloc_vector(vTEMP, __I16V, 16)``: a vector fixed in the register file, usable as a work area
    (reductions require one). ``length`` is read as the element count (reference A7.19); contents
    start undefined."""
    from .types import ALLOC_TYPES
    if not isinstance(type_name, str) or type_name not in ALLOC_TYPES:
        raise ConstraintError("alloc_vector", "type", f"one of {', '.join(ALLOC_TYPES)}", type_name)
    return Vector(ALLOC_TYPES[type_name], length, None, name=name, allocated=True)
