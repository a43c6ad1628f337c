"""A line-by-line Python port of cann-ops' heaviside kernel (Hayden727/cann-ops,
src/math/heaviside/op_kernel/heaviside.cpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/heaviside/): KernelHeaviside<flag, valuesCountIsOne>, TILING_KEY 1 (a values tensor, one
UB pass), 2 (a values tensor, 100 * 512-byte passes) and 4 (one value, 100 * 512-byte passes).
CompareScalar into a bit mask and Select tensor-scalar, with the kernel's explicit PipeBarrier<PIPE_V>s."""
from npusim import ascendc as asc

BufferNum = 1
DTYPE_INPUT = DTYPE_VALUES = DTYPE_OUT = asc.float


class KernelHeaviside:
    def __init__(self, flag, valuesCountIsOne):
        self.flag, self.valuesCountIsOne = flag, valuesCountIsOne
        self.inputGm, self.valuesGm = asc.GlobalTensor(DTYPE_INPUT), asc.GlobalTensor(DTYPE_VALUES)
        self.outGm = asc.GlobalTensor(DTYPE_OUT)
        self.inQueueInput = asc.TQue(asc.QuePosition.VECIN, BufferNum)
        self.inQueueValues = asc.TQue(asc.QuePosition.VECIN, BufferNum)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BufferNum)
        self.selMaskQueue = asc.TQue(asc.QuePosition.VECCALC, BufferNum)

    def Init(self, input, values, out, smallSize, incSize, formerNum, pipeIn):
        self.pipe = pipeIn
        beginIndex = 0
        if asc.GetBlockIdx() < formerNum:
            self.size = smallSize + incSize
            beginIndex = self.size * asc.GetBlockIdx()
        else:
            self.size = smallSize
            beginIndex = self.size * asc.GetBlockIdx() + formerNum * incSize
        size = self.size
        self.inputGm.SetGlobalBuffer(input.cast(DTYPE_INPUT) + beginIndex, size)
        self.outGm.SetGlobalBuffer(out.cast(DTYPE_OUT) + beginIndex, size)
        if self.valuesCountIsOne:
            self.valuesGm.SetGlobalBuffer(values.cast(DTYPE_VALUES), size)
            self.scalar = self.valuesGm.GetValue(0)
        else:
            self.valuesGm.SetGlobalBuffer(values.cast(DTYPE_VALUES) + beginIndex, size)
        if self.flag:
            spaceSize = size * DTYPE_VALUES.itemsize // BufferNum
            self.pipe.InitBuffer(self.inQueueInput, BufferNum, spaceSize)
            self.pipe.InitBuffer(self.inQueueValues, BufferNum, spaceSize)
            self.pipe.InitBuffer(self.selMaskQueue, BufferNum, size >> 3)
            self.pipe.InitBuffer(self.outQueueY, BufferNum, spaceSize)
        else:
            self.pipe.InitBuffer(self.inQueueInput, BufferNum, 100 * 512 // BufferNum)
            self.pipe.InitBuffer(self.inQueueValues, BufferNum, 100 * 512 // BufferNum)
            self.pipe.InitBuffer(self.selMaskQueue, BufferNum, 100 * 512 // BufferNum // 8 // DTYPE_VALUES.itemsize)
            self.pipe.InitBuffer(self.outQueueY, BufferNum, 100 * 512 // BufferNum)

    def Process_iter(self, beginIndex, iterSize):
        valuesLocal = self.inQueueValues.AllocTensor(DTYPE_VALUES)
        if self.valuesCountIsOne:
            asc.PipeBarrier(asc.PIPE_V)
            asc.Duplicate(valuesLocal, self.scalar, iterSize)
        else:
            asc.DataCopy(valuesLocal, self.valuesGm[beginIndex], iterSize)
            self.inQueueValues.EnQue(valuesLocal)
            valuesLocal = self.inQueueValues.DeQue(DTYPE_VALUES)
        inputLocal = self.inQueueInput.AllocTensor(DTYPE_INPUT)
        asc.DataCopy(inputLocal, self.inputGm[beginIndex], iterSize)
        self.inQueueInput.EnQue(inputLocal)
        inputLocal = self.inQueueInput.DeQue(DTYPE_INPUT)
        outLocal = self.outQueueY.AllocTensor(DTYPE_VALUES)
        selMaskLocal = self.selMaskQueue.AllocTensor(asc.uint8_t)
        asc.PipeBarrier(asc.PIPE_V)
        # == 0: from valuesLocal, else 1
        asc.CompareScalar(selMaskLocal, inputLocal, 0.0, asc.CMPMODE.EQ, iterSize)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Select(valuesLocal, selMaskLocal, valuesLocal, 1.0, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, iterSize)
        asc.PipeBarrier(asc.PIPE_V)
        # >= 0: from valuesLocal, else 0
        asc.CompareScalar(selMaskLocal, inputLocal, 0.0, asc.CMPMODE.GE, iterSize)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Select(outLocal, selMaskLocal, valuesLocal, 0.0, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, iterSize)
        self.inQueueInput.FreeTensor(inputLocal)
        self.inQueueValues.FreeTensor(valuesLocal)
        self.selMaskQueue.FreeTensor(selMaskLocal)
        self.outQueueY.EnQue(outLocal)
        outLocal = self.outQueueY.DeQue(DTYPE_VALUES)
        asc.DataCopy(self.outGm[beginIndex], outLocal, iterSize)
        self.outQueueY.FreeTensor(outLocal)

    def Process(self):
        if self.flag:
            if BufferNum == 2:
                n_elements_per_iter = self.size // BufferNum
                self.Process_iter(0, n_elements_per_iter)
                self.Process_iter(n_elements_per_iter, n_elements_per_iter)
            else:
                self.Process_iter(0, self.size)
        else:
            n_elements_per_iter = 100 * 512 // DTYPE_VALUES.itemsize // BufferNum
            repeatTimes = self.size // n_elements_per_iter
            remainSize = self.size % n_elements_per_iter
            for i in range(repeatTimes):
                self.Process_iter(i * n_elements_per_iter, n_elements_per_iter)
            self.Process_iter(repeatTimes * n_elements_per_iter, remainSize)


def heaviside(input, values, out, workspace=None, tiling=None):
    pipe = asc.TPipe()
    t = tiling
    variant = {1: (True, False), 2: (False, False), 4: (False, True)}.get(t.get("TILING_KEY", 0))
    if variant is None:
        if t.get("TILING_KEY", 0) in (3, 5):
            raise NotImplementedError("heaviside TILING_KEY 3 / 5 (small-data scalar, broadcast) are not ported")
        return
    op = KernelHeaviside(*variant)
    op.Init(input, values, out, t["smallSize"], t["incSize"], t["formerNum"], pipe)
    op.Process()
