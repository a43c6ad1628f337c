"""Python port of Huawei's DataCopyPad sample, scenarios 1 and 2 (GM->UB padding, UB->GM unaligned copy).

Original: github.com/mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/00_data_movement/
data_copy_pad_gm2ub_ub2gm/data_copy_pad.asc (KernelDataCopyPad, data_copy_pad_custom), commit
82b89a15f26329511fc7fbc807d5132a1f9b4ba7. Scenario 1: [1, 20] half -> [1, 32] with SetPadValue(1) and
rightPadding 12; scenario 2: [32, 59] float -> [32, 64] with isPad and rightPadding 5. Scenarios 3-6 use the
950-only Compact and loop modes (not modelled).
"""
import numpy as np
import pytest

from npusim import ascendc as asc


class KernelDataCopyPad:
    def __init__(self, T, srcRows, srcCols, dstCols, dstTotalLength, scenarioNum):
        self.T, self.srcRows, self.srcCols = T, srcRows, srcCols
        self.dstCols, self.dstTotalLength, self.scenarioNum = dstCols, dstTotalLength, scenarioNum

    def Init(self, x, z):
        self.srcGlobal = asc.GlobalTensor(self.T); self.srcGlobal.SetGlobalBuffer(x.cast(self.T))
        self.dstGlobal = asc.GlobalTensor(self.T); self.dstGlobal.SetGlobalBuffer(z.cast(self.T))

    def Process(self):
        ubAllocator = asc.LocalMemAllocator(asc.Hardware.UB)
        srcLocal = ubAllocator.Alloc(self.T, self.dstTotalLength)
        self.CopyIn(srcLocal)
        asc.SetFlag(asc.HardEvent.MTE2_MTE3, 0)
        asc.WaitFlag(asc.HardEvent.MTE2_MTE3, 0)
        copyParams = asc.DataCopyExtParams(1, self.dstTotalLength * self.T.itemsize, 0, 0, 0)
        asc.DataCopyPad(self.dstGlobal, srcLocal, copyParams)

    def CopyIn(self, srcLocal):
        if self.scenarioNum == 1:
            copyParams = asc.DataCopyExtParams(1, self.srcCols * self.T.itemsize, 0, 0, 0)
            padParams = asc.DataCopyPadExtParams[self.T]()
            padParams.isPad = False
            padParams.leftPadding = 0
            padParams.rightPadding = self.dstCols - self.srcCols

            asc.SetPadValue(1)
            asc.DataCopyPad(srcLocal, self.srcGlobal, copyParams, padParams)
        elif self.scenarioNum == 2:
            copyParams = asc.DataCopyExtParams(self.srcRows, self.srcCols * 4, 0, 0, 0)
            padParams = asc.DataCopyPadExtParams[self.T]()
            padParams.isPad = True
            padParams.leftPadding = 0
            padParams.rightPadding = self.dstCols - self.srcCols

            asc.DataCopyPad(srcLocal, self.srcGlobal, copyParams, padParams)


def data_copy_pad_custom(x, z, srcRows, srcCols, dstCols, dstTotalLength, scenarioNum):
    asc.InitSocState()
    T = asc.float if scenarioNum == 2 else asc.half
    op = KernelDataCopyPad(T, srcRows, srcCols, dstCols, dstTotalLength, scenarioNum)
    op.Init(x, z)
    op.Process()
    asc.PipeBarrier(asc.PIPE_ALL)


@pytest.mark.parametrize("scenario, rows, cols, dcols, dtype, pad", [(1, 1, 20, 32, np.float16, 1),
                                                                      (2, 32, 59, 64, np.float32, 0)])
def test_data_copy_pad_scenarios(scenario, rows, cols, dcols, dtype, pad):
    rng = np.random.default_rng(scenario)
    x = rng.uniform(-10, 10, (rows, cols)).astype(dtype)
    z = np.full((rows, dcols), 99, dtype)
    asc.launch(data_copy_pad_custom, 1, x, z, rows, cols, dcols, rows * dcols, scenario)
    want = np.full((rows, dcols), pad, dtype)
    want[:, :cols] = x
    np.testing.assert_array_equal(z, want)
