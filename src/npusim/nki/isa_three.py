"""ISA ops real kernels import beyond part two: ``dma_transpose``, ``max8``, ``nc_find_index8``,
``nc_match_replace8``, ``nc_stream_shuffle`` (rules and costs from their docstrings, cited in docs/nki.md).
"""
from __future__ import annotations

import numpy as np

from . import access as _access
from . import cost as _cost
from . import rules as R
from .isa import _f32, dma_issue, store_result
from .isa_enums import dge_mode, oob_mode
from .rules import NkiValidationError
from .runtime import NkiInstruction, current

SELECT8_MIN, SELECT8_MAX = 8, 16384      # elements per partition max8 / nc_find_index8 read
QUADRANT = 32
SHUFFLE_KEEP = 255                       # nc_stream_shuffle: "the output partition is unmodified"


# ---------------------------------------------------------------------------------------- dma_transpose

_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


def dma_transpose(dst, src, axes=None, priority=None, dge_mode=dge_mode.unknown, oob_mode=oob_mode.error,
                  name=None) -> NkiInstruction:
    """``dst = src.transpose(axes)`` by a DMA: 2-D (1, 0), 3-D (2, 1, 0), 4-D (3, 1, 2, 0). ``src`` in HBM or
    SBUF (an indirect ``.ap(vector_offset=...)`` on HBM gathers rows first), ``dst`` in SBUF."""
    api = "nisa.dma_transpose"
    run = current(api)
    R.tile(api, "dst", dst, on_chip=False)
    R.tile(api, "src", src, on_chip=False)
    if dst.buffer.value != "sbuf":
        raise NkiValidationError(api, "dst", "a tile in SBUF", dst.buffer)
    if src.in_psum:
        raise NkiValidationError(api, "src", "a tile in HBM or SBUF", src.buffer)
    if src.tv.dtype != dst.tv.dtype:
        raise NkiValidationError(api, "dst", "src.dtype == dst.dtype", f"{src.tv.dtype} -> {dst.tv.dtype}")
    nd = len(src.shape)
    if nd not in _AXES:
        raise NkiValidationError(api, "src", "a 2-d, 3-d or 4-d tile", src.shape)
    want = _AXES[nd]
    if axes is not None and (not isinstance(axes, (tuple, list)) or tuple(axes) != want):
        raise NkiValidationError(api, "axes", f"{want} for a {nd}-d tile (supported: (1, 0), (2, 1, 0), "
                                 "(3, 1, 2, 0))", axes)
    out_shape = tuple(src.shape[a] for a in want)
    if tuple(dst.shape) != out_shape:
        raise NkiValidationError(api, "dst", "dst has exactly the transposed shape", f"{dst.shape} for "
                                 f"{out_shape}")
    for p, v, cls in (("oob_mode", oob_mode, globals()["oob_mode"]), ("dge_mode", dge_mode, globals()["dge_mode"])):
        if not isinstance(v, cls):
            raise NkiValidationError(api, p, f"an nki.isa.{p} member", v)
    two_bytes = src.itemsize == 2
    if src.is_indirect():
        _indirect_transpose_rules(api, run, src, dge_mode, two_bytes)
    else:
        if dge_mode not in (dge_mode.unknown, dge_mode.hwdge):
            raise NkiValidationError(api, "dge_mode", "unknown or hwdge for a direct transpose", dge_mode.name)
        if oob_mode is oob_mode.skip:
            raise NkiValidationError(api, "oob_mode", "oob_mode.skip only with an indirect src", "skip")
        if dge_mode is dge_mode.hwdge:
            _hwdge_rules(api, src, two_bytes)
    if src.is_indirect():
        vals, valid = _access.gather(src.ind, api, "skip" if oob_mode is oob_mode.skip else "error", "src")
        reads = [src.ind.storage, src.ind.index]
    else:
        vals, valid, reads = src.read(api), None, [src]
    out = np.transpose(vals.reshape(src.shape), want)
    if valid is None or valid.all():
        dst.write(out)
    else:                                   # oob_mode.skip: skipped elements keep what dst held
        _partial_write(dst, out, np.transpose(valid.reshape(src.shape), want))
    return dma_issue(api, run, dst, src, reads, [dst])


