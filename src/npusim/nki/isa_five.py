"""ISA ops of the current API: ``nisa.nc_n_gather`` and ``nisa.sequence_bounds`` (GpSimd),
``nisa.activate2`` (ScalarE, NC-v4) and ``nisa.tensor_scalar_cumulative`` (VectorE).

Rules and semantics from the ops' docstrings ([stub] ``nki/api/nki/isa/__init__.py``, aws-neuron-sdk
81ce03a). Neither docstring publishes a cost; the choices are in docs/nki.md ("Part five") and below.
``isa.py`` re-exports both (one import line at its end).
"""
from __future__ import annotations

import math

import numpy as np

from . import accum
from . import actfuncs
from . import cost_two as _cost2
from . import rules as R
from .alu import lookup as _alu_lookup
from .rules import NkiValidationError
from .runtime import NkiInstruction, current
from .tensor import NkiTensor

# ---------------------------------------------------------------------------------------------- nc_n_gather

N_GATHER_GROUP = 512        # "n = ceil(elems_per_partition / 512)" underlying instructions ([stub])


def nc_n_gather_cycles(data_free: int, n_indices: int) -> float:
    """Unpublished; npusim's assumption: the op is ``n = ceil(data elements per partition / 512)``
    GpSimd instructions ([stub]), each a GpSimd pass over the indices like iota's ``150 + N``:
    ``n * (GPSIMD_START + N_indices)``."""
    n = max(1, math.ceil(data_free / N_GATHER_GROUP))
    return float(n * (_cost2.GPSIMD_START + n_indices))


def nc_n_gather(dst, data, indices, name=None) -> NkiInstruction:
    """Per partition, ``dst[p, j] = data[p].flatten()[indices[p].flatten()[j]]`` on GpSimd: a gather
    inside each partition's flattened free dims; no cast (dst has data's dtype)."""
    api = "nisa.nc_n_gather"
    run = current(api)
    for p, t in (("dst", dst), ("data", data), ("indices", indices)):
        R.gpsimd_tile(api, p, t)
    if dst.tv.dtype != data.tv.dtype:
        raise NkiValidationError(api, "dst", "the dtype of data (nc_n_gather does not cast)",
                                 f"{dst.tv.dtype} vs {data.tv.dtype}")
    if indices.tv.dtype.name != "uint32":
        raise NkiValidationError(api, "indices", "uint32 indices", indices.tv.dtype)
    R.same_partitions(api, ["dst", "data", "indices"], [dst, data, indices])
    if dst.free_size != indices.free_size:
        raise NkiValidationError(api, "dst", "as many elements per partition as indices",
                                 f"dst {dst.free_size}, indices {indices.free_size}")
    p, n = data.partitions, data.free_size
    idx = indices.read(api).reshape(p, indices.free_size)
    if idx.size and int(idx.max()) >= n:
        bad = np.argwhere(idx >= n)[0]
        raise NkiValidationError(api, "indices", f"values in [0, {n}) (data's elements per partition)",
                                 f"{int(idx[bad[0], bad[1]])} at partition {int(bad[0])}")
    x = data.read(api).reshape(p, n)
    dst.write(np.take_along_axis(x, idx.astype(np.intp), axis=1).reshape(dst.shape))
    return run.issue(api, "gpsimd", nc_n_gather_cycles(n, indices.free_size), reads=[data, indices],
                     writes=[dst], elements=dst.partitions * dst.free_size)


# ------------------------------------------------------------------------------------------------ activate2

#: The six (op0, op1) pairs of the tensor-scalar stage ([stub] activate2).
ACTIVATE2_PAIRS = (("multiply", "add"), ("multiply", "subtract"), ("multiply", "bypass"), ("add", "bypass"),
                   ("subtract", "bypass"), ("bypass", "bypass"))
ACTIVATE2_REDUCE_OPS = ("add", "maximum", "minimum", "abs_max", "abs_min")
_PAIRS_TEXT = ", ".join(f"({a}, {b})" for a, b in ACTIVATE2_PAIRS)


def _stage_op(api, param, op):
    """``op0`` / ``op1``: an ALU op or ``nl.bypass``; returns (name, AluOp or None)."""
    from .language_five import Bypass
    if isinstance(op, Bypass):
        return "bypass", None
    a = _alu_lookup(op)
    if a is None:
        raise NkiValidationError(api, param, "an arithmetic ALU op (nl.multiply, nl.add, nl.subtract) or "
                                 "nl.bypass", op)
    return a.name, a


