"""A line-by-line Python port of cann-ops' is_inf kernel (Hayden727/cann-ops, src/math/is_inf/op_kernel/is_inf.cpp
and is_inf.h @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/is_inf/):
IsInf<T, MASK, INF_MASK> on int16 bit patterns (And with the sign mask, Adds -INF_MASK, And, Mins, Muls, Adds,
Cast CAST_CEIL); TILING_KEY 1 (half), 2 (float), 3 (bfloat16). As with the .cpp, the float key stops at
npusim's overlap rule (the in-place float -> half Cast)."""
from npusim import ascendc as asc

F16_INF_NUM = 0x7c00
BF16_INF_NUM = 0x7f80
FLOAT_INF_NUM = 0x7f800000
SIGN_MASK = 0x7fff
I16, I32, U8 = asc.int16_t, asc.int32_t, asc.uint8_t


class IsInf:
    BUFFER_NUM = 2
    DATA_BLOCK = 32
    FLOAT_INTERVAL_TYPE = 2

    def __init__(self, T, MASK, INF_MASK):
        self.T, self.MASK, self.INF_MASK = T, MASK, INF_MASK
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

    def CopyInX(self, offset, dataLength):
        dataLocal = self.inputQueue.AllocTensor(I16)
        asc.DataCopy(dataLocal, self.inputGM[offset], dataLength)
        self.inputQueue.EnQue(dataLocal)

    def CopyOut(self, offset, dataLength):
        outLocal = self.outputQueue.DeQue(U8)
        asc.DataCopy(self.outputGM[offset], outLocal, dataLength)
        self.outputQueue.FreeTensor(outLocal)

    def CompareInf(self, dataLength):
        ubX = self.inputQueue.DeQue(I16)
        result = self.outputQueue.AllocTensor(U8)
        self.cacheTensor = self.cacheTensorBuff.Get(I16)
        asc.Duplicate(self.cacheTensor, self.MASK, dataLength)       # And with the sign mask: |x| bits
        asc.And(ubX, ubX, self.cacheTensor, dataLength)
        actualCalCount = dataLength // self.selectInterval
        if self.selectInterval == self.FLOAT_INTERVAL_TYPE:
            tmpInt32Tensor = ubX.ReinterpretCast(I32)
            asc.Adds(tmpInt32Tensor, tmpInt32Tensor, -self.INF_MASK, actualCalCount)
            asc.And(ubX, ubX, self.cacheTensor, dataLength)
            asc.Mins(tmpInt32Tensor, tmpInt32Tensor, 1, actualCalCount)
            asc.Muls(tmpInt32Tensor, tmpInt32Tensor, -1, actualCalCount)
            asc.Adds(tmpInt32Tensor, tmpInt32Tensor, 1, actualCalCount)
            asc.Cast(ubX.ReinterpretCast(asc.float), tmpInt32Tensor, asc.RoundMode.CAST_NONE, actualCalCount)
            asc.Cast(ubX.ReinterpretCast(asc.half), ubX.ReinterpretCast(asc.float), asc.RoundMode.CAST_NONE,
                     actualCalCount)
        else:
            asc.Adds(ubX, ubX, -self.INF_MASK, dataLength)
            asc.And(ubX, ubX, self.cacheTensor, dataLength)
            asc.Mins(ubX, ubX, 1, dataLength)
            asc.Muls(ubX, ubX, -1, dataLength)
            asc.Adds(ubX, ubX, 1, dataLength)
        asc.Cast(result, ubX.ReinterpretCast(asc.half), asc.RoundMode.CAST_CEIL, actualCalCount)
        self.inputQueue.FreeTensor(ubX)
        self.outputQueue.EnQue(result)

    def Process(self):
        if self.blockIdx >= self.coreNum:
            return
        self.ComputePerCore()

    def ComputePerCore(self):
        loopCount = self.perCoreDataCount // self.maxDataCount
        tailDataCount = self.perCoreDataCount % self.maxDataCount
        actualInOffset = self.blockOffset
        actualOutOffset = self.blockOffset // self.selectInterval
        actualOutCount = self.maxDataCount // self.selectInterval
        for _ in range(loopCount):
            self.CopyInX(actualInOffset, self.maxDataCount)
            self.CompareInf(self.maxDataCount)
            self.CopyOut(actualOutOffset, actualOutCount)
            actualOutOffset += actualOutCount
            actualInOffset += self.maxDataCount
        if tailDataCount > 0:
            dataBlock = self.DATA_BLOCK // I16.itemsize
            dataCount = (tailDataCount + dataBlock - 1) // dataBlock * dataBlock
            actualOutCount = dataCount // self.selectInterval
            actualOutCount = (actualOutCount + self.DATA_BLOCK - 1) // self.DATA_BLOCK * self.DATA_BLOCK
            self.CopyInX(actualInOffset, dataCount)
            self.CompareInf(dataCount)
            self.CopyOut(actualOutOffset, actualOutCount)


def is_inf(inputs, outputs, workspace=None, tiling=None):
    if workspace is None:
        return
    userWS = None
    variant = {1: (asc.half, SIGN_MASK, F16_INF_NUM), 2: (asc.float, SIGN_MASK, FLOAT_INF_NUM),
               3: (asc.half, SIGN_MASK, BF16_INF_NUM)}
    key = tiling.get("TILING_KEY", 0)
    if key in variant:
        op = IsInf(*variant[key])
        op.Init(inputs, outputs, userWS, tiling)
        op.Process()