def _hwdge_rules(api, src, two_bytes):
    s = src.shape
    if len(s) == 2 and s[0] != 16:
        raise NkiValidationError(api, "src", "hwdge: a 2-d src has 16 rows (src.shape[0] == 16)", s)
    if len(s) > 2 and (s[0] not in (1, 2, 4, 8, 16) or (s[0] * s[-2]) % 16):
        raise NkiValidationError(api, "src", "hwdge: src.shape[0] in {1, 2, 4, 8, 16} and "
                                 "src.shape[0] * src.shape[-2] a multiple of 16", s)
    if s[-1] > 128:
        raise NkiValidationError(api, "src", "src.shape[-1] <= 128", s)
    if not two_bytes:
        raise NkiValidationError(api, "src", "a 2-byte dtype", src.tv.dtype)


def _indirect_transpose_rules(api, run, src, dge, two_bytes):
    ind = src.ind
    s = src.shape
    if run.chip.nc_version < 3:
        raise NkiValidationError(api, "src", "an indirect transpose needs trn2 or later", run.chip.name)
    if dge not in (dge_mode.unknown, dge_mode.swdge):
        raise NkiValidationError(api, "dge_mode", "unknown or swdge for an indirect transpose", dge.name)
    if ind.storage.on_chip:
        raise NkiValidationError(api, "src", "an indirect src is on HBM", ind.storage.buffer)
    if not ind.vector:
        raise NkiValidationError(api, "src", "an indirect transpose gathers through vector_offset", "scalar_offset")
    if not two_bytes:
        raise NkiValidationError(api, "src", "a 2-byte dtype", src.tv.dtype)
    if s[-1] > 128:
        raise NkiValidationError(api, "src", "src.shape[-1] <= 128", s)
    if s[0] % 16:
        raise NkiValidationError(api, "src", "src.shape[0] is a multiple of 16", s)
    if len(s) == 4 and s[1] != 1 and s[2] != 1:
        raise NkiValidationError(api, "src", "a 4-d src has len(src[1]) or len(src[2]) equal to 1", s)
    idx = ind.index
    ishape = idx.shape
    if len(ishape) != 2:
        raise NkiValidationError(api, "indices", "a 2-d index tile", ishape)
    if idx.tv.dtype.name != "uint32":
        raise NkiValidationError(api, "indices", "uint32 indices", idx.tv.dtype)
    if not (16 <= ishape[0] <= 128 and ishape[0] % 16 == 0):
        raise NkiValidationError(api, "indices", "indices.shape[0] in [16, 128] and a multiple of 16", ishape)
    if ishape[1] > 1 and ishape[0] != 128:
        raise NkiValidationError(api, "indices", "indices.shape[0] == 128 when indices.shape[1] > 1", ishape)


# --------------------------------------------------------------------------- max8 / find_index8 / replace8

def _select8_data(api, param, t, lo=SELECT8_MIN):
    R.tile(api, param, t)
    if len(t.shape) > 3:
        raise NkiValidationError(api, param, "a tile of up to 3 dims", t.shape)
    if not lo <= t.free_size <= SELECT8_MAX:
        raise NkiValidationError(api, param, f"{lo}..{SELECT8_MAX} elements per partition", t.free_size)
    return _f32(t.read(api)).reshape(t.partitions, t.free_size)


def _eight(api, param, t):
    R.tile(api, param, t)
    if t.free_size != 8:
        raise NkiValidationError(api, param, "exactly 8 elements per partition", t.shape)


def max8(dst, src, name=None) -> NkiInstruction:
    """The 8 largest values of each partition of ``src`` (compared in fp32), descending, into ``dst``
    ``[P, 8]``. VectorE, ``max(MIN_II, N)`` cycles."""
    api = "nisa.max8"
    run = current(api)
    x = _select8_data(api, "src", src)
    _eight(api, "dst", dst)
    if len(dst.shape) != 2:
        raise NkiValidationError(api, "dst", "a 2-d [par_dim, 8] tile", dst.shape)
    R.same_partitions(api, ["dst", "src"], [dst, src])
    store_result(dst, _top8(x))
    return run.issue(api, "vector", float(max(_cost.MIN_II, src.free_size)), reads=[src], writes=[dst],
                     elements=src.partitions * src.free_size)


