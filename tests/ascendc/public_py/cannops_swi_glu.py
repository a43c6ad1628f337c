"""A line-by-line Python port of cann-ops' swi_glu kernel, float path (Hayden727/cann-ops,
src/activation/swi_glu/op_kernel/: swi_glu.cpp, swi_glu_single.hpp, swi_glu_impl.hpp, glu_tiling_kernel.hpp,
glu_tiling.hpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/swi_glu/):
SwigluSingle<SwigluVector<float, float, bufferNum>> (TILING_KEY 0; isDoubleBuffer picks bufferNum 2 / 1), the
32-byte-aligned path: tiles of baseRowLen x baseColLen dealt round-robin to the blocks, the a and b halves of
each row read with strided DataCopyParams. The half / bfloat16 classes (swi_glu_bf16.hpp) are not ported."""
from npusim import ascendc as asc

DEFAULT_MIN_BLOCK_SIZE = 32
F32 = asc.float


def AlignUp(num, rnd):
    return 0 if rnd == 0 else (num + rnd - 1) // rnd * rnd


class SwiGluCopyParam:
    def __init__(self):
        self.blockCount, self.blockLen, self.stride = 0, 0, 0


class SwiGluSinlgeTileCopyParam:
    def __init__(self):
        self.splitVecCopyParam, self.indepVecCopyParam = SwiGluCopyParam(), SwiGluCopyParam()


class SwiGluSingleTileOffsetParam:
    splitVecGmOffset1 = splitVecGmOffset2 = indepVecGmoffset = 0


