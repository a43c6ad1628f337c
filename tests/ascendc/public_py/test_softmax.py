"""Python port of Huawei's SoftMax + AdjustSoftMaxRes sample (softmax, advanced API, multi-core tiling).

Original: github.com/mirror-cann/asc-devkit, examples/01_simd_cpp_api/04_advanced_api/01_activation/softmax/
softmax.asc (namespace MyCustomKernel: VecTiling, KernelSoftmax, softmax_custom; host ComputeTiling /
GetSingleCoreLoopParam), commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7. The kernel is ported line by line; the
host tiling is re-written here from the file's own algorithm (SLICE_TABLE, even split over cores). CopyTiling's
word-by-word GM copy is GET_TILING_DATA of the struct passed as a kernel argument.
"""
from dataclasses import dataclass, field

import numpy as np
import pytest

from npusim import ascendc as asc

BUFFER_NUM = 2
FLOAT_NUM_OF_SINGLE_BLOCK = 8
BASIC_BLOCK_ROW_FACTOR = 8
BASIC_BLOCK_COLUMN_FACTOR = 64
BASIC_BLOCK_MAX_COLUMN_LENGTH = 2048
ADJUST_FROM = 0xFF7FFFFF
ADJUST_TO = 0.0


@dataclass
class VecTiling:
    columnLength: int = 0
    rowLength: int = 0
    sharedTmpBufferSize: int = 0
    usedNumBlocks: int = 0
    coreRowNum: int = 0
    tailCoreRowNum: int = 0
    singleLoopCoreRowNum: int = 0
    singleCoreLoopCount: int = 0
    singleCoreLoopTail: int = 0
    tailCoreSingleLoopCoreRowNum: int = 0
    tailCoreSingleCoreLoopCount: int = 0
    tailCoreSingleCoreLoopTail: int = 0
    softmaxTilingData: asc.SoftMaxTiling = field(default_factory=asc.SoftMaxTiling)


class KernelSoftmax:
    def InitTiling(self, tilingData):
        self.rowLength = tilingData.rowLength
        self.sharedTmpBufferSize = tilingData.sharedTmpBufferSize
        self.columnLength = tilingData.columnLength
        self.usedNumBlocks = tilingData.usedNumBlocks
        self.coreRowNum = tilingData.coreRowNum
        self.softmaxTiling = tilingData.softmaxTilingData
        self.singleLoopCoreRowNum = tilingData.singleLoopCoreRowNum
        self.singleCoreLoopCount = tilingData.singleCoreLoopCount
        self.leftRow = tilingData.singleCoreLoopTail
        self.tailCoreSingleLoopCoreRowNum = tilingData.tailCoreSingleLoopCoreRowNum
        self.tailCoreSingleCoreLoopCount = tilingData.tailCoreSingleCoreLoopCount
        self.tailCoreSingleCoreLoopTail = tilingData.tailCoreSingleCoreLoopTail

    def Init(self, x, max, sum, y, tilingData, pipeIn):  # noqa: A002 - the original's names
        self.pipe = pipeIn
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        self.InitTiling(tilingData)

        if asc.GetBlockIdx() == self.usedNumBlocks:
            self.singleLoopCoreRowNum = self.tailCoreSingleLoopCoreRowNum
            self.singleCoreLoopCount = self.tailCoreSingleCoreLoopCount
            self.leftRow = self.tailCoreSingleCoreLoopTail

        self.blockLength = self.coreRowNum * self.columnLength
        self.msLength = self.coreRowNum * FLOAT_NUM_OF_SINGLE_BLOCK

        offset1 = self.blockLength * asc.GetBlockIdx()
        offset2 = self.msLength * asc.GetBlockIdx()

        self.xGm, self.yGm = asc.GlobalTensor(asc.float), asc.GlobalTensor(asc.float)
        self.maxGm, self.sumGm = asc.GlobalTensor(asc.float), asc.GlobalTensor(asc.float)
        self.xGm.SetGlobalBuffer(x.cast(asc.float) + offset1, self.blockLength)
        self.yGm.SetGlobalBuffer(y.cast(asc.float) + offset1, self.blockLength)
        self.maxGm.SetGlobalBuffer(max.cast(asc.float) + offset2, self.msLength)
        self.sumGm.SetGlobalBuffer(sum.cast(asc.float) + offset2, self.msLength)

        self.queueX = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.queueMax = asc.TQue(asc.TPosition.VECOUT, 1)
        self.queueSum = asc.TQue(asc.TPosition.VECOUT, 1)
        self.sharedTmpBuffer = asc.TBuf(asc.TPosition.VECCALC)
        self.tileLength = self.singleLoopCoreRowNum * self.columnLength
        self.pipe.InitBuffer(self.queueX, BUFFER_NUM, self.tileLength * 4)
        self.msTileLength = self.singleLoopCoreRowNum * FLOAT_NUM_OF_SINGLE_BLOCK
        self.pipe.InitBuffer(self.queueMax, 1, self.msTileLength * 4)
        self.pipe.InitBuffer(self.queueSum, 1, self.msTileLength * 4)
        self.pipe.InitBuffer(self.sharedTmpBuffer, self.sharedTmpBufferSize)

    def Process(self):
        if asc.GetBlockIdx() > self.usedNumBlocks:
            return
        for i in range(self.singleCoreLoopCount):
            self.CopyIn(i, self.singleLoopCoreRowNum)
            self.Compute(i, self.singleLoopCoreRowNum)
            self.CopyOut(i, self.singleLoopCoreRowNum)
        if self.leftRow > 0:
            self.CopyIn(self.singleCoreLoopCount, self.leftRow)
            self.Compute(self.singleCoreLoopCount, self.leftRow)
            self.CopyOut(self.singleCoreLoopCount, self.leftRow)

    def CopyIn(self, progress, rowNum):
        xLocal = self.queueX.AllocTensor(asc.float)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileLength], rowNum * self.columnLength)
        self.queueX.EnQue(xLocal)

    def Compute(self, progress, rowNum):
        xLocal = self.queueX.DeQue(asc.float)
        maxLocal = self.queueMax.AllocTensor(asc.float)
        sumLocal = self.queueSum.AllocTensor(asc.float)
        tmpBuffer = self.sharedTmpBuffer.Get(asc.uint8_t)

        srcShape = asc.SoftMaxShapeInfo(rowNum, self.columnLength, rowNum, self.columnLength)

        if (rowNum % BASIC_BLOCK_ROW_FACTOR == 0 and self.columnLength % BASIC_BLOCK_COLUMN_FACTOR == 0
                and self.columnLength < BASIC_BLOCK_MAX_COLUMN_LENGTH):
            asc.SoftMax[asc.float, False, True](xLocal, sumLocal, maxLocal, xLocal, tmpBuffer, self.softmaxTiling,
                                                srcShape)
        else:
            asc.SoftMax[asc.float, False](xLocal, sumLocal, maxLocal, xLocal, tmpBuffer, self.softmaxTiling, srcShape)

        asc.AdjustSoftMaxRes[asc.float, asc.float](xLocal, maxLocal, ADJUST_FROM, ADJUST_TO, srcShape)

        self.queueX.EnQue(xLocal)
        self.queueMax.EnQue(maxLocal)
        self.queueSum.EnQue(sumLocal)

    def CopyOut(self, progress, rowNum):
        yLocal = self.queueX.DeQue(asc.float)
        maxLocal = self.queueMax.DeQue(asc.float)
        sumLocal = self.queueSum.DeQue(asc.float)

        asc.DataCopy(self.yGm[progress * self.tileLength], yLocal, rowNum * self.columnLength)
        asc.DataCopy(self.maxGm[progress * self.msTileLength], maxLocal, rowNum * FLOAT_NUM_OF_SINGLE_BLOCK)
        asc.DataCopy(self.sumGm[progress * self.msTileLength], sumLocal, rowNum * FLOAT_NUM_OF_SINGLE_BLOCK)

        self.queueX.FreeTensor(yLocal)
        self.queueMax.FreeTensor(maxLocal)
        self.queueSum.FreeTensor(sumLocal)


