"""The contest's top solutions (tests/okk/c/public/perfect_*/) on the contest cases of tests/okk/c_drivers.py:
npusim's kernel call (``k.run`` on a fresh device with the inputs uploaded; warm: compiled, imported, run once
before; best of --repeats by ``time.process_time``) and, when Sophgo's libraries are present, the C-model's
kernel call on the same .c and bytes (process time inside its worker, best of --cmodel-repeats) and the
ratio. Process times, not wall: the machine is shared.

    PYTHONPATH=src python benchmarks/okk_contest_profile.py [--kinds matmul,conv2d] [--who 1889931]
        [--repeats 3] [--cmodel-repeats 1] [--no-cmodel]

A script, not a test: it prints a markdown table (docs/okk.md, Performance of the C route)."""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "okk"))

from c_drivers import (ALIGN, CONV2D_CASES, DEPTHWISE_CASES, G, MATMUL_CASES, SOFTMAX_CASES,  # noqa: E402
                       contest_case)

from npusim import okk  # noqa: E402

PUBLIC = os.path.join(ROOT, "tests", "okk", "c", "public")
CASES = {"softmax": SOFTMAX_CASES, "matmul": MATMUL_CASES, "depthwise": DEPTHWISE_CASES, "conv2d": CONV2D_CASES}


def _layout(inputs: dict, outputs: dict, fields: dict):
    """c_drivers.run's address plan: (param fields, [(addr, bytes)] uploads, [(addr, nbytes)] downloads)."""
    fields, addr, writes, reads = dict(fields), G, [], []
    for name, arr in inputs.items():
        raw = np.ascontiguousarray(arr, np.float32)
        writes.append((addr, raw))
        fields[name] = addr
        addr += -(-raw.nbytes // ALIGN) * ALIGN
    for name, shape in outputs.items():
        n = int(np.prod(shape)) * 4
        fields[name] = addr
        reads.append((addr, n))
        addr += -(-n // ALIGN) * ALIGN
    return fields, writes, reads


def npusim_seconds(kernel, entry, fields, writes, repeats: int) -> float:
    """Best process time of ``kernel.run`` on a fresh device with the inputs uploaded (one warm-up)."""
    best = float("inf")
    for i in range(repeats + 1):
        dev = okk.Device(global_mem_bytes=1 << 28)
        with dev:
            for addr, raw in writes:
                dev.write_system(addr, raw)
            t = time.process_time()
            kernel.run(entry, fields)
            dt = time.process_time() - t
        if i:
            best = min(best, dt)
    return best


def cmodel_seconds(path, entry, kernel, fields, writes, reads, repeats: int) -> float:
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    param = bytes(pack(kernel.param_type(), fields))
    raw = [(a, r.tobytes()) for a, r in writes]
    return min(run_on_cmodel(path, entry, param, raw, reads).cpu_seconds for _ in range(repeats))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="softmax,matmul,depthwise,conv2d")
    ap.add_argument("--who", default="", help="comma-separated entrant ids (default: all perfect_*)")
    ap.add_argument("--cases", default="", help="comma-separated case numbers (default: all of c_drivers)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cmodel-repeats", type=int, default=1)
    ap.add_argument("--no-cmodel", action="store_true")
    a = ap.parse_args(argv)
    from npusim.okk.oracle.fetch import available
    with_cmodel = not a.no_cmodel and available()
    who = sorted(d for d in os.listdir(PUBLIC) if d.startswith("perfect_"))
    if a.who:
        who = [w for w in who if w.split("_")[1] in a.who.split(",")]
    print("| entrant | kernel | case | npusim s | " + ("C-model s | speed-up |" if with_cmodel else ""))
    print("|---|---|---|---|" + ("---|---|" if with_cmodel else ""))
    for kind in a.kinds.split(","):
        for case in CASES[kind]:
            if a.cases and str(case) not in a.cases.split(","):
                continue
            entry, fields, inputs, outputs, _, _ = contest_case(kind, case, np.random.default_rng(case))
            fields, writes, reads = _layout(inputs, outputs, fields)
            for w in who:
                path = os.path.join(PUBLIC, w, f"ok_device_{kind}_contest.c")
                kernel = okk.load_c(path)
                ours = npusim_seconds(kernel, entry, fields, writes, a.repeats)
                row = f"| {w.split('_')[1]} | {kind} | {case} | {ours:.3f} |"
                if with_cmodel:
                    theirs = cmodel_seconds(path, entry, kernel, fields, writes, reads, a.cmodel_repeats)
                    row += f" {theirs:.3f} | {theirs / ours:.2f}x |"
                print(row, flush=True)


if __name__ == "__main__":
    main()
