"""TensorE: ``nisa.nc_matmul`` (``dst = stationary.T @ moving`` into PSUM, with accumulation) and
``nisa.nc_transpose`` (TensorE through the PE array, or VectorE for 32x32 blocks).

Rules (reference nki.md §1.2 TC#3, §1.4 PSUM accumulation, §2.5 nc_matmul / nc_transpose):
stationary [K<=128, M<=128] and moving [K, N] are SBUF tiles with the same K (the contraction is over
partitions); N <= 512 (trn3: 4096 for a float32 dst, 8192 for a bfloat16 dst: the whole PSUM);
dst [M, N] is a PSUM tile, float32 (bfloat16 also on trn3); input dtypes fp8_e4m3/e5m2, bf16, fp16,
tf32, fp32, where fp32/tf32 pair only with fp32/tf32 and the two fp8 formats are not mixed.

Accumulation (``accumulate=None``, the default): the first write to a PSUM location overwrites it and
later writes accumulate, so a loop over K tiles sums into one PSUM tile. "First write" is read off the
core's init map (a location nothing wrote yet), so a fresh ``nl.ndarray(..., buffer=nl.psum)`` starts a
new accumulation group. ``accumulate=True`` always adds, ``False`` always overwrites.
"""
from __future__ import annotations

import enum
import sys
import warnings
import weakref
import numpy as np

from ..core.options import options
from . import blas as _blas
from . import cost as _cost
from . import cost_two as _cost2
from . import rules as R
from . import runtime as _runtime
from .isa import _f32, choose_engine as _choose, engine, store_result as _store
from .runtime import NkiInstruction, current
from .plan import remember as _remember, sig as _sig
from .tensor import PSUM, SBUF, MemoryRegion, NkiTensor

#: core/options.py itself: ``_options_mod._current`` is options() without a call (per-instruction paths)
_options_mod = sys.modules[options.__module__]

NkiValidationError = R.NkiValidationError

MATMUL_INPUT_DTYPES = ("float8_e4m3", "float8_e4m3fn", "float8_e5m2", "bfloat16", "float16", "tfloat32",
                       "float32")
_FP32_CLASS = ("float32", "tfloat32")
_FP8 = ("float8_e4m3", "float8_e4m3fn", "float8_e5m2")
MAX_K = 128                 # contraction (partition) dim of both inputs
MAX_STATIONARY_FREE = 128   # gemm_stationary_fmax
MAX_MOVING_FREE = 512       # gemm_moving_fmax (one 2 KiB PSUM bank of fp32)
TRN3_MOVING_FREE = {"float32": 4096, "bfloat16": 8192}      # trn3: the whole 16 KiB PSUM
VECTOR_TRANSPOSE_MAX = 32   # VectorE transposes blocks up to [32, 32]
TENSOR_TRANSPOSE_MAX = 128  # TensorE transposes up to [128, 128]


class matmul_perf_mode(enum.Enum):
    """``nki.isa.matmul_perf_mode``: ``double_row`` is the FP8 2x mode of NeuronCore-v3/v4."""
    none = "none"
    double_row = "double_row"


def _sbuf_input(api, param, t) -> None:
    R.tile(api, param, t)
    if t.buffer is not SBUF:
        raise NkiValidationError(api, param, "TensorE reads its inputs from SBUF", t.buffer)


def _psum_dst(api, param, t, chip, allow_multi_bank: bool) -> bool:
    """dst of a TensorE op: a PSUM tile; inside one 2 KiB bank unless trn3 lets it span the PSUM (then
    True: only the partition count is checked, not the per-view rules)."""
    if not isinstance(t, NkiTensor):
        raise NkiValidationError(api, param, "an NKI tensor (nl.ndarray or a view of one)", type(t).__name__)
    if t.buffer is not PSUM:
        raise NkiValidationError(api, param, "TensorE writes its result to PSUM", t.buffer)
    R.in_scope(api, param, t)
    if allow_multi_bank and t.free_size * t.itemsize > chip.psum_bank_bytes:
        if t.partitions > chip.partitions:
            raise NkiValidationError(api, param, "partition dim <= 128", t.shape,
                                     f"{R.short(api)} {param} partition dimension {t.partitions} exceeds "
                                     "maximum 128")
        return True
    R.compute_tile(api, param, t)
    return False