def _immediate(api, param, value, data, reads, read=True):
    """A scalar (float32) or a ``(P, 1)`` tile of a float dtype on chip, read as float32 (a column)."""
    if R.is_scalar(value) and not isinstance(value, (bool, np.bool_)):
        return np.float32(value)
    if not isinstance(value, NkiTensor):
        raise NkiValidationError(api, param, "a scalar or a tile of shape (data.shape[0], 1)",
                                 type(value).__name__)
    R.tile(api, param, value)
    if value.ind is not None and value.is_indirect():
        raise NkiValidationError(api, param, "a tile without tensor indirection", value)
    if value.partitions != data.partitions or value.free_size != 1:
        raise NkiValidationError(api, param, f"a tile of shape (data.shape[0], 1) = ({data.partitions}, 1)",
                                 value.shape)
    if not value.tv.dtype.is_float:
        raise NkiValidationError(api, param, "a float tile (the engine computes in float32)", value.tv.dtype)
    if not read:
        return None
    reads.append(value)
    return np.array(value.read(api), np.float32).reshape(data.partitions, 1)


def activate2(dst, op, data, imm0, imm1, op0, op1, relu_param=0.0, reverse0=False, reverse1=False,
              reduce_op=None, reduce_res=None, reduce_cmd=accum.reduce_cmd.idle, name=None) -> NkiInstruction:
    """ScalarE, NC-v4+: ``v = (data op0 imm0) op1 imm1`` (``nl.bypass`` skips a stage; ``reverse0/1``
    swap the sides), ``dst = op(v)`` (``relu_param`` is PReLU's slope), all in float32, cast to dst;
    optionally reduces the activated values into ScalarE's accumulator registers (shared with
    ``activation``)."""
    from .isa import store_result
    from .isa_act import _act_op, check_range
    api = "nisa.activate2"
    run = current(api)
    if run.chip.nc_version < 4:
        raise NkiValidationError(api, "target", "NeuronCore-v4 or newer (trn3)", run.chip.name)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    R.same_partitions(api, ["dst", "data"], [dst, data])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    act = _act_op(api, op)
    n0, a0 = _stage_op(api, "op0", op0)
    n1, a1 = _stage_op(api, "op1", op1)
    if (n0, n1) not in ACTIVATE2_PAIRS:
        why = "op1 requires op0 to be set" if n0 == "bypass" and n1 != "bypass" else \
            f"one of the six (op0, op1) pairs: {_PAIRS_TEXT}"
        raise NkiValidationError(api, "op1" if n0 == "bypass" else "op0", why, (n0, n1))
    for param, flag, stage in (("reverse0", reverse0, n0), ("reverse1", reverse1, n1)):
        if not isinstance(flag, (bool, np.bool_)):
            raise NkiValidationError(api, param, "a bool", flag)
        if flag and stage == "bypass":
            raise NkiValidationError(api, param, f"{param} requires op{param[-1]} to be set (not nl.bypass)",
                                     flag)
    if isinstance(imm0, NkiTensor) and isinstance(imm1, NkiTensor) and imm0.tv.dtype != imm1.tv.dtype:
        raise NkiValidationError(api, "imm1", "the dtype of imm0 when both immediates are tensors",
                                 f"{imm0.tv.dtype} vs {imm1.tv.dtype}")
    if not isinstance(reduce_cmd, accum.reduce_cmd) or reduce_cmd is accum.reduce_cmd.load_reduce:
        raise NkiValidationError(api, "reduce_cmd", "a nisa.reduce_cmd member: idle, reset, reduce or "
                                 "reset_reduce", reduce_cmd)
    reducing = reduce_cmd in (accum.reduce_cmd.reduce, accum.reduce_cmd.reset_reduce)
    if reduce_op is not None:
        ro = _alu_lookup(reduce_op)
        if ro is None or ro.name not in ACTIVATE2_REDUCE_OPS:
            raise NkiValidationError(api, "reduce_op", "nl.add, nl.maximum, nl.minimum, nl.abs_max or nl.abs_min",
                                     getattr(ro, "name", reduce_op))
        rname = ro.name
    elif reducing or reduce_res is not None or reduce_cmd is accum.reduce_cmd.reset:
        raise NkiValidationError(api, "reduce_op", "a reduce op when reduce_cmd reduces or resets, or "
                                 "reduce_res is given", None)
    if reduce_res is not None:
        R.tile(api, "reduce_res", reduce_res)
        if reduce_res.ind is not None and reduce_res.is_indirect():
            raise NkiValidationError(api, "reduce_res", "a tile without tensor indirection", reduce_res)
        if reduce_res.partitions != data.partitions or reduce_res.free_size != 1:
            raise NkiValidationError(api, "reduce_res", f"a ({data.partitions}, 1) tile (one value per "
                                     "partition)", reduce_res.shape)
    reads = [data]
    v0 = _immediate(api, "imm0", imm0, data, reads, read=a0 is not None)
    v1 = _immediate(api, "imm1", imm1, data, reads, read=a1 is not None)
    alpha = _immediate(api, "relu_param", relu_param, data, reads, read=act.name == "prelu")

    p = data.partitions
    x = data.read(api).reshape(p, -1)
    x = x if x.dtype == np.float32 else x.astype(np.float32)
    with np.errstate(all="ignore"):
        for a, v, rev in ((a0, v0, reverse0), (a1, v1, reverse1)):
            if a is not None:
                x = np.asarray(a.fn(v, x) if rev else a.fn(x, v), np.float32)
    check_range(api, act, x)
    with np.errstate(all="ignore"):
        y = np.asarray(actfuncs.prelu(x, alpha) if act.name == "prelu" else act.fn(x), np.float32)
    store_result(dst, y.reshape(dst.shape))
    writes = [dst]
    if reducing or reduce_res is not None or reduce_cmd is accum.reduce_cmd.reset:
        lanes = slice(data.start_partition, data.start_partition + p)
        rows = _reduce_rows(rname, y) if (reducing or reduce_cmd is accum.reduce_cmd.idle) else None
        res = _apply_registers(run, reduce_cmd, rname, lanes, rows, y)
        if reduce_res is not None:
            store_result(reduce_res, res.reshape(reduce_res.shape))
            writes.append(reduce_res)
    cycles = _cost2.scalar_pass(run.chip, data.free_size, data, dst)
    if reduce_res is not None:
        cycles += _cost2.ACT_READ_ACCUMULATOR
    return run.issue(api, "scalar", cycles, reads=reads, writes=writes, elements=dst.size,
                     args={"op": act.name, "op0": n0, "op1": n1, "reduce_cmd": reduce_cmd.value})


