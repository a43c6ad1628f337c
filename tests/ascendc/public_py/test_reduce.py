"""Python port of Huawei's ReduceRepeat / ReduceDataBlock sum sample (reduction), Compute1..Compute3.

Original: github.com/mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
reduce/reduce.asc (class KernelReduce, REDUCE_TILING_1..3), commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7.
Compute4/5 (a hand-written binary reduction with GetSystemCycle) are not ported. The template argument
``ReduceType::SUM`` and ``isSetMask=false`` are the subscription form ``asc.ReduceRepeat[asc.ReduceType.SUM, T, T,
False]``; the counter-mode mask comes from SetMaskCount / SetVectorMask as in the original.
"""
import numpy as np
import pytest

from npusim import ascendc as asc

REDUCE_TILING_1, REDUCE_TILING_2, REDUCE_TILING_3 = 1, 2, 3
SUM = asc.ReduceType.SUM


class KernelReduce:
    DEFAULT_BLK_STRIDE = 1
    DEFAULT_REP_STRIDE = 8
    REP_LEN = 256
    BLK_LEN = 32

    def __init__(self, T):
        self.T = T

    def Init(self, x, z, totalLength, outLength, pipeIn):
        self.pipe = pipeIn
        self.totalLength = totalLength
        self.outLength = outLength
        T = self.T
        self.xGm = asc.GlobalTensor(T); self.xGm.SetGlobalBuffer(x.cast(T), totalLength)
        self.zGm = asc.GlobalTensor(T); self.zGm.SetGlobalBuffer(z.cast(T), outLength)
        self.inQueueX = asc.TQue(asc.TPosition.VECIN, 1)
        self.outQueueZ = asc.TQue(asc.TPosition.VECOUT, 1)
        self.calcBuf = asc.TBuf(asc.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueX, 1, totalLength * T.itemsize)
        self.pipe.InitBuffer(self.outQueueZ, 1, outLength * T.itemsize)

    def Compute(self, ComputeKey):
        {REDUCE_TILING_1: self.Compute1, REDUCE_TILING_2: self.Compute2, REDUCE_TILING_3: self.Compute3}[ComputeKey]()

    def Process(self, ComputeKey):
        self.CopyIn()
        self.Compute(ComputeKey)
        self.CopyOut()

    def CopyIn(self):
        xLocal = self.inQueueX.AllocTensor(self.T)
        asc.DataCopy(xLocal, self.xGm, self.totalLength)
        self.inQueueX.EnQue(xLocal)

    def Compute1(self):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        zero = 0
        asc.Duplicate(zLocal, zero, self.outLength)

        maskLen = self.REP_LEN // T.itemsize
        asc.ReduceRepeat[SUM, T](zLocal, xLocal, maskLen, 1, self.DEFAULT_BLK_STRIDE, self.DEFAULT_BLK_STRIDE,
                                 self.DEFAULT_REP_STRIDE)

        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute2(self):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        zero = 0
        asc.Duplicate(zLocal, zero, self.outLength)

        self.pipe.InitBuffer(self.calcBuf, self.totalLength * T.itemsize)
        tempTensor1 = self.calcBuf.Get(T)
        c0Count = self.BLK_LEN // T.itemsize
        blockNum0 = (self.totalLength + c0Count - 1) // c0Count

        asc.SetMaskCount()
        asc.SetVectorMask(T, 0, self.totalLength)
        asc.ReduceDataBlock[SUM, T, T, False](tempTensor1, xLocal, asc.MASK_PLACEHOLDER, 1, self.DEFAULT_BLK_STRIDE,
                                              self.DEFAULT_BLK_STRIDE, self.DEFAULT_REP_STRIDE)
        asc.PipeBarrier(asc.PIPE_V)
        asc.SetVectorMask(T, 0, blockNum0)
        asc.ReduceRepeat[SUM, T, T, False](zLocal, tempTensor1, asc.MASK_PLACEHOLDER, 1, self.DEFAULT_BLK_STRIDE,
                                           self.DEFAULT_BLK_STRIDE, self.DEFAULT_REP_STRIDE)
        asc.PipeBarrier(asc.PIPE_V)
        asc.SetMaskNorm()

        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute3(self):
        T = self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        zero = 0
        asc.Duplicate(zLocal, zero, self.outLength)

        self.pipe.InitBuffer(self.calcBuf, self.totalLength * T.itemsize)
        tempTensor1 = self.calcBuf.Get(T)
        repeatNum = (self.totalLength * T.itemsize + self.REP_LEN - 1) // self.REP_LEN

        asc.SetMaskCount()
        asc.SetVectorMask(T, 0, self.totalLength)
        asc.ReduceRepeat[SUM, T, T, False](tempTensor1, xLocal, asc.MASK_PLACEHOLDER, 1, self.DEFAULT_BLK_STRIDE,
                                           self.DEFAULT_BLK_STRIDE, self.DEFAULT_REP_STRIDE)
        asc.PipeBarrier(asc.PIPE_V)
        asc.SetVectorMask(T, 0, repeatNum)
        asc.ReduceRepeat[SUM, T, T, False](zLocal, tempTensor1, asc.MASK_PLACEHOLDER, 1, self.DEFAULT_BLK_STRIDE,
                                           self.DEFAULT_BLK_STRIDE, self.DEFAULT_REP_STRIDE)
        asc.PipeBarrier(asc.PIPE_V)
        asc.SetMaskNorm()

        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self):
        zLocal = self.outQueueZ.DeQue(self.T)
        asc.DataCopy(self.zGm, zLocal, self.outLength)
        self.outQueueZ.FreeTensor(zLocal)


def reduce_custom(x, z, totalLength, outLength, key, T):
    pipe = asc.TPipe()
    op = KernelReduce(T)
    op.Init(x, z, totalLength, outLength, pipe)
    op.Process(key)


def _tree(v):
    v = v.astype(np.float32)
    while v.shape[-1] > 1:
        v = v[..., 0::2] + v[..., 1::2]
    return v[..., 0]


@pytest.mark.parametrize("key, n", [(REDUCE_TILING_1, 64), (REDUCE_TILING_2, 512), (REDUCE_TILING_3, 4096)])
def test_reduce_sum_float(key, n):
    rng = np.random.default_rng(key)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    z = np.full(8, 7, np.float32)
    asc.launch(reduce_custom, 1, x, z, n, 8, key, asc.float)
    assert (z[1:] == 0).all()
    np.testing.assert_allclose(z[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    if key == REDUCE_TILING_1:
        assert z[0] == _tree(x)                  # one repeat: the vendor's binary tree, exactly
    if key == REDUCE_TILING_3:                   # 64 per repeat, then the 64 repeat sums: two trees
        assert z[0] == _tree(_tree(x.reshape(-1, 64)))


def test_reduce_sum_half_two_stages():
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, 1024).astype(np.float16)
    z = np.zeros(16, np.float16)
    asc.launch(reduce_custom, 1, x, z, 1024, 16, REDUCE_TILING_2, asc.half)
    np.testing.assert_allclose(float(z[0]), x.astype(np.float64).sum(), atol=0.05)