def _check_tiling(api, chip, tile_position, tile_size, k, m, perf) -> None:
    """Row/column tiling of the 128x128 PE array: 2x64 (v2+) or 4x32 (v3+) tiles (nc_matmul docstring)."""
    if not tile_position and not tile_size:
        return
    if not tile_position or not tile_size or len(tile_position) != 2 or len(tile_size) != 2:
        raise NkiValidationError(api, "tile_position", "tile_position and tile_size are both given as "
                                 "(row, column) pairs, or both left empty", (tile_position, tile_size))
    sizes = (32, 64, 128) if chip.nc_version >= 3 else (64, 128)
    for i, what in enumerate(("row", "column")):
        size, pos = int(tile_size[i]), int(tile_position[i])
        if size not in sizes:
            raise NkiValidationError(api, "tile_size", f"a {what} tile size in {sizes} on {chip.name}", size)
        if pos % size or not 0 <= pos <= 128 - size:
            raise NkiValidationError(api, "tile_position", f"a {what} offset that is a multiple of the tile "
                                     f"size inside the 128 PE {what}s", pos)
    if k > int(tile_size[0]):
        raise NkiValidationError(api, "stationary", "K (stationary partitions) <= the row tile size",
                                 (k, int(tile_size[0])))
    if m > int(tile_size[1]):
        raise NkiValidationError(api, "stationary", "M (stationary free size) <= the column tile size",
                                 (m, int(tile_size[1])))
    if perf is matmul_perf_mode.double_row and int(tile_size[1]) < 128:
        raise NkiValidationError(api, "perf_mode", "double_row cannot be combined with column tiling",
                                 tile_size)


class PsumAccumulateWarning(UserWarning):
    """nc_matmul accumulates onto PSUM values no matmul wrote (a memset or copy): undefined on
    NeuronCore-v2/v3 (nc_matmul docstring)."""


class _MatmulMap:
    """Which PSUM elements some fp32 nc_matmul wrote in the current launch (NeuronCore-v2/v3 warn when a
    matmul accumulates onto others): ``map`` over the PSUM's bytes, each 4-byte element the launch number
    (``gen``) of the last launch whose matmul wrote it, 0 for never.

    It stays with its PSUM memory from launch to launch (runtime pools SBUF/PSUM): a fresh 2 MiB map per
    launch paid a page fault (~0.2 ms) at the first touch of every region, and zeroing the previous
    launch's marks cost a pass over every bank it used. A launch that takes it over counts ``gen`` up
    instead: the previous launches' marks are then simply not this launch's (after 2**32 - 1 launches the
    map is zeroed and counting starts again).
    ``marked``: the views (dst sig, byte offset) this launch marked whole. The map only gains marks within
    a launch, so marking one of those again changes nothing and no element of it is foreign: the map need
    not be viewed at all."""
    __slots__ = ("map", "gen", "marked")

    def __init__(self, psum):
        self.map = np.zeros(psum.size, np.uint8)
        self.gen = 0                # no launch yet: every element (0) is "never"
        self.marked = set()

    def take_over(self) -> None:
        """A new launch uses the map: forget the previous one's marks."""
        if self.gen == 0xFFFFFFFF:
            self.map[...] = 0
            self.gen = 0
        self.gen += 1
        self.marked = set()

    def view(self, v) -> np.ndarray:
        """The uint32 map elements under the fp32 view ``v`` (a view of this PSUM)."""
        return np.ndarray(v.shape, np.uint32, buffer=self.map, offset=v.offset, strides=v.strides)

    def marked_whole(self, sig: int, v) -> None:
        """The caller set every element of ``view(v)`` to ``gen``."""
        marked = self.marked
        if len(marked) > 65536:     # (only a shortcut: the map stays the truth)
            marked.clear()
        marked.add((sig, v.offset))


#: PSUM memory -> its _MatmulMap (weak: a memory no pool keeps takes its map along)
_MM_MAPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _matmul_map(run) -> _MatmulMap:
    """The run's PSUM map, taken over at its first fp32 matmul (one launch uses a PSUM memory at a time)."""
    m = getattr(run, "_psum_mm", None)
    if m is None:
        m = _MM_MAPS.get(run.psum)
        if m is None:
            m = _MM_MAPS[run.psum] = _MatmulMap(run.psum)
        m.take_over()
        run._psum_mm = m
    return m


