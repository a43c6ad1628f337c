"""A line-by-line Python port of cann-ops' is_finite kernel (Hayden727/cann-ops,
src/math/is_finite/op_kernel/is_finite.cpp and is_finite.h @ eef0ff770ece1497e98bbf063028465a20417dfe, kept
verbatim in tests/ascendc/public/is_finite/), built with __CCE_AICORE__ == 220 (DataCopyPad in and out):
IsFinite<T, MASK> on int16 bit patterns; TILING_KEY 1 (half), 2 (float), 3 (bfloat16)."""
from npusim import ascendc as asc

CCE_AICORE = 220
HALF_TYPE_MASK = 0x7c00
BF16_TYPE_MASK = 0x7f80
I16, U8 = asc.int16_t, asc.uint8_t


class IsFinite:
    BUFFER_NUM = 2
    DATA_BLOCK = 32
    FLOAT_INTERVAL_TYPE = 2
    FLOAT_SHL_NUM = 16384

    def __init__(self, T, MASK):
        self.T, self.MASK = T, MASK
        self.pipe = asc.TPipe()
        self.inputQueue = asc.TQue(asc.QuePosition.VECIN, self.BUFFER_NUM)
        self.outputQueue = asc.TQue(asc.QuePosition.VECOUT, self.BUFFER_NUM)
        self.cacheTensorBuff = asc.TBuf()
        self.inputGM, self.outputGM = asc.GlobalTensor(I16), asc.GlobalTensor(U8)

    def Init(self, x, y, workspace, tilingData):
        self.inputGM.SetGlobalBuffer(x.cast(I16))
        self.outputGM.SetGlobalBuffer(y.cast(U8))
        self.ParseTilingData(tilingData)
        self.maxDataCount = self.usableUbSize // I16.itemsize // self.DATA_BLOCK * self.DATA_BLOCK
        self.actualMaxDataCount = self.maxDataCount // self.selectInterval
        self.pipe.InitBuffer(self.inputQueue, self.BUFFER_NUM, self.maxDataCount * I16.itemsize)
        self.pipe.InitBuffer(self.outputQueue, self.BUFFER_NUM, self.actualMaxDataCount * U8.itemsize)
        self.pipe.InitBuffer(self.cacheTensorBuff, self.maxDataCount * I16.itemsize)

    def ParseTilingData(self, t):
        self.blockIdx = asc.GetBlockIdx()
        self.coreNum = t["needCoreNum"]
        self.usableUbSize = t["usableUbSize"]
        self.perCoreDataCount = t["perCoreDataCount"]
        self.tailCoreNum = t["tailDataCoreNum"]
        self.selectInterval = self.T.itemsize // I16.itemsize
        if self.tailCoreNum == 0:
            self.blockOffset = self.perCoreDataCount * self.blockIdx
        elif self.blockIdx + 1 <= self.tailCoreNum:
            self.perCoreDataCount += self.DATA_BLOCK
            self.blockOffset = self.perCoreDataCount * self.blockIdx
        else:
            self.blockOffset = ((self.perCoreDataCount + self.DATA_BLOCK) * self.tailCoreNum
                                + self.perCoreDataCount * (self.blockIdx - self.tailCoreNum))
        if self.blockIdx == self.coreNum - 1:
            self.perCoreDataCount = t["lastCoreDataCount"]
        self.blockOffset *= self.selectInterval
        self.perCoreDataCount *= self.selectInterval

    def CopyIn(self, offset, calCount):
        dataLocal = self.inputQueue.AllocTensor(I16)
        if CCE_AICORE == 220:
            copyParams = asc.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.blockLen = calCount * 2                       # sizeof(uint16_t)
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            asc.DataCopyPad(dataLocal, self.inputGM[offset], copyParams, asc.DataCopyPadParams(False, 0, 0, 0))
        else:
            asc.DataCopy(dataLocal, self.inputGM[offset], calCount)
        self.inputQueue.EnQue(dataLocal)

    def CopyOut(self, offset, calCount):
        dstLocal = self.outputQueue.DeQue(U8)
        if CCE_AICORE == 220:
            copyParams = asc.DataCopyParams()
            copyParams.blockCount = 1
            copyParams.blockLen = calCount * U8.itemsize
            copyParams.srcStride = 0
            copyParams.dstStride = 0
            asc.DataCopyPad(self.outputGM[offset], dstLocal, copyParams)
        else:
            asc.DataCopy(self.outputGM[offset], dstLocal, calCount)
        self.outputQueue.FreeTensor(dstLocal)

    def Compute(self, calCount):
        srcTensor = self.inputQueue.DeQue(I16)
        dstTensor = self.outputQueue.AllocTensor(U8)
        self.cacheTensor = self.cacheTensorBuff.Get(I16)
        asc.Duplicate(self.cacheTensor, self.MASK, calCount)
        asc.And(srcTensor, srcTensor, self.cacheTensor, calCount)    # exponent bits
        asc.Sub(srcTensor, srcTensor, self.cacheTensor, calCount)    # 0 where all ones (inf / nan)
        asc.Maxs(srcTensor, srcTensor, -1, calCount)
        asc.Muls(srcTensor, srcTensor, -1, calCount)
        actualCalCount = calCount // self.selectInterval
        if self.selectInterval == self.FLOAT_INTERVAL_TYPE:
            asc.Muls(srcTensor, srcTensor, self.FLOAT_SHL_NUM, calCount)
            asc.Cast(srcTensor.ReinterpretCast(asc.half), srcTensor.ReinterpretCast(asc.float),
                     asc.RoundMode.CAST_NONE, actualCalCount)
            asc.Mins(srcTensor, srcTensor, 1, actualCalCount)
        asc.Cast(dstTensor, srcTensor.ReinterpretCast(asc.half), asc.RoundMode.CAST_CEIL, actualCalCount)
        self.inputQueue.FreeTensor(srcTensor)
        self.outputQueue.EnQue(dstTensor)

    def Process(self):
        loopCount = self.perCoreDataCount // self.maxDataCount
        tailDataCount = self.perCoreDataCount % self.maxDataCount
        actualInOffset = self.blockOffset
        actualOutOffset = self.blockOffset // self.selectInterval
        actualOutCount = self.maxDataCount // self.selectInterval
        for _ in range(loopCount):
            self.CopyIn(actualInOffset, self.maxDataCount)
            self.Compute(self.maxDataCount)
            self.CopyOut(actualOutOffset, actualOutCount)
            actualOutOffset += actualOutCount
            actualInOffset += self.maxDataCount
        if tailDataCount > 0:
            dataCount = tailDataCount
            actualOutCount = dataCount // self.selectInterval
            if CCE_AICORE == 220:
                self.CopyIn(actualInOffset, tailDataCount)
                self.Compute(dataCount)
                self.CopyOut(actualOutOffset, actualOutCount)
            else:
                dataBlock = self.DATA_BLOCK // I16.itemsize
                dataCount = (tailDataCount + dataBlock - 1) // dataBlock * dataBlock
                actualOutCount = dataCount // self.selectInterval
                actualOutCount = (actualOutCount + self.DATA_BLOCK - 1) // self.DATA_BLOCK * self.DATA_BLOCK
                self.CopyIn(actualInOffset, dataCount)
                self.Compute(dataCount)
                self.CopyOut(actualOutOffset, actualOutCount)


def is_finite(x, y, workspace=None, tiling=None):
    if workspace is None:
        return
    userWS = None
    variant = {1: (asc.half, HALF_TYPE_MASK), 2: (asc.float, BF16_TYPE_MASK), 3: (asc.half, BF16_TYPE_MASK)}
    key = tiling.get("TILING_KEY", 0)
    if key in variant:
        op = IsFinite(*variant[key])
        op.Init(x, y, userWS, tiling)
        op.Process()
