"""GDMA functions (seed 001): tensor copies between system and local memory, matrix moves, fills.

Each call is one TENSOR_GDMA instruction on the GDMA engine, costed by cost.gdma_cycles. Copies move raw
bits (unsigned integer views), so NaN payloads and int data pass unchanged.
"""
from __future__ import annotations

import numpy as np

from . import args, cost, rules, spec
from .device import GDMA, current
from .layout import LANE, X, LocalTensor, SystemTensor, aligned_stride, copy_tensor
from .types import dim4, union_bits

_UINT = {4: np.uint32, 2: np.uint16, 1: np.uint8}
BATCH_LIMIT = 4096       # batches of an overlapping copy (moved one after another); docs/okk.md
C_PIECE = 65472          # channels per piece of a strided S2L/L2S with c > 65472 (C-model; docs/okk.md)


def _strides_of(t, shape: dim4) -> tuple:
    if isinstance(t, LocalTensor):
        return t.strides
    s = t.view.strides
    e = t.view.dtype.itemsize
    return tuple(x // e for x in s)


def _tensor(dev, api, param, local: bool, addr, shape, stride, esize):
    if local:
        rules.local_addr(api, param, addr)
        return dev.local_tensor(api, param, addr, shape, stride, _UINT[esize], esize)
    return dev.system_tensor(api, param, addr, shape, stride, _UINT[esize], esize)


def _arguments(api, kind, dst_addr, src_addr, dst_stride, src_stride):
    """The call's addresses and strides as C values (okk/args.py), before anything is built."""
    dst_local, src_local = kind in ("S2L", "L2L", "set_C_local"), kind in ("L2S", "L2L")
    dst_addr = (args.local_addr if dst_local else args.system_addr)(api, "dst_addr", dst_addr)
    if src_addr is not None:
        src_addr = (args.local_addr if src_local else args.system_addr)(api, "src_addr", src_addr)
    return dst_addr, src_addr, args.stride_arg(api, "dst_stride", dst_stride), \
        args.stride_arg(api, "src_stride", src_stride)


def _copy(api: str, kind: str, esize: int, dst_addr, src_addr, shape, dst_stride, src_stride) -> None:
    dev = current()
    shape = args.dim4_arg(api, "shape", shape)
    rules.shape_gdma(api, shape)
    dst_addr, src_addr, dst_stride, src_stride = _arguments(api, kind, dst_addr, src_addr, dst_stride, src_stride)
    rules.stride_w_one(api, "dst_stride", dst_stride)
    rules.stride_w_one(api, "src_stride", src_stride)
    if kind in ("S2L", "L2S") and dst_stride is None and src_stride is None and shape.c > spec.MAX_NHW:
        from ..core.errors import ConstraintError
        raise ConstraintError(api, "shape->c", "shape->c is at most 65535 when both strides are NULL "
                              "(C-model assertion, tensor_align_move)", shape.c)
    full = shape
    shape = args.collapse(shape, [dst_stride, src_stride])
    args.work(api, shape.n * shape.c * shape.h * shape.w)
    dst_local, src_local = kind in ("S2L", "L2L"), kind in ("L2S", "L2L")
    src = _tensor(dev, api, "src_addr", src_local, src_addr, shape, src_stride, esize)
    dst = _tensor(dev, api, "dst_addr", dst_local, dst_addr, shape, dst_stride, esize)
    if shape.n > 1 and any(a.overlaps(b) for a in dst.footprints for b in src.footprints):
        _copy_batches(dev, api, esize, dst_local, src_local, dst_addr, src_addr, shape, dst, src)
    else:   # both sides check and mark the init map on whole byte boxes (layout, initmap)
        copy_tensor(dst, src)
    shape = full            # the cost model counts every element the hardware moves
    nbytes = shape.n * shape.c * shape.h * shape.w * esize
    run = cost.gdma_run_bytes(esize, shape.tuple(), _strides_of(dst, shape), _strides_of(src, shape),
                              dst_local, src_local)
    cycles = cost.gdma_cycles(kind, nbytes, run)
    if kind in ("S2L", "L2S") and shape.c > C_PIECE and (dst_stride is not None or src_stride is not None):
        # with a stride given the C-model moves the channels in pieces of 65472 (65535 rounded down to
        # the 64 NPUs), each costed as one instruction (contest sweep: Sophgo's pool demos, c = 131072)
        pieces, rest = divmod(shape.c, C_PIECE)
        per_c = nbytes // shape.c
        cycles = pieces * cost.gdma_cycles(kind, per_c * C_PIECE, run) + \
            (cost.gdma_cycles(kind, per_c * rest, run) if rest else 0)
    dev.issue(GDMA, api, cost.TENSOR_GDMA, cycles, reads=src.footprints,
              writes=dst.footprints, nbytes=nbytes, elements=nbytes // esize,
              direction=cost.GDMA_DIRECTION[kind])


def _copy_batches(dev, api, esize, dst_local, src_local, dst_addr, src_addr, shape, dst, src) -> None:
    """Source and destination overlap: the C-model moves one n after the other, so batch n reads what
    batch n-1 wrote (found against libbackend with an L2L whose channels wrap onto its source)."""
    if shape.n > BATCH_LIMIT:
        from ..core.errors import ConstraintError
        raise ConstraintError(api, "shape->n", f"an overlapping copy moves at most {BATCH_LIMIT} batches "
                              "(one after another; npusim's work limit)", shape.n)
    dst_st, src_st = dim4(*_strides_of(dst, shape)), dim4(*_strides_of(src, shape))
    one = dim4(1, shape.c, shape.h, shape.w)
    for n in range(shape.n):
        s = _tensor(dev, api, "src_addr", src_local, src_addr + n * src_st.n * esize, one, src_st, esize)
        d = _tensor(dev, api, "dst_addr", dst_local, dst_addr + n * dst_st.n * esize, one, dst_st, esize)
        d.write(s.read())


def _set_c(api: str, kind: str, esize: int, dst_addr, value, shape, dst_stride) -> None:
    dev = current()
    shape = args.dim4_arg(api, "shape", shape)
    rules.shape_gdma(api, shape)
    dst_addr, _, dst_stride, _ = _arguments(api, kind, dst_addr, None, dst_stride, None)
    bits = union_bits(value, esize * 8)
    local = kind == "set_C_local"
    if local and dst_stride is None:
        # NULL means the 32-bit aligned strides (C = ALIGN(h*w, 32) elements) for every width in the
        # C-model's set_C_local, not the 16/8-bit helpers (found against libbackend).
        rules.local_addr(api, "dst_addr", dst_addr)
        dst_stride = aligned_stride(None, int(dst_addr) // LANE, shape, 4)
    full = shape
    shape = args.collapse(shape, [dst_stride])
    args.work(api, shape.n * shape.c * shape.h * shape.w)
    dst = _tensor(dev, api, "dst_addr", local, dst_addr, shape, dst_stride, esize)
    dst.write(np.asarray(bits, _UINT[esize]))
    shape = full
    nbytes = shape.n * shape.c * shape.h * shape.w * esize
    st = _strides_of(dst, shape)
    run = cost.gdma_run_bytes(esize, shape.tuple(), st, st, local, local, fill=True)
    dev.issue(GDMA, api, cost.TENSOR_GDMA, cost.gdma_cycles(kind, nbytes, run), writes=dst.footprints,
              nbytes=nbytes, elements=nbytes // esize, direction=cost.GDMA_DIRECTION[kind])


def _make_copy(bits: int, kind: str):
    api = f"okk_gdma_{bits}bit_cpy_{kind}"

    def fn(dst_addr, src_addr, shape, dst_stride=None, src_stride=None):
        _copy(api, kind, bits // 8, dst_addr, src_addr, shape, dst_stride, src_stride)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"{api}(dst_addr, src_addr, shape, dst_stride, src_stride): dst(n,c,h,w) = src(n,c,h,w)."
    return fn


def _make_set(bits: int, where: str):
    api = f"okk_gdma_{bits}bit_set_C_{where}"

    def fn(dst_addr, C, shape, dst_stride=None):
        _set_c(api, f"set_C_{where}", bits // 8, dst_addr, C, shape, dst_stride)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"{api}(dst_addr, C, shape, dst_stride): dst(n,c,h,w) = C."
    return fn


okk_gdma_32bit_cpy_S2L = _make_copy(32, "S2L")
okk_gdma_32bit_cpy_L2S = _make_copy(32, "L2S")
okk_gdma_32bit_cpy_L2L = _make_copy(32, "L2L")
okk_gdma_32bit_cpy_S2S = _make_copy(32, "S2S")
okk_gdma_16bit_cpy_S2L = _make_copy(16, "S2L")
okk_gdma_16bit_cpy_L2S = _make_copy(16, "L2S")
okk_gdma_16bit_cpy_L2L = _make_copy(16, "L2L")
okk_gdma_16bit_cpy_S2S = _make_copy(16, "S2S")
okk_gdma_8bit_cpy_S2L = _make_copy(8, "S2L")
okk_gdma_8bit_cpy_L2S = _make_copy(8, "L2S")
okk_gdma_8bit_cpy_L2L = _make_copy(8, "L2L")
okk_gdma_8bit_cpy_S2S = _make_copy(8, "S2S")
okk_gdma_32bit_set_C_system = _make_set(32, "system")
okk_gdma_32bit_set_C_local = _make_set(32, "local")
okk_gdma_16bit_set_C_system = _make_set(16, "system")
okk_gdma_16bit_set_C_local = _make_set(16, "local")
okk_gdma_8bit_set_C_system = _make_set(8, "system")
okk_gdma_8bit_set_C_local = _make_set(8, "local")


# ---- matrix layout (reference §2.4) ----

def _matrix(api: str, kind: str, local_addr, sys_addr, rows, cols, cols_per_channel, row_stride) -> None:
    from ..core.errors import ConstraintError
    dev = current()
    rows, cols, cols_per_channel = (args.c_int(api, name, v, 1, rule=f"{name} is a positive C int")
                                    for name, v in (("rows", rows), ("cols", cols),
                                                    ("cols_per_channel", cols_per_channel)))
    if cols > 65535:
        raise ConstraintError(api, "cols", "cols is at most 65535 (C-model assertion)", cols)
    row_stride = args.c_int(api, "row_stride", row_stride)
    args.work(api, rows * cols)
    lparam = "dst_addr" if kind == "S2L" else "src_addr"
    sparam = "src_addr" if kind == "S2L" else "dst_addr"
    local_addr = args.local_addr(api, lparam, local_addr)
    sys_addr = args.system_addr(api, sparam, sys_addr)
    rules.local_addr(api, lparam, local_addr)
    cpc = cols_per_channel
    nch = -(-cols // cpc)
    q, r = divmod(int(local_addr), LANE)
    full = dim4(rows, nch, 1, cpc)
    # The C-model lays the matrix out with the N stride of start NPU 0, ceil(C/64) * Cs, whatever the
    # start NPU (found against libbackend); channels still scatter from NPU q.
    lst = aligned_stride(None, 0, full, 4)
    pairs = []
    full_ch, rem = divmod(cols, cpc)
    if full_ch:
        sh = dim4(rows, full_ch, 1, cpc)
        lt = LocalTensor(dev.local, api, lparam, local_addr, sh, lst, np.uint32, 4)
        st = SystemTensor(dev, api, sparam, sys_addr, sh, dim4(row_stride, cpc, cpc, 1), np.uint32, 4)
        pairs.append((lt, st))
    if rem:
        qc = q + full_ch
        addr_c = (qc % X) * LANE + r + (qc // X) * lst.c * 4
        sh = dim4(rows, 1, 1, rem)
        lt = LocalTensor(dev.local, api, lparam, addr_c, sh, dim4(lst.n, lst.c, rem, 1), np.uint32, 4)
        st = SystemTensor(dev, api, sparam, sys_addr + 4 * full_ch * cpc, sh, dim4(row_stride, rem, rem, 1),
                          np.uint32, 4)
        pairs.append((lt, st))
    reads, writes = [], []
    for lt, st in pairs:
        if kind == "S2L":
            lt.write(st.read())
            reads += st.footprints
            writes += lt.footprints
        else:
            copy_tensor(st, lt)
            reads += lt.footprints
            writes += st.footprints
    # the C-model costs matrix_L2S over the padded columns ceil(cols/cpc)*cpc, matrix_S2L over cols, both
    # in runs of cols_per_channel elements, even when cols_per_channel > cols (contest sweep, sweep_probes.c)
    nbytes = rows * (nch * cpc if kind == "L2S" else cols) * 4
    run = cpc * 4
    dev.issue(GDMA, api, cost.TENSOR_GDMA, cost.gdma_cycles(kind, nbytes, run), reads=reads, writes=writes,
              nbytes=nbytes, elements=rows * cols, direction=cost.GDMA_DIRECTION[kind])


def okk_gdma_32bit_matrix_S2L(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride):
    """Matrix (rows x cols, row r at src + 4*r*row_stride) into the matrix layout at dst_addr."""
    _matrix("okk_gdma_32bit_matrix_S2L", "S2L", dst_addr, src_addr, rows, cols, cols_per_channel, row_stride)


def okk_gdma_32bit_matrix_L2S(dst_addr, src_addr, rows, cols, cols_per_channel, row_stride):
    """Matrix in the matrix layout at src_addr out to rows at dst + 4*r*row_stride."""
    _matrix("okk_gdma_32bit_matrix_L2S", "L2S", src_addr, dst_addr, rows, cols, cols_per_channel, row_stride)