def _accumulate_into(dst: NkiTensor, result, accumulate, api: str, run, product=None, plan=None) -> None:
    """PSUM read-accumulate-write in fp32: overwrite where this is the first write (see module doc).
    ``product``: ``(a, b)`` when ``result`` (None) is ``a.T @ b``, computed here: straight into a 2-D
    float32 dst that this write overwrites (numpy's matmul with ``out=``: the same loops and values, one
    copy fewer), else into a new array. ``plan``: nc_matmul's _MatmulPlan of this call, whose geometry
    answers the dtype, shape and chip questions below without asking the views again."""
    root = dst.root or dst
    previous = None                # the values accumulated onto, when some were never written
    if accumulate is False:
        acc_mask = False
    elif accumulate is True or root.full:
        acc_mask = True
        if not root.full:
            previous = dst.read(api)   # never-written PSUM: warns and reads poison, or raises (strict)
    elif _options_mod._current.track_init:         # (options() without the call)
        # a new tile on reused PSUM bytes still carries the freed tile's init map: clear it first, or the
        # first matmul would accumulate onto the old values
        if root.stale:
            # clearing it leaves every byte of the allocation, so of dst, never written: the mask would be
            # all False, which overwrites everywhere and warns nowhere, as False does (without the mask).
            # The write below clears it (mark_written / write: only for a view not covering the tile, as a
            # covering write makes the stale map irrelevant), so it is not cleared here first.
            acc_mask = False
        else:
            fresh = dst.tv.uninitialized_mask()
            acc_mask = True if fresh is None else ~fresh.reshape(dst.shape)
    else:
        acc_mask = False        # without init tracking, a view not yet fully written starts a group
    if plan is None:
        fp32, use_map = dst.tv.dtype.name == "float32", run.chip.nc_version < 4
    else:
        fp32, use_map = plan.fp32_dst, plan.use_map
    if product is not None:
        a, b = product
        if fp32 and acc_mask is False and (plan.dst_mn if plan is not None else
                                           dst.shape == (a.shape[1], b.shape[1])):
            result = None       # computed into out below
        else:
            result = _blas.matmul(a.T, b)
    if result is not None:
        result = result.reshape(dst.shape)
    if fp32:
        v = dst.tv
        mmap = _matmul_map(run) if use_map else None
        if mmap is not None and (dst.sig or _sig(dst), v.offset) not in mmap.marked:
            mm = mmap.view(v)       # dst's elements in the launch's "written by nc_matmul" map
            if acc_mask is not False:
                gen = mmap.gen
                foreign = (mm != gen) if acc_mask is True else ((mm != gen) & acc_mask.reshape(dst.shape))
                if foreign.any() and not root.full and options().track_init:
                    never = dst.tv.uninitialized_mask()      # reported as uninitialized reads instead
                    if never is not None:
                        foreign &= ~never
                if foreign.any():
                    warnings.warn(f"{api}: accumulating onto {int(np.count_nonzero(foreign))} PSUM element(s) "
                                  "no nc_matmul wrote (memset / copy): undefined on NeuronCore-v2/v3",
                                  PsumAccumulateWarning, stacklevel=3)
            mm[...] = mmap.gen
            mmap.marked_whole(dst.sig, v)
        out = v.array()
        if acc_mask is True:
            np.add(out if previous is None else previous, result, out=out)
        elif result is None:
            _blas.matmul(a.T, b, out=out)
        elif acc_mask is False:
            out[...] = result
        else:
            m = acc_mask.reshape(dst.shape)
            np.copyto(out, np.where(m, out + result, result))
        dst.mark_written()
        return
    if acc_mask is True:
        result = dst.read(api).astype(np.float32) + result
    elif acc_mask is not False:
        m = acc_mask.reshape(dst.shape)
        result = np.where(m, dst.tv.array().astype(np.float32) + result, result)
    _store(dst, result.astype(np.float32, copy=False))


