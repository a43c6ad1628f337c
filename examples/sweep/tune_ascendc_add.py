"""Tune AddCustom's tile length and BUFFER_NUM on three SoCs (examples/ascendc/add_custom.py with the
tiling constants as parameters): 8 blocks x 8192 halves, each block copying in, adding and copying out
``tile_length`` halves at a time through TQues of ``buffer_num`` buffers.

BUFFER_NUM 2 lets the next tile's copy-in overlap this tile's Add; longer tiles mean fewer, larger
DataCopy calls (the model's answer here: the longest tile, where BUFFER_NUM no longer matters).
Also a `npusim sweep` kernel file (run and check):
  npusim sweep examples/sweep/tune_ascendc_add.py --param soc=Ascend910B1 --param buffer_num=1,2 --param tile_length=512,2048
Run: PYTHONPATH=src python examples/sweep/tune_ascendc_add.py [--plot tune_ascendc_add.png] [--workers N]
"""
import argparse

import numpy as np

import npusim
from npusim import ascendc as asc

USE_CORE_NUM = 8
BLOCK_LENGTH = 8192
SPACE = {"soc": ["Ascend910B1", "Ascend310P3", "Ascend310B1"], "buffer_num": [1, 2],
         "tile_length": [256, 1024, 4096, 8192]}


class KernelAdd:
    def __init__(self, tile_length, buffer_num):
        self.tile_length, self.buffer_num = tile_length, buffer_num

    def Init(self, x, y, z):
        idx = asc.GetBlockIdx()
        self.pipe = asc.TPipe()
        self.xGm = asc.GlobalTensor(asc.half)
        self.yGm = asc.GlobalTensor(asc.half)
        self.zGm = asc.GlobalTensor(asc.half)
        self.xGm.SetGlobalBuffer(x.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.yGm.SetGlobalBuffer(y.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.zGm.SetGlobalBuffer(z.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.inQueueX = asc.TQue(asc.TPosition.VECIN, self.buffer_num)
        self.inQueueY = asc.TQue(asc.TPosition.VECIN, self.buffer_num)
        self.outQueueZ = asc.TQue(asc.TPosition.VECOUT, self.buffer_num)
        self.pipe.InitBuffer(self.inQueueX, self.buffer_num, self.tile_length * 2)
        self.pipe.InitBuffer(self.inQueueY, self.buffer_num, self.tile_length * 2)
        self.pipe.InitBuffer(self.outQueueZ, self.buffer_num, self.tile_length * 2)

    def Process(self):
        for i in range(BLOCK_LENGTH // self.tile_length):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(asc.half)
        yLocal = self.inQueueY.AllocTensor(asc.half)
        asc.DataCopy(xLocal, self.xGm[progress * self.tile_length], self.tile_length)
        asc.DataCopy(yLocal, self.yGm[progress * self.tile_length], self.tile_length)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(asc.half)
        yLocal = self.inQueueY.DeQue(asc.half)
        zLocal = self.outQueueZ.AllocTensor(asc.half)
        asc.Add(zLocal, xLocal, yLocal, self.tile_length)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(asc.half)
        asc.DataCopy(self.zGm[progress * self.tile_length], zLocal, self.tile_length)
        self.outQueueZ.FreeTensor(zLocal)


def inputs():
    rng = np.random.default_rng(0)
    shape = [USE_CORE_NUM, BLOCK_LENGTH]
    return rng.uniform(-100, 100, shape).astype(np.float16), rng.uniform(-100, 100, shape).astype(np.float16)


def run(soc, buffer_num, tile_length):
    x, y = inputs()
    z = np.zeros_like(x)

    def add_custom(x, y, z):
        op = KernelAdd(tile_length, buffer_num)
        op.Init(x, y, z)
        op.Process()
    asc.launch(add_custom, USE_CORE_NUM, x, y, z, soc=soc)
    return z


def check(z, **config):
    x, y = inputs()
    return np.array_equal(z.view(np.uint16), (x + y).view(np.uint16))     # bit-exact, as the sample checks


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plot", default="tune_ascendc_add.png")
    p.add_argument("--workers", type=int, help="local processes (default: all cores)")
    args = p.parse_args(argv)
    result = npusim.sweep(run, SPACE, check=check, executor=args.workers)
    from rich.console import Console
    Console().print(result)
    for soc in SPACE["soc"]:
        best = min((r for r in result.passed if r.config["soc"] == soc), key=lambda r: r.sim_ns)
        print(f"{soc}: best buffer_num={best.config['buffer_num']} tile_length={best.config['tile_length']}: "
              f"{best.sim_ns / 1e3:.2f} us simulated")
    best = result.best()
    print(f"best overall: {best.config}: {best.sim_ns / 1e3:.2f} us")
    result.plot(args.plot, title="AddCustom 8 x 8192 half")
    print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
