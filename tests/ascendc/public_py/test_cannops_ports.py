"""Python ports of cann-ops kernels that also run unchanged as .cpp (tests/ascendc/public/): each matches numpy
with default settings; with a C++ compiler, the port and the .cpp give the same bytes and the same timeline."""
import importlib.util
import os
import shutil

import numpy as np
import pytest

from npusim import ascendc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCKS, N, TILE = 4, 2048, 512


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _mse_tiling(mode, blocks):
    n = BLOCKS * N // blocks
    return dict(mode=mode, totalLength=BLOCKS * N, blockLength=n, tileNum=n // TILE, tileLength=TILE,
                lastTileLength=TILE)


def _cpp(op):
    if shutil.which(os.environ.get("CXX", "g++").split()[0]) is None:
        pytest.skip("no C++ compiler: the .cpp half of the comparison needs g++")
    path = os.path.join(os.path.dirname(HERE), "public", op, "op_kernel", f"{op}.cpp")
    return asc.load_cpp(path, defines={"DTYPE_Y": "float"})


def _events(r):
    return [(e.core, e.engine, e.name, e.start_ns, e.end_ns) for e in r.trace.events]


@pytest.mark.parametrize("mode,blocks", [(3, BLOCKS), (1, 1), (2, 1)])
def test_mse_loss_port_matches_numpy_and_the_cpp(mode, blocks):
    port = _load("cannops_mse_loss")
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-4, 4, (2, BLOCKS * N)).astype(np.float32)
    n_out = BLOCKS * N if mode == 3 else 32
    out_py, out_cpp = np.full(n_out, np.nan, np.float32), np.full(n_out, np.nan, np.float32)
    t = _mse_tiling(mode, blocks)
    r_py = asc.launch(port.mse_loss, blocks, x, y, out_py, tiling=t)
    d = (x.astype(np.float64) - y) ** 2
    if mode == 3:
        np.testing.assert_array_equal(out_py, (x - y) * (x - y))
    else:
        np.testing.assert_allclose(out_py[0], d.mean() if mode == 1 else d.sum(), rtol=1e-5)
        assert np.isnan(out_py[1:]).all()
    k = _cpp("mse_loss")
    r_cpp = asc.launch(k.mse_loss, blocks, x, y, out_cpp, tiling=t)
    np.testing.assert_array_equal(out_cpp, out_py)
    assert _events(r_cpp) == _events(r_py)
    assert r_cpp.auto_syncs == r_py.auto_syncs


def _softmax_tiling(key, rows=16, cols=64, basic=8):
    smx = dict(srcM=basic, srcK=cols, srcSize=basic * cols)
    smx.update(dict.fromkeys(("outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize", "reduceM",
                              "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize"), 0))
    return dict(rowLen=BLOCKS * rows, colLen=cols, rowLenPerHeadCore=rows, rowLenPerTailCore=rows,
                basicRowLenHeadCore=basic, basicRowLenTailCore=basic, basicColLen=cols, headCoreNum=BLOCKS,
                realCoreNum=BLOCKS, tilingKey=key, softmaxTilingData=smx, TILING_KEY=key)


@pytest.mark.parametrize("key,dtype,rtol", [(301, np.float32, 2e-6), (101, np.float16, 1e-3)])
def test_inplace_attn_softmax_port_matches_numpy_and_the_cpp(key, dtype, rtol):
    port = _load("cannops_inplace_attn_softmax")
    x0 = np.random.default_rng(6).uniform(-5, 5, BLOCKS * 16 * 64).astype(dtype)
    ws = np.zeros(32, np.uint8)
    x_py, x_cpp = x0.copy(), x0.copy()
    t = _softmax_tiling(key)
    r_py = asc.launch(port.inplace_attn_softmax, BLOCKS, x_py, ws, tiling=t)
    r = x0.astype(np.float64).reshape(-1, 64)
    e = np.exp(r - r.max(axis=1, keepdims=True))
    np.testing.assert_allclose(x_py, (e / e.sum(axis=1, keepdims=True)).reshape(-1), rtol=rtol, atol=1e-4)
    k = _cpp("inplace_attn_softmax")
    r_cpp = asc.launch(k.inplace_attn_softmax, BLOCKS, x_cpp, ws, tiling=t)
    np.testing.assert_array_equal(x_cpp, x_py)
    assert _events(r_cpp) == _events(r_py)