class _MatmulPlan:
    """What one nc_matmul geometry decided (not the transpose mode). From the operands' geometry (their
    sigs are in the key): ``k1`` (K = 1 and both inputs 2-D float32: their values are used as read, one row
    each), ``fp32_dst``, ``dst_mn`` (dst is 2-D [M, N]), ``use_map`` (the chip warns about accumulating
    onto PSUM no matmul wrote: NeuronCore-v2/v3) and ``ls_ns`` (LoadStationary on the chip's TensorE
    clock: Engine.ns of ls_cycles)."""
    __slots__ = ("multi_bank", "k", "m", "n", "cycles", "ls_cycles", "args", "k1", "fp32_dst", "dst_mn",
                 "use_map", "ls_ns")

    def __init__(self, multi_bank, k, m, n, cycles, ls_cycles, args, k1, fp32_dst, dst_mn, use_map, ls_ns):
        self.multi_bank, self.k, self.m, self.n = multi_bank, k, m, n
        self.cycles, self.ls_cycles, self.args = cycles, ls_cycles, args
        self.k1, self.fp32_dst, self.dst_mn, self.use_map, self.ls_ns = k1, fp32_dst, dst_mn, use_map, ls_ns


#: (chip, dst sig, stationary sig, moving sig, the flags and their types) -> the plan of an accepted call
_MM_PLANS: dict = {}

#: perf_mode's part of a plan key for each member: a private object, which hashes in C (an Enum member
#: hashes through a Python __hash__) and which no argument can equal
_PM_NONE, _PM_DOUBLE = matmul_perf_mode.none, matmul_perf_mode.double_row
_PM_NONE_PART, _PM_DOUBLE_PART = object(), object()


def _matmul_checks(api, chip, dst, stationary, moving, accumulate, tile_position, tile_size, perf_mode):
    """Every rule of nc_matmul after the inputs' per-view ones, in the general order; returns the plan."""
    k, m, n = stationary.partitions, stationary.free_size, moving.free_size
    if moving.partitions != k:
        raise NkiValidationError(api, "moving", "stationary and moving have the same partition size (the "
                                 "contraction dim K)", {"stationary": stationary.shape, "moving": moving.shape})
    if k > MAX_K:
        raise NkiValidationError(api, "stationary", f"K (partition dim) <= {MAX_K}", k)
    if m > MAX_STATIONARY_FREE:
        raise NkiValidationError(api, "stationary", f"stationary free size M <= {MAX_STATIONARY_FREE} "
                                 "(gemm_stationary_fmax)", m)
    dname = dst.tv.dtype.name if isinstance(dst, NkiTensor) else None
    if chip.nc_version >= 4:
        nmax = TRN3_MOVING_FREE.get(dname, MAX_MOVING_FREE)
        if n > nmax:
            raise NkiValidationError(api, "moving", f"moving free size N <= {nmax} on trn3 for a {dname} dst",
                                     n)
    elif n > MAX_MOVING_FREE:
        raise NkiValidationError(api, "moving", f"moving free size N <= {MAX_MOVING_FREE} "
                                 "(gemm_moving_fmax)", n)
    multi_bank = _psum_dst(api, "dst", dst, chip, allow_multi_bank=chip.nc_version >= 4)
    if dst.partitions != m or dst.free_size != n:
        raise NkiValidationError(api, "dst", f"dst is [M, N] = [{m}, {n}] (stationary free size, moving "
                                 "free size)", dst.shape)
    allowed_out = ("float32", "bfloat16") if chip.nc_version >= 4 else ("float32",)
    if dname not in allowed_out:
        raise NkiValidationError(api, "dst", "a float32 PSUM result" + (" (or bfloat16 on trn3)"
                                 if chip.nc_version >= 4 else " (bfloat16 results exist on trn3 only)"), dname,
                                 None if chip.nc_version >= 4 else     # the official simulator's wording
                                 f"nc_matmul dst dtype must be float32 on gen{chip.nc_version}")
    s_dt, m_dt = stationary.tv.dtype.name, moving.tv.dtype.name
    for p, d in (("stationary", s_dt), ("moving", m_dt)):
        if d not in MATMUL_INPUT_DTYPES:
            raise NkiValidationError(api, p, "an input dtype of fp8_e4m3/fp8_e5m2/bfloat16/float16/tfloat32/"
                                     "float32", d)
    if (s_dt in _FP32_CLASS) != (m_dt in _FP32_CLASS):
        raise NkiValidationError(api, "moving", "if one input is float32/tfloat32 the other is too",
                                 (s_dt, m_dt))
    if s_dt in _FP8 and m_dt in _FP8 and s_dt != m_dt:
        raise NkiValidationError(api, "moving", "the fp8 formats (e4m3, e4m3fn, e5m2) are not mixed in one "
                                 "matmul", (s_dt, m_dt))
    if accumulate is not None and not isinstance(accumulate, (bool, np.bool_)):
        raise NkiValidationError(api, "accumulate", "None (first write overwrites, later ones accumulate), "
                                 "True or False", accumulate)
    perf = perf_mode if isinstance(perf_mode, matmul_perf_mode) else None
    if perf is None:
        raise NkiValidationError(api, "perf_mode", "a nisa.matmul_perf_mode member", perf_mode)
    if perf is matmul_perf_mode.double_row:
        if chip.nc_version < 3:
            raise NkiValidationError(api, "perf_mode", "performance modes exist from NeuronCore-v3 (trn2) on",
                                     chip.name)
        if s_dt not in _FP8 or m_dt not in _FP8:
            raise NkiValidationError(api, "perf_mode", "double_row is the FP8 mode: both inputs fp8",
                                     (s_dt, m_dt))
    _check_tiling(api, chip, tile_position, tile_size, k, m, perf)
    return multi_bank, perf


