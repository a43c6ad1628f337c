"""Python port of Huawei's LeakyRelu custom op kernel (activation; static tensors, manual flags).

Original: github.com/mirror-cann/asc-devkit (mirror of gitcode cann/asc-devkit),
examples/01_simd_cpp_api/02_features/99_acl_based/00_acl_compilation/custom_op/op_kernel/leaky_relu_custom/
leaky_relu_custom_kernel.cpp (+ leaky_relu_custom_tiling.h), commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7.
Ported line by line; the vector chain Maxs/Mins -> Muls -> Add has no PipeBarrier<PIPE_V> in the original
(the compiler's auto-sync inserts them), so it runs with the default sync="auto" and fails with "manual".
"""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import RaceError

BUFFER_NUM = 2
STATIC_TILE_LENGTH = 64

LeakyReluCustomTilingData = asc.BEGIN_TILING_DATA_DEF(
    "LeakyReluCustomTilingData",
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "totalLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "tileNum"),
    asc.TILING_DATA_FIELD_DEF(asc.float, "negativeSlope"))


class KernelLeakyRelu:
    def __init__(self, tileLength):
        self.tileLength = tileLength

    def Init(self, x, y, totalLength, tileNum, negativeSlope):
        asc.ascendc_assert(tileNum != 0, "tileNum can not be zero.\n")
        self.blockLength = totalLength // asc.GetBlockNum()
        self.tileNum = tileNum
        self.negativeSlope = float(negativeSlope)
        runtimeTileLength = self.blockLength // tileNum // BUFFER_NUM
        asc.ascendc_assert(runtimeTileLength == self.tileLength, "runtime tileLength must match template tileLength.\n")

        self.xGm = asc.GlobalTensor(asc.float)
        self.yGm = asc.GlobalTensor(asc.float)
        self.xGm.SetGlobalBuffer(x.cast(asc.float) + self.blockLength * asc.GetBlockIdx(), self.blockLength)
        self.yGm.SetGlobalBuffer(y.cast(asc.float) + self.blockLength * asc.GetBlockIdx(), self.blockLength)

    def Process(self):
        tileLength = self.tileLength
        loopCount = self.tileNum * BUFFER_NUM

        ubAllocator = asc.LocalMemAllocator(asc.Hardware.UB)
        xLocal = ubAllocator.Alloc(asc.float, tileLength)
        yLocal = ubAllocator.Alloc(asc.float, tileLength)
        tmpTensor1 = ubAllocator.Alloc(asc.float, tileLength)
        tmpTensor2 = ubAllocator.Alloc(asc.float, tileLength)

        inputVal = 0.0

        asc.SetFlag(asc.HardEvent.V_MTE2, 0)
        asc.SetFlag(asc.HardEvent.MTE3_V, 0)

        for i in range(loopCount):
            asc.WaitFlag(asc.HardEvent.V_MTE2, 0)

            asc.DataCopy(xLocal, self.xGm[i * tileLength], tileLength)

            asc.SetFlag(asc.HardEvent.MTE2_V, 0)
            asc.WaitFlag(asc.HardEvent.MTE2_V, 0)

            asc.WaitFlag(asc.HardEvent.MTE3_V, 0)

            asc.Maxs(tmpTensor1, xLocal, inputVal, tileLength)
            asc.Mins(tmpTensor2, xLocal, inputVal, tileLength)
            asc.Muls(tmpTensor2, tmpTensor2, self.negativeSlope, tileLength)
            asc.Add(yLocal, tmpTensor1, tmpTensor2, tileLength)

            asc.SetFlag(asc.HardEvent.V_MTE2, 0)
            asc.SetFlag(asc.HardEvent.V_MTE3, 0)
            asc.WaitFlag(asc.HardEvent.V_MTE3, 0)

            asc.DataCopy(self.yGm[i * tileLength], yLocal, tileLength)

            asc.SetFlag(asc.HardEvent.MTE3_V, 0)

        asc.WaitFlag(asc.HardEvent.V_MTE2, 0)
        asc.WaitFlag(asc.HardEvent.MTE3_V, 0)


def leaky_relu_custom(x, y, workspace, tiling):
    asc.InitSocState()

    tiling_data = asc.GET_TILING_DATA(tiling, LeakyReluCustomTilingData)

    op = KernelLeakyRelu(STATIC_TILE_LENGTH)
    op.Init(x, y, tiling_data.totalLength, tiling_data.tileNum, tiling_data.negativeSlope)
    op.Process()

    asc.PipeBarrier(asc.PIPE_ALL)


def _run(**kw):
    blocks, tile_num = 8, 8
    total = blocks * tile_num * BUFFER_NUM * STATIC_TILE_LENGTH
    rng = np.random.default_rng(7)
    x = rng.uniform(-10, 10, total).astype(np.float32)
    y = np.zeros_like(x)
    tiling = LeakyReluCustomTilingData(totalLength=total, tileNum=tile_num, negativeSlope=0.1)
    res = asc.launch(leaky_relu_custom, blocks, x, y, np.zeros(32, np.uint8), tiling.pack(), **kw)
    return x, y, res


def test_leaky_relu_custom_matches_numpy_with_default_settings():
    x, y, res = _run()
    slope = np.float32(0.1)
    want = np.maximum(x, 0) + np.minimum(x, 0) * slope          # the kernel's own formula, in float32
    np.testing.assert_array_equal(y, want)
    np.testing.assert_allclose(y, np.where(x > 0, x, 0.1 * x.astype(np.float64)), rtol=1e-6)
    assert res.auto_syncs > 0                                    # PIPE_V barriers the compiler would insert


def test_leaky_relu_custom_needs_auto_sync():
    with pytest.raises(RaceError, match="PipeBarrier<PIPE_V>"):
        _run(sync="manual")
