"""examples/okk/c/: the C twins of the bundled Python examples give the same bytes, the same events and the
same Sophgo cycles as the Python kernels (same addresses), and pass the contest tolerance."""
import os
import sys

import numpy as np
import pytest

from npusim import okk
from npusim.okk.c import CompileError, find_compiler

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "okk")
sys.path.insert(0, ROOT)

import activation_tiled  # noqa: E402
import matmul as matmul_py  # noqa: E402
import softmax as softmax_py  # noqa: E402
from contest import Host, contest_ok  # noqa: E402

try:
    find_compiler()
except CompileError as e:          # pragma: no cover
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)

C_DIR = os.path.join(ROOT, "c")


def _twins(c_file, entry, fields, inputs, out_shape, python_kernel):
    """Run the C kernel and the Python kernel on two devices with the same host layout."""
    results = []
    for route in ("c", "python"):
        host = Host(sum(a.nbytes for a in inputs) + 4 * int(np.prod(out_shape)))
        with host.dev:
            addrs = [host.upload(a) for a in inputs]
            out = host.malloc(4 * int(np.prod(out_shape)))
            if route == "c":
                r = okk.load_c(os.path.join(C_DIR, c_file)).run(entry, fields(out, *addrs))
            else:
                python_kernel(out, *addrs)
                r = None
            results.append((host.download(out, out_shape), host.dev, r))
    (yc, dc, r), (yp, dp, _) = results
    assert yc.tobytes() == yp.tobytes()
    assert r.cycles == dp.total_cycles
    assert [(e.name, e.engine, e.start_ns, e.cycles) for e in dc.events] == \
           [(e.name, e.engine, e.start_ns, e.cycles) for e in dp.events]
    assert all(e.source.startswith(c_file + ":") for e in dc.events)
    return yc, r


@pytest.mark.parametrize("shape", [(1, 370, 13, 13), (1, 1000, 1, 1), (6132, 21, 1, 1), (3, 5, 7, 11)])
def test_softmax_twin(shape):
    x = np.random.default_rng(1).uniform(-5, 5, shape).astype(np.float32)
    N, C, H, W = shape
    y, _ = _twins("softmax.c", "softmax",
                  lambda out, src: dict(N=N, C=C, H=H, W=W, output_addr=out, input_addr=src), [x], shape,
                  lambda out, src: softmax_py.softmax(out, src, shape))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    assert contest_ok(y, e / e.sum(axis=1, keepdims=True), 1e-3)[0]


@pytest.mark.parametrize("M,K,N", [(100, 200, 150), (2, 1280, 1000), (70, 20000, 9)])
def test_matmul_twin(M, K, N):
    r = np.random.default_rng(2)
    a, b = r.uniform(-1, 1, (M, K)).astype(np.float32), r.uniform(-1, 1, (K, N)).astype(np.float32)
    y, res = _twins("matmul.c", "matmul",
                    lambda out, la, rb: dict(left_rows=M, left_cols=K, right_cols=N, output_addr=out,
                                             left_addr=la, right_addr=rb), [a, b], (M, N),
                    lambda out, la, rb: matmul_py.matmul(out, la, rb, M, K, N))
    assert contest_ok(y, a.astype(np.float64) @ b, 1e-4)[0]
    assert res.cycles == matmul_py.estimate(M, K, N)


@pytest.mark.parametrize("op,entry,total", [("sigmoid", "activation_pingpong", 64 * 1024 * 3 + 64 * 5 + 7),
                                             ("tanh", "activation_simple", 64 * 1024 * 2 + 33),
                                             ("sigmoid", "activation_simple", 50)])
def test_activation_twin(op, entry, total):
    x = np.random.default_rng(3).uniform(-8, 8, total).astype(np.float32)
    kernel = activation_tiled.kernel_pingpong if entry.endswith("pingpong") else activation_tiled.kernel_simple
    y, r = _twins("activation_tiled.c", entry,
                  lambda out, src: dict(output_addr=out, input_addr=src, total=total, tile_w=1024,
                                        use_tanh=int(op == "tanh")), [x], (total,),
                  lambda out, src: kernel(op, out, src, total, 1024))
    assert np.abs(y - activation_tiled.REFERENCE[op](x.astype(np.float64))).max() < activation_tiled.TOLERANCE[op]