def _matmul_cost(k, m, n, s_dt, m_dt, perf, is_stationary_onezero, is_moving_onezero):
    fp32 = "float32" in (s_dt, m_dt)           # tf32 x tf32 runs at the 16-bit rate
    factor = 1.0
    if fp32 and (is_stationary_onezero or is_moving_onezero):
        factor = 0.5                        # onezero flags give 2x for fp32 operands
    if perf is matmul_perf_mode.double_row:
        factor = 0.5
    return _cost2.matmul(n, fp32, factor), _cost2.load_stationary(m, fp32)


def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, accumulate=None, tile_position=(), tile_size=(),
              perf_mode=matmul_perf_mode.none, name=None) -> NkiInstruction:
    """``dst = stationary.T @ moving`` on TensorE: stationary [K, M], moving [K, N] in SBUF; dst [M, N]
    in PSUM, computed and accumulated in fp32."""
    api = "nisa.nc_matmul"
    run = _runtime._current
    if run is None:
        run = current(api)
    chip = run.chip
    if not (isinstance(stationary, NkiTensor) and stationary.checked and stationary.buffer is SBUF):
        _sbuf_input(api, "stationary", stationary)
    if not (isinstance(moving, NkiTensor) and moving.checked and moving.buffer is SBUF):
        _sbuf_input(api, "moving", moving)
    if is_transpose:
        return _transpose_mode(api, run, dst, stationary, moving)
    key = plan = None
    if isinstance(dst, NkiTensor):
        try:
            key = (id(chip), dst.sig or _sig(dst), stationary.sig or _sig(stationary),
                   moving.sig or _sig(moving), is_stationary_onezero, is_moving_onezero, accumulate,
                   type(accumulate), tile_position, tile_size,
                   _PM_NONE_PART if perf_mode is _PM_NONE else
                   _PM_DOUBLE_PART if perf_mode is _PM_DOUBLE else perf_mode)
            plan = _MM_PLANS.get(key)
        except TypeError:
            key = None
    if plan is None:
        multi_bank, perf = _matmul_checks(api, chip, dst, stationary, moving, accumulate, tile_position,
                                          tile_size, perf_mode)
        k, m, n = stationary.partitions, stationary.free_size, moving.free_size
        s_dt, m_dt = stationary.tv.dtype.name, moving.tv.dtype.name
        cycles, ls_cycles = _matmul_cost(k, m, n, s_dt, m_dt, perf, is_stationary_onezero, is_moving_onezero)
        plan = _remember(_MM_PLANS, key, _MatmulPlan(
            multi_bank, k, m, n, cycles, ls_cycles,
            {"K": k, "M": m, "N": n, "dtype": s_dt, "load_stationary_cycles": ls_cycles},
            k == 1 and s_dt == m_dt == "float32" and len(stationary.shape) == len(moving.shape) == 2,
            dst.tv.dtype.name == "float32", tuple(dst.shape) == (m, n), chip.nc_version < 4,
            run.timeline.engines["tensor"].ns(ls_cycles)), chip)
    elif plan.multi_bank:
        R.in_scope(api, "dst", dst)
    elif not dst.checked:           # _psum_dst's per-view rules (the rest is geometry)
        R.in_scope(api, "dst", dst)
        R.compute_tile(api, "dst", dst)
    k, m, n = plan.k, plan.m, plan.n
    # (_input_values inline) contiguous float32 copies: SBUF views stride by a whole partition, which
    # keeps numpy off BLAS
    if plan.k1:     # [1, M] and [1, N] float32 already: one row each, contiguous or not
        a, b = stationary.read(api), moving.read(api)
    else:
        a = np.ascontiguousarray(stationary.read(api), dtype=np.float32).reshape(k, m)
        b = np.ascontiguousarray(moving.read(api), dtype=np.float32).reshape(k, n)
    if is_stationary_onezero and not np.all((a == 0) | (a == 1)):
        raise NkiValidationError(api, "is_stationary_onezero", "stationary holds only 0 and 1 when the flag "
                                 "is set", "other values")
    if is_moving_onezero and not np.all((b == 0) | (b == 1)):
        raise NkiValidationError(api, "is_moving_onezero", "moving holds only 0 and 1 when the flag is set",
                                 "other values")
    # fp32 products and sums (PSUM accumulates in fp32); overflow and NaN are results, not warnings: the
    # launch's np.errstate (runtime.activate, lnc's program threads) covers every call (run is not None)
    _accumulate_into(dst, None, accumulate, api, run, product=(a, b), plan=plan)
    # When this matmul's LoadStationary ends. It runs in the background of the previous MultiplyMoving
    # (the PE array double-buffers its weights): it starts once the stationary data is ready, the previous
    # LoadStationary is done and the previous MultiplyMoving has started (freeing the other weight
    # buffer). So it is hidden behind back-to-back matmuls and exposed only after TensorE waited for data.
    tl = run.timeline
    fp = stationary.tv       # (tl.dependencies_end([fp], [], "tensor") without the list filters)
    ready = 0.0 if fp is None else tl._dependencies_end((fp,), (), "tensor", 0.0)
    start = max(ready, run._ls_end_ns, run._mm_last_start_ns)
    ls_end = run._ls_end_ns = start + plan.ls_ns
    ins = run.issue_tiles(api, "tensor", plan.cycles, (stationary, moving), dst, plan.m * plan.n,
                          dict(plan.args), ls_end)
    run._mm_last_start_ns = ins.event.start_ns
    return ins


