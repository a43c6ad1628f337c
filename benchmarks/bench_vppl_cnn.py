"""VPPL part two: the small CNN (examples/vppl/small_cnn.vppl) on a 128x128 image, compiled once and run
on the simulator, against the same network in plain float64 numpy (target: within 5x)."""
import importlib.util
import os

import numpy as np

from harness import Case
from npusim import vppl
from npusim.vppl.interpreter import Program

_EX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "vppl", "small_cnn.py")


def _example():
    spec = importlib.util.spec_from_file_location("vppl_small_cnn_example", _EX)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _simulated(cnn, image, w):
    with open(cnn.SOURCE, encoding="utf-8") as f:
        prog = Program(f.read(), "small_cnn.vppl")

    def run():
        m = vppl.Machine()
        m.externals = cnn.setup(m, w)
        prog.run(m, {"A": image})
        with vppl.using(m):
            return vppl.dm_read(m.externals["pS"], np.int32, cnn.CLASSES)
    return run


def cases():
    cnn = _example()
    image, w = cnn.test_image(), cnn.make_weights()
    cnn.check(cnn.run_vppl(image, w), image, w)          # the simulated network is the right one
    return [Case("small CNN 128x128 (get_array, 2 conv, ReLU, pool, LCN, FC, softmax), VPPL text",
                 _simulated(cnn, image, w), numpy=lambda: cnn.numpy_network(image, w), target="within 5x of numpy")]
