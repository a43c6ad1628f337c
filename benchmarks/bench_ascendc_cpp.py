"""Ascend C .cpp route: cann-ops' add_custom kernel (tests/ascendc/public, 8 blocks x 2048 floats) run
unchanged through load_cpp, against its line-by-line Python port and plain numpy; and the per-call cost of
the C++ route (one Adds of 64 floats, called 1000 times in a kernel) against the same calls from a Python
kernel. Compilation is cached and not timed."""
import importlib.util
import os
import shutil
import tempfile

import numpy as np

from harness import Case
from npusim import ascendc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
N_CALLS = 1000
FLOAT = {"DTYPE_X": "float", "DTYPE_Y": "float", "DTYPE_Z": "float"}

LOOP_CPP = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void adds_loop(GM_ADDR x, int32_t calls)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * 64 * sizeof(float));
    LocalTensor<float> a = buf.Get<float>(64);
    LocalTensor<float> b = buf.Get<float>()[64];
    Duplicate(a, 1.0f, 64);
    for (int32_t i = 0; i < calls; i++) {
        Adds(b, a, 0.5f, 64);
    }
}
"""


def _loop_py(x, calls):
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.InitBuffer(buf, 2 * 64 * 4)
    a = buf.Get(asc.float, 64)
    b = buf.Get(asc.float)[64]
    asc.Duplicate(a, 1.0, 64)
    for _ in range(calls):
        asc.Adds(b, a, 0.5, 64)


def _port():
    spec = importlib.util.spec_from_file_location("cannops_add_custom",
                                                  os.path.join(ROOT, "examples", "ascendc", "cannops_add_custom.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _public_py(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tests", "ascendc", "public_py",
                                                                     f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _softmax_rows(x):
    r = x.reshape(-1, 64)
    e = np.exp(r - r.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_cases():
    """cann-ops inplace_attn_softmax (SoftMax API, 8 blocks x 64 rows of 64 floats): .cpp vs Python port."""
    port = _public_py("cannops_inplace_attn_softmax")
    smx = dict(srcM=8, srcK=64, srcSize=512, **dict.fromkeys(
        ("outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize", "reduceM", "reduceK", "reduceSize",
         "rangeM", "tailM", "tailSplitSize", "tailReduceSize"), 0))
    t = dict(rowLen=8 * 64, colLen=64, rowLenPerHeadCore=64, rowLenPerTailCore=64, basicRowLenHeadCore=8,
             basicRowLenTailCore=8, basicColLen=64, headCoreNum=8, realCoreNum=8, tilingKey=301,
             softmaxTilingData=smx, TILING_KEY=301)
    x0 = np.random.default_rng(1).uniform(-5, 5, 8 * 64 * 64).astype(np.float32)
    x, ws = x0.copy(), np.zeros(32, np.uint8)
    k = asc.load_cpp(os.path.join(ROOT, "tests", "ascendc", "public", "inplace_attn_softmax", "op_kernel",
                                  "inplace_attn_softmax.cpp"))
    return [
        Case("cann-ops inplace_attn_softmax .cpp, 8 blocks x 64 rows x 64 float (SoftMax), default auto-sync",
             lambda: asc.launch(k.inplace_attn_softmax, 8, x, ws, tiling=t), numpy=lambda: _softmax_rows(x0),
             repeats=5),
        Case("the same kernel as its Python port (tests/ascendc/public_py); numpy = row softmax",
             lambda: asc.launch(port.inplace_attn_softmax, 8, x, ws, tiling=t), numpy=lambda: _softmax_rows(x0),
             repeats=5),
    ]


def cases():
    if shutil.which(os.environ.get("CXX") or "g++") is None:
        return []
    port = _port()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 8 * 2048)).astype(np.float32)
    z = np.zeros_like(x)
    k = asc.load_cpp(os.path.join(ROOT, "tests", "ascendc", "public", "add_custom", "op_kernel", "add_custom.cpp"),
                     defines=FLOAT)
    tmp = tempfile.mkdtemp(prefix="npusim-bench-")
    path = os.path.join(tmp, "adds_loop.cpp")
    with open(path, "w") as f:
        f.write(LOOP_CPP)
    loop = asc.load_cpp(path)
    g = np.zeros(8, np.float32)
    return [
        Case("cann-ops add_custom .cpp (load_cpp), 8 blocks x 2048 float, launch", 
             lambda: asc.launch(k.add_custom, 8, x, y, z, tiling=port.TILING), numpy=lambda: x + y, repeats=5),
        Case("the same kernel as its Python port (examples/ascendc/cannops_add_custom.py); numpy = x + y",
             lambda: asc.launch(port.add_custom, 8, x, y, z, tiling=port.TILING), numpy=lambda: x + y, repeats=5),
        Case("C++ route per call: Adds 64 floats x 1000 in a .cpp kernel; baseline = the same Python kernel",
             lambda: asc.launch(loop.adds_loop, 1, g, N_CALLS, check_pipe_v=False),
             numpy=lambda: asc.launch(_loop_py, 1, g, N_CALLS, check_pipe_v=False), per=N_CALLS, repeats=5),
    ] + softmax_cases()