# --------------------------------------------------------------------------------------------- transpose

def _transpose_values(x: np.ndarray, chip, tensor_engine: bool, is_float: bool) -> np.ndarray:
    """data [P, F] -> [F, P]. TensorE on NeuronCore-v2 multiplies by an identity matrix, so a NaN or Inf
    in column f turns every other element of output row f into NaN (Inf * 0) (nc_transpose docstring)."""
    t = x.T
    if not tensor_engine or chip.nc_version != 2 or not is_float:
        return t
    bad = ~np.isfinite(x.astype(np.float32))
    if not bad.any():
        return t
    per_col = bad.sum(axis=0)                   # non-finite inputs in each column f
    others = per_col[:, None] - bad.T           # those of column f at partitions != p
    out = np.array(t, copy=True)
    out[others > 0] = np.nan
    return out


def _transpose_mode(api, run, dst, stationary, moving) -> NkiInstruction:
    """``nc_matmul(..., is_transpose=True)``: "Tensor Engine can transpose a tile in SBUF by loading it as a
    stationary tile and using an identity matrix as the moving tile"; from NeuronCore-v3 the transpose mode
    is bit-accurate (NaN/Inf move as they are), on v2 it is the identity matmul (NaN/Inf spread, as
    nc_transpose on TensorE). dst [M, K] in PSUM holds stationary's dtype (or float32); cost: a
    MultiplyMoving of N = K."""
    chip = run.chip
    k, m = stationary.partitions, stationary.free_size
    if k > MAX_K or m > MAX_STATIONARY_FREE:
        raise NkiValidationError(api, "stationary", f"at most [{MAX_K}, {MAX_STATIONARY_FREE}]", stationary.shape)
    ident = "is_transpose=True: moving is the K x K identity matrix (K = stationary's partitions)"
    if moving.partitions != k or moving.free_size != k:
        raise NkiValidationError(api, "moving", ident, moving.shape)
    if not np.array_equal(_f32(moving.read(api)).reshape(k, k), np.eye(k, dtype=np.float32)):
        raise NkiValidationError(api, "moving", ident, "another matrix")
    _psum_dst(api, "dst", dst, chip, allow_multi_bank=False)
    if dst.partitions != m or dst.free_size != k:
        raise NkiValidationError(api, "dst", f"dst is stationary transposed: [{m}, {k}]", dst.shape)
    s_dt = stationary.tv.dtype
    if dst.tv.dtype != s_dt and dst.tv.dtype.name != "float32":
        raise NkiValidationError(api, "dst", "transpose mode writes stationary's dtype (or float32)",
                                 (dst.tv.dtype.name, s_dt.name))
    x = stationary.read(api).reshape(k, m)
    t = _transpose_values(x, chip, True, s_dt.is_float)
    if dst.tv.dtype != s_dt:
        t = _f32(t)
    dst.write(t.reshape(dst.shape))
    fp32 = s_dt.name == "float32"
    cycles = _cost2.matmul(k, fp32, 1.0)
    return run.issue(api, "tensor", cycles, reads=[stationary, moving], writes=[dst], elements=dst.size,
                     args={"K": k, "M": m, "N": k, "dtype": s_dt.name, "is_transpose": True})


