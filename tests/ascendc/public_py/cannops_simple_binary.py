"""Line-by-line Python ports of two short cann-ops binary kernels (Hayden727/cann-ops @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/<op>/):
src/math/unalign_add/op_kernel/unalign_add.cpp (x + y, tiles of blockLength / tileNum / BUFFER_NUM) and
src/math/sub_frameworklaunch/op_kernel/sub_frameworklaunch.cpp (half x - y, former blocks longer than tail
blocks, one tile per block, TILING_KEY 1)."""
from npusim import ascendc as asc

BUFFER_NUM_UNALIGN_ADD = 2
BUFFER_NUM_SUB = 2


class KernelUnalignAdd:
    BUFFER_NUM = BUFFER_NUM_UNALIGN_ADD

    def __init__(self, DTYPE_X, DTYPE_Y, DTYPE_Z):
        self.X, self.Y, self.Z = DTYPE_X, DTYPE_Y, DTYPE_Z
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, self.BUFFER_NUM)
        self.inQueueY = asc.TQue(asc.QuePosition.VECIN, self.BUFFER_NUM)
        self.outQueueZ = asc.TQue(asc.QuePosition.VECOUT, self.BUFFER_NUM)
        self.xGm, self.yGm, self.zGm = asc.GlobalTensor(DTYPE_X), asc.GlobalTensor(DTYPE_Y), asc.GlobalTensor(DTYPE_Z)

    def Init(self, x, y, z, totalLength, tileNum):
        self.blockLength = totalLength // asc.GetBlockNum()
        self.tileNum = tileNum
        self.tileLength = self.blockLength // tileNum // self.BUFFER_NUM
        off = self.blockLength * asc.GetBlockIdx()
        self.xGm.SetGlobalBuffer(x.cast(self.X) + off, self.blockLength)
        self.yGm.SetGlobalBuffer(y.cast(self.Y) + off, self.blockLength)
        self.zGm.SetGlobalBuffer(z.cast(self.Z) + off, self.blockLength)
        self.pipe.InitBuffer(self.inQueueX, self.BUFFER_NUM, self.tileLength * self.X.itemsize)
        self.pipe.InitBuffer(self.inQueueY, self.BUFFER_NUM, self.tileLength * self.Y.itemsize)
        self.pipe.InitBuffer(self.outQueueZ, self.BUFFER_NUM, self.tileLength * self.Z.itemsize)

    def Process(self):
        for i in range(self.tileNum * self.BUFFER_NUM):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.X)
        yLocal = self.inQueueY.AllocTensor(self.Y)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileLength], self.tileLength)
        asc.DataCopy(yLocal, self.yGm[progress * self.tileLength], self.tileLength)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.X)
        yLocal = self.inQueueY.DeQue(self.Y)
        zLocal = self.outQueueZ.AllocTensor(self.Z)
        asc.Add(zLocal, xLocal, yLocal, self.tileLength)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.Z)
        asc.DataCopy(self.zGm[progress * self.tileLength], zLocal, self.tileLength)
        self.outQueueZ.FreeTensor(zLocal)


def unalign_add(x, y, z, workspace=None, tiling=None, DTYPE_X=asc.float, DTYPE_Y=asc.float, DTYPE_Z=asc.float):
    op = KernelUnalignAdd(DTYPE_X, DTYPE_Y, DTYPE_Z)
    op.Init(x, y, z, tiling["totalLength"], tiling["tileNum"])
    op.Process()


class KernelSub:
    BUFFER_NUM = BUFFER_NUM_SUB

    def __init__(self):
        H = asc.half
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.TPosition.VECIN, self.BUFFER_NUM)
        self.inQueueY = asc.TQue(asc.TPosition.VECIN, self.BUFFER_NUM)
        self.outQueueZ = asc.TQue(asc.TPosition.VECOUT, self.BUFFER_NUM)
        self.xGm, self.yGm, self.zGm = asc.GlobalTensor(H), asc.GlobalTensor(H), asc.GlobalTensor(H)

    def Init(self, x, y, z, formerNum, tailNum, formerLength, tailLength, alignNum):
        H, idx = asc.half, asc.GetBlockIdx()
        if idx < formerNum:
            self.tileLength = formerLength
            off, n = formerLength * idx, formerLength
        else:
            self.tileLength = tailLength
            off, n = formerLength * formerNum + tailLength * (idx - formerNum), tailLength
        self.xGm.SetGlobalBuffer(x.cast(H) + off, n)
        self.yGm.SetGlobalBuffer(y.cast(H) + off, n)
        self.zGm.SetGlobalBuffer(z.cast(H) + off, n)
        self.pipe.InitBuffer(self.inQueueX, self.BUFFER_NUM, self.tileLength * H.itemsize)
        self.pipe.InitBuffer(self.inQueueY, self.BUFFER_NUM, self.tileLength * H.itemsize)
        self.pipe.InitBuffer(self.outQueueZ, self.BUFFER_NUM, self.tileLength * H.itemsize)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        xLocal = self.inQueueX.AllocTensor(asc.half)
        yLocal = self.inQueueY.AllocTensor(asc.half)
        asc.DataCopy(xLocal, self.xGm, self.tileLength)
        asc.DataCopy(yLocal, self.yGm, self.tileLength)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self):
        xLocal = self.inQueueX.DeQue(asc.half)
        yLocal = self.inQueueY.DeQue(asc.half)
        zLocal = self.outQueueZ.AllocTensor(asc.half)
        asc.Sub(zLocal, xLocal, yLocal, self.tileLength)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self):
        zLocal = self.outQueueZ.DeQue(asc.half)
        asc.DataCopy(self.zGm, zLocal, self.tileLength)
        self.outQueueZ.FreeTensor(zLocal)


def sub_frameworklaunch(x, y, z, workspace=None, tiling=None):
    t = tiling
    op = KernelSub()
    op.Init(x, y, z, t["formerNum"], t["tailNum"], t["formerLength"], t["tailLength"], t["alignNum"])
    if t.get("TILING_KEY", 0) == 1:
        op.Process()
