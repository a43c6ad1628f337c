"""Building blocks of differential programs: random fp32 values with edge cases, local layouts.

Local tensors follow reference §2.2: element (n, c, h, w) of a tensor at ``Q*0x80000 + R`` lives on
NPU ``(Q + c) % 64`` at byte ``R + 4*(n*Ns + ((Q + c)//64)*Cs + h*Hs + w*Ws)``.  Programs set up and
read back whole per-NPU byte spans (``[R, R + footprint)`` on every NPU the tensor touches), so
anything a call writes outside the tensor's elements, or into padding, shows up as a difference too.
"""

from __future__ import annotations

import numpy as np

NPU = 64
G = 0x1_0000_0000

# fp32 bit patterns every value mix includes (reference §4 edge rows and IEEE specials)
EDGE_BITS = np.array([
    0x00000000, 0x80000000,                  # +0, -0
    0x00000001, 0x80000001,                  # smallest subnormals
    0x007FFFFF, 0x807FFFFF,                  # largest subnormals
    0x00800000, 0x80800000,                  # FLT_MIN
    0x7F7FFFFF, 0xFF7FFFFF,                  # FLT_MAX
    0x7F800000, 0xFF800000,                  # inf
    0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FA00000,   # NaNs (quiet, negative, signalling)
    0x3F800000, 0xBF800000, 0x3F000000,      # 1, -1, 0.5
], dtype=np.uint32)
EDGE_VALUES = np.array([-103.0, 88.0, -103.5, 88.7, 88.9, 89.5, -104.5, -86.29, -87.5, 127.0, 128.0,
                        130.0, 200.0, 255.0, 256.0, -128.0, -129.0, 1.6458e-38, 3e9, -3e9,
                        2147483648.0, -2147483648.0], dtype=np.float32)


def fp32_mix(rng: np.random.Generator, size: int, lo: float, hi: float, log: bool = False) -> np.ndarray:
    """fp32 values: 70 % in the function's documented domain, 15 % edge values, 15 % random bits."""
    if log:
        mag = np.exp(rng.uniform(np.log(lo), np.log(hi), size))
        v = (mag * rng.choice([-1.0, 1.0], size)).astype(np.float32)
    else:
        v = rng.uniform(lo, hi, size).astype(np.float32)
    pick = rng.random(size)
    edges = np.concatenate([EDGE_BITS, EDGE_VALUES.view(np.uint32)])
    bits = v.view(np.uint32)
    e = pick < 0.15
    bits[e] = rng.choice(edges, int(e.sum()))
    r = pick > 0.85
    bits[r] = rng.integers(0, 1 << 32, int(r.sum()), dtype=np.uint64).astype(np.uint32)
    return bits.view(np.float32)


def aligned_strides(q: int, shape, align_elems: int = 32) -> tuple[int, int, int, int]:
    n, c, h, w = shape
    cs = -(-(h * w) // align_elems) * align_elems
    return (-(-(q + c) // NPU) * cs, cs, w, 1)


def continuous_strides(shape) -> tuple[int, int, int, int]:
    n, c, h, w = shape
    return (c * h * w, h * w, w, 1)


def local_span(q: int, shape, strides, esize: int = 4) -> int:
    """Bytes from a tensor's offset R to one past its last element, on the fullest NPU."""
    n, c, h, w = shape
    rows = -(-(q + c) // NPU)
    ns, cs, hs, ws = strides
    last = (n - 1) * ns + (rows - 1) * cs + (h - 1) * hs + (w - 1) * ws
    return esize * (last + 1)


def npus_touched(q: int, c: int) -> list[int]:
    return list(range(NPU)) if q + c >= NPU else list(range(q, q + c))


class Builder:
    """Accumulates program steps plus the labels of its reads."""

    def __init__(self):
        self.steps: list[tuple] = []
        self.labels: list[str] = []

    def call(self, name: str, *args) -> None:
        self.steps.append(("call", name, tuple(args)))

    def write_local_span(self, q: int, r: int, span: int, npus, data: np.ndarray) -> None:
        """``data``: (len(npus), span) bytes, written at offset r of each NPU."""
        self.steps.append(("wls", r, tuple(npus), np.ascontiguousarray(data).tobytes()))

    def read_local_span(self, r: int, span: int, npus, label: str) -> None:
        """One read of the span on every NPU in ``npus`` (returned back to back, NPU by NPU)."""
        self.steps.append(("rls", r, tuple(npus), span))
        self.labels.append(f"{label} NPUs {npus[0]}..{npus[-1]} x {span} B")

    def write_system(self, addr: int, data) -> None:
        self.steps.append(("ws", addr, np.ascontiguousarray(data).tobytes()))

    def read_system(self, addr: int, nbytes: int, label: str) -> None:
        self.steps.append(("rs", addr, nbytes))
        self.labels.append(label)
