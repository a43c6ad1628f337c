"""Checks shared by the ISA ops. Each raises ``NkiValidationError`` (a ConstraintError) naming the rule.

Rules and sources (reference nki.md §1.2, §2.4): partition dim <= 128 (with the official simulator's
wording), start-partition quadrants, PSUM tiles inside one 2 KiB bank, free-size limits (64K elements
SBUF, 4K PSUM), access patterns (<= 4 free dims, uint16 sizes, int16 strides), engine-to-memory
connectivity, equal partition counts for source and destination.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .plan import sig as _sig
from .tensor import SBUF, NkiTensor
from . import access as _access

MAX_FREE_SBUF = 64 * 1024       # elements per partition per instruction (trn1 arch guide)
MAX_FREE_PSUM = 4 * 1024
MAX_FREE_DIMS = 4


class NkiValidationError(ConstraintError):
    """``nki.isa.NkiValidationError``: a hardware constraint was violated. ``message`` (when given) is
    the official simulator's wording, kept in front of npusim's rule text."""

    def __init__(self, api, param, rule, value, message: str | None = None):
        super().__init__(api, param, rule, value)
        if message:
            self.args = (f"{message} [{self.args[0]}]",)


def short(api: str) -> str:
    return api.split(".")[-1]


def tile(api: str, param: str, t, on_chip: bool = True) -> NkiTensor:
    if not isinstance(t, NkiTensor):
        raise NkiValidationError(api, param, "an NKI tensor (nl.ndarray or a view of one)", type(t).__name__)
    scope = (t.root or t).scope
    if scope is not None and scope.ended and scope.strict:
        in_scope(api, param, t)     # raises (the condition in_scope checks)
    if on_chip:
        if not t.on_chip:
            raise NkiValidationError(api, param, "a tile in SBUF or PSUM", t.buffer,
                                     f"{short(api)} {param} must be in ['sbuf', 'psum'], got {t.buffer.value}")
        if not t.checked:
            # compute_tile's remembered pass of an SBUF view inline (a loop's fresh tiles repeat it)
            if t.ind is None and not t.in_psum and ((t.sig or _sig(t)), t.tv.lane_lo) in _PASSED:
                t.checked = True
                if scope is not None:
                    scope.add_view(t)       # unchecked again when the tile dies (scope.py)
            else:
                compute_tile(api, param, t)
    return t


def in_scope(api: str, param: str, t: NkiTensor) -> None:
    """A tile of a compiled loop's iteration is dead once the iteration ends; a lapsed unrolled-loop tile
    whose bytes a later allocation took was live alongside it (scope.py)."""
    scope = (t.root or t).scope
    if scope is not None and scope.ended and scope.strict:
        from .scope import Evicted, variable_name
        name = variable_name(t)
        if isinstance(scope, Evicted):
            raise NkiValidationError(api, param, "a tile occupies SBUF/PSUM until its last use: this use "
                                     "needs it alive together with a later allocation that did not fit",
                                     f"'{name}' from {scope.label}; {scope.by}",
                                     f"Tile '{name}' (made in {scope.label}) is used after its bytes were "
                                     f"needed by a later allocation")
        raise NkiValidationError(api, param, "a tile allocated in a loop iteration is used only inside it "
                                 "(NKI tensor scoping)", scope.label,
                                 f"Local variable '{name}' is referenced outside of its parent scope {scope.label}")


#: What the rules after the access-pattern one read of a view that passed them: (sig, start partition) of
#: an SBUF view; PSUM adds its byte range and the bank size. Views of a loop's fresh tiles repeat these.
_PASSED: dict = {}


def compute_tile(api: str, param: str, t: NkiTensor) -> None:
    """What every Vector/Scalar/GpSimd operand obeys (checked once per view: views are immutable)."""
    if t.checked:
        return
    if t.ind is not None and t.is_indirect():
        _access.raise_if_outside(api, param, t)       # a static .ap() that leaves its tensor, used here
        raise NkiValidationError(api, param, "a static access pattern (scalar_offset / vector_offset patterns "
                                 "are resolved by the DMA: dma_copy, dma_transpose)", t)
    fp = t.tv
    if t.in_psum:
        key = (t.sig or _sig(t), fp.lane_lo, fp.lo, fp.hi, t.run.chip.psum_bank_bytes if t.run else 2048)
    else:
        key = (t.sig or _sig(t), fp.lane_lo)
    if key not in _PASSED:
        _geometry(api, param, t)
        if len(_PASSED) > 65536:
            _PASSED.clear()
        _PASSED[key] = True
    t.checked = True
    scope = (t.root or t).scope
    if scope is not None:
        scope.add_view(t)           # unchecked again when the tile dies (scope.py)


def _geometry(api: str, param: str, t: NkiTensor) -> None:
    """compute_tile's rules after the access-pattern one (they read only what its key holds)."""
    p = t.partitions
    if p > 128:
        raise NkiValidationError(api, param, "partition dim <= 128", t.shape,
                                 f"{short(api)} {param} partition dimension {p} exceeds maximum 128")
    start = t.start_partition
    if p > 64 and start != 0:
        rule = "a tile of 65..128 partitions starts at partition 0"
    elif 32 < p <= 64 and start not in (0, 64):
        rule = "a tile of 33..64 partitions starts at partition 0 or 64"
    elif p <= 32 and start % 32:
        rule = "a tile of 1..32 partitions starts at partition 0, 32, 64 or 96"
    else:
        rule = None
    if rule:
        raise NkiValidationError(api, param, rule, f"start partition {start}, {p} partitions")
    n = t.free_size
    v = t.tv
    if t.in_psum:
        if n > MAX_FREE_PSUM:
            raise NkiValidationError(api, param, f"free size <= {MAX_FREE_PSUM} elements for a PSUM tile", n)
        fp = v
        bank = t.run.chip.psum_bank_bytes if t.run else 2048
        if fp.hi > fp.lo and fp.lo // bank != (fp.hi - 1) // bank:
            raise NkiValidationError(api, param, f"a PSUM tile lies inside one {bank}-byte bank per partition",
                                     f"bytes [{fp.lo}, {fp.hi})")
    elif n > MAX_FREE_SBUF:
        raise NkiValidationError(api, param, f"free size <= {MAX_FREE_SBUF} elements for an SBUF tile", n)
    if len(v.shape) - 1 > MAX_FREE_DIMS:
        raise NkiValidationError(api, param, f"an access pattern has at most {MAX_FREE_DIMS} free dims", t.shape)
    item = v.dtype.itemsize
    for size, stride in zip(v.shape[1:], v.strides[1:]):
        if size > 65535 or not -32768 <= stride // item <= 32767:
            raise NkiValidationError(api, param, "free dims have uint16 sizes and int16 element strides",
                                     (t.shape, tuple(s // item for s in v.strides[1:])))


def same_partitions(api: str, names: list[str], tiles: list[NkiTensor]) -> None:
    p0 = tiles[0].partitions
    bad = False
    for t in tiles:
        if t.partitions != p0:
            bad = True
    if bad:
        raise NkiValidationError(api, names[0], "source and destination occupy the same number of partitions",
                                 dict(zip(names, (t.shape for t in tiles))))


def same_free_size(api: str, names: list[str], tiles: list[NkiTensor]) -> None:
    n0 = tiles[0].free_size
    bad = False
    for t in tiles:
        if t.free_size != n0:
            bad = True
    if bad:
        raise NkiValidationError(api, names[-1], "the same number of elements per partition (no broadcasting)",
                                 dict(zip(names, (t.shape for t in tiles))))


def gpsimd_tile(api: str, param: str, t) -> NkiTensor:
    """``tile`` for an operand of a GpSimd-only instruction: it must live in SBUF."""
    tile(api, param, t)
    if t.buffer is not SBUF:
        raise NkiValidationError(api, param, "a tile in SBUF (GpSimd cannot access PSUM)", t.buffer)
    return t


def gpsimd_memory(api: str, names: list[str], tiles: list[NkiTensor]) -> str | None:
    """None when GpSimd may run the op, else why not (it cannot access PSUM)."""
    for n, t in zip(names, tiles):
        if t.in_psum:
            return f"GpSimd cannot access PSUM ({n} is in PSUM)"
    return None


def engine_arg(api: str, engine, enum_cls) -> str:
    """The engine name for an ``engine=`` argument (an ``nisa.engine`` member; raw ints are rejected)."""
    name = _ENGINE_NAMES.get(engine) if isinstance(engine, enum_cls) else None
    if name is None:
        if not isinstance(engine, enum_cls):
            raise NkiValidationError(api, "engine", "an nki.isa.engine member (raw ints are rejected since 0.3)",
                                     engine)
        name = _ENGINE_NAMES[engine] = engine.name      # enum .name is slow: remember it
    return name


_ENGINE_NAMES: dict = {}


def is_scalar(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating, bool, np.bool_))


def dtype_name(d) -> str:
    from .tensor import dtype_of
    return dtype_of(d).name


# ---- TensorE (for nc_matmul and friends): stationary/moving limits and connectivity (§1.2, §2.5) ----

# The TensorE (nc_matmul / nc_transpose) rules live in isa_matmul.py, next to the ops.
