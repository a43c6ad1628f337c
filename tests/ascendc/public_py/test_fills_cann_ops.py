"""Python port of a public cann-ops Fills kernel (static tensors, Duplicate/Cast, DataCopyPad for the tails).

Original: github.com/hicann/cann-ops-competitions,
01_official/operator-challenge/cann-ops-challenge-S8/submissions/Fills/All-In-AI/op_kernel/fills.cpp,
commit 7a534f4863ec318ee56082db135eecd479c8af63 (tiling fields from op_host/fills_tiling.h of the same
submission). Ported line by line; DTYPE_OUTPUT is a kernel argument. The host tiling (split over cores, the
first formerNum cores one incCoreLength longer) is written here.
"""
import ml_dtypes
import numpy as np
import pytest

from npusim import ascendc as asc

FillsTilingData = asc.BEGIN_TILING_DATA_DEF(
    "FillsTilingData",
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "totalLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "tileLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "smallCoreLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "incCoreLength"),
    asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "formerNum"),
    asc.TILING_DATA_FIELD_DEF(asc.float, "value"))


class KernelFills:
    def __init__(self, DTYPE_OUTPUT):
        self.T = DTYPE_OUTPUT

    def Init(self, output, totalLength, tileLength, smallCoreLength, incCoreLength, formerNum, value):
        self.tileLength = tileLength
        self.value = value

        blockIdx = asc.GetBlockIdx()
        if blockIdx < formerNum:
            self.coreLength = smallCoreLength + incCoreLength
            self.coreOffset = self.coreLength * blockIdx
        else:
            self.coreLength = smallCoreLength
            self.coreOffset = (smallCoreLength + incCoreLength) * formerNum + smallCoreLength * (blockIdx - formerNum)

        if self.coreOffset >= totalLength or self.coreLength == 0:
            self.coreLength = 0
            self.tileNum = 0
            self.tailLength = 0
            return
        if self.coreOffset + self.coreLength > totalLength:
            self.coreLength = totalLength - self.coreOffset

        self.tileNum = (self.coreLength + tileLength - 1) // tileLength
        self.tailLength = self.coreLength - (self.tileNum - 1) * tileLength

        self.outputGm = asc.GlobalTensor(self.T)
        self.outputGm.SetGlobalBuffer(output.cast(self.T) + self.coreOffset, self.coreLength)

    def Process(self):
        if self.coreLength == 0:
            return
        T = self.T
        ubAllocator = asc.LocalMemAllocator(asc.Hardware.UB)
        STATIC_TILE_LENGTH = (16384 if T in (asc.float, asc.int32_t) else 24576 if T in (asc.half, asc.bfloat16_t)
                              else 32768 if T is asc.int16_t else 49152)
        outLocal = ubAllocator.Alloc(T, STATIC_TILE_LENGTH)

        tmpFloatLocal = tmpHalfLocal = None
        if T is asc.bfloat16_t:
            tmpFloatLocal = ubAllocator.Alloc(asc.float, STATIC_TILE_LENGTH)
        if T in (asc.int8_t, asc.uint8_t):
            tmpHalfLocal = ubAllocator.Alloc(asc.half, STATIC_TILE_LENGTH)

        self.FillLocal(outLocal, self.tileLength, tmpFloatLocal, tmpHalfLocal)
        asc.SetFlag(asc.HardEvent.V_MTE3, asc.EVENT_ID0)
        asc.WaitFlag(asc.HardEvent.V_MTE3, asc.EVENT_ID0)

        for i in range(self.tileNum):
            length = self.tailLength if i + 1 == self.tileNum else self.tileLength
            self.CopyOut(i, length, outLocal)

    def FillLocal(self, outLocal, length, tmpFloatLocal, tmpHalfLocal):
        T = self.T
        if T in (asc.int8_t, asc.uint8_t):
            truncI32 = int(self.value)                                   # static_cast<int32_t>: toward zero
            fillValue = int(np.array(truncI32).astype(T.np))             # static_cast<T>: wraps
            fillValueHalf = float(np.float16(float(fillValue)))
            asc.Duplicate(tmpHalfLocal, fillValueHalf, length)
            asc.Cast(outLocal, tmpHalfLocal, asc.RoundMode.CAST_NONE, length)
        elif T in (asc.int16_t, asc.int32_t):
            truncI32 = int(self.value)
            asc.Duplicate(outLocal, truncI32, length)
        elif T is asc.float:
            asc.Duplicate(outLocal, float(np.float32(self.value)), length)
        elif T is asc.half:
            asc.Duplicate(outLocal, float(np.float16(self.value)), length)
        elif T is asc.bfloat16_t:
            asc.Duplicate(tmpFloatLocal, self.value, length)
            asc.Cast(outLocal, tmpFloatLocal, asc.RoundMode.CAST_RINT, length)

    def CopyOut(self, tileIdx, length, outLocal):
        if length == self.tileLength:
            asc.DataCopy(self.outputGm[tileIdx * self.tileLength], outLocal, self.tileLength)
            return
        copyParams = asc.DataCopyExtParams(1, length * self.T.itemsize, 0, 0, 0)
        asc.DataCopyPad(self.outputGm[tileIdx * self.tileLength], outLocal, copyParams)


def fills(input, output, workspace, tiling, DTYPE_OUTPUT):  # noqa: A002
    tilingData = asc.GET_TILING_DATA(tiling, FillsTilingData)
    op = KernelFills(DTYPE_OUTPUT)
    op.Init(output, tilingData.totalLength, tilingData.tileLength, tilingData.smallCoreLength,
            tilingData.incCoreLength, tilingData.formerNum, tilingData.value)
    op.Process()


@pytest.mark.parametrize("np_t, asc_t, value, want", [
    (np.float32, "float", 2.71828, np.float32(2.71828)),
    (np.float16, "half", -1.3333, np.float16(-1.3333)),
    (np.int8, "int8_t", -3.7, np.int8(-3)),
    (ml_dtypes.bfloat16, "bfloat16_t", 0.1, np.float32(0.1).astype(ml_dtypes.bfloat16)),
])
def test_fills_matches_numpy_full(np_t, asc_t, value, want):
    cores, total, tile = 3, 10000, 1024
    small, former = total // cores, total % cores                 # 3333, 1: the first core gets one more
    tiling = FillsTilingData(totalLength=total, tileLength=tile, smallCoreLength=small, incCoreLength=1,
                             formerNum=former, value=value)
    y = np.zeros(total, np_t)
    asc.launch(fills, cores, np.zeros(8, np_t), y, np.zeros(32, np.uint8), tiling.pack(), getattr(asc, asc_t))
    np.testing.assert_array_equal(y, np.full(total, want, np_t))
