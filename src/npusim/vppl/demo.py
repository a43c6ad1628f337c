"""``npusim demo`` for VPPL: the seed's examples as VPPL text, and a moving-object detection kernel."""
from __future__ import annotations

import numpy as np

SEED = """vTest0 : i16[32] = vList[55, 99, 33, 44, 55, 66, 77, 88, 99, 10, 11, 12, 13, 14, 15, 16,
         17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32],
vTest2 : i16[32] = 20,
~
scalar_result : integer,
~
alloc_vector( vTEMP, __I16V, 16)
~
vTest2 = vTest2.min$IW(vTest0);
vTEMP = vTEMP.r_max$IW(vTest0, scalar_result);
"""


def run():
    from ..demo import Check
    from . import Integer, Machine, Vector, alloc_vector, using
    from .interpreter import Program, result

    checks = []
    m = Machine()
    res = result(Program(SEED, "seed.vppl").run(m))
    v0 = res["vTest0"]
    ok = res["vTest2"].tolist() == np.minimum(v0, 20).tolist() and res["scalar_result"] == 99
    checks.append(Check("vppl", "seed examples: min$IW caps at 20, r_max$IW = 99", ok,
                        f"vTest2 = {res['vTest2'][:6].tolist()}..., scalar_result = {res['scalar_result']}"))

    rng = np.random.default_rng(0)
    f0 = rng.integers(30, 90, (64, 64)).astype(np.uint8)
    f1 = np.clip(f0.astype(int) + rng.integers(-4, 5, (64, 64)), 0, 255).astype(np.uint8)
    f0[10:20, 10:20] = 230
    f1[12:22, 13:23] = 230
    with using(Machine()) as m2:
        n = f0.size
        a = Vector("i16", n, 0, name="f0").convert_UB2UW(Vector("u8", n, f0.ravel(), name="frame0"))
        b = Vector("i16", n, 0, name="f1").convert_UB2UW(Vector("u8", n, f1.ravel(), name="frame1"))
        d = Vector("i16", n, b, name="diff").sub_IW(a)
        d.max_IW(Vector("i16", n, a, name="back").sub_IW(b))
        moving = Integer()
        alloc_vector("vTEMP", "__I16V", 16).countOver_UW(d, 30, moving)
    want = int(np.count_nonzero(np.abs(f1.astype(int) - f0.astype(int)) > 30))
    checks.append(Check("vppl", "frame difference 64x64, threshold 30, count (GEN.2 ops only)",
                        int(moving) == want,
                        f"{int(moving)} moving pixels (numpy {want}); "
                        f"{m2.timeline.now_ns * m2.freq_hz / 1e9:,.0f} cycles at 50 MHz (estimate)"))
    from .demo_part_two import run as _part_two      # part two: GEMV, get_array + convolution
    checks += _part_two()
    return checks
