"""ISA ops nki-library kernels call beyond part three: ``nonzero_with_count`` (GpSimd).

Rules from the op's docstring ([doc] ``nki.isa.nonzero_with_count``); the cost is unpublished (see
docs/nki.md, "Part four").
"""
from __future__ import annotations

import numpy as np

from . import cost_two as _cost2
from . import rules as R
from .rules import NkiValidationError
from .runtime import NkiInstruction, current

GPSIMD_CORE_PARTITIONS = 16       # each of the 8 GpSimd cores serves 16 partitions and uses its 0-th
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _int32_scalar(api: str, param: str, v) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise NkiValidationError(api, param, "an int32 scalar", v)
    if not INT32_MIN <= int(v) <= INT32_MAX:
        raise NkiValidationError(api, param, "an int32 scalar (-2^31 <= v < 2^31)", v)
    return int(v)


def _core_rows(t) -> list[int]:
    """Rows of tile ``t`` that sit on a GpSimd core's 0-th partition (absolute partition % 16 == 0)."""
    first = (-t.start_partition) % GPSIMD_CORE_PARTITIONS
    return list(range(first, t.partitions, GPSIMD_CORE_PARTITIONS))


def nonzero_with_count(dst, src, index_offset=0, padding_val=-1, name=None) -> NkiInstruction:
    """Per GpSimd core (partitions 0, 16, ..., 112): the positions of ``src``'s nonzero elements plus
    ``index_offset``, then ``padding_val`` up to the source length, then the count; ``dst`` has one
    element more per partition than ``src``. Other partitions of ``dst`` are not written."""
    api = "nisa.nonzero_with_count"
    run = current(api)
    if run.chip.nc_version < 3:
        raise NkiValidationError(api, "target", "NeuronCore-v3 or newer (trn2, trn3)", run.chip.name)
    R.tile(api, "dst", dst)
    R.tile(api, "src", src)
    for p, t in (("src", src), ("dst", dst)):
        if t.buffer.value != "sbuf":
            raise NkiValidationError(api, p, "a tile in SBUF", t.buffer)
    if src.tv.dtype.name not in ("float32", "int32"):
        raise NkiValidationError(api, "src", "dtype float32 or int32", src.tv.dtype)
    if dst.tv.dtype.name != "int32":
        raise NkiValidationError(api, "dst", "dtype int32", dst.tv.dtype)
    R.same_partitions(api, ["dst", "src"], [dst, src])
    if dst.start_partition != src.start_partition:
        raise NkiValidationError(api, "dst", "the same start partition as src (each GpSimd core reads and "
                                 "writes its own 0-th partition)", f"dst {dst.start_partition}, src {src.start_partition}")
    n = src.free_size
    if dst.free_size != n + 1:
        raise NkiValidationError(api, "dst", "exactly one element more than src in the free dimension",
                                 f"dst {dst.free_size}, src {n}")
    offset = _int32_scalar(api, "index_offset", index_offset)
    pad = _int32_scalar(api, "padding_val", padding_val)
    rows = _core_rows(src)
    if rows:
        x = np.stack([src[r:r + 1].read(api).reshape(n) for r in rows])     # only the cores' partitions
        nz = x != 0
        count = nz.sum(axis=1)
        # stable order of the nonzero positions first: argsort of "is zero" keeps positions ascending
        order = np.argsort(~nz, axis=1, kind="stable").astype(np.int64) + offset
        out = np.where(np.arange(n)[None, :] < count[:, None], order, pad)
        out = np.concatenate([out, count[:, None]], axis=1)
        if out.size and (out.min() < INT32_MIN or out.max() > INT32_MAX):
            raise NkiValidationError(api, "index_offset", "indices + index_offset fit in int32", offset)
        out = out.astype(np.int32)
        for i, r in enumerate(rows):
            dst[r:r + 1].write(out[i].reshape(dst[r:r + 1].shape))
    reads = [src[r:r + 1] for r in rows] or [src]
    writes = [dst[r:r + 1] for r in rows] or [dst]
    return run.issue(api, "gpsimd", _cost2.gpsimd(n), reads=reads, writes=writes,
                     elements=len(rows) * n)