def _abs_fold(y: np.ndarray, larger: bool) -> np.ndarray:
    """Per row, ``fold(nl.abs_max)`` (or abs_min) of the columns in order, whole-array: the element of
    largest (smallest) magnitude, a tie going to the later one. ``abs_max(x, y)`` picks x only when
    ``|x| > |y|`` (alu.py), so a NaN element wins once and loses to the next: the fold restarts after a
    row's last NaN (a row ending in NaN gives NaN)."""
    p, n = y.shape
    nan = np.isnan(y)
    last_nan = np.where(nan.any(axis=1), n - 1 - np.argmax(nan[:, ::-1], axis=1), -1)
    live = np.arange(n)[None, :] > last_nan[:, None]
    key = np.where(live, np.abs(y), -np.inf if larger else np.inf)
    best = key.max(axis=1) if larger else key.min(axis=1)
    hit = live & (key == best[:, None])
    j = n - 1 - np.argmax(hit[:, ::-1], axis=1)     # no live element: j = n - 1, the trailing NaN
    return y[np.arange(p), j].astype(np.float32, copy=False)


def _reduce_rows(op_name: str, y: np.ndarray) -> np.ndarray:
    """Per partition, this instruction's reduction of the activated values (float32)."""
    if op_name in _ABS_IDENTITY:
        return _abs_fold(y, op_name == "abs_max")
    return accum.reduce_rows(op_name, y)


#: abs_max / abs_min registers start at the value every element wins against: 0 for abs_max (a tie
#: returns the element), +inf for abs_min.
_ABS_IDENTITY = {"abs_max": 0.0, "abs_min": np.inf}