class SwigluSingleTilingKernel:
    """glu_tiling_kernel.hpp: the tiling read from GM and the per-tile offsets and copy parameters."""
    def GetTilingAndOffset(self, t, inputDTypeLen):
        self.is32BAligned = t["is32BAligned"]
        self.rowLen, self.colLen = t["rowLen"], t["colLen"]
        self.combColLen = self.colLen * 2
        self.totalBlockLen = self.rowLen * self.combColLen
        self.baseRowLen, self.baseColLen = t["baseRowLen"], t["baseColLen"]
        unit = max(1, DEFAULT_MIN_BLOCK_SIZE // (inputDTypeLen or 2))
        self.tileLength = (self.baseRowLen * self.baseColLen if self.is32BAligned == 1
                           else self.baseRowLen * AlignUp(self.baseColLen, unit))
        self.baseRowTileNum = self.rowLen // self.baseRowLen
        self.baseColTileNum = self.colLen // self.baseColLen
        self.tailRowLen = self.rowLen % self.baseRowLen
        self.tailColLen = self.colLen % self.baseColLen
        self.rowTileNum = self.baseRowTileNum + 1 if self.tailRowLen > 0 else self.baseRowTileNum
        self.colTileNum = self.baseColTileNum + 1 if self.tailColLen > 0 else self.baseColTileNum
        self.totalTileNum = self.rowTileNum * self.colTileNum
        self.offsetParam = SwiGluSingleTileOffsetParam()
        self.CaclTileCopyParams(inputDTypeLen)

    def CaclOneTileCopyParam(self, calRowLen, calColLen, inputDTypeLen, p):
        blockUnit = DEFAULT_MIN_BLOCK_SIZE if self.is32BAligned == 1 else 1
        p.splitVecCopyParam.blockCount = calRowLen
        p.splitVecCopyParam.blockLen = calColLen * inputDTypeLen // blockUnit
        p.splitVecCopyParam.stride = 0 if calRowLen == 1 else (self.combColLen - calColLen) * inputDTypeLen // blockUnit
        p.indepVecCopyParam.blockCount = calRowLen
        p.indepVecCopyParam.blockLen = calColLen * inputDTypeLen // blockUnit
        p.indepVecCopyParam.stride = 0 if calRowLen == 1 else (self.colLen - calColLen) * inputDTypeLen // blockUnit

    def _cal_len(self, rows, cols, inputDTypeLen):
        unit = max(1, DEFAULT_MIN_BLOCK_SIZE // (inputDTypeLen or 2))
        return rows * cols if self.is32BAligned == 1 else rows * AlignUp(cols, unit)

    def CaclTileCopyParams(self, inputDTypeLen):
        self.params = {}
        for key, rows, cols in (("bb", self.baseRowLen, self.baseColLen), ("bt", self.baseRowLen, self.tailColLen),
                                ("tb", self.tailRowLen, self.baseColLen), ("tt", self.tailRowLen, self.tailColLen)):
            p = SwiGluSinlgeTileCopyParam()
            self.CaclOneTileCopyParam(rows, cols, inputDTypeLen, p)
            self.params[key] = (self._cal_len(rows, cols, inputDTypeLen), p)

    def CaclOneTileOffsetParam(self, gmRowOffset, colIdx):
        o = self.offsetParam
        o.splitVecGmOffset1 = gmRowOffset * self.combColLen + colIdx * self.baseColLen
        o.splitVecGmOffset2 = o.splitVecGmOffset1 + self.colLen
        o.indepVecGmoffset = gmRowOffset * self.colLen + colIdx * self.baseColLen

    def CaclOneTileParam(self, tileIdx):
        rowTileIdx, colTileIdx = tileIdx // self.colTileNum, tileIdx % self.colTileNum
        self.CaclOneTileOffsetParam(rowTileIdx * self.baseRowLen, colTileIdx)
        key = ("b" if rowTileIdx < self.baseRowTileNum else "t") + ("b" if colTileIdx < self.baseColTileNum else "t")
        self.curCalLen, self.curTileCopyParam = self.params[key]


class SwigluVector:
    """swi_glu_impl.hpp."""
    def __init__(self, inType, outType, bufferNum):
        self.inType, self.outType, self.bufferNum = inType, outType, bufferNum
        self.beta = 1.0
        self.pipe = asc.TPipe()
        self.inQueueA = asc.TQue(asc.QuePosition.VECIN, bufferNum)
        self.inQueueB = asc.TQue(asc.QuePosition.VECIN, bufferNum)
        self.outQueueC = asc.TQue(asc.QuePosition.VECOUT, bufferNum)
        self.tmpQueue = asc.TBuf(asc.TPosition.VECCALC)
        self.aGm, self.bGm, self.cGm = asc.GlobalTensor(inType), asc.GlobalTensor(inType), asc.GlobalTensor(outType)

    def InitUbBuffer(self, tileLength):
        self.pipe.InitBuffer(self.inQueueA, self.bufferNum, tileLength * self.inType.itemsize)
        self.pipe.InitBuffer(self.inQueueB, self.bufferNum, tileLength * self.inType.itemsize)
        self.pipe.InitBuffer(self.outQueueC, self.bufferNum, tileLength * self.outType.itemsize)
        self.pipe.InitBuffer(self.tmpQueue, tileLength * F32.itemsize)
        tempLocal = self.tmpQueue.Get(F32)
        asc.Duplicate(tempLocal, 1.0, tileLength)

    def Compute(self, curTileLen):
        aLocal = self.inQueueA.DeQue(self.inType)
        cLocal = self.outQueueC.AllocTensor(self.outType)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Muls(cLocal, aLocal, self.beta, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Exp(cLocal, cLocal, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Adds(cLocal, cLocal, 1.0, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        tempLocal = self.tmpQueue.Get(F32)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Div(cLocal, tempLocal, cLocal, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Mul(cLocal, cLocal, aLocal, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        self.inQueueA.FreeTensor(aLocal)
        bLocal = self.inQueueB.DeQue(self.inType)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Mul(cLocal, cLocal, bLocal, curTileLen)
        asc.PipeBarrier(asc.PIPE_V)
        self.inQueueB.FreeTensor(bLocal)
        self.outQueueC.EnQue(cLocal)


class SwigluSingle(SwigluVector):
    """swi_glu_single.hpp (over SwigluVector)."""
    def Init(self, input_gm, beta_gm, output_gm, tiling_gm):
        self.singleTiling = SwigluSingleTilingKernel()
        self.singleTiling.GetTilingAndOffset(tiling_gm, self.inType.itemsize)
        self.InitGmBuffer(input_gm, beta_gm, output_gm)
        self.InitUbBuffer(self.singleTiling.tileLength)

    def Process(self):
        if self.singleTiling.is32BAligned == 1:
            t = self.singleTiling                                   # SWIGLU_SINGLE_PROCESS
            blockNum = asc.GetBlockNum()
            for tileIdx in range(asc.GetBlockIdx(), t.totalTileNum, blockNum):   # get_block_idx(): not in the Python API
                t.CaclOneTileParam(tileIdx)
                self.CopyIn(t.offsetParam, t.curTileCopyParam)
                self.Compute(t.curCalLen)
                self.CopyOut(t.offsetParam, t.curTileCopyParam)
        else:
            raise NotImplementedError("swi_glu: the non-32-byte-aligned path is not ported")

    def InitGmBuffer(self, input_gm, beta_gm, output_gm):
        self.beta = -1.0
        self.aGm.SetGlobalBuffer(input_gm.cast(self.inType), self.singleTiling.totalBlockLen)
        self.cGm.SetGlobalBuffer(output_gm.cast(self.outType), self.singleTiling.totalBlockLen // 2)

    def CopyIn(self, offsetParam, p):
        s = p.splitVecCopyParam
        splitCopyinParams = asc.DataCopyParams(s.blockCount, s.blockLen, s.stride, 0)
        aLocal = self.inQueueA.AllocTensor(self.inType)
        asc.DataCopy(aLocal, self.aGm[offsetParam.splitVecGmOffset1], splitCopyinParams)
        self.inQueueA.EnQue(aLocal)
        bLocal = self.inQueueB.AllocTensor(self.inType)
        asc.DataCopy(bLocal, self.aGm[offsetParam.splitVecGmOffset2], splitCopyinParams)
        self.inQueueB.EnQue(bLocal)

    def CopyOut(self, offsetParam, p):
        s = p.indepVecCopyParam
        indepCopyinParams = asc.DataCopyParams(s.blockCount, s.blockLen, 0, s.stride)
        cLocal = self.outQueueC.DeQue(self.outType)
        asc.DataCopy(self.cGm[offsetParam.indepVecGmoffset], cLocal, indepCopyinParams)
        self.outQueueC.FreeTensor(cLocal)


def swi_glu(input_gm, output_gm, workspace=None, tiling=None):
    key = tiling.get("TILING_KEY", 0)
    if key != 0:
        raise NotImplementedError(f"swi_glu TILING_KEY {key} (half / bfloat16) is not ported")
    op = SwigluSingle(F32, F32, 2 if tiling["isDoubleBuffer"] == 1 else 1)
    op.Init(input_gm, None, output_gm, tiling)
    op.Process()
