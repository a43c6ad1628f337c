"""Each argument family of the bridge, through a .cpp kernel, against numpy: level-0 forms (continuous and
bit masks, repeat params), scalars, Cast modes, Compare/Select, reductions with index, flags, masks,
GlobalTensor/LocalTensor scalar access and printf."""
import textwrap

import numpy as np
import pytest

from npusim import ascendc as asc

from .conftest import needs_gxx

pytestmark = needs_gxx

KERNEL = textwrap.dedent('''\
    #include "kernel_operator.h"
    using namespace AscendC;
    extern "C" __global__ __aicore__ void families(GM_ADDR x, GM_ADDR out, GM_ADDR outi, GM_ADDR bits)
    {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 16 * 1024);
        GlobalTensor<float> xg, og;
        GlobalTensor<int32_t> ig;
        GlobalTensor<uint8_t> bg;
        xg.SetGlobalBuffer((__gm__ float*)x, 256);
        og.SetGlobalBuffer((__gm__ float*)out, 8 * 256);
        ig.SetGlobalBuffer((__gm__ int32_t*)outi, 256);
        bg.SetGlobalBuffer((__gm__ uint8_t*)bits, 32);
        LocalTensor<float> a = buf.GetWithOffset<float>(256, 0);
        LocalTensor<float> r = buf.GetWithOffset<float>(8 * 256, 1024);
        LocalTensor<float> w = buf.GetWithOffset<float>(256, 9216);
        LocalTensor<int32_t> iv = buf.GetWithOffset<int32_t>(256, 10240);
        LocalTensor<uint8_t> m = buf.GetWithOffset<uint8_t>(64, 11264);
        DataCopy(a, xg, 256);
        SetFlag<HardEvent::MTE2_V>(0);
        WaitFlag<HardEvent::MTE2_V>(0);
        Duplicate(r, 0.0f, 8 * 256);
        PipeBarrier<PIPE_V>();
        // row 0: level-0 Adds, continuous mask 40 over 2 repeats of 64 (dst/src rep stride 8 blocks)
        Adds(r, a, 1.5f, 40, 2, {1, 1, 8, 8});
        // row 1: level-0 Mul with a bit mask (every other lane of the low word)
        uint64_t mask[2] = {0x5555555555555555ULL, 0};
        Mul(r[256], a, a, mask, 1, {1, 1, 1, 8, 8, 8});
        // row 2: Cast float -> int32 with CAST_FLOOR, count form
        Cast(iv, a, RoundMode::CAST_FLOOR, 256);
        // row 3: Compare GT 0 into bits, then Select(a, 0): relu through the bit mask
        Compare(m, a, r[2048 - 256], CMPMODE::GT, 256);      // r's last row is still 0
        PipeBarrier<PIPE_V>();
        Select(r[3 * 256], m, a, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);
        // row 4: ReduceMax with index, then scalar access
        ReduceMax(r[4 * 256], a, w, 256, true);
        SetFlag<HardEvent::V_S>(0);
        WaitFlag<HardEvent::V_S>(0);
        float mx = r.GetValue(4 * 256);
        uint32_t at = r[4 * 256].ReinterpretCast<uint32_t>().GetValue(1);
        r(5 * 256) = mx * 2.0f;                               // LocalTensor(i) assignment
        r.SetValue(5 * 256 + 1, (float)at);
        float first = xg.GetValue(0);
        r.SetValue(5 * 256 + 2, first);
        AscendC::printf("max %.3f at %u\\n", mx, at);
        SetFlag<HardEvent::S_MTE3>(0);
        WaitFlag<HardEvent::S_MTE3>(0);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(og, r, 8 * 256);
        DataCopy(ig, iv, 256);
        DataCopy(bg, m, 32);
    }
    ''')


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    p = tmp_path_factory.mktemp("fam") / "families.cpp"
    p.write_text(KERNEL)
    k = asc.load_cpp(p)
    x = np.random.default_rng(5).uniform(-3, 3, 256).astype(np.float32)
    out = np.zeros(8 * 256, np.float32)
    outi = np.zeros(256, np.int32)
    bits = np.zeros(32, np.uint8)
    return k, x, out, outi, bits


def test_families_against_numpy(run, capsys):
    k, x, out, outi, bits = run
    asc.launch(k.families, 1, x, out, outi, bits)
    rows = out.reshape(8, 256)
    want0 = np.zeros(256, np.float32)
    for rep in range(2):
        want0[rep * 64: rep * 64 + 40] = x[rep * 64: rep * 64 + 40] + np.float32(1.5)
    np.testing.assert_array_equal(rows[0], want0)
    want1 = np.zeros(256, np.float32)
    want1[0:64:2] = x[0:64:2] * x[0:64:2]
    np.testing.assert_array_equal(rows[1], want1)
    np.testing.assert_array_equal(outi, np.floor(x).astype(np.int32))
    np.testing.assert_array_equal(np.unpackbits(bits, bitorder="little")[:256].astype(bool), x > 0)
    np.testing.assert_array_equal(rows[3], np.where(x > 0, x, np.float32(0)))
    assert rows[4][0] == x.max() and rows[4].view(np.uint32)[1] == np.argmax(x)
    assert rows[5][0] == x.max() * 2 and rows[5][1] == np.argmax(x) and rows[5][2] == x[0]
    assert f"max {x.max():.3f} at {np.argmax(x)}" in capsys.readouterr().out
