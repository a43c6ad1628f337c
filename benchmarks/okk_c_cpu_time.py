"""The okk C route's per-call cost in CPU time (``time.process_time``, best of R), which a loaded shared
machine disturbs far less than the wall time bench_okk_c.py reports.

    PYTHONPATH=src python benchmarks/okk_c_cpu_time.py          # C route vs the Python call
    PYTHONPATH=src python benchmarks/okk_c_cpu_time.py --bridge # the bridge alone (okk functions as no-ops)

The same three cases as bench_okk_c.py (benchmarks/okk_c_calls.c): okk_bdc_add (1,64,1,32) with 3 dim4
strides, okk_bdc_add_C with NULL strides, the okk_npu_num() getter. Alternates C and Python runs.
"""
from __future__ import annotations

import argparse
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [(0, "okk_bdc_add, 3 strides"), (1, "okk_bdc_add_C, NULL strides"), (2, "okk_npu_num() getter")]


def best(fn, repeats: int) -> float:
    fn()
    out = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bridge", action="store_true", help="replace every okk function by a no-op first")
    p.add_argument("-n", type=int, default=2000, help="calls per run")
    p.add_argument("-r", type=int, default=7, help="runs (the best counts)")
    a = p.parse_args()
    from npusim import okk
    from npusim.okk.c import bridge
    if a.bridge:          # before the first load_c builds the callback table
        real = bridge.python_function
        bridge.python_function = lambda name: real(name) if name in (
            "okk_initialize", "okk_poll", "okk_npu_num") else (lambda *args: None)
    k = okk.load_c(os.path.join(HERE, "okk_c_calls.c"))
    dev = okk.Device(global_mem_bytes=1 << 20)
    with dev:
        okk.okk_bdc_32bit_set_C(0, 0, okk.dim4(1, 64, 1, 3072), None)   # operands (0, 4096, 8192) written once
    shape, stride = okk.dim4(1, 64, 1, 32), okk.dim4(32, 32, 32, 1)

    def c_route(which):
        with dev:
            k.run("calls", dict(n=a.n, which=which))

    def python_route(which):
        with dev:
            okk.okk_initialize()
            for _ in range(a.n):
                if which == 0:
                    okk.okk_bdc_add(0, 4096, 8192, shape, stride, stride, stride)
                elif which == 1:
                    okk.okk_bdc_add_C(0, 4096, 1.5, shape, None, None)
                else:
                    okk.okk_npu_num()
            okk.okk_poll()

    for which, name in CASES:
        c = best(lambda: c_route(which), a.r) / a.n * 1e6
        if a.bridge and which != 2:
            print(f"{name:28s} bridge alone {c:6.2f} us per call")
            continue
        py = best(lambda: python_route(which), a.r) / a.n * 1e6
        print(f"{name:28s} C {c:6.2f} us  Python {py:6.2f} us  C - Python {c - py:+.2f} us")
    print("load average %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