def _top8(x: np.ndarray) -> np.ndarray:
    """``-np.sort(-x, axis=1, kind="stable")[:, :8]`` (NaN sorts last; its ordering is unpublished) without
    sorting whole rows: the 8th value by ``np.partition``, then the elements before it and the first of
    its ties in index order (so equal values, 0.0 and -0.0 among them, keep the stable sort's choice), then a
    stable sort of those 8. Rows with fewer than 8 non-NaN values take the full sort."""
    if x.size <= 1024 or x.shape[1] < 16:                  # small: the whole sort is cheaper
        return -np.sort(-x, axis=1, kind="stable")[:, :8]
    neg = -x
    kth = np.partition(neg, 7, axis=1)[:, 7:8]
    less = neg < kth
    eq = neg == kth
    need = 8 - less.sum(axis=1, keepdims=True)
    sel = less | eq
    tied = eq.sum(axis=1) > need[:, 0]                     # more equal to the 8th than places left
    if tied.any():
        sel[tied] = less[tied] | (eq[tied] & (np.cumsum(eq[tied], axis=1) <= need[tied]))
    ok = ~np.isnan(kth[:, 0])
    top = np.empty((x.shape[0], 8), x.dtype)
    if ok.any():
        cand = x[ok][sel[ok]].reshape(-1, 8)                  # the 8 chosen, in index order
        top[ok] = -np.sort(-cand, axis=1, kind="stable")
    if not ok.all():
        top[~ok] = -np.sort(-x[~ok], axis=1, kind="stable")[:, :8]
    return top