DMA_COMPUTE_MAX_SRCS = 16


def dma_compute(dst, srcs, scales, reduce_op, name=None) -> NkiInstruction:
    """``dst = reduce_op(srcs[0] * scales[0], srcs[1] * scales[1], ...)`` computed inside the DMA engines in
    float32 (each source cast to fp32, the result cast to dst). Only ``nl.add`` and scales of 1.0 exist
    today. HBM or SBUF operands with static addresses; equal element counts; at most 16 sources."""
    from .alu import lookup
    from .isa import _f32, dma_issue, store_result
    api = "nisa.dma_compute"
    run = current(api)
    R.tile(api, "dst", dst, on_chip=False)
    if not isinstance(srcs, (list, tuple)) or not 1 <= len(srcs) <= DMA_COMPUTE_MAX_SRCS:
        raise NkiValidationError(api, "srcs", f"a list of 1..{DMA_COMPUTE_MAX_SRCS} tensors", srcs)
    for i, s in enumerate(srcs):
        R.tile(api, f"srcs[{i}]", s, on_chip=False)
    if not isinstance(scales, (list, tuple)) or len(scales) != len(srcs):
        raise NkiValidationError(api, "scales", "one scale per source", scales)
    if any(isinstance(c, bool) or not isinstance(c, (int, float, np.floating, np.integer)) or float(c) != 1.0
           for c in scales):
        raise NkiValidationError(api, "scales", "all 1.0 (the only scale supported)", scales)
    op = lookup(reduce_op)
    if op is None or op.name != "add":
        raise NkiValidationError(api, "reduce_op", "nl.add (the only reduction supported)",
                                 getattr(reduce_op, "__name__", reduce_op))
    for p, t in [("dst", dst)] + [(f"srcs[{i}]", s) for i, s in enumerate(srcs)]:
        if t.in_psum:
            raise NkiValidationError(api, p, "a tensor in HBM or SBUF", t.buffer)
        if t.is_indirect():
            raise NkiValidationError(api, p, "a compile-time known address (no scalar_offset / vector_offset)", t)
        if t.size != dst.size:
            raise NkiValidationError(api, p, "the element count of dst", f"{t.size} vs {dst.size}")
    acc = _f32(srcs[0].read(api)).reshape(-1).copy()
    for s in srcs[1:]:
        acc += _f32(s.read(api)).reshape(-1)            # fp32, in source order
    store_result(dst, acc.reshape(dst.shape))
    big = max(srcs, key=lambda s: s.tv.nbytes)
    return dma_issue(api, run, dst, big, reads=list(srcs), writes=[dst],
                     nbytes=sum(s.tv.nbytes for s in srcs))     # every source streams through the engines


LOCAL_GATHER_ELEMS = (1, 2, 4, 8, 16, 32)
LOCAL_GATHER_MAX_INDICES = 4096          # per GpSimd core
LOCAL_GATHER_T = 4                       # the cost formula's t ("currently a constant 4")