import spatial  # noqa: E402
from spatial import Window  # noqa: E402


@pytest.mark.parametrize("kind,shape,win,oc", [
    ("conv2d", (2, 5, 20, 18), Window(3, 3, (1, 1, 1, 1), (1, 1)), 70),
    ("conv2d", (4, 3, 16, 16), Window(3, 3, (1, 1, 1, 1), (2, 2), (2, 2)), 64),
    ("depthwise2d", (4, 144, 75, 75), Window(3, 3, (1, 1, 1, 1)), None),
    ("depthwise2d", (4, 512, 14, 14), Window(3, 3, (0, 1, 0, 1), (2, 2)), None),
    ("avg_pool2d", (1, 70, 1500, 40), Window(3, 2, (1, 0, 1, 1), (2, 1)), None),     # several row tiles
    ("max_pool2d", (2, 70, 40, 33), Window(2, 3, (0, 1, 1, 0), (2, 2)), None),
])
def test_window_twin(kind, shape, win, oc):
    """examples/okk/c/window.c against spatial.run_window (conv2d.py, depthwise.py, pooling.py's tiling)."""
    r = np.random.default_rng(4)
    x = r.uniform(-1, 1, shape).astype(np.float32)
    n, c, h, w = shape
    oh, ow = win.out_hw(h, w)
    inputs = [x]
    wt = None
    if kind == "conv2d":
        wt = r.uniform(-1, 1, (oc, c, win.kh, win.kw)).astype(np.float32)
        w2 = np.zeros(((c + 1) // 2, oc, win.kh, win.kw, 2), np.float32)
        for i in range(c):
            w2[i // 2, :, :, :, i % 2] = wt[:, i]
        inputs.append(w2)
    elif kind == "depthwise2d":
        wt = r.uniform(-1, 1, (c, win.kh, win.kw)).astype(np.float32)
        inputs.append(wt)
    out_c = oc or c
    c_tile, oc_tile = 64 * 16, min(out_c, 64)
    pt, pb, pl, pr = win.pad

    def fields(out, src, wsys=0):
        return dict(N=n, C=c, H=h, W=w, OC=out_c, kernel_h=win.kh, kernel_w=win.kw, pad_top=pt, pad_bottom=pb,
                    pad_left=pl, pad_right=pr, stride_h=win.stride[0], stride_w=win.stride[1],
                    dilation_h=win.dilation[0], dilation_w=win.dilation[1], c_tile=c_tile, oc_tile=oc_tile,
                    output_addr=out, input_addr=src, weight_addr=wsys)

    def python(out, src, wsys=None):
        spatial.run_window(kind, out, src, shape, win, c_tile, wsys, out_c, oc_tile)

    y, _ = _twins("window.c", kind, fields, inputs, (n, out_c, oh, ow), python)
    assert contest_ok(y, spatial.reference(kind, x, win, wt), 1e-4)[0]


import plus_one as plus_one_py  # noqa: E402


@pytest.mark.parametrize("k,shape", [(1, (2, 70, 8, 9)), (2, (6, 70, 8, 9)), (3, (400, 70, 8, 9)), (4, (5, 3, 77, 101))])
def test_plus_one_twin(k, shape):
    x = np.random.default_rng(k).standard_normal(shape).astype(np.float32)
    N, C, H, W = shape
    if k == 4:
        python = lambda out, src: plus_one_py.plus_one_4(out, src, x.size)          # noqa: E731
    else:
        python = lambda out, src: (plus_one_py.plus_one_1, plus_one_py.plus_one_2,  # noqa: E731
                                   plus_one_py.plus_one_3)[k - 1](out, src, okk.dim4(*shape))
    y, _ = _twins("plus_one.c", f"plus_one_{k}", lambda out, src: dict(N=N, C=C, H=H, W=W, output_addr=out,
                                                                       input_addr=src), [x], shape, python)
    assert np.array_equal(y, x + np.float32(1))
