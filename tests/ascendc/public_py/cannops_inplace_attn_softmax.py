"""A line-by-line Python port of cann-ops' inplace_attn_softmax kernel (src/math/inplace_attn_softmax/op_kernel/
inplace_attn_softmax.cpp, inplace_attn_softmax.h, inplace_attn_softmax_bash.h @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/inplace_attn_softmax/): the
small-shape path, TILING_KEY 301 (float) and 101 (half, cast to float around SoftMax). Rows of x are
replaced by their softmax in place."""
from npusim import ascendc as asc

BUFFER_NUM = 1
BLOCK_SIZE = 32


def _ceil_div(x, y):
    return 0 if y == 0 else (x + y - 1) // y


def _align_up(num, div):
    return 0 if div == 0 else (num + div - 1) // div * div


class InplaceAttnSoftmax:
    def __init__(self, pipe, inType, isCast):
        self.pPipe, self.inType, self.isCast = pipe, inType, isCast
        self.inQueueA = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueA = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm = asc.GlobalTensor(inType)
        self.sharedBTempBuf = asc.TBuf(asc.TPosition.VECCALC)

    def Init(self, x, workspace, t):
        self.t = t
        self.softmaxTilingData_ = asc.SoftMaxTiling(t["softmaxTilingData"]["srcM"], t["softmaxTilingData"]["srcK"],
                                                    t["softmaxTilingData"]["srcSize"])
        self.InitParamsComm()
        self.xGm.SetGlobalBuffer(x.cast(self.inType), t["rowLen"] * t["colLen"])
        self.pPipe.InitBuffer(self.inQueueA, BUFFER_NUM, self.tileLength * self.inType.itemsize)
        self.pPipe.InitBuffer(self.outQueueA, BUFFER_NUM, self.tileLength * self.inType.itemsize)
        if self.isCast:
            self.pPipe.InitBuffer(self.sharedBTempBuf, self.tileLength * 4)
            self.tmpCLocal = self.sharedBTempBuf.Get(asc.float)

    def InitParamsComm(self):
        t = self.t
        self.colLen, self.basicColLen = t["colLen"], t["basicColLen"]
        self.coreIdx = asc.GetBlockIdx()
        self.headCoreNum = t["headCoreNum"]
        head = self.coreIdx < self.headCoreNum
        self.rowLenPerCore = t["rowLenPerHeadCore"] if head else t["rowLenPerTailCore"]
        self.basicRowLen = t["basicRowLenHeadCore"] if head else t["basicRowLenTailCore"]
        self.rowLoop = _ceil_div(self.rowLenPerCore, self.basicRowLen)
        alignedNum = BLOCK_SIZE // self.inType.itemsize
        self.sizeHalfLen = _align_up(self.basicColLen, alignedNum)
        self.tileLength = self.basicRowLen * (self.sizeHalfLen or alignedNum)
        self.rightPadding = self.sizeHalfLen - self.basicColLen

    def Process(self):
        for ridx in range(self.rowLoop):
            last = ridx == self.rowLoop - 1
            self.basicRowLenCal = (self.rowLenPerCore - (self.rowLoop - 1) * self.basicRowLen) if last \
                else self.basicRowLen
            s = self.inType.itemsize
            copyin = asc.DataCopyParams(self.basicRowLenCal, self.basicColLen * s, 0, 0)
            copyout = asc.DataCopyParams(self.basicRowLenCal, self.basicColLen * s, 0, 0)
            off = self.coreIdx * self.rowLenPerCore * self.colLen + ridx * self.basicRowLen * self.basicColLen
            self.CopyIn(off, copyin)
            self.Compute()
            self.CopyOut(off, copyout)

    def CopyIn(self, off, params):
        aLocal = self.inQueueA.AllocTensor(self.inType)
        asc.DataCopyPad(aLocal, self.xGm[off], params, asc.DataCopyPadParams(True, 0, self.rightPadding, 0))
        self.inQueueA.EnQue(aLocal)

    def CopyOut(self, off, params):
        outLocal = self.outQueueA.DeQue(self.inType)
        asc.DataCopyPad(self.xGm[off], outLocal, params)
        self.outQueueA.FreeTensor(outLocal)

    def Compute(self):
        aLocal = self.inQueueA.DeQue(self.inType)
        outLocal = self.outQueueA.AllocTensor(self.inType)
        srcShape = asc.SoftMaxShapeInfo(self.basicRowLenCal, self.sizeHalfLen, self.basicRowLenCal, self.basicColLen)
        if self.isCast:
            asc.Cast(self.tmpCLocal, aLocal, asc.RoundMode.CAST_NONE, aLocal.GetSize())
            asc.SoftMax(self.tmpCLocal, self.tmpCLocal, self.softmaxTilingData_, srcShape, T=asc.float)
            asc.Cast(outLocal, self.tmpCLocal, asc.RoundMode.CAST_RINT, aLocal.GetSize())
        else:
            asc.SoftMax(outLocal, aLocal, self.softmaxTilingData_, srcShape, T=self.inType)
        self.inQueueA.FreeTensor(aLocal)
        self.outQueueA.EnQue(outLocal)


def inplace_attn_softmax(x, workspace, tiling):
    if workspace is None or asc.GetBlockIdx() >= tiling["realCoreNum"]:
        return
    pipe = asc.TPipe()
    key = tiling["TILING_KEY"]
    inType, isCast = {301: (asc.float, False), 101: (asc.half, True)}[key]
    op = InplaceAttnSoftmax(pipe, inType, isCast)
    op.Init(x, workspace, tiling)
    op.Process()
