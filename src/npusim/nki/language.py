"""``nki.language`` (``import npusim.nki.language as nl``): tensors, buffers, dtypes, SPMD ids, loops,
load/store, creation, and the elementwise ops that map onto the ISA.

Kernel code writes ``nl.add(x, y)``; the ALU operators (``nl.add``, ``nl.bitwise_and`` ...) are the same
objects passed to ``nisa.tensor_scalar(op0=nl.add)``.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import dtypes as _dt
from ..core.errors import ConstraintError
from . import args as _args
from . import isa as _isa
from .actfuncs import ACT
from .alu import NOT_ALU, OPS, AluOp
from . import runtime as _runtime
from . import scope as _scope
from . import placement as _placement
from .runtime import current
from .tensor import DynSlice, MemoryRegion, NkiTensor, dtype_of as _dtype_of

# ---- buffers ----
sbuf = MemoryRegion.sbuf
psum = MemoryRegion.psum
private_hbm = MemoryRegion.private_hbm
hbm = MemoryRegion.private_hbm
shared_hbm = MemoryRegion.shared_hbm

# ---- dtypes (numpy / ml_dtypes dtypes; tfloat32 has no numpy type and is npusim's DType) ----
float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
tfloat32 = _dt.DTYPES["tfloat32"]
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
int8, int16, int32 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32)
uint8, uint16, uint32 = np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32)
bool_ = np.dtype(np.bool_)

# ---- the ALU operators, as values and as functions ----
globals().update(OPS)
invert = OPS["invert"]
add, subtract, multiply = OPS["add"], OPS["subtract"], OPS["multiply"]
maximum, minimum = OPS["maximum"], OPS["minimum"]
abs, rsqrt, reciprocal = OPS["abs"], OPS["rsqrt"], OPS["reciprocal"]   # noqa: A001 (vendor names)
bitwise_and, bitwise_or, bitwise_xor = OPS["bitwise_and"], OPS["bitwise_or"], OPS["bitwise_xor"]
left_shift, right_shift = OPS["left_shift"], OPS["right_shift"]
equal, not_equal, less, less_equal = OPS["equal"], OPS["not_equal"], OPS["less"], OPS["less_equal"]
greater, greater_equal = OPS["greater"], OPS["greater_equal"]
logical_and, logical_or, logical_xor = OPS["logical_and"], OPS["logical_or"], OPS["logical_xor"]
logical_not, power = OPS["logical_not"], OPS["power"]


def _not_alu(name):
    def op(*args, **kwargs):
        raise ConstraintError(f"nl.{name}", "op", f"an operation the hardware has ({NOT_ALU[name]})", name)
    op.__name__ = name
    return op


divide = _not_alu("divide")
fmod = _not_alu("fmod")
mod = _not_alu("mod")


class _TileSize:
    """``nl.tile_size``: hardware tile limits (an instance: the SBUF sizes depend on the kernel's target)."""
    pmax = 128
    psum_bank_fmax = 512
    psum_fmax = 512                 # deprecated name of psum_bank_fmax
    psum_bank_fmax_bytes = 2048
    psum_num_banks = 8
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512

    @property
    def sbuf_fmax_bytes(self) -> int:
        """Usable SBUF bytes per partition of the running kernel's target (reference §1.1)."""
        return current("nl.tile_size.sbuf_fmax_bytes").chip.sbuf_usable

    @property
    def total_available_sbuf_size(self) -> int:
        """Deprecated; per-partition bytes, as sbuf_fmax_bytes (reference §1.1)."""
        return current("nl.tile_size.total_available_sbuf_size").chip.sbuf_usable


tile_size = _TileSize()


# ---- tensors ----

def _region(buffer, api):
    if not isinstance(buffer, MemoryRegion):
        raise ConstraintError(api, "buffer", "nl.sbuf, nl.psum, nl.hbm or nl.shared_hbm (string names are "
                              "rejected since NKI 0.3)", buffer)
    return buffer


def ndarray(shape, dtype, buffer=sbuf, name="", address=None) -> NkiTensor:
    """A new tensor; on-chip ones take space from the per-partition allocator until dropped."""
    api = "nl.ndarray"
    if address is not None:     # placed by the kernel (nki-library's SbufManager): placement.py
        return _placement.place(current(api), shape, dtype, _region(buffer, api), name, address)
    run = _runtime._current     # (current(api) without a call; it raises when there is no kernel)
    return (run or current(api)).allocate(shape, dtype, buffer if type(buffer) is MemoryRegion
                                          else _region(buffer, api), name, api)


def ds(start, size) -> DynSlice:
    """``nl.ds(start, size)``: the slice ``start:start+size``."""
    return DynSlice(_args.as_int("nl.ds", "start", start, 0), _args.as_int("nl.ds", "size", size, 0))


def _filled(shape, dtype, value, buffer, name, api):
    run = current(api)
    value = _args.fill_value(api, "fill_value", value, _dtype_of(dtype, api))
    t = run.allocate(shape, dtype, _region(buffer, api), name, api)
    if t.on_chip:
        _isa.memset(t, value)
    else:
        t.write(np.array(value).astype(t.tv.dtype.np))
    return t


def zeros(shape, dtype, buffer=sbuf, name="") -> NkiTensor:
    return _filled(shape, dtype, 0, buffer, name, "nl.zeros")


def ones(shape, dtype, buffer=sbuf, name="") -> NkiTensor:
    return _filled(shape, dtype, 1, buffer, name, "nl.ones")


def full(shape, fill_value, dtype, buffer=sbuf, name="") -> NkiTensor:
    return _filled(shape, dtype, fill_value, buffer, name, "nl.full")


def _like(api, a):
    if not isinstance(a, NkiTensor):
        raise ConstraintError(api, "a", "an NKI tensor", type(a).__name__)


def zeros_like(a, dtype=None, buffer=None, name="") -> NkiTensor:
    _like("nl.zeros_like", a)
    return zeros(a.shape, dtype or a.dtype, buffer or a.buffer, name)


def empty_like(a, dtype=None, buffer=None, name="") -> NkiTensor:
    _like("nl.empty_like", a)
    return ndarray(a.shape, dtype or a.dtype, buffer or a.buffer, name)


# ---- data movement ----

def load(src, dtype=None) -> NkiTensor:
    """An SBUF tile holding ``src`` (an HBM tensor), through ``nisa.dma_copy``."""
    api = "nl.load"
    if not isinstance(src, NkiTensor):
        raise ConstraintError(api, "src", "an NKI tensor", type(src).__name__)
    run = _runtime._current
    if run is None:
        run = current(api)
    t = run.allocate(src.shape, dtype or src.dtype, sbuf, "", api)
    _isa._dma_copy_into(run, t, src)        # (dma_copy once its checks of dst passed: t is a new tile)
    return t


def store(dst, value) -> None:
    """Write the tile ``value`` into ``dst`` (an HBM tensor), through ``nisa.dma_copy``."""
    _isa.dma_copy(dst=dst, src=value)


def copy(x, dtype=None) -> NkiTensor:
    """A copy of the tile ``x`` in x's buffer (SBUF or PSUM), made by ScalarE ``activation(op=copy)``,
    which casts through fp32 (the current nl.copy docstring; v2.32's said "allocated on SBUF")."""
    api = "nl.copy"
    if not isinstance(x, NkiTensor) or not x.on_chip:
        raise ConstraintError(api, "x", "a tile in SBUF or PSUM", getattr(x, "buffer", type(x).__name__))
    out = ndarray(x.shape, dtype or x.dtype, x.buffer)
    _isa.activation(out, ACT["copy"], x)
    return out


# ---- elementwise ops (called through AluOp.__call__) ----

#: unary ALU ops that nl.* runs as a ScalarE activation function (all targets), not as tensor_scalar
#: (relu/square have ALU forms on trn3 only; tensor_scalar's rsqrt would land on GpSimd, 4x slower and
#: blind to PSUM, on trn1/trn2)
ACTIVATION_LOWERED = ("relu", "square", "rsqrt")

def _promote(a, b) -> str:
    """The result dtype of an ``nl`` op on two tiles of dtypes ``a`` and ``b`` (npusim DTypes) without an
    explicit ``dtype=`` (npusim's rule, docs/nki.md): float with int -> the float; two floats -> the wider,
    float32 when they differ at the same width (bf16 + fp16, two fp8 kinds, tf32); two ints -> the wider,
    a signed one twice as wide (at most int32) when signedness differs; bool counts as uint8."""
    if a == b:
        return a.name
    if a.is_float != b.is_float:
        return (a if a.is_float else b).name
    if a.is_float:
        if a.itemsize != b.itemsize:
            return (a if a.itemsize > b.itemsize else b).name
        return "float32"
    # (no max()/min() here: nl.max / nl.min shadow the builtins in this module)
    sa, sb = a.kind == "i", b.kind == "i"
    width = a.itemsize if a.itemsize > b.itemsize else b.itemsize
    if sa == sb:
        return f"{'int' if sa else 'uint'}{8 * width}"
    unsigned_width = b.itemsize if sa else a.itemsize
    signed_width = width if width > 2 * unsigned_width else 2 * unsigned_width
    return f"int{8 * (signed_width if signed_width < 4 else 4)}"


def _result_dtype(x, y, dtype):
    if dtype is not None:
        return dtype
    dts = [t.tv.dtype for t in (x, y) if isinstance(t, NkiTensor)]
    if len(dts) == 2 and dts[0] != dts[1]:
        return _promote(dts[0], dts[1])
    return dts[0] if dts[0].name == "tfloat32" else dts[0].np


def _vector_operand(x, y):
    """The (P, 1) tile of two tiles that broadcasts along the other's free dims, else None.
    nl.abs_max's doc example combines a (128, 512) and a (128, 1) tile: the compiler lowers that to
    tensor_scalar with a vector operand, so the (P, 1) tile obeys tensor_scalar's operand rules."""
    if not (isinstance(x, NkiTensor) and isinstance(y, NkiTensor)) or x.shape == y.shape:
        return None
    if y.free_size == 1 and x.free_size > 1 and y.shape == (x.shape[0], 1):
        return y
    if x.free_size == 1 and y.free_size > 1 and x.shape == (y.shape[0], 1):
        return x
    return None


def elementwise(op: AluOp, x, y=None, dtype=None, **kw) -> NkiTensor:
    if not isinstance(op, AluOp):
        raise ConstraintError("nl.elementwise", "op", "an ALU operator (nl.add, nl.multiply, ...)", op)
    if y is not None and not op.unary and isinstance(x, NkiTensor) and isinstance(y, NkiTensor) and \
            x.shape == y.shape:
        # two tiles of one shape (``a + b``): the general path below gives tensor_tensor into a new tile
        out = ndarray(x.shape, _result_dtype(x, y, dtype), sbuf)
        _isa.tensor_tensor(out, x, y, op)
        return out
    if y is None and op.unary and isinstance(x, NkiTensor):
        # one tile through a unary op (``nl.square(t)``): the general path's unary branch below
        out = ndarray(x.shape, _result_dtype(x, None, dtype), sbuf)
        if op.name in ACTIVATION_LOWERED:
            _isa.activation(out, ACT[op.name], x)
        else:
            _isa.tensor_scalar(out, x, op, None)
        return out
    if (type(y) is float or type(y) is int) and not op.unary and isinstance(x, NkiTensor):
        # a tile and a Python number (``t * 0.25``): the general path below gives tensor_scalar
        out = ndarray(x.shape, _result_dtype(x, y, dtype), sbuf)
        _isa.tensor_scalar(out, x, op, y)
        return out
    api = f"nl.{op.name}"
    if not isinstance(x, NkiTensor) and not isinstance(y, NkiTensor):
        raise ConstraintError(api, "x", "at least one operand is an NKI tile", (type(x).__name__, type(y).__name__))
    tile = x if isinstance(x, NkiTensor) else y
    vector = _vector_operand(x, y)
    if vector is not None:
        tile = y if vector is x else x
    out = ndarray(tile.shape, _result_dtype(x, y, dtype), sbuf)
    if op.unary:
        if y is not None:
            raise ConstraintError(api, "y", f"{op.name} takes one operand", y)
        if op.name in ACTIVATION_LOWERED:
            # The compiler lowers nl.relu / nl.square / nl.rsqrt to one ScalarE activation on every target.
            _isa.activation(out, ACT[op.name], x)
        else:
            _isa.tensor_scalar(out, x, op, None)
    elif vector is y:
        _isa.tensor_scalar(out, x, op, y)               # a (P, 1) tile broadcasts along the free dims
    elif vector is x:
        _isa.tensor_scalar(out, y, op, x, reverse0=True)
    elif isinstance(x, NkiTensor) and isinstance(y, NkiTensor):
        _isa.tensor_tensor(out, x, y, op)
    elif isinstance(x, NkiTensor):
        _isa.tensor_scalar(out, x, op, y)
    else:
        _isa.tensor_scalar(out, y, op, x, reverse0=True)
    return out


def negative(x, dtype=None) -> NkiTensor:
    if not isinstance(x, NkiTensor) or not x.on_chip:
        raise ConstraintError("nl.negative", "x", "a tile in SBUF or PSUM", type(x).__name__)
    out = ndarray(x.shape, dtype or x.dtype, sbuf)
    _isa.tensor_scalar(out, x, multiply, -1.0)
    return out


# ---- SPMD and loops ----

def program_id(axis=0) -> int:
    run = current("nl.program_id")
    if not _args.is_int(axis) or not 0 <= axis < len(run.grid):
        raise ConstraintError("nl.program_id", "axis", f"an axis of the launch grid {run.grid}", axis)
    return run.program[axis]


def num_programs(axes=0):
    run = current("nl.num_programs")
    if isinstance(axes, (tuple, list)):
        return tuple(num_programs(a) for a in axes)
    if not _args.is_int(axes) or not 0 <= axes < len(run.grid):
        raise ConstraintError("nl.num_programs", "axes", f"an axis of the launch grid {run.grid}", axes)
    return run.grid[axes]


def program_ndim() -> int:
    """The launch grid's number of axes; 0 for a kernel launched without a grid (its docstring)."""
    return current("nl.program_ndim").grid_ndim


#: numpy's integer scalar types (np.int32 ...): exact types, so bools (np.bool_) are not among them
_NP_INT_TYPES = frozenset(t for t in set(np.sctypeDict.values()) if issubclass(t, np.integer)
                           and not issubclass(t, np.timedelta64))


def _scoped_range(api, args, strict=False):
    # Each iteration scopes the tiles allocated in it (scope.py: unrolled loops let them lapse, compiled
    # loops, strict=True, free them); outside a kernel: a plain range.
    if len(args) == 1 and (type(args[0]) is int or type(args[0]) in _NP_INT_TYPES) and \
            -_args.MAX_LOOP <= args[0] <= _args.MAX_LOOP:
        # (``range(n)`` of one int, Python's or numpy's (a bound computed from numpy arrays): what the
        # general path below makes of it, without its per-argument checks)
        r = range(int(args[0]))
        run = _runtime._current
        return r if run is None else _scope.iterate(run, r, api, strict)
    if not 1 <= len(args) <= 3:
        raise ConstraintError(api, "args", "1 to 3 ints (stop, or start, stop[, step])", args)
    ints = [_args.as_int(api, "args", a, -_args.MAX_LOOP, _args.MAX_LOOP,
                         rule=f"ints of magnitude <= {_args.MAX_LOOP} (not bools or floats)") for a in args]
    if len(ints) == 3 and ints[2] == 0:
        raise ConstraintError(api, "step", "a nonzero step", 0)
    r = range(*ints)
    run = _runtime._current
    return r if run is None else _scope.iterate(run, r, api, strict)


def affine_range(*args, **kwargs):
    """Parallel loop, unrolled (a deprecated alias of ``range`` in NKI 0.7): tiles made in an iteration stay
    usable after it; they lapse for capacity (scope.py)."""
    return _scoped_range("nl.affine_range", args)


def sequential_range(*args, **kwargs):
    return _scoped_range("nl.sequential_range", args)


def static_range(*args, **kwargs):
    return _scoped_range("nl.static_range", args)


def device_print(prefix, tensor) -> None:
    print(prefix, tensor.numpy() if isinstance(tensor, NkiTensor) else tensor)


def sbuf_fmax_bytes() -> int:
    """Usable SBUF bytes per partition of the current target."""
    return current("nl.sbuf_fmax_bytes").chip.sbuf_usable


__all__ = [n for n in dir() if not n.startswith("_")]

# ---- part two (matmul, transpose, activations, reductions ...): see language_two.py ----
from .language_two import *  # noqa: E402,F401,F403
__all__ = [n for n in dir() if not n.startswith("_")]

# ---- part three (NKIObject, par_dim, shared_identity_matrix, dynamic_range ...): see language_three.py ----
from .language_three import *  # noqa: E402,F401,F403
__all__ = [n for n in dir() if not n.startswith("_")]

# ---- part five (nl.bypass, nl.prelu, nl.erf_dx: activate2's names): see language_five.py ----
from .language_five import *  # noqa: E402,F401,F403
__all__ = [n for n in dir() if not n.startswith("_")]
