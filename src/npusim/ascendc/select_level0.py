"""Select, the level-0 prototype (Select.md, "tensor 高维切分计算"):

    Select(dst, selMask, src0, src1, selMode, mask, repeatTime, BinaryRepeatParams)

Per repeat, E = 256 / sizeof(T) lanes on the level-0 geometry (block and repeat strides per operand). A
selMask bit 1 takes src0, 0 takes src1 (a tensor, or the scalar in VSEL_TENSOR_SCALAR_MODE); lanes the
``mask`` leaves out keep dst's old value. Mode 0 (VSEL_CMPMASK_SPR) reuses the first E bits of selMask in
every repeat (they go through the compare-mask register); modes 1 and 2 consume E new bits per repeat.
The caller (compare_select.Select) has checked positions, dtypes and the mode.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from ..core.view import views_overlap
from . import cost
from . import dtypes as T
from .context import current
from .repeat import BinaryRepeatParams, Operand, _counter_active, _read, check_footprint, resolve_mask
from .rules import check_repeat

_MASK_TYPES = (T.uint8_t, T.uint16_t, T.uint32_t)     # Select.md: U (uint64_t too; npusim has no uint64 tensors)


def select_level0(dst, selMask, src0, src1, mode0: bool, scalar: bool, mask, repeatTime, p, isSetMask) -> None:
    api = "Select"
    ctx = current()
    if not isinstance(p, BinaryRepeatParams):
        raise ConstraintError(api, "repeatParams", "a BinaryRepeatParams", p)
    if all(selMask.dtype is not u for u in _MASK_TYPES):
        raise ConstraintError(api, "selMask", "U is one of uint8_t, uint16_t, uint32_t, uint64_t",
                              T.asc_name(selMask.dtype))
    if p.dstBlkStride == 0:
        raise ConstraintError(api, "dstBlkStride", "dstBlkStride = 0 is undefined behaviour", 0)
    s = src0.dtype.itemsize
    E = 256 // s
    R = check_repeat(api, repeatTime)
    lanes, N = resolve_mask(api, ctx, mask, isSetMask, E, s)
    if N is not None:                                  # counter mode: N elements, repeatTime ignored
        if N == 0:
            return ctx.place("PIPE_V", api, 0)
        R = -(-N // E)
        active, last = (None if N == R * E else _counter_active(R, E, N)), N - (R - 1) * E
    else:
        if R == 0 or lanes is False:
            return ctx.place("PIPE_V", api, 0)
        active, last = (None if lanes is None else np.broadcast_to(lanes, (R, E))), E
    ops = [Operand("dstLocal", dst, p.dstBlkStride, p.dstRepStride),
           Operand("src0Local", src0, p.src0BlkStride, p.src0RepStride)]
    if not scalar:
        ops.append(Operand("src1Local", src1, p.src1BlkStride, p.src1RepStride))
    for op in ops:
        op.shape_for(E)
        check_footprint(api, op, R, last, E, lanes)
    mbytes = E // 8 if mode0 else R * E // 8
    if mbytes > selMask.size * selMask.dtype.itemsize:
        raise ConstraintError(api, "selMask", f"{'256 / sizeof(T)' if mode0 else 'repeatTime * 256 / sizeof(T)'} "
                              f"bits ({mbytes} bytes) fit in selMask", selMask.size * selMask.dtype.itemsize)
    views = [ctx.view(op.t.addr, (R, op.nblk, op.bpb), (op.rep * 32, op.blk * 32, op.s), op.t.dtype, api)
             for op in ops]
    dv, svs = views[0], views[1:]
    for op, sv in zip(ops[1:], svs):                   # ascendc.md §1.8: 100 % overlap or none
        same = op.t.addr == dst.addr and op.blk == ops[0].blk and op.rep == ops[0].rep
        if not same and dv.footprint.overlaps(sv.footprint) and views_overlap(dv, sv):
            raise ConstraintError(api, op.name, "source and destination overlap completely or not at all",
                                  ("dstLocal", op.name))
    m = ctx.view(selMask.addr, (mbytes,), None, T.uint8_t, api)
    bits = np.unpackbits(m.read(api), bitorder="little").astype(bool)
    if mode0:
        reg = np.zeros(16, np.uint8)
        reg[:mbytes] = m.read(api)
        ctx.cmpmask = reg                              # the bits travel through the compare-mask register
        bits = np.broadcast_to(bits, (R, E))
    else:
        bits = bits.reshape(R, E)
    act3 = None if active is None else active.reshape(R, dv.shape[1], dv.shape[2])
    a = _read(svs[0], act3, api).reshape(R, E)
    b = cast(np.asarray([src1], np.float64), src0.dtype)[0] if scalar else _read(svs[1], act3, api).reshape(R, E)
    dv.write(np.where(bits, a, b).reshape(dv.shape), where=act3)
    bf = cost.bank_factor([op.t.addr + k * op.blk * 32 for op in ops[1:] for k in range(op.nblk)],
                          [dst.addr + k * ops[0].blk * 32 for k in range(ops[0].nblk)])
    n = R * E if active is None else int(np.count_nonzero(active))
    ctx.place("PIPE_V", api, cost.vector_cycles("two", R, src0.dtype.name, bf),
              reads=[m.footprint, *(v.footprint for v in svs)], writes=[dv.footprint],
              nbytes=n * len(ops) * s + mbytes, elements=n,
              args={"repeats": R, "mask": "counter" if N is not None else f"{ctx.mask_high:#x}:{ctx.mask_low:#x}"})
