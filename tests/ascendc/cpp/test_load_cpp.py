"""load_cpp and the bridge: compile errors, the cache, errors carrying the .cpp line, handles, tiling."""
import os
import textwrap

import numpy as np
import pytest

import npusim
from npusim import ascendc as asc
from npusim.ascendc.cpp import build
from npusim.core.errors import ConstraintError, NpuSimError, RaceError

from .conftest import needs_gxx

pytestmark = needs_gxx

KERNEL = textwrap.dedent('''\
    #include "kernel_operator.h"
    using namespace AscendC;
    struct Tiling { uint32_t n; float alpha; };
    extern "C" __global__ __aicore__ void axpy_relu(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
    {
        Tiling t = *(const Tiling*)tiling;            // a plain struct read through the GM pointer
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> qx, qy;
        TQue<QuePosition::VECOUT, 1> qz;
        GlobalTensor<float> xg, yg, zg;
        uint32_t off = t.n * GetBlockIdx();
        xg.SetGlobalBuffer((__gm__ float*)x + off, t.n);
        yg.SetGlobalBuffer((__gm__ float*)y + off, t.n);
        zg.SetGlobalBuffer((__gm__ float*)z + off, t.n);
        pipe.InitBuffer(qx, 1, t.n * sizeof(float));
        pipe.InitBuffer(qy, 1, t.n * sizeof(float));
        pipe.InitBuffer(qz, 1, t.n * sizeof(float));
        LocalTensor<float> a = qx.AllocTensor<float>();
        LocalTensor<float> b = qy.AllocTensor<float>();
        DataCopy(a, xg, t.n);
        DataCopy(b, yg, t.n);
        qx.EnQue(a); qy.EnQue(b);
        a = qx.DeQue<float>(); b = qy.DeQue<float>();
        LocalTensor<float> c = qz.AllocTensor<float>();
        Muls(c, a, t.alpha, t.n);
        PipeBarrier<PIPE_V>();
        Add(c, c, b, t.n);
        PipeBarrier<PIPE_V>();
        Relu(c, c, (int32_t)t.n);
        qz.EnQue(c);
        c = qz.DeQue<float>();
        DataCopy(zg, c, t.n);
        qx.FreeTensor(a); qy.FreeTensor(b); qz.FreeTensor(c);
    }
    ''')


@pytest.fixture
def axpy(tmp_path):
    p = tmp_path / "axpy_relu.cpp"
    p.write_text(KERNEL)
    return p


def test_plain_struct_tiling_and_blocks(axpy):
    k = asc.load_cpp(axpy)
    n, blocks = 256, 3
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, blocks * n)).astype(np.float32)
    z = np.zeros_like(x)
    tiling = np.array([(n, 0.5)], dtype=[("n", "<u4"), ("alpha", "<f4")])
    asc.launch(k.axpy_relu, blocks, x, y, z, tiling=tiling)
    np.testing.assert_array_equal(z, np.maximum(x * np.float32(0.5) + y, 0))


def test_errors_carry_the_cpp_line(axpy, tmp_path):
    bad = tmp_path / "bad_align.cpp"
    # one tile of 7 floats: DataCopy's 32-byte rule (strict mode raises; default warns as the device
    # copies the rounded-down length), reported at the DataCopy line of the .cpp
    bad.write_text(KERNEL.replace("DataCopy(a, xg, t.n);", "DataCopy(a, xg, 7);"))
    k = asc.load_cpp(bad)
    x = np.zeros(256, np.float32)
    tiling = np.array([(256, 1.0)], dtype=[("n", "<u4"), ("alpha", "<f4")])
    with npusim.configure(strict=True), pytest.raises(ConstraintError, match=r"bad_align\.cpp:\d+: DataCopy") as e:
        asc.launch(k.axpy_relu, 1, x, x.copy(), x.copy(), tiling=tiling)
    line = int(e.value.cpp_source.split(":")[1])
    assert "DataCopy(a, xg, 7);" in bad.read_text().splitlines()[line - 1]
    assert e.value.param == "count"