def softmax_custom(x, max, sum, y, workspace, tiling):  # noqa: A002
    pipe = asc.TPipe()
    tilingData = asc.GET_TILING_DATA(tiling, VecTiling)
    op = KernelSoftmax()
    op.Init(x, max, sum, y, tilingData, pipe)
    op.Process()


SLICE_TABLE = [(8192, 1), (4096, 2), (2048, 4), (1024, 8), (512, 16), (256, 32), (0, 64)]


def _loop_param(col, core_rows):
    for thr, rows in SLICE_TABLE:
        if col >= thr:
            return rows, core_rows // rows, core_rows % rows


def compute_tiling(row, col, cores):
    aligned = (row + cores - 1) // cores * cores
    core_rows = aligned // cores
    tail_rows = row % core_rows
    used = row // core_rows
    main = _loop_param(col, core_rows)
    tail = main if (used == cores and tail_rows == 0) else _loop_param(col, tail_rows)
    tmp = asc.GetSoftMaxMinTmpSize((main[0], col), 4)
    return VecTiling(col, row, tmp, used, core_rows, tail_rows, *main, *tail,
                     asc.SoftMaxTilingFunc((main[0], col), 4, tmp))


@pytest.mark.parametrize("rows, cols, cores", [(32, 32, 1), (40, 64, 3)])
def test_softmax_custom_matches_numpy(rows, cols, cores):
    rng = np.random.default_rng(rows)
    x = rng.uniform(-5, 5, (rows, cols)).astype(np.float32)
    x[3] = np.finfo(np.float32).min          # a row whose max is 0xFF7FFFFF: AdjustSoftMaxRes zeroes it
    y = np.zeros_like(x)
    mx = np.zeros((rows, 8), np.float32)
    sm = np.zeros((rows, 8), np.float32)
    tiling = compute_tiling(rows, cols, cores)
    launch_blocks = tiling.usedNumBlocks + (1 if tiling.tailCoreRowNum else 0)
    asc.launch(softmax_custom, launch_blocks, x, mx, sm, y, np.zeros(1024, np.uint8), tiling)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    want[3] = 0.0
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(mx, np.repeat(x.max(1)[:, None], 8, 1))
    np.testing.assert_allclose(sm[:, 0], e.sum(1), rtol=1e-6)