def _apply_registers(run, cmd, op_name, lanes, values, y):
    """accum.apply for every reduce op activate2 takes; abs_max / abs_min (which accum's table lacks)
    keep the same registers here, ``reduce`` folding the register first and then the elements ``y``."""
    if op_name not in _ABS_IDENTITY:
        return accum.apply(run, "scalar", cmd, op_name, lanes, values)
    regs = accum._regs(run, "scalar")
    cur = regs.get("values")
    if cur is None:
        cur = regs["values"] = np.full(128, np.float32(_ABS_IDENTITY[op_name]), np.float32)
    if cmd is accum.reduce_cmd.idle:
        return values if values is not None else cur[lanes].copy()
    if cmd is accum.reduce_cmd.reset:
        cur[lanes] = np.float32(_ABS_IDENTITY[op_name])
    elif cmd is accum.reduce_cmd.reduce:
        cur[lanes] = _abs_fold(np.concatenate([cur[lanes][:, None], y], axis=1), op_name == "abs_max")
    else:
        cur[lanes] = values
    return cur[lanes].copy()


# ---------------------------------------------------------------------------------- tensor_scalar_cumulative

CUMULATIVE_OPS = ("add", "subtract", "multiply", "maximum", "minimum")
CUMULATIVE_DTYPES = ("bfloat16", "float16", "float32", "float8_e4m3", "float8_e4m3fn", "float8_e5m2", "uint8",
                     "uint16", "int8", "int16")


def _scan(op_name: str, fn, a: np.ndarray, init: np.ndarray) -> np.ndarray:
    """``reg = op1(a[:, i], reg); out[:, i] = reg`` over the columns in float32, from ``init`` (P, 1).
    add and multiply are commutative bit for bit, so numpy's sequential ``accumulate`` gives the same
    values; maximum / minimum too when no zero is involved (on a tie of +0 and -0 numpy returns its first
    argument, and accumulate's order is (reg, a)); subtract (``a - reg``) is no accumulate. Those go column
    by column."""
    if op_name in ("add", "multiply") or (op_name in ("maximum", "minimum") and not (
            (a == 0).any() or (init == 0).any())):
        return fn.accumulate(np.concatenate([init, a], axis=1), axis=1, dtype=np.float32)[:, 1:]
    out = np.empty_like(a)
    reg = init[:, 0]
    for i in range(a.shape[1]):          # vectorised over partitions (as tensor_tensor_scan)
        reg = fn(a[:, i], reg)
        out[:, i] = reg
    return out


def tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None, reduce_cmd=accum.reduce_cmd.reset_reduce,
                             name=None) -> NkiInstruction:
    """VectorE: ``reg = op1(op0(src[i], imm0), reg); dst[i] = reg`` along each partition's free elements in
    float32, the register starting at op1's identity (``reset_reduce``), at VectorE's accumulator
    (``reduce``) or at ``imm1`` (``load_reduce``); the accumulator keeps the last value."""
    from .isa import _apply, _operand, store_result
    api = "nisa.tensor_scalar_cumulative"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "src", src)
    for p, t in (("src", src), ("dst", dst)):
        if t.tv.dtype.name not in CUMULATIVE_DTYPES:
            raise NkiValidationError(api, p, "dtype bf16, fp16, fp32, fp8, uint8, uint16, int8 or int16 (int32 / "
                                     "uint32 are not supported)", t.tv.dtype)
    R.same_partitions(api, ["dst", "src"], [dst, src])
    R.same_free_size(api, ["src", "dst"], [src, dst])
    a0 = _alu_lookup(op0)
    if a0 is None or a0.is_bitvec or "vector" not in a0.engines or a0.min_nc > run.chip.nc_version:
        raise NkiValidationError(api, "op0", "an arithmetic ALU op of the Vector engine (nl.add, nl.multiply, "
                                 "nl.maximum ...)", getattr(a0, "name", op0))
    a1 = _alu_lookup(op1)
    if a1 is None or a1.name not in CUMULATIVE_OPS:
        raise NkiValidationError(api, "op1", "nl.add, nl.subtract, nl.multiply, nl.maximum or nl.minimum",
                                 getattr(a1, "name", op1))
    cmd = reduce_cmd
    if cmd not in (accum.reduce_cmd.reset_reduce, accum.reduce_cmd.reduce, accum.reduce_cmd.load_reduce):
        raise NkiValidationError(api, "reduce_cmd", "reset_reduce, reduce or load_reduce", cmd)
    if cmd is accum.reduce_cmd.load_reduce and imm1 is None:
        raise NkiValidationError(api, "imm1", "the accumulator's initial value (required by load_reduce)", None)
    reads = [src]
    v0 = None if a0.unary else _operand(api, "imm0", imm0, src, a0, reads)
    p = src.partitions
    lanes = slice(src.start_partition, src.start_partition + p)
    if cmd is accum.reduce_cmd.load_reduce:
        v1 = _operand(api, "imm1", imm1, src, a1, reads)
        init = np.broadcast_to(np.asarray(v1, np.float32).reshape(-1, 1), (p, 1))
    elif cmd is accum.reduce_cmd.reduce:
        regs = accum._regs(run, "vector").get("values")
        init = (np.full((p, 1), np.float32(accum.IDENTITY[a1.name])) if regs is None else
                regs[lanes].reshape(p, 1).copy())
    else:
        init = np.full((p, 1), np.float32(accum.IDENTITY[a1.name]))
    x = src.read(api).reshape(p, -1)
    x = x if x.dtype == np.float32 else x.astype(np.float32)
    with np.errstate(all="ignore"):
        a = np.asarray(_apply(a0, x, v0.reshape(p, 1) if isinstance(v0, np.ndarray) else v0, False), np.float32)
        out = _scan(a1.name, a1.fn, a, np.ascontiguousarray(init, np.float32))
    store_result(dst, out.reshape(dst.shape))
    if out.shape[1]:
        accum.apply(run, "vector", accum.reduce_cmd.reset_reduce, a1.name, lanes, out[:, -1].copy())
    return run.issue(api, "vector", _cost2.one_pass(src.free_size, src, dst), reads=reads, writes=[dst],
                     elements=dst.size, args={"op0": a0.name, "op1": a1.name, "reduce_cmd": cmd.value})