def _kth_match(match: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Per partition, the position of the (rank+1)-th True of ``match`` [P, N], or -1. Rank 0 (a value
    without an equal one before it: the usual case) is the first True, found without a running count."""
    pos = np.argmax(match, axis=1)
    found = match[np.arange(match.shape[0]), pos]
    dup = rank > 0
    if dup.any():
        m = match[dup]
        c = np.cumsum(m, axis=1)
        hit = m & (c == (rank[dup][:, None] + 1))
        pos[dup] = np.argmax(hit, axis=1)
        found[dup] = hit.any(axis=1)
    return np.where(found, pos, -1)


def _index_dtype(api, param, t):
    if t.tv.dtype.name not in ("uint16", "uint32"):
        raise NkiValidationError(api, param, "uint16 or uint32 indices", t.tv.dtype)
    return (1 << (8 * t.itemsize)) - 1       # the all-ones sentinel of a value not found


def nc_find_index8(dst, data, vals, name=None) -> NkiInstruction:
    """For each partition, the index of the first occurrence in ``data`` of each of the 8 ``vals``
    (fp32 compare); a value not present gives the all-ones sentinel; duplicate vals take the matching
    positions in ascending order across dst columns. VectorE, ``max(MIN_II, N)`` cycles."""
    api = "nisa.nc_find_index8"
    run = current(api)
    x = _select8_data(api, "data", data)
    _eight(api, "vals", vals)
    _eight(api, "dst", dst)
    R.same_partitions(api, ["dst", "data", "vals"], [dst, data, vals])
    sentinel = _index_dtype(api, "dst", dst)
    v = _f32(vals.read(api)).reshape(vals.partitions, 8)
    out = np.empty((x.shape[0], 8), np.int64)
    for j in range(8):
        rank = (v[:, :j] == v[:, j:j + 1]).sum(axis=1)        # earlier equal vals take earlier matches
        pos = _kth_match(x == v[:, j:j + 1], rank)
        out[:, j] = np.where(pos < 0, sentinel, pos)
    dst.write(out.astype(dst.tv.dtype.np).reshape(dst.shape))
    return run.issue(api, "vector", float(max(_cost.MIN_II, data.free_size)), reads=[data, vals], writes=[dst],
                     elements=data.partitions * data.free_size)


def nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None) -> NkiInstruction:
    """``dst`` = ``data`` with the first occurrence of each of the 8 ``vals`` replaced by ``imm``; vals are
    processed i = 7..0, so duplicates take distinct positions (the highest column the first match).
    ``dst_idx`` gets the matched positions. A value not present replaces nothing and its index is the
    all-ones sentinel (the docs call it undefined: npusim's choice). VectorE, ``max(MIN_II, N)``."""
    api = "nisa.nc_match_replace8"
    run = current(api)
    x = _select8_data(api, "data", data, lo=1)
    _eight(api, "vals", vals)
    R.tile(api, "dst", dst)
    R.same_partitions(api, ["dst", "data", "vals"], [dst, data, vals])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    if not isinstance(imm, (int, float, np.integer, np.floating)):
        raise NkiValidationError(api, "imm", "an immediate float", imm)
    sentinel = None
    if dst_idx is not None:
        _eight(api, "dst_idx", dst_idx)
        sentinel = _index_dtype(api, "dst_idx", dst_idx)
    v = _f32(vals.read(api)).reshape(vals.partitions, 8)
    pos = np.empty((x.shape[0], 8), np.int64)
    for j in range(8):
        rank = (v[:, j + 1:] == v[:, j:j + 1]).sum(axis=1)    # later vals are processed first
        pos[:, j] = _kth_match(x == v[:, j:j + 1], rank)
    out = x.copy()
    rows = np.nonzero(pos >= 0)
    out[rows[0], pos[rows]] = np.float32(imm)
    store_result(dst, out.reshape(dst.shape))
    writes = [dst]
    if dst_idx is not None:
        dst_idx.write(np.where(pos < 0, sentinel, pos).astype(dst_idx.tv.dtype.np).reshape(dst_idx.shape))
        writes.append(dst_idx)
    return run.issue(api, "vector", float(max(_cost.MIN_II, data.free_size)), reads=[data, vals], writes=writes,
                     elements=data.partitions * data.free_size)


# ------------------------------------------------------------------------------------ nc_stream_shuffle

def _quadrant_start(api, param, t, active):
    start = t.start_partition
    ok = {128: (0,), 96: (0,), 64: (0, 64), 32: (0, 32, 64, 96)}[active]
    if start not in ok:
        raise NkiValidationError(api, param, f"with {active} active partitions the start partition is one of "
                                 f"{ok}", start)


def nc_stream_shuffle(dst, src, shuffle_mask, name=None) -> NkiInstruction:
    """Within each 32-partition quadrant, output partition i copies input partition ``shuffle_mask[i]``
    (255: left unmodified); the same mask for every quadrant. VectorE, ``max(MIN_II, N)`` cycles; the
    values move bit-exact."""
    api = "nisa.nc_stream_shuffle"
    run = current(api)
    R.tile(api, "src", src)
    R.tile(api, "dst", dst)
    if src.tv.dtype != dst.tv.dtype:
        raise NkiValidationError(api, "dst", "dst has the data type of src", f"{src.tv.dtype} -> {dst.tv.dtype}")
    R.same_free_size(api, ["src", "dst"], [src, dst])
    try:
        mask = [int(m) for m in shuffle_mask]
    except (TypeError, ValueError):
        mask = []
    if len(mask) != QUADRANT or any(not (0 <= m < QUADRANT or m == SHUFFLE_KEEP) for m in mask):
        raise NkiValidationError(api, "shuffle_mask", "32 ints, each a partition 0..31 of the quadrant or 255",
                                 shuffle_mask)
    active = -(-max(src.partitions, dst.partitions) // QUADRANT) * QUADRANT
    _quadrant_start(api, "src", src, active)
    _quadrant_start(api, "dst", dst, active)
    x = src.read(api).reshape(src.partitions, src.free_size).copy()       # in place is allowed
    d = np.arange(dst.partitions)
    m = np.array(mask)[d % QUADRANT]
    keep = m == SHUFFLE_KEEP
    s = (d // QUADRANT) * QUADRANT + np.where(keep, 0, m)
    bad = ~keep & (s >= src.partitions)
    if bad.any():
        i = int(np.argmax(bad))
        raise NkiValidationError(api, "shuffle_mask", "every source partition the mask names exists in src",
                                 f"dst partition {i} reads src partition {int(s[i])} of {src.partitions}")
    out = np.empty((dst.partitions, dst.free_size), x.dtype)
    out[~keep] = x[s[~keep]]
    if keep.any():                          # 255: those partitions stay as they are
        where = np.broadcast_to(~keep[:, None], out.shape)
        _partial_write(dst, out.reshape(dst.shape), where.reshape(dst.shape))
    else:
        dst.write(out.reshape(dst.shape))
    return run.issue(api, "vector", float(max(_cost.MIN_II, src.free_size)), reads=[src], writes=[dst],
                     elements=dst.size)


def _partial_write(dst, values, where) -> None:
    """Store ``values`` only where ``where`` holds (through the init-tracking core view)."""
    dst._fresh_init(dst.root or dst)
    dst.tv.write(values, where=where)
