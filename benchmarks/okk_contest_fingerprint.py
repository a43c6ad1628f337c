"""Fingerprint every top-solution case of the contest (tests/okk/c/public/perfect_*/, the cases of
tests/okk/c_drivers.py), to check that a speed-up of the simulator changed nothing observable.

    PYTHONPATH=src python benchmarks/okk_contest_fingerprint.py /tmp/before.txt   (before the change)
    PYTHONPATH=src python benchmarks/okk_contest_fingerprint.py /tmp/after.txt    (after)
    diff /tmp/before.txt /tmp/after.txt

One line per (entrant, kernel, case): the number of events and warnings, and a digest of the outputs'
bytes, Sophgo cycles and sections, every trace event (core, engine, name, start/end ns, cycles, bytes,
elements, source line, args), the warnings issued (category and text), and the bytes and init maps of
the whole local memory and of the first 64 MiB of DDR after the run. Needs a C compiler."""
from __future__ import annotations

import hashlib
import os
import sys
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "okk"))

from c_drivers import CONV2D_CASES, DEPTHWISE_CASES, MATMUL_CASES, SOFTMAX_CASES, contest_case, run  # noqa: E402

from npusim import okk  # noqa: E402

PUBLIC = os.path.join(ROOT, "tests", "okk", "c", "public")
CASES = {"softmax": SOFTMAX_CASES, "matmul": MATMUL_CASES, "depthwise": DEPTHWISE_CASES, "conv2d": CONV2D_CASES}


def fingerprint(who: str, kind: str, case: int) -> str:
    kernel = okk.load_c(os.path.join(PUBLIC, who, f"ok_device_{kind}_contest.c"))
    entry, fields, inputs, outputs, _, _ = contest_case(kind, case, np.random.default_rng(case))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, r, dev = run(kernel, entry, fields, inputs, outputs)
    h = hashlib.sha256()
    for name in sorted(got):
        h.update(np.ascontiguousarray(got[name]).tobytes())
    h.update(repr((r.cycles, r.sections)).encode())
    for e in dev.events:
        h.update(repr((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, e.source,
                       sorted((e.args or {}).items()))).encode())
    h.update(repr([(w.category.__name__, str(w.message)) for w in caught]).encode())
    ddr = min(dev.system.size, 1 << 26)
    for arr in (dev.local.data, dev.local.init, dev.system.data[:ddr], dev.system.init[:ddr]):
        h.update(hashlib.sha256(arr.tobytes()).digest())
    return f"{who} {kind} {case} events={len(dev.events)} warnings={len(caught)} {h.hexdigest()[:24]}"


def main(path: str) -> None:
    who_all = sorted(d for d in os.listdir(PUBLIC) if d.startswith("perfect_"))
    with open(path, "w") as f:
        for kind, cases in CASES.items():
            for case in cases:
                for who in who_all:
                    line = fingerprint(who, kind, case)
                    print(line, flush=True)
                    f.write(line + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/dev/null")