def test_missing_barrier_is_a_race_naming_cpp_lines(axpy, tmp_path):
    racy = tmp_path / "racy.cpp"
    racy.write_text(KERNEL.replace("PipeBarrier<PIPE_V>();\n    Add", "Add"))
    k = asc.load_cpp(racy)
    x = np.ones(256, np.float32)
    tiling = np.array([(256, 1.0)], dtype=[("n", "<u4"), ("alpha", "<f4")])
    with pytest.raises(RaceError, match=r"racy\.cpp:\d+"):
        asc.launch(k.axpy_relu, 1, x, x.copy(), x.copy(), tiling=tiling, sync="manual")
    # default auto-sync inserts the PipeBarrier<PIPE_V> the compiler would
    z = np.zeros_like(x)
    r = asc.launch(k.axpy_relu, 1, x, x.copy(), z, tiling=tiling)
    assert r.auto_syncs >= 1
    np.testing.assert_array_equal(z, np.full_like(x, 2.0))


def test_compile_error_has_the_compiler_message(tmp_path):
    p = tmp_path / "broken.cpp"
    p.write_text('#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void broken(GM_ADDR x) { nope(); }\n')
    with pytest.raises(build.CompileError, match="nope"):
        asc.load_cpp(p)


def test_no_compiler_is_a_clear_error(axpy, monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/g++")
    with pytest.raises(build.CompileError, match="no C\\+\\+ compiler"):
        asc.load_cpp(axpy)


def test_cache_is_keyed_by_content(axpy, tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path / "cache"))
    k1 = asc.load_cpp(axpy)
    assert os.path.dirname(k1.so).startswith(str(tmp_path / "cache"))
    assert asc.load_cpp(axpy).so == k1.so                       # same content: same library
    axpy.write_text(KERNEL + "\n// changed\n")
    assert asc.load_cpp(axpy).so != k1.so


def test_assert_and_tiling_errors(tmp_path):
    p = tmp_path / "asrt.cpp"
    p.write_text('#include "kernel_operator.h"\n'
                 'extern "C" __global__ __aicore__ void asrt(GM_ADDR x) { ASSERT(AscendC::GetBlockNum() == 99); }\n')
    with pytest.raises(NpuSimError, match=r"asrt\.cpp:2: ASSERT\(AscendC::GetBlockNum\(\) == 99\) failed"):
        asc.launch(asc.load_cpp(p).asrt, 1, np.zeros(8, np.float32))


def test_unset_tensor_and_unknown_kernel(tmp_path):
    p = tmp_path / "unset.cpp"
    p.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                 'extern "C" __global__ __aicore__ void unset(GM_ADDR x) { LocalTensor<float> t; Relu(t, t, 8); }\n')
    k = asc.load_cpp(p)
    with pytest.raises(ConstraintError, match=r"unset\.cpp:3: Relu: parameter 'dstLocal'"):
        asc.launch(k.unset, 1, np.zeros(8, np.float32))
    p2 = tmp_path / "unset_size.cpp"
    p2.write_text(p.read_text().replace("Relu(t, t, 8);", "t.GetSize();").replace("void unset", "void unset_size"))
    with pytest.raises(NpuSimError, match="used before it was assigned"):
        asc.launch(asc.load_cpp(p2).unset_size, 1, np.zeros(8, np.float32))
    with pytest.raises(AttributeError, match="no extern"):
        k.missing


def test_scalar_and_struct_by_value_parameters(tmp_path):
    """Integer parameters take Python ints; a struct parameter by value takes its bytes (here as tiling)."""
    p = tmp_path / "byval.cpp"
    p.write_text(textwrap.dedent('''\
        #include "kernel_operator.h"
        using namespace AscendC;
        struct Cfg { int32_t n; float v; };
        extern "C" __global__ __aicore__ void byval(GM_ADDR out, int32_t scale, Cfg cfg)
        {
            GlobalTensor<float> og;
            og.SetGlobalBuffer((__gm__ float*)out, 8);
            for (int32_t i = 0; i < cfg.n; i++) og.SetValue(i, cfg.v * scale + i);
        }
        '''))
    k = asc.load_cpp(p)
    assert k.byval.signature == "pis" and k.byval.params == ["out", "scale", "cfg"]
    out = np.zeros(8, np.float32)
    cfg = np.array([(5, 1.5)], dtype=[("n", "<i4"), ("v", "<f4")])
    asc.launch(k.byval, 1, out, 3, tiling=cfg)
    np.testing.assert_array_equal(out, [4.5, 5.5, 6.5, 7.5, 8.5, 0, 0, 0])
    with pytest.raises(ConstraintError, match="argument 1"):
        asc.launch(k.byval, 1, out, "three", tiling=cfg)


