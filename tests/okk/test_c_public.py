"""Public OKKernel kernels written outside npusim (tests/okk/c/public/, verbatim with their repository, path
and commit), run unchanged through okk.load_c and checked against float64 numpy with the contest's
tolerances. Sophgo's demos (matmul, conv2d, depthwise, avg/max pool, plus_one) and a contest entrant's
softmax / matmul / conv2d / depthwise (github.com/yangcedrus/tpucontest)."""
import os
import re

import numpy as np
import pytest

from npusim import okk
from npusim.okk.c import CompileError, find_compiler

from c_drivers import (HERE, avg_pool_ref, close, conv2d_ref, depthwise_ref, max_pool_ref, out_hw, run,
                       softmax_ref, weights_2ic)

try:
    find_compiler()
except CompileError as e:          # pragma: no cover - depends on the machine
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)

PUBLIC = os.path.join(HERE, "public")
rng = np.random.default_rng(2026)


def _load(name):
    return okk.load_c(os.path.join(PUBLIC, name))


def U(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def test_every_public_kernel_names_its_origin():
    files = [os.path.join(d, f) for d, _, fs in os.walk(PUBLIC) for f in fs]
    assert len(files) == 30
    for path in files:
        with open(path) as fh:
            head = fh.read(400)
        assert "repository: github.com/" in head and "  commit: " in head
        assert re.search(r"path: \S*/" + re.escape(os.path.basename(path)) + r"\s", head)


@pytest.mark.parametrize("file,entry,M,K,N", [
    ("ok_device_matmul_demo.c", "matmul_demo", 100, 200, 150),          # the contest's demo case
    ("ok_device_matmul_contest.c", "matmul_contest", 100, 200, 150),
    ("ok_device_matmul_contest.c", "matmul_contest", 32, 2048, 36),     # contest case 4
])
def test_matmul(file, entry, M, K, N):
    a, b = U(M, K), U(K, N)
    got, r, _ = run(_load(file), entry, dict(left_rows=M, left_cols=K, right_cols=N),
                    dict(left_addr=a, right_addr=b), dict(output_addr=(M, N)))
    assert close(got["output_addr"], a.astype(np.float64) @ b, 1e-4)
    assert r.cycles > 0 and len(r.sections) == 1


CONV_DEMO = dict(N=4, IC=3, OC=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1,
                 pad_right=1, stride_h=2, stride_w=2, dilation_h=2, dilation_w=2)


def _conv_args(p):
    return (p["pad_top"], p["pad_bottom"], p["pad_left"], p["pad_right"]), (p["stride_h"], p["stride_w"]), \
        (p["dilation_h"], p["dilation_w"])


@pytest.mark.parametrize("file,entry,p", [
    ("ok_device_conv2d_demo.c", "conv2d_demo", CONV_DEMO),
    ("ok_device_conv2d_contest.c", "conv2d_contest", CONV_DEMO),
    ("ok_device_conv2d_contest.c", "conv2d_contest", dict(CONV_DEMO, IC=5, OC=70, H=20, W=18, stride_h=1,
                                                          stride_w=1, dilation_h=1, dilation_w=1)),
])
def test_conv2d(file, entry, p):
    x, w = U(p["N"], p["IC"], p["H"], p["W"]), U(p["OC"], p["IC"], p["kernel_h"], p["kernel_w"])
    pads, st, dl = _conv_args(p)
    oh, ow = out_hw(p["H"], p["W"], p["kernel_h"], p["kernel_w"], pads, st, dl)
    got, r, _ = run(_load(file), entry, p, dict(input_addr=x, kernel_addr=weights_2ic(w)),
                    dict(output_addr=(p["N"], p["OC"], oh, ow)))
    assert close(got["output_addr"], conv2d_ref(x, w, pads, st, dl), 1e-4)


DW_DEMO = dict(N=4, C=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
               stride_h=2, stride_w=2, dilation_h=2, dilation_w=2)


@pytest.mark.parametrize("file,entry,p", [
    ("ok_device_depthwise_demo.c", "depthwise_demo", DW_DEMO),
    ("ok_device_depthwise_contest.c", "depthwise_contest", DW_DEMO),
    ("ok_device_depthwise_contest.c", "depthwise_contest",       # contest case 7
     dict(DW_DEMO, C=512, H=14, W=14, pad_top=0, pad_left=0, dilation_h=1, dilation_w=1)),
])
def test_depthwise(file, entry, p):
    x, w = U(p["N"], p["C"], p["H"], p["W"]), U(p["C"], p["kernel_h"], p["kernel_w"])
    pads, st, dl = _conv_args(p)
    oh, ow = out_hw(p["H"], p["W"], p["kernel_h"], p["kernel_w"], pads, st, dl)
    got, _, _ = run(_load(file), entry, p, dict(input_addr=x, kernel_addr=w), dict(output_addr=(p["N"], p["C"], oh, ow)))
    assert close(got["output_addr"], depthwise_ref(x, w, pads, st, dl), 1e-4)


@pytest.mark.parametrize("shape", [(1, 1000, 1, 1), (1, 370, 13, 13)])     # contest cases 1 and 0
def test_softmax_contest_entry(shape):
    x = U(*shape, lo=-5, hi=5)
    N, C, H, W = shape
    got, _, _ = run(_load("ok_device_softmax_contest.c"), "softmax_contest", dict(N=N, C=C, H=H, W=W),
                    dict(input_addr=x), dict(output_addr=shape))
    assert close(got["output_addr"], softmax_ref(x), 1e-3)


POOL = dict(N=4, C=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
            stride_h=2, stride_w=2, ceil_mode=0)


def test_avg_and_max_pool_demos():
    x = U(4, 64, 16, 16, lo=0)
    pads, st = (1, 1, 1, 1), (2, 2)
    got, _, _ = run(_load("ok_device_avg_pool.c"), "avg_pool_0", dict(POOL, count_include_pad=1),
                    dict(input_addr=x), dict(output_addr=(4, 64, 8, 8)))
    assert close(got["output_addr"], avg_pool_ref(x, 3, 3, pads, st), 1e-4)
    got, _, _ = run(_load("ok_device_max_pool.c"), "max_pool_0", POOL, dict(input_addr=x),
                    dict(output_addr=(4, 64, 8, 8), index_addr=(4, 64, 8, 8)))
    assert np.array_equal(got["output_addr"], max_pool_ref(x, 3, 3, pads, st).astype(np.float32))


@pytest.mark.parametrize("entry", ["plus_one_0", "plus_one_1", "plus_one_2", "plus_one_3"])
def test_plus_one_guide_kernels(entry):
    x = U(4, 64, 8, 32)
    got, r, _ = run(_load("ok_device_plus_one.c"), entry, dict(N=4, C=64, H=8, W=32), dict(input_addr=x),
                    dict(output_addr=x.shape))
    assert np.array_equal(got["output_addr"], x + np.float32(1))


def test_plus_one_3_tail_bug_is_reproduced():
    """Sophgo's plus_one_3 offsets its tail by (len - L) elements instead of L: with a tail, the last
    len - L outputs are never written (npusim sees it; the init map says so), and the recursion is three
    okk_initialize..okk_poll sections."""
    shape = (4, 70, 5, 9)
    x = U(*shape)
    got, r, dev = run(_load("ok_device_plus_one.c"), "plus_one_3", dict(N=4, C=70, H=5, W=9),
                      dict(input_addr=x), dict(output_addr=shape))
    n = x.size
    L = n // 64 // 32 * 64 * 32
    y = got["output_addr"].ravel()
    assert np.array_equal(y[:L], x.ravel()[:L] + np.float32(1))
    out = dev.system.init[-(-x.nbytes // 4096) * 4096:][:x.nbytes]
    assert out[:4 * L].all() and not out[4 * L:].any()
    assert len(r.sections) == 3 and r.cycles == sum(r.sections)


PERFECT = sorted(d for d in os.listdir(PUBLIC) if d.startswith("perfect_"))
PERFECT_CASES = [("softmax", 0), ("softmax", 1), ("softmax", 4), ("matmul", 1), ("matmul", 4),
                 ("depthwise", 5), ("depthwise", 7), ("conv2d", 6), ("conv2d", 9)]


@pytest.mark.parametrize("who", PERFECT)
@pytest.mark.parametrize("kind,case", PERFECT_CASES)
def test_contest_top_solutions(who, kind, case):
    """The contest's published top solutions (five entrants), unchanged, on contest-1 cases. conv2d case 9
    (kernel 7x1) is where kernel_w == 1 meets kernel_stride (docs/okk.md, C-model alignment)."""
    from c_drivers import contest_case
    entry, fields, inputs, outputs, ref, tol = contest_case(kind, case, np.random.default_rng(case))
    got, r, _ = run(_load(os.path.join(who, f"ok_device_{kind}_contest.c")), entry, fields, inputs, outputs)
    assert close(got["output_addr"], ref(), tol)
    assert r.cycles > 0
