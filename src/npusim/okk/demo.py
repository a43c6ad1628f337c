"""``npusim demo`` for okk: a tiled ping-pong sigmoid checked against numpy, documented C-model edge values,
and a race that Sophgo's eager C-model cannot see."""
from __future__ import annotations

import math

import numpy as np

from ..core.errors import RaceError
from ..demo import Check
from . import helpers as h
from .bdc_fp32_unary import okk_bdc_exp, okk_bdc_sigmoid
from .device import Device
from .gdma import okk_gdma_32bit_cpy_L2S, okk_gdma_32bit_cpy_S2L
from .types import dim4

G = h.okk_global_mem_start_addr()


def _pingpong_sigmoid(x: np.ndarray, tile_w: int) -> tuple[np.ndarray, Device]:
    dev = Device(global_mem_bytes=1 << 26)
    row = 64 * tile_w
    buf = tile_w * 4
    xin, yout, work = (0, buf), (2 * buf, 3 * buf), 4 * buf
    n = x.size // row
    sh = dim4(1, 64, 1, tile_w)
    with dev:
        dev.write_system(G, x)
        out = G + x.nbytes
        h.okk_initialize()
        for i in range(n + 2):
            h.okk_parallel_start()
            if i < n:
                okk_gdma_32bit_cpy_S2L(xin[i % 2], G + 4 * i * row, sh, None, None)
            if 1 <= i <= n:
                okk_bdc_sigmoid(yout[(i - 1) % 2], xin[(i - 1) % 2], work, sh)
            if i >= 2:
                okk_gdma_32bit_cpy_L2S(out + 4 * (i - 2) * row, yout[i % 2], sh, None, None)
            h.okk_parallel_end()
        h.okk_poll()
        return dev.read_system(out, x.shape), dev


def run() -> list[Check]:
    checks = []
    x = np.random.default_rng(0).uniform(-10, 10, 8 * 64 * 2048).astype(np.float32)
    y, dev = _pingpong_sigmoid(x, 2048)
    err = float(np.max(np.abs(y - 1 / (1 + np.exp(-x.astype(np.float64))))))
    checks.append(Check("okk", "okk_bdc_sigmoid, 8 tiles ping-pong (GDMA || BDC)", err < 1e-6,
                        f"max |err| vs numpy {err:.1e}; {dev.total_cycles:,} cycles "
                        f"({dev.total_ns / 1e3:,.0f} us modelled), {len(dev.events)} instructions"))

    edge = np.array([-86.29, 88.9, 130.0, 0.0], np.float32).reshape(1, 1, 1, 4)
    with Device(global_mem_bytes=1 << 20) as d:
        d.write_system(G, edge)
        okk_gdma_32bit_cpy_S2L(0, G, dim4(1, 1, 1, 4), None, None)
        okk_bdc_exp(128, 0, 256, dim4(1, 1, 1, 4))
        okk_gdma_32bit_cpy_L2S(G + 64, 128, dim4(1, 1, 1, 4), None, None)
        e = d.read_system(G + 64, 4)
    ok = e[0] == np.float32(math.exp(-86)) and e[1] == np.inf and np.isnan(e[2]) and e[3] == 1.0
    checks.append(Check("okk", "okk_bdc_exp at the C-model's documented edges", bool(ok),
                        f"exp(-86.29)={e[0]:.4g} (=e^-86: e*s flushed), exp(88.9)={e[1]}, "
                        f"exp(130)={e[2]} (int8 wrap), exp(0)={e[3]}"))

    with Device(global_mem_bytes=1 << 20):
        h.okk_initialize()
        h.okk_parallel_start()
        okk_gdma_32bit_cpy_S2L(0, G, dim4(1, 64, 1, 32), None, None)
        try:
            okk_bdc_exp(4096, 0, 8192, dim4(1, 64, 1, 32))
            caught = "no race reported"
        except RaceError as exc:
            caught = str(exc).split(":")[0]
    checks.append(Check("okk", "race: BDC reads what GDMA writes in one parallel region",
                        caught.startswith("race"), caught))
    from .demo_c import run as c_checks      # the C twins in examples/okk/c (when a C compiler exists)
    return checks + c_checks()
