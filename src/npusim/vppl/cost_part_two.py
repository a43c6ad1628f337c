"""Cycle ESTIMATES for the image, BLAS-like and DNN dot operators on one GEN.2 core (50 MHz, 512-bit
vector registers). TOPS publishes no timings (docs/vppl.md (part two), "Cost model"). The model: the
instruction issues (ISSUE), then streams its data through vector registers; a load or store of one
register takes MOVE_PER_REG cycles, a multiply-accumulate of one register of F16 lanes MAC_PER_REG,
any other lane-wise pass OP_PER_REG. Softmax's exponential takes EXP_PER_REG per register (a table
look-up and an interpolation, estimate)."""
from __future__ import annotations

from .cost import ISSUE, regs

MOVE_PER_REG = 1      # one 512-bit register loaded or stored per cycle (estimate)
MAC_PER_REG = 2       # 32 16x16 multiplies + accumulate per register (estimate, as cost.MUL_PER_REG)
OP_PER_REG = 1        # max / add / compare pass over one register (estimate)
EXP_PER_REG = 4       # exp look-up + interpolation per register (estimate)
DIV_PER_REG = 8       # per-lane division / square root (iterative, estimate)
ROW_SETUP = 1         # address update per row / per block (estimate)


def _r(m, nbytes: int) -> int:
    return regs(int(nbytes), m.reg_bytes)


def get_array(m, row, t, dst, src, x, y, w, h, ptype) -> int:
    from .ops_image import rounded_width
    out_bytes = rounded_width(w) * (1 if ptype == 0 else 2)
    return ISSUE + h * (ROW_SETUP + _r(m, rounded_width(w)) * MOVE_PER_REG + _r(m, out_bytes) * MOVE_PER_REG)


def fpbl(m, row, t, q, u, v, *rest) -> int:
    up, vp = -(-u // 8) * 8, -(-v // 32) * 32
    loads = _r(m, 2 * vp) + _r(m, 2 * up) + _r(m, 2 * up * vp)      # X, B, A streamed once
    macs = _r(m, 2 * up * vp) * MAC_PER_REG
    return ISSUE + loads * MOVE_PER_REG + macs + (up // 8) * ROW_SETUP + _r(m, 2 * up) * MOVE_PER_REG


def window(m, row, t, k, out_w, out_h, in_w, in_h, channels=1, per=MAC_PER_REG, extra_passes=0) -> int:
    """A k x k window op over an output map: k*k multiply(-accumulate) passes per output register, plus
    the input load and the output store."""
    out_regs = out_h * _r(m, 2 * out_w)
    return ISSUE + channels * (in_h * _r(m, 2 * in_w) * MOVE_PER_REG + out_regs * (k * k * per + MOVE_PER_REG)
                               + out_regs * extra_passes + out_h * ROW_SETUP)


def elementwise(m, nbytes_in: int, nbytes_out: int, per=OP_PER_REG) -> int:
    return ISSUE + _r(m, nbytes_in) * (MOVE_PER_REG + per) + _r(m, nbytes_out) * MOVE_PER_REG


# ---- per operator (arguments in the seed's order) ----

def pooling(m, row, t, k, s, in_w, in_h, out_w, out_h, *rest) -> int:
    return window(m, row, t, k, out_w, out_h, in_w, in_h, per=OP_PER_REG)


def convolution(m, row, t, k, s, in_w, in_h, out_w, out_h, *rest) -> int:
    return window(m, row, t, k, out_w, out_h, in_w, in_h, extra_passes=2)   # + previous load, final shift


def lcn(m, row, t, k, in_w, in_h, out_w, out_h, work, a1, a2, p_in, p_out, channels, q) -> int:
    # two box-sum passes (mean, variance) + subtract + sqrt + divide, per channel
    return window(m, row, t, k, out_w, out_h, in_w, in_h, channels, per=2 * OP_PER_REG,
                  extra_passes=2 * OP_PER_REG + 2 * DIV_PER_REG)


def relu(m, row, t, p, work, units, q) -> int:
    return elementwise(m, units * 32, units * 32)


def softmax(m, row, t, p_in, p_out, n, q) -> int:
    return elementwise(m, 2 * n, 4 * n, per=EXP_PER_REG + DIV_PER_REG + 2 * OP_PER_REG) + 4   # + max/sum trees


def conv32to16(m, row, t, p_in, p_out, work, units, q32, q16) -> int:
    return elementwise(m, units * 64, units * 32)