def local_gather(dst, src_buffer, index, num_elem_per_idx=1, num_valid_indices=None, name=None) -> NkiInstruction:
    """Each GpSimd core (16 partitions) flattens its 16-partition slice of ``index`` partition-first
    (Fortran order), keeps the first ``num_valid_indices``, and every one of its partitions gathers
    ``num_elem_per_idx`` contiguous elements at each index (an element offset in the partition's flattened
    free dims). ``dst[p]`` holds the gathered groups in index order; no cast (same dtype)."""
    api = "nisa.local_gather"
    run = current(api)
    for p, t in (("dst", dst), ("src_buffer", src_buffer), ("index", index)):
        R.gpsimd_tile(api, p, t)
    if index.tv.dtype.name != "uint16":
        raise NkiValidationError(api, "index", "uint16 indices", index.tv.dtype)
    if src_buffer.partitions != index.partitions or src_buffer.partitions % GPSIMD_CORE_PARTITIONS:
        raise NkiValidationError(api, "index", "src_buffer.shape[0] == index.shape[0], a multiple of 16",
                                 f"src_buffer {src_buffer.partitions}, index {index.partitions}")
    R.same_partitions(api, ["dst", "src_buffer"], [dst, src_buffer])
    if dst.tv.dtype != src_buffer.tv.dtype:
        raise NkiValidationError(api, "dst", "the dtype of src_buffer (local_gather does not cast)",
                                 f"{dst.tv.dtype} vs {src_buffer.tv.dtype}")
    e = num_elem_per_idx
    if isinstance(e, bool) or e not in LOCAL_GATHER_ELEMS:
        raise NkiValidationError(api, "num_elem_per_idx", f"one of {list(LOCAL_GATHER_ELEMS)}", e)
    per_core = GPSIMD_CORE_PARTITIONS * index.free_size
    nv = per_core if num_valid_indices is None else num_valid_indices
    if isinstance(nv, bool) or not isinstance(nv, (int, np.integer)) or not 1 <= nv <= per_core:
        raise NkiValidationError(api, "num_valid_indices", f"an int in 1..{per_core} (the indices of a core's "
                                 "16-partition index slice)", num_valid_indices)
    if nv > LOCAL_GATHER_MAX_INDICES:
        raise NkiValidationError(api, "num_valid_indices", f"at most {LOCAL_GATHER_MAX_INDICES} indices per core", nv)
    nv = int(nv)
    if dst.free_size != nv * e:
        raise NkiValidationError(api, "dst", "num_valid_indices * num_elem_per_idx elements per partition",
                                 f"{dst.free_size} vs {nv} * {e}")
    n = src_buffer.free_size
    src = src_buffer.read(api).reshape(src_buffer.partitions, n)
    idx = index.read(api).reshape(index.partitions, index.free_size).astype(np.int64)
    cores = src_buffer.partitions // GPSIMD_CORE_PARTITIONS
    # per core: indices_1d = index[16 partitions].flatten(order="F")[:nv]
    ind = idx.reshape(cores, GPSIMD_CORE_PARTITIONS, -1).transpose(0, 2, 1).reshape(cores, -1)[:, :nv]
    if ind.size and ind.max() + e > n:
        raise NkiValidationError(api, "index", f"index + num_elem_per_idx <= {n} elements per partition "
                                 "(out-of-bound gathers are undefined on the chip)", int(ind.max()))
    cols = ind[:, :, None] + np.arange(e)[None, None, :]                  # [cores, nv, e]
    rows = src.reshape(cores, GPSIMD_CORE_PARTITIONS, n)
    out = np.take_along_axis(rows, np.broadcast_to(cols.reshape(cores, 1, nv * e),
                                                   (cores, GPSIMD_CORE_PARTITIONS, nv * e)), axis=2)
    dst.write(out.reshape(dst.shape))
    return run.issue(api, "gpsimd", _local_gather_cycles(nv, e, src_buffer.itemsize), reads=[src_buffer, index],
                     writes=[dst], elements=dst.partitions * dst.free_size)


def _local_gather_cycles(nv: int, e: int, dtype_size: int) -> float:
    """[SDK@2.26] local_gather: ``150 + (num_valid_indices * num_elem_per_idx) / C`` GpSimd cycles with
    ``C = ((28 + t*e) / (t*e)) / min(4/dtype_size, e)``, t = 4."""
    t = LOCAL_GATHER_T
    c = ((28 + t * e) / (t * e)) / min(4 / dtype_size, e)
    return float(_cost2.GPSIMD_START + nv * e / c)


EXP_DST_DTYPES = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "tfloat32", "int8", "int16",
                  "int32", "uint8", "uint16")
EXP_SRC_DTYPES = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "int8", "int16", "int32",
                  "uint8", "uint16", "uint32")
EXP_REDUCE_DTYPES = ("float8_e4m3", "float8_e5m2", "float16", "bfloat16", "float32", "tfloat32")


