"""``npusim demo`` for okk's C route: the C twins in examples/okk/c run unchanged through okk.load_c and
are checked against numpy. Left out (no check at all) when there is no C compiler or no examples folder
(an installed package without the repository)."""
from __future__ import annotations

import os

import numpy as np

from ..demo import Check
from . import spec
from .device import Device

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "okk", "c")
G = spec.GLOBAL_MEM_START


def _run(path, entry, fields, inputs, outputs):
    from .c import load_c
    dev = Device(global_mem_bytes=1 << 26)
    addr = G
    with dev:
        for name, arr in inputs.items():
            dev.write_system(addr, arr)
            fields[name] = addr
            addr += -(-arr.nbytes // 4096) * 4096
        for name, shape in outputs.items():
            fields[name] = addr
            addr += -(-int(np.prod(shape)) * 4 // 4096) * 4096
        r = load_c(os.path.join(EXAMPLES, path)).run(entry, fields)
        got = {n: dev.read_system(fields[n], s) for n, s in outputs.items()}
    return got, r, dev


def run() -> list[Check]:
    from .c import CompileError, find_compiler
    try:
        find_compiler()
    except CompileError:
        return []
    if not os.path.isdir(EXAMPLES):
        return []
    checks = []
    rng = np.random.default_rng(0)
    x = rng.uniform(-10, 10, 8 * 64 * 2048).astype(np.float32)
    got, r, dev = _run("activation_tiled.c", "activation_pingpong", dict(total=x.size, tile_w=2048, use_tanh=0),
                       dict(input_addr=x), dict(output_addr=x.shape))
    err = float(np.max(np.abs(got["output_addr"] - 1 / (1 + np.exp(-x.astype(np.float64))))))
    src = dev.events[1].source
    checks.append(Check("okk", "C: activation_tiled.c ping-pong sigmoid (okk.load_c)", err < 1e-6,
                        f"max |err| {err:.1e}; {r.cycles:,} cycles, {r.ncalls} okk calls; events name {src}"))
    x = rng.uniform(-5, 5, (1, 370, 13, 13)).astype(np.float32)
    got, r, _ = _run("softmax.c", "softmax", dict(N=1, C=370, H=13, W=13), dict(input_addr=x),
                     dict(output_addr=x.shape))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    worst = float(np.max(np.abs(got["output_addr"] - ref) / np.maximum(np.abs(ref), 1)))
    checks.append(Check("okk", "C: softmax.c over C of (1, 370, 13, 13)", worst < 1e-3,
                        f"worst rel err {worst:.1e} (contest 1e-3); {r.cycles:,} cycles"))
    a, b = rng.uniform(-1, 1, (100, 200)).astype(np.float32), rng.uniform(-1, 1, (200, 150)).astype(np.float32)
    got, r, _ = _run("matmul.c", "matmul", dict(left_rows=100, left_cols=200, right_cols=150),
                     dict(left_addr=a, right_addr=b), dict(output_addr=(100, 150)))
    ref = a.astype(np.float64) @ b
    worst = float(np.max(np.abs(got["output_addr"] - ref) / np.maximum(np.abs(ref), 1)))
    checks.append(Check("okk", "C: matmul.c 100x200x150", worst < 1e-4,
                        f"worst rel err {worst:.1e} (contest 1e-4); {r.cycles:,} cycles"))
    return checks