# ------------------------------------------------------------------------------------------- sequence_bounds

SEQUENCE_BOUNDS_DTYPES = ("float32", "int32")


def sequence_bounds(dst, segment_ids, name=None) -> NkiInstruction:
    """GpSimd: for every element of the one-partition ``segment_ids`` (n elements), the start and the end
    (exclusive) of the run of equal ids it belongs to, as ``dst[0, 0, :]`` and ``dst[0, 1, :]``; padding
    (id 0) gets start n and end -1 (the docstring; the SDK 2.26 example's NumPy reference)."""
    from .isa import store_result
    api = "nisa.sequence_bounds"
    run = current(api)
    for p, t in (("dst", dst), ("segment_ids", segment_ids)):
        R.gpsimd_tile(api, p, t)
        if t.tv.dtype.name not in SEQUENCE_BOUNDS_DTYPES:
            raise NkiValidationError(api, p, "dtype float32 or int32", t.tv.dtype)
        if t.partitions != 1:
            raise NkiValidationError(api, p, "a partition dim of 1", t.shape)
    n = segment_ids.free_size
    if tuple(dst.shape) != (1, 2, n):
        raise NkiValidationError(api, "dst", f"shape (1, 2, {n}): a start and an end per segment id", dst.shape)
    ids = np.asarray(segment_ids.read(api)).reshape(n)
    ok = (np.isfinite(ids) & (ids == np.floor(ids)) & (ids >= 0)) if ids.dtype.kind == "f" else ids >= 0
    if not ok.all():
        raise NkiValidationError(api, "segment_ids", "non-negative integer ids", ids[~ok][0].item())
    pos = np.arange(n, dtype=np.int64)
    new_run = np.ones(n, bool)
    new_run[1:] = ids[1:] != ids[:-1]
    start = np.maximum.accumulate(np.where(new_run, pos, 0)) if n else pos
    run_end = np.ones(n, bool)
    run_end[:-1] = new_run[1:]
    end = np.minimum.accumulate(np.where(run_end, pos + 1, n)[::-1])[::-1] if n else pos
    pad = ids == 0
    out = np.stack([np.where(pad, n, start), np.where(pad, -1, end)])
    if dst.tv.dtype.name == "float32":
        store_result(dst, out.astype(np.float32).reshape(dst.shape))
    else:
        dst.write(out.astype(np.int32).reshape(dst.shape))
    return run.issue(api, "gpsimd", _cost2.gpsimd(n), reads=[segment_ids], writes=[dst], elements=2 * n)


def get_nc_sub_version() -> int:
    """The silicon revision within the target's nc_version: npusim models the first revision of each chip
    (0, the docstring's default)."""
    current("nisa.get_nc_sub_version")
    return 0


__all__ = ["nc_n_gather", "activate2", "tensor_scalar_cumulative", "sequence_bounds", "get_nc_sub_version"]