def exponential(dst, src, max_value=0.0, reduce_res=None, reduce_cmd=None, reduce_init=0.0,
                name=None) -> NkiInstruction:
    """``dst = exp(src - max_value)`` on VectorE (NC-v4+), computed in fp32; with ``reduce_cmd`` the VectorE
    accumulator registers sum dst's values per partition (``reset_reduce`` from 0, ``reduce`` on top,
    ``load_reduce`` from ``reduce_init``) and ``reduce_res`` receives them."""
    from . import accum
    from . import cost as _cost
    from .isa import _f32, store_result
    api = "nisa.exponential"
    run = current(api)
    if run.chip.nc_version < 4:
        raise NkiValidationError(api, "target", "NeuronCore-v4 or newer (trn3)", run.chip.name)
    cmd = accum.reduce_cmd.idle if reduce_cmd is None else reduce_cmd
    if not isinstance(cmd, accum.reduce_cmd) or cmd is accum.reduce_cmd.reset:
        raise NkiValidationError(api, "reduce_cmd", "idle, reset_reduce, reduce or load_reduce", reduce_cmd)
    R.tile(api, "dst", dst)
    R.tile(api, "src", src)
    for p, t, ok in (("dst", dst, EXP_DST_DTYPES), ("src", src, EXP_SRC_DTYPES)):
        if t.tv.dtype.name not in ok:
            raise NkiValidationError(api, p, f"dtype one of {', '.join(ok)}", t.tv.dtype)
        if len(t.shape) > 4:
            raise NkiValidationError(api, p, "at most a 4-d tensor", t.shape)
    R.same_partitions(api, ["dst", "src"], [dst, src])
    if dst.free_size != src.free_size:
        raise NkiValidationError(api, "dst", "as many free elements as src", f"{dst.free_size} vs {src.free_size}")
    reads = [src]
    if R.is_scalar(max_value) and not isinstance(max_value, (bool, np.bool_)):
        mx = np.float32(max_value)
    elif hasattr(max_value, "tv"):
        R.tile(api, "max_value", max_value)
        if max_value.partitions != src.partitions or max_value.free_size != 1 or max_value.tv.dtype.name != "float32":
            raise NkiValidationError(api, "max_value", f"a float32 ({src.partitions}, 1) tile or a scalar",
                                     (max_value.shape, max_value.tv.dtype.name))
        mx = max_value.read(api).reshape(src.partitions, 1).astype(np.float32)
        reads.append(max_value)
    else:
        raise NkiValidationError(api, "max_value", "a scalar or a float32 (P, 1) tile", max_value)
    if float(reduce_init) != 0.0 and cmd is not accum.reduce_cmd.load_reduce:
        raise NkiValidationError(api, "reduce_init", "0.0 unless reduce_cmd is load_reduce", reduce_init)
    if reduce_res is not None:
        R.tile(api, "reduce_res", reduce_res)
        if reduce_res.partitions != src.partitions or reduce_res.free_size != 1:
            raise NkiValidationError(api, "reduce_res", f"a ({src.partitions}, 1) tile", reduce_res.shape)
        if reduce_res.tv.dtype.name not in EXP_REDUCE_DTYPES:
            raise NkiValidationError(api, "reduce_res", f"dtype one of {', '.join(EXP_REDUCE_DTYPES)}",
                                     reduce_res.tv.dtype)
    x = _f32(src.read(api)).reshape(src.partitions, -1)
    with np.errstate(all="ignore"):
        y = np.exp(x.astype(np.float64) - mx.astype(np.float64)).astype(np.float32)   # fp32 result
    store_result(dst, y.reshape(dst.shape))
    writes = [dst]
    if cmd is not accum.reduce_cmd.idle:
        lanes = slice(src.start_partition, src.start_partition + src.partitions)
        out = _f32(dst.read(api)).reshape(src.partitions, -1)           # dst's values are what accumulate
        if cmd is accum.reduce_cmd.load_reduce:
            accum.apply(run, "vector", accum.reduce_cmd.reset_reduce, "add", lanes,
                        np.full(src.partitions, np.float32(reduce_init)))
            cmd = accum.reduce_cmd.reduce
        res = accum.apply(run, "vector", cmd, "add", lanes, accum.reduce_rows("add", out))
        if reduce_res is not None:
            store_result(reduce_res, res.reshape(reduce_res.shape))
            writes.append(reduce_res)
    return run.issue(api, "vector", float(max(_cost.MIN_II, src.free_size)), reads=reads, writes=writes,
                     elements=src.partitions * src.free_size)
