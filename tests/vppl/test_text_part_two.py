"""The part-two operators the CNN example does not use, run from VPPL text: the same bytes as the Python
methods (FPBLmAvX_uB, DNN_convolutionLayerNPN, DNN_conv32to16, DNN_softmax); argument-count errors."""
import numpy as np
import pytest

from npusim import vppl
from npusim.vppl.fixed_point import to_fixed
from npusim.vppl.ops_blas import pad_fpbl
from npusim.vppl.parser import VpplSemanticError

TEXT = """External pX : pointer, External pY : pointer, External pB : pointer, External pA : pointer,
External pIn : pointer, External pW : pointer, External pBias : pointer, External pP : pointer,
External pO : pointer, External pS : pointer;
~
alloc_vector(vT, __I16V, 64)
alloc_vector(vX, __I16V, 256)
alloc_vector(vB, __I16V, 64)
vT = vT.FPBLmAvX_uB(8, 40, 200, vX, vB, pX, pY, pB, pA);
vT = vT.DNN_convolutionLayerNPN(5, 1, 12, 12, 8, 8, vX, pIn, pW, pBias, pP, 0, 12);
vT = vT.DNN_conv32to16(pP, pO, vX, 4, 24, 12);
vT = vT.DNN_softmax(pO, pS, 16, 12);
"""


def setup(m):
    rng = np.random.default_rng(3)
    A, b, x = pad_fpbl(to_fixed(rng.normal(0, 0.1, (40, 200)), 8), to_fixed(rng.normal(0, 0.1, 40), 8),
                       to_fixed(rng.uniform(-1, 1, 200), 8))
    with vppl.using(m):
        put, blk = vppl.dm_put, vppl.dm_alloc
        return {"pX": put(x), "pY": blk(80), "pB": put(b), "pA": put(A),
                "pIn": put(to_fixed(rng.uniform(0, 1, (12, 12)), 12)), "pW": put(to_fixed(rng.normal(0, 0.2, 25), 12)),
                "pBias": put(to_fixed([0.05], 12)), "pP": blk(64 * 4), "pO": blk(64 * 2), "pS": blk(16 * 4)}


def read_all(m, e):
    with vppl.using(m):
        return [vppl.dm_read(e["pY"], np.int16, 40), vppl.dm_read(e["pP"], np.int32, 64),
                vppl.dm_read(e["pO"], np.int16, 64), vppl.dm_read(e["pS"], np.int32, 16)]


def test_text_equals_python_methods():
    m1 = vppl.Machine()
    e1 = setup(m1)
    vppl.run_with(TEXT, machine=m1, externals=e1)
    m2 = vppl.Machine()
    e2 = setup(m2)
    with vppl.using(m2):
        t, vx, vb = (vppl.alloc_vector(n, "__I16V", k) for n, k in (("vT", 64), ("vX", 256), ("vB", 64)))
        t.FPBLmAvX_uB(8, 40, 200, vx, vb, e2["pX"], e2["pY"], e2["pB"], e2["pA"])
        t.DNN_convolutionLayerNPN(5, 1, 12, 12, 8, 8, vx, e2["pIn"], e2["pW"], e2["pBias"], e2["pP"], 0, 12)
        t.DNN_conv32to16(e2["pP"], e2["pO"], vx, 4, 24, 12)
        t.DNN_softmax(e2["pO"], e2["pS"], 16, 12)
    for a, b in zip(read_all(m1, e1), read_all(m2, e2)):
        np.testing.assert_array_equal(a, b)
    assert [e.name for e in m1.timeline.trace.events if e.engine == "simd"][-4:] == \
        ["FPBLmAvX_uB", "DNN_convolutionLayerNPN", "DNN_conv32to16", "DNN_softmax"]


def test_wrong_argument_count_points_at_the_operator():
    bad = TEXT.replace("vT.DNN_softmax(pO, pS, 16, 12)", "vT.DNN_softmax(pO, pS, 16)")
    with pytest.raises(VpplSemanticError) as e:
        vppl.run_with(bad, machine=(m := vppl.Machine()), externals=setup(m))
    assert e.value.api == "DNN_softmax" and e.value.param == "arguments" and e.value.line == 11
