"""okk's C route (okk.load_c): per-call overhead of a C kernel's okk_* call over the same Python call, and a
whole contest-size kernel against Sophgo's C-model running the same .c. Skipped without a C compiler; the
C-model row needs ``make oracle``."""
from __future__ import annotations

import os
import sys

import numpy as np

from harness import Case

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
N = 2000


def _device():
    from npusim import okk
    dev = okk.Device(global_mem_bytes=1 << 20)
    with dev:
        okk.okk_bdc_32bit_set_C(0, 0, okk.dim4(1, 64, 1, 3072), None)   # operands (0, 4096, 8192) written once
    return dev


def _calls_cases():
    from npusim import okk
    k = okk.load_c(os.path.join(HERE, "okk_c_calls.c"))
    dev = _device()
    shape, stride = okk.dim4(1, 64, 1, 32), okk.dim4(32, 32, 32, 1)

    def c_route(which):
        def run():
            with dev:
                k.run("calls", dict(n=N, which=which))
        return run

    def python_route(which):
        def run():
            with dev:
                okk.okk_initialize()
                for _ in range(N):
                    if which == 0:
                        okk.okk_bdc_add(0, 4096, 8192, shape, stride, stride, stride)
                    elif which == 1:
                        okk.okk_bdc_add_C(0, 4096, 1.5, shape, None, None)
                    else:
                        okk.okk_npu_num()
                okk.okk_poll()
        return run

    target = "C route <= Python call + 3 us (ratio column: C / Python)"
    return [
        Case(f"okk C route: okk_bdc_add (1,64,1,32), 3 dim4 strides, from C (baseline: the Python call), {N} calls",
             c_route(0), python_route(0), per=N, target=target, repeats=5),
        Case(f"okk C route: okk_bdc_add_C, NULL strides, from C (baseline: the Python call), {N} calls",
             c_route(1), python_route(1), per=N, target=target, repeats=5),
        Case(f"okk C route: okk_npu_num() getter from C (baseline: the Python call), {N} calls",
             c_route(2), python_route(2), per=N, target=target, repeats=5),
    ]


def _kernel_case():
    from npusim import okk
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    from npusim.okk.oracle.fetch import available
    sys.path.insert(0, os.path.join(ROOT, "tests", "okk"))
    from c_drivers import G, run
    path = os.path.join(ROOT, "examples", "okk", "c", "matmul.c")
    M, K, Nc = 256, 768, 3072
    r = np.random.default_rng(0)
    a, b = r.uniform(-1, 1, (M, K)).astype(np.float32), r.uniform(-1, 1, (K, Nc)).astype(np.float32)
    k = okk.load_c(path)
    fields = dict(left_rows=M, left_cols=K, right_cols=Nc)

    def npusim_run():
        run(k, "matmul", fields, dict(left_addr=a, right_addr=b), dict(output_addr=(M, Nc)))

    cmodel = None
    if available():
        al = -(-a.nbytes // 4096) * 4096
        param = bytes(pack(k.param_type(), dict(fields, left_addr=G, right_addr=G + al, output_addr=G + 2 * al + b.nbytes)))

        def cmodel():
            run_on_cmodel(path, "matmul", param, [(G, a.tobytes()), (G + al, b.tobytes())])
    return [Case(f"okk C route: examples/okk/c/matmul.c {M}x{K}x{Nc} whole kernel (baseline: the same .c on "
                 "Sophgo's C-model, worker process incl. ~0.3 s start)", npusim_run, cmodel,
                 target=">= 5x faster than the C-model", repeats=1, warmup=1)]


# The contest's top solutions (tests/okk/c/public/perfect_*/), one entrant's kernels on the heaviest contest
# case of each kind run by the tests: kernel call only, process time (okk_contest_profile.py measures all 60).
CONTEST = [("conv2d", 9), ("conv2d", 6), ("depthwise", 4), ("matmul", 10), ("softmax", 2)]
ENTRANT = "perfect_1889931"


def _contest_cases():
    from npusim import okk
    from npusim.okk.oracle.fetch import available
    import okk_contest_profile as prof
    out = []
    for kind, case in CONTEST:
        entry, fields, inputs, outputs, _, _ = prof.contest_case(kind, case, np.random.default_rng(case))
        fields, writes, reads = prof._layout(inputs, outputs, fields)
        path = os.path.join(prof.PUBLIC, ENTRANT, f"ok_device_{kind}_contest.c")
        kernel = okk.load_c(path)
        ours = prof.npusim_seconds(kernel, entry, fields, writes, 3)
        label = f"okk C route: top solution {ENTRANT} {kind} case {case}, kernel call, process time {ours * 1e3:.1f} ms"
        if available():
            theirs = prof.cmodel_seconds(path, entry, kernel, fields, writes, reads, 1)
            label += f"; the same .c on Sophgo's C-model {theirs * 1e3:.1f} ms: {theirs / ours:.1f}x faster"
        dev = okk.Device(global_mem_bytes=1 << 28)
        with dev:
            for addr, raw in writes:
                dev.write_system(addr, raw)

        def one(kernel=kernel, entry=entry, fields=fields, dev=dev):
            with dev:
                kernel.run(entry, fields)
        out.append(Case(label + " (simulator column: wall time of the kernel call)", one,
                        target=">= 5x faster than the C-model", repeats=3, warmup=1))
    return out


def cases():
    from npusim.okk.c import CompileError, find_compiler
    try:
        find_compiler()
    except CompileError:
        return []
    return _calls_cases() + _kernel_case() + _contest_cases()
