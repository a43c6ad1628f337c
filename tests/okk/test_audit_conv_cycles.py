"""CONV_FP32 cycles when stride_w is wide (audit finding 1): the C-model scales the tap term by
(stride_w + 1) / min(IC, 64) once stride_w >= min(IC, 64). Expected values are the C-model's."""
import os
import sys

import numpy as np
import pytest

from npusim import okk
from npusim.okk.bdc_conv import conv_cycles
from npusim.okk.oracle.fetch import available

# (n, oc, oh, ow, kh, kw, ic, bias, stride_w) -> C-model cycles (libbackend_bm1684.so profile dump)
CMODEL = [
    ((1, 1, 6, 6, 11, 11, 3, False, 4), 3033),       # audit repro: IC 3, 31x31, k11, stride 4
    ((1, 1, 1, 7, 1, 1, 4, False, 9), 8),            # IC 4, 1x1, stride (1, 9), input 1x64
    ((1, 1, 1, 16, 1, 1, 3, False, 15), 29),         # IC 3: 2 * 16/3 * 2.5 + 3
    ((1, 1, 1, 16, 1, 1, 5, False, 5), 6),           # IC 5: 3 * 6/5 + 3 = 6.6
    ((1, 1, 1, 16, 1, 1, 1, False, 8), 12),          # IC 1: (8 + 1)/1 + 3
    ((1, 1, 1, 16, 1, 1, 8, False, 7), 7),           # IC 8, stride 7 < 8: no scaling
    ((2, 5, 34, 4, 4, 2, 3, False, 13), 3414),       # rounding: the product in float32, the rest in double
    ((2, 63, 33, 1, 7, 4, 3, True, 13), 3949),
]


@pytest.mark.parametrize("args,expected", CMODEL)
def test_conv_cycles_match_cmodel_values(args, expected):
    n, oc, oh, ow, kh, kw, ic, bias, sw = args
    assert conv_cycles(0, n, oc, oh, ow, kh, kw, ic, bias, sw) == expected


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_conv2d_event_uses_wide_stride_cost():
    dev = okk.Device()
    with dev:
        kst = okk.okk_compact_stride(None, 0, okk.dim4(2, 1, 11, 11))
        okk.okk_bdc_conv2d(0x20000, 0, 0x30000, 0x38000, okk.dim4(1, 3, 31, 31), 1, 11, 11, None, kst,
                           False, False, None, okk.dim2(4, 4), None)
    assert dev.events[-1].args["cycles"] == 3033


def _case(rng):
    """Random conv whose tensors fit the fixed addresses below."""
    while True:
        ic = int(rng.choice([1, 2, 3, 3, 4, 5, 7, 9, 16, 33]))
        kh, kw = (int(v) for v in rng.integers(1, 6, 2))
        st = (int(rng.integers(1, 4)), int(rng.integers(1, 16)))
        dil = tuple(int(v) for v in rng.integers(1, 3, 2))
        pad = (int(rng.integers(0, kh)), int(rng.integers(0, kh)), int(rng.integers(0, kw)), int(rng.integers(0, kw)))
        oc, n, bias = int(rng.choice([1, 5, 64, 70])), int(rng.integers(1, 3)), int(rng.integers(0, 2))
        h, w = int(rng.integers(1, 30)), int(rng.integers(1, 50))
        oh = (h + pad[0] + pad[1] - (kh - 1) * dil[0] - 1) // st[0] + 1
        ow = (w + pad[2] + pad[3] - (kw - 1) * dil[1] - 1) // st[1] + 1
        if oh >= 1 and ow >= 1 and n * -(-ic // 64) * h * w * 4 <= 0x10000 \
                and n * -(-oc // 64) * oh * ow * 4 <= 0x20000:
            kst = okk.okk_compact_stride(None, 0, okk.dim4(-(-ic // 2), oc, kh, kw))
            return (0x20000, 0, 0x30000, 0x38000, (n, ic, h, w), oc, kh, kw, None, (kst.n, kst.c, kst.h, kst.w),
                    bias, 0, okk.Padding(*pad), okk.dim2(*st), okk.dim2(*dil))


@pytest.mark.skipif(not available(), reason="C-model libraries absent")
def test_conv_cycles_random_wide_strides_against_cmodel():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle"))
    from part_two_cases import fill, values
    from npusim.okk.oracle import npusim_runner
    from npusim.okk.oracle.differential import shared_oracle
    rng = np.random.default_rng(41)
    setup = []
    for off in (0, 0x20000, 0x30000, 0x38000):
        setup += fill(off, values(0x2000, rng, edge=False, scale=1.0))
    calls = [("call", "okk_bdc_conv2d", _case(rng)) for _ in range(120)]
    prog = setup + [("call", "okk_initialize", ())] + calls + [("call", "okk_poll", ())]
    ref, got = shared_oracle().run(prog), npusim_runner.run(prog)
    assert ref.error is None
    want = [c.instructions[0].cycles for c in ref.calls[1:-1]]
    have = [c.instructions[0].cycles for c in got.calls[1:-1]]
    assert have == want
