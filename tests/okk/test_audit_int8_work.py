"""okk_bdc_int8_to_fp32 / okk_bdc_4N_int8_to_fp32 leave the C-model's bytes in the work tensor (audit
finding 7): the source's words in the source's layout, XOR 0x80808080 when signed."""
import warnings

import numpy as np
import pytest

from npusim import okk
from npusim.okk.oracle.fetch import available

LANE = 0x80000


def _run(fn, shape, signed, aligned, init):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with okk.Device() as dev:
            okk.okk_initialize()
            dev.write_local(0, 0, init)
            getattr(okk, fn)(0x2000, 0, 0x4000, okk.dim4(*shape), signed, aligned)
            work = np.asarray(dev.read_local(0, 0x4000, 0x2000)).copy()
            ev = dev.events[-1]
            return work, ev


@pytest.mark.parametrize("signed", [True, False])
def test_int8_to_fp32_work_is_biased_source_words(signed):
    init = np.random.default_rng(3).integers(0, 256, 0x6000).astype(np.uint8)
    work, _ = _run("okk_bdc_int8_to_fp32", (1, 1, 1, 10), signed, False, init)
    words = init[:12].view(np.uint32)                     # ceil(10/4) = 3 words, bytes 10 and 11 included
    want = words ^ np.uint32(0x80808080) if signed else words
    assert (work[:12].view(np.uint32) == want).all()
    assert (work[12:] == init[0x4000 + 12:0x6000]).all()  # nothing past the word tensor


def test_4N_aligned_work_uses_the_source_layout():
    init = np.random.default_rng(4).integers(0, 256, 0x6000).astype(np.uint8)
    work, _ = _run("okk_bdc_4N_int8_to_fp32", (6, 1, 1, 3), False, True, init)
    # (ceil(6/4), 1, 1, 3) words, aligned: batch stride 32 words = 128 bytes
    assert (work[:12] == init[:12]).all() and (work[128:140] == init[128:140]).all()
    assert (work[12:128] == init[0x4000 + 12:0x4000 + 128]).all()


@pytest.mark.skipif(not available(), reason="C-model libraries absent")
def test_int8_work_bytes_against_cmodel():
    from npusim.okk.oracle import npusim_runner
    from npusim.okk.oracle.differential import shared_oracle
    rng = np.random.default_rng(7)
    oracle = shared_oracle()
    for it in range(16):
        fn = ("okk_bdc_int8_to_fp32", "okk_bdc_4N_int8_to_fp32")[it % 2]
        shape = (int(rng.integers(1, 7)), int(rng.integers(1, 70)), int(rng.integers(1, 4)), int(rng.integers(1, 30)))
        q = int(rng.integers(0, 64)) if it % 3 == 0 else 0
        args = (q * LANE + 0x2000, q * LANE, q * LANE + 0x4000, shape, int(rng.integers(0, 2)), int(rng.integers(0, 2)))
        init = rng.integers(0, 256, 0x6000).astype(np.uint8)
        prog = [("wl", p * LANE, init.tobytes()) for p in range(64)]
        prog += [("call", "okk_initialize", ()), ("call", fn, args), ("call", "okk_poll", ())]
        prog += [("rl", p * LANE, 0x6000) for p in range(64)]
        ref, got = oracle.run(prog), npusim_runner.run(prog)
        assert ref.error is None
        assert ref.reads == got.reads, (fn, args)