def test_tiling_dict_rules(tmp_path):
    from npusim.ascendc.cpp import tiling
    text = """BEGIN_TILING_DATA_DEF(Inner)
      TILING_DATA_FIELD_DEF(uint16_t, a);
    END_TILING_DATA_DEF;
    BEGIN_TILING_DATA_DEF(Outer)
      TILING_DATA_FIELD_DEF(uint8_t, flag);   // a comment
      TILING_DATA_FIELD_DEF_ARR(uint32_t, 3, arr);
      TILING_DATA_FIELD_DEF_STRUCT(Inner, inner);
      TILING_DATA_FIELD_DEF(uint64_t, big);
    END_TILING_DATA_DEF;
    REGISTER_TILING_DATA_CLASS(Op, Outer)"""
    cls = tiling.parse(text)
    raw = tiling.pack(cls, {"flag": 1, "arr": [2, 3, 4], "inner": {"a": 5}, "big": 6})
    assert len(raw) == 32                       # 1 + pad 3 + 12 + 2 + pad 6 + 8: C's natural alignment
    assert raw[0] == 1 and raw[4:16] == np.array([2, 3, 4], "<u4").tobytes() and raw[24:] == (6).to_bytes(8, "little")
    with pytest.raises(ConstraintError, match="every field"):
        tiling.pack(cls, {"flag": 1})
    with pytest.raises(ConstraintError, match="a field of Outer"):
        tiling.pack(cls, {"flag": 1, "arr": [0, 0, 0], "inner": {"a": 0}, "big": 0, "extra": 1})


def test_a_cpp_exception_of_the_kernel_is_an_npusim_error(tmp_path):
    p = tmp_path / "throws.cpp"
    p.write_text('#include "kernel_operator.h"\n'
                 'extern "C" __global__ __aicore__ void throws(GM_ADDR x) { throw 42; }\n')
    with pytest.raises(NpuSimError, match="C\\+\\+ exception"):
        asc.launch(asc.load_cpp(p).throws, 1, np.zeros(8, np.float32))


def test_error_inside_a_kernel_named_like_a_libm_function_is_raised(tmp_path):
    """g++ treats an extern "C" function named tanh as the nothrow builtin; the error must still come back
    as a Python exception (not std::terminate)."""
    p = tmp_path / "tanh.cpp"
    p.write_text('#include "kernel_operator.h"\n'
                 'extern "C" __global__ __aicore__ void tanh(GM_ADDR x) {\n'
                 '    AscendC::LocalTensor<float> t; AscendC::Relu(t, t, 8); }\n')
    k = asc.load_cpp(p)
    with pytest.raises(ConstraintError, match=r"tanh\.cpp:3: Relu"):
        asc.launch(k.tanh, 1, np.zeros(8, np.float32))


def test_tque_sync_and_global_get_tpipe_ptr(tmp_path):
    """TQueSync<src, dst> and an unqualified GetTPipePtr() (global in the vendor headers), as cann-ops'
    sync helpers write them; under sync="manual" the flag is what orders the TBuf copy and the Adds."""
    p = tmp_path / "qsync.cpp"
    p.write_text(textwrap.dedent('''\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void qsync(GM_ADDR x, GM_ADDR y) {
            AscendC::TPipe pipe;
            AscendC::TBuf<AscendC::TPosition::VECCALC> b;
            pipe.InitBuffer(b, 512);
            AscendC::GlobalTensor<float> xg, yg;
            xg.SetGlobalBuffer((__gm__ float*)x, 64);
            yg.SetGlobalBuffer((__gm__ float*)y, 64);
            AscendC::LocalTensor<float> t = b.Get<float>(64);
            AscendC::DataCopy(t, xg, 64);
            int32_t id = static_cast<int32_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V));
            AscendC::TQueSync<PIPE_MTE2, PIPE_V> s;
            s.SetFlag(id);
            s.WaitFlag(id);
            AscendC::Adds(t, t, 1.0f, 64);
            AscendC::TQueSync<PIPE_V, PIPE_MTE3> s2;
            s2.SetFlag(id);
            s2.WaitFlag(id);
            AscendC::DataCopy(yg, t, 64);
        }
        '''))
    k = asc.load_cpp(p)
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    asc.launch(k.qsync, 1, x, y, sync="manual")
    np.testing.assert_array_equal(y, x + 1)