def nc_transpose(dst, data, engine=engine.unknown, name=None) -> NkiInstruction:
    """Swap the partition and (flattened) free dims: data [P, F] -> dst [F, P]; dst dtype = data dtype.
    TensorE: up to [128, 128], SBUF -> PSUM. VectorE: up to [32, 32], SBUF or PSUM."""
    api = "nisa.nc_transpose"
    run = current(api)
    chip = run.chip
    R.tile(api, "data", data)
    if not isinstance(dst, NkiTensor):
        raise NkiValidationError(api, "dst", "an NKI tensor", type(dst).__name__)
    p, f = data.partitions, data.free_size
    if dst.partitions != f or dst.free_size != p:
        raise NkiValidationError(api, "dst", f"dst is data transposed: [{f}, {p}]", dst.shape)
    if dst.tv.dtype != data.tv.dtype:
        raise NkiValidationError(api, "dst", "dst has data's dtype", (dst.tv.dtype.name, data.tv.dtype.name))
    why = {}
    if data.buffer is not MemoryRegion.sbuf:
        why["tensor"] = "a TensorE transpose reads SBUF"
    elif dst.buffer is not MemoryRegion.psum:
        why["tensor"] = "a TensorE transpose writes PSUM"
    elif max(p, f) > TENSOR_TRANSPOSE_MAX:
        why["tensor"] = f"a TensorE transpose is at most [{TENSOR_TRANSPOSE_MAX}, {TENSOR_TRANSPOSE_MAX}]"
    else:
        why["tensor"] = None
    why["vector"] = (None if max(p, f) <= VECTOR_TRANSPOSE_MAX else
                     f"a VectorE transpose is at most [{VECTOR_TRANSPOSE_MAX}, {VECTOR_TRANSPOSE_MAX}]")
    eng = _choose(api, run, engine, why, order=("tensor", "vector"))
    if eng == "tensor":
        _psum_dst(api, "dst", dst, chip, allow_multi_bank=False)
    else:
        R.tile(api, "dst", dst)
    x = data.read(api).reshape(p, f)
    dst.write(_transpose_values(x, chip, eng == "tensor", data.tv.dtype.is_float).reshape(dst.shape))
    if eng == "tensor":
        cycles = _cost2.tensor_transpose(p, f)
    else:
        cycles = float(max(_cost.MIN_II, f))
    return run.issue(api, eng, cycles, reads=[data], writes=[dst], elements=dst.size)


__all__ = ["nc_matmul", "nc_transpose", "matmul_perf_mode", "PsumAccumulateWarning"]
