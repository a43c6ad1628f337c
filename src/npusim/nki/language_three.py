"""``nki.language`` names real kernels import beyond part two: ``NKIObject``, ``par_dim``,
``shared_identity_matrix``, ``gelu_apprx_sigmoid``, ``dynamic_range`` (registers.py).
Re-exported into ``nki.language`` by one import line at the end of language.py."""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np

from ..core.errors import ConstraintError
from .actfuncs import ACT
from .mx import float4_e2m1fn_x4, float8_e4m3fn_x4, float8_e5m2_x4, float8_e8m0fnu  # noqa: F401
from .registers import dynamic_range  # noqa: F401
from .runtime import current
from .tensor import MemoryRegion, NkiTensor, dtype_of

gelu_apprx_sigmoid = ACT["gelu_apprx_sigmoid"]
gelu_apprx_sigmoid_dx = ACT["gelu_apprx_sigmoid_dx"]


class _NKIObjectType(type):
    """Constructs NKIObject subclasses the way NKI's tracer does: a keyword argument naming a class
    attribute the generated ``__init__`` does not take is set on the instance. nki-library's
    attention_cte declares ``@dataclass class SectionParams(nl.NKIObject): section_idx = None`` (no
    annotations, so no dataclass fields) and builds it with ``SectionParams(section_idx=0, ...)``.
    A dataclass field left out of the call stays unset (reading it raises AttributeError), as NKI's
    tracer allows: nki-library's mlp_tkg_constants never passes ``remainderIFused``."""

    def __call__(cls, *args, **kwargs):
        info = _INIT_INFO.get(cls)
        if info is None:
            info = _INIT_INFO[cls] = _init_info(cls)
        if info is _PLAIN:
            return super().__call__(*args, **kwargs)
        params, takes_any, required = info
        extra = {}
        if kwargs and not takes_any:
            extra = {k: kwargs.pop(k) for k in list(kwargs) if k not in params and hasattr(cls, k)}
        unset = [n for i, n in required if i >= len(args) and n not in kwargs]
        for n in unset:
            kwargs[n] = None
        obj = super().__call__(*args, **kwargs)
        for name in unset:
            object.__delattr__(obj, name)
        for k, v in extra.items():
            object.__setattr__(obj, k, v)
        return obj


_PLAIN = object()
_INIT_INFO: dict = {}       # class -> (init parameter names, takes **kwargs, [(position, required field)])


def _init_info(cls):
    init = cls.__init__
    if init is NKIObject.__init__:
        return _PLAIN
    sig = list(inspect.signature(init).parameters.values())[1:]
    names = {p.name for p in sig}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig)
    required = []
    if dataclasses.is_dataclass(cls):
        fields = {f.name for f in dataclasses.fields(cls)}
        required = [(i, p.name) for i, p in enumerate(sig) if p.name in fields
                    and p.default is inspect.Parameter.empty]
    return names, takes_any, required


class NKIObject(metaclass=_NKIObjectType):
    """``nl.NKIObject``: the base class of kernel dataclasses and configuration objects. It has no
    behaviour of its own; its ``__init__`` sets the keyword arguments as attributes (its stub's
    ``__init__(self, **kwargs)``); ``@dataclass`` subclasses bring their own (plus their class
    attributes as keywords, see _NKIObjectType)."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


def par_dim(n):
    """``nl.par_dim(n)``: marks the partition dim in a shape. Block dimensions were removed in NKI 0.2,
    so the partition dim is always the first one and ``par_dim(n)`` is just ``n`` (an int); a shape that
    puts it elsewhere fails the usual shape rules."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ConstraintError("nl.par_dim", "n", "a positive int", n)
    return int(n)


def shared_identity_matrix(n, dtype="uint8", dst=None) -> NkiTensor:
    """An ``n x n`` identity matrix in SBUF (the compiler shares one per dtype; here each call makes one,
    a constant: it costs no instruction). ``dst``: an (n, n) SBUF tile to fill instead."""
    api = "nl.shared_identity_matrix"
    run = current(api)
    if not isinstance(n, (int, np.integer)) or not 1 <= n <= run.chip.partitions:
        raise ConstraintError(api, "n", f"an int in 1..{run.chip.partitions} (rows are partitions)", n)
    d = dtype_of(dtype, api)
    if dst is None:
        dst = run.allocate((int(n), int(n)), d, MemoryRegion.sbuf, "identity", api)
    elif not isinstance(dst, NkiTensor) or dst.buffer is not MemoryRegion.sbuf or tuple(dst.shape) != (n, n):
        raise ConstraintError(api, "dst", f"an ({n}, {n}) SBUF tile", getattr(dst, "shape", dst))
    dst.write(np.eye(int(n)).astype(dst.tv.dtype.np))
    return dst


__all__ = ["NKIObject", "par_dim", "shared_identity_matrix", "gelu_apprx_sigmoid", "gelu_apprx_sigmoid_dx",
           "dynamic_range", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4", "float8_e8m0fnu"]
