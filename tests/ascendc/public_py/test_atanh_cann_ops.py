"""Python port of a public cann-ops Atanh kernel (hand-written double buffering with flags, no TPipe/TQue).

Original: github.com/hicann/cann-ops-competitions,
01_official/operator-challenge/cann-ops-challenge-S8/submissions/Atanh/Cishoon/op_kernel/atanh.cpp,
commit 9d54ad26513ab7c0354023bbfd915b1b9ef8da70. The float/half path (no Cast) is ported line by line; the
kernel's in-place vector chain (Muls then Adds on inLocal[j], Ln and Muls on outLocal[j]) has no
PipeBarrier<PIPE_V>: it relies on the compiler's auto-sync. The 64-bit tiling load is two uint32 scalar loads
(the same bytes: low word smallCoreDataNum | tailBlockNum, high word tileLength). The host tiling is written
here from the kernel's own decoding.
"""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import RaceError

HardEvent = asc.HardEvent


class KernelAtanh:
    def __init__(self, T):
        self.T = T

    def Init(self, input, output, coreDataNum, globalOffset, tileLength):  # noqa: A002 - the original's names
        T = self.T
        asc.InitSocState()
        self.inputGm = asc.GlobalTensor(T); self.outputGm = asc.GlobalTensor(T)
        self.inputGm.SetGlobalBuffer(input.cast(T) + globalOffset, coreDataNum)
        self.outputGm.SetGlobalBuffer(output.cast(T) + globalOffset, coreDataNum)
        self.coreDataNum = coreDataNum
        self.tileLength = tileLength

        tBytes = tileLength * T.itemsize
        self.inLocal = [asc.LocalTensor[T](asc.TPosition.VECIN, 0, tileLength),
                        asc.LocalTensor[T](asc.TPosition.VECIN, tBytes, tileLength)]
        self.outLocal = [asc.LocalTensor[T](asc.TPosition.VECOUT, 2 * tBytes, tileLength),
                         asc.LocalTensor[T](asc.TPosition.VECOUT, 3 * tBytes, tileLength)]

    def Process(self):
        numTiles = (self.coreDataNum + self.tileLength - 1) // self.tileLength
        for it in range(numTiles):
            j = it & 1
            offset = it * self.tileLength
            length = self.tileLength if offset + self.tileLength <= self.coreDataNum else self.coreDataNum - offset

            if it >= 2:
                asc.WaitFlag(HardEvent.MTE3_MTE2, j)
            asc.DataCopy(self.inLocal[j], self.inputGm[offset], length)
            asc.SetFlag(HardEvent.MTE2_V, j)
            asc.WaitFlag(HardEvent.MTE2_V, j)

            self.Compute(j, length)

            asc.SetFlag(HardEvent.V_MTE3, j)
            asc.WaitFlag(HardEvent.V_MTE3, j)
            asc.DataCopy(self.outputGm[offset], self.outLocal[j], length)
            if it + 2 < numTiles:
                asc.SetFlag(HardEvent.MTE3_MTE2, j)

    def Compute(self, j, length):
        inL, outL = self.inLocal[j], self.outLocal[j]
        asc.Adds(outL, inL, 1.0, length)
        asc.Muls(inL, inL, -1.0, length)
        asc.Adds(inL, inL, 1.0, length)
        asc.Div(outL, outL, inL, length)
        asc.Ln(outL, outL, length)
        asc.Muls(outL, outL, 0.5, length)


def atanh(input, output, workspace, tiling, T):  # noqa: A002
    asc.KERNEL_TASK_TYPE_DEFAULT(asc.KERNEL_TYPE_AIV_ONLY)
    words = asc.GlobalTensor(asc.uint32_t)
    words.SetGlobalBuffer(tiling)
    packedSmallCoreDataNum = int(words.GetValue(0))
    tileLength = int(words.GetValue(1))

    tailBlockNum = packedSmallCoreDataNum & 127
    smallCoreDataNum = packedSmallCoreDataNum & ~127
    kBlockDataNum = 512 // T.itemsize
    bigCoreDataNum = smallCoreDataNum + kBlockDataNum

    coreIdx = asc.GetBlockIdx()
    if coreIdx < tailBlockNum:
        coreDataNum = bigCoreDataNum
        globalOffset = bigCoreDataNum * coreIdx
    else:
        coreDataNum = smallCoreDataNum
        globalOffset = bigCoreDataNum * tailBlockNum + smallCoreDataNum * (coreIdx - tailBlockNum)

    op = KernelAtanh(T)
    op.Init(input, output, coreDataNum, globalOffset, tileLength)
    op.Process()


def _tiling(n, cores, dtype_size, tile):
    per_block = 512 // dtype_size
    blocks = n // per_block
    small = blocks // cores * per_block
    tail = blocks % cores
    return np.array([small | tail, tile], np.uint32).view(np.uint8)


def _run(dtype, asc_t, **kw):
    cores, tile = 4, 256
    n = 4 * 1024 + 2 * (512 // np.dtype(dtype).itemsize)     # two cores get one extra 512-byte block
    rng = np.random.default_rng(11)
    x = rng.uniform(-0.95, 0.95, n).astype(dtype)
    y = np.zeros_like(x)
    asc.launch(atanh, cores, x, y, np.zeros(32, np.uint8), _tiling(n, cores, x.itemsize, tile), asc_t, **kw)
    return x, y


def test_atanh_float_matches_numpy():
    x, y = _run(np.float32, asc.float)
    np.testing.assert_allclose(y, np.arctanh(x.astype(np.float64)), rtol=2e-6, atol=1e-7)


def test_atanh_half_matches_numpy_within_half_rounding():
    x, y = _run(np.float16, asc.half)
    np.testing.assert_allclose(y.astype(np.float64), np.arctanh(x.astype(np.float64)), rtol=4e-3, atol=2e-3)


def test_atanh_relies_on_auto_sync():
    with pytest.raises(RaceError, match="PipeBarrier<PIPE_V>"):
        _run(np.float32, asc.float, sync="manual")
