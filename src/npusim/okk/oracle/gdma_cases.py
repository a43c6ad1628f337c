"""Random cases of the seed-001 GDMA functions, as oracle programs.

Sources hold random bits (every NaN payload must survive a copy); destinations are pre-filled with
other random bits and read back over their whole span plus a margin, so a write outside the tensor
or into its gaps shows up.  Local tensors use random start NPUs and either the default layout (NULL)
or explicit strides with w == 1; system tensors the continuous layout (NULL) or explicit strides,
including zero (broadcast) strides on sources.
"""

from __future__ import annotations

import numpy as np

from .programs import G, Builder, NPU, aligned_strides, continuous_strides, local_span, npus_touched

SRC_BASE = G + 0x0100000       # system sources
DST_BASE = G + 0x4000000       # system destinations (64 MiB higher: never overlapping the sources)
MARGIN = 64
KINDS = ("S2L", "L2S", "L2L", "S2S")


def _round(x: int, a: int = 128) -> int:
    return -(-x // a) * a


def random_shape(rng):
    if rng.random() < 0.8:
        return (int(rng.integers(1, 4)), int(rng.integers(1, 100)), int(rng.integers(1, 6)), int(rng.integers(1, 40)))
    return (1, int(rng.integers(1, 200)), int(rng.integers(1, 4)), int(rng.integers(40, 300)))


def _system_strides(rng, shape, src: bool):
    n, c, h, w = shape
    if rng.random() < 0.4:
        return None
    hs = w + int(rng.integers(0, 4))
    cs = (h - 1) * hs + w + int(rng.integers(0, 8))
    ns = (c - 1) * cs + (h - 1) * hs + w + int(rng.integers(0, 16))
    if src and rng.random() < 0.2:       # broadcast reads
        k = int(rng.integers(0, 3))
        hs, cs, ns = [(0, cs, ns), (hs, 0, ns), (hs, cs, 0)][k]
    return (ns, cs, hs, 1)


def _local_strides(rng, q, shape, esize, src: bool):
    n, c, h, w = shape
    if rng.random() < 0.4:
        return None
    rows = -(-(q + c) // NPU)
    hs = w + int(rng.integers(0, 4))
    cs = (h - 1) * hs + w + int(rng.integers(0, 8))
    if rng.random() < 0.3:               # compact layout
        hs, cs = w, h * w
    ns = rows * cs + int(rng.integers(0, 16))
    if src and rng.random() < 0.15:
        hs = 0
    return (ns, cs, hs, 1)


def _system_span(shape, st, esize):
    n, c, h, w = shape
    ns, cs, hs, ws = st
    return esize * ((n - 1) * ns + (c - 1) * cs + (h - 1) * hs + (w - 1) * ws + 1)


class _Local:
    def __init__(self, rng, shape, esize, src, stride_allowed=True, r_floor=0):
        self.q = int(rng.integers(0, NPU))
        self.stride = _local_strides(rng, self.q, shape, esize, src) if stride_allowed else None
        eff = self.stride or aligned_strides(self.q, shape, 128 // esize)
        self.span = local_span(self.q, shape, eff, esize)
        self.r = r_floor + (0 if self.stride is None else esize * int(rng.integers(0, 32)))
        self.addr = self.q * 0x80000 + self.r
        self.npus = npus_touched(self.q, shape[1])


def _random_bytes(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8)


def add_case(b: Builder, rng, bits: int, kind: str, tag: str) -> dict:
    esize = bits // 8
    shape = random_shape(rng)
    name = f"okk_gdma_{bits}bit_cpy_{kind}"
    src_local, dst_local = kind[0] == "L", kind[2] == "L"
    if src_local:
        src = _Local(rng, shape, esize, True)
        src_st, src_addr = src.stride, src.addr
        if src.span > 0x30000:
            return add_case(b, rng, bits, kind, tag)
        b.write_local_span(src.q, src.r, src.span, src.npus,
                           _random_bytes(rng, len(src.npus) * src.span).reshape(len(src.npus), src.span))
    else:
        src_st = _system_strides(rng, shape, True)
        span = _system_span(shape, src_st or continuous_strides(shape), esize)
        src_addr = SRC_BASE + esize * int(rng.integers(0, 64))
        b.write_system(src_addr, _random_bytes(rng, span))
    if dst_local:
        dst = _Local(rng, shape, esize, False, r_floor=0x40000)
        dst_st, dst_addr = dst.stride, dst.addr
        if dst.span > 0x30000:
            return add_case(b, rng, bits, kind, tag)
        b.write_local_span(dst.q, dst.r, dst.span, dst.npus,
                           _random_bytes(rng, len(dst.npus) * dst.span).reshape(len(dst.npus), dst.span))
    else:
        dst_st = _system_strides(rng, shape, False)
        span = _system_span(shape, dst_st or continuous_strides(shape), esize)
        dst_addr = DST_BASE + esize * int(rng.integers(0, 64))
        b.write_system(dst_addr - MARGIN, _random_bytes(rng, span + 2 * MARGIN))
    args = (dst_addr, src_addr, shape, dst_st, src_st)
    b.call(name, *args)
    label = f"{tag} {name}{args}"
    if dst_local:
        b.read_local_span(dst.r, dst.span, dst.npus, f"{label} dst")
    else:
        b.read_system(dst_addr - MARGIN, span + 2 * MARGIN, f"{label} dst NPUs 0..0 x 0 B")
    return {"func": name, "args": args}


def add_set_case(b: Builder, rng, bits: int, where: str, tag: str) -> dict:
    esize = bits // 8
    shape = random_shape(rng)
    name = f"okk_gdma_{bits}bit_set_C_{where}"
    value = int(rng.integers(0, 1 << bits))
    if rng.random() < 0.3:     # fp32 specials through the union's raw bits
        value = int(rng.choice([0x7FC00001, 0xFF800000, 0x80000000, 0x00000001]) & ((1 << bits) - 1))
    if where == "local":
        dst = _Local(rng, shape, esize, False)
        if dst.span > 0x30000:
            return add_set_case(b, rng, bits, where, tag)
        b.write_local_span(dst.q, dst.r, dst.span, dst.npus,
                           _random_bytes(rng, len(dst.npus) * dst.span).reshape(len(dst.npus), dst.span))
        args = (dst.addr, value, shape, dst.stride)
        b.call(name, *args)
        b.read_local_span(dst.r, dst.span, dst.npus, f"{tag} {name}{args} dst")
    else:
        st = _system_strides(rng, shape, False)
        span = _system_span(shape, st or continuous_strides(shape), esize)
        addr = DST_BASE + esize * int(rng.integers(0, 64))
        b.write_system(addr - MARGIN, _random_bytes(rng, span + 2 * MARGIN))
        args = (addr, value, shape, st)
        b.call(name, *args)
        b.read_system(addr - MARGIN, span + 2 * MARGIN, f"{tag} {name}{args} dst NPUs 0..0 x 0 B")
    return {"func": name, "args": args}


def add_matrix_case(b: Builder, rng, kind: str, tag: str, fits: bool = False) -> dict:
    """``fits``: ceil((Q + C)/64) == ceil(C/64), where the C-model's matrix N stride (which ignores
    the start NPU) agrees with the reference's layout."""
    rows = int(rng.integers(1, 40))
    cols = int(rng.integers(1, 300))
    cpc = int(rng.integers(1, min(cols, 128) + 1))
    row_stride = cols + int(rng.integers(0, 8))
    chans = -(-cols // cpc)
    q = int(rng.integers(0, NPU * -(-chans // NPU) - chans + 1)) if fits else int(rng.integers(0, NPU))
    shape = (rows, chans, 1, cpc)
    lspan = local_span(q, shape, aligned_strides(q, shape))
    if lspan > 0x30000:
        return add_matrix_case(b, rng, kind, tag, fits)
    npus = npus_touched(q, shape[1])
    laddr = q * 0x80000 + 0x40000
    sspan = 4 * ((rows - 1) * row_stride + cols)
    name = f"okk_gdma_32bit_matrix_{kind}"
    loc = _random_bytes(rng, len(npus) * lspan).reshape(len(npus), lspan)
    b.write_local_span(q, 0x40000, lspan, npus, loc)
    if kind == "S2L":
        saddr = SRC_BASE + 4 * int(rng.integers(0, 64))
        b.write_system(saddr, _random_bytes(rng, sspan))
        args = (laddr, saddr, rows, cols, cpc, row_stride)
        b.call(name, *args)
        b.read_local_span(0x40000, lspan, npus, f"{tag} {name}{args} dst")
    else:
        saddr = DST_BASE + 4 * int(rng.integers(0, 64))
        b.write_system(saddr - MARGIN, _random_bytes(rng, sspan + 2 * MARGIN))
        args = (saddr, laddr, rows, cols, cpc, row_stride)
        b.call(name, *args)
        b.read_system(saddr - MARGIN, sspan + 2 * MARGIN, f"{tag} {name}{args} dst NPUs 0..0 x 0 B")
    return {"func": name, "args": args}
