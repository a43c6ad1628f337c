"""Audit finding 8: SoC numbers from the CANN 8.1.RC1 platform ini files (leideng/CANN-8.1.RC1
.../data/platform_config/Ascend310P3.ini, Ascend310B1.ini)."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.core.errors import ConstraintError


def test_310p3_has_7_vector_cores_and_runs_vector_kernels_on_its_8_ai_cores():
    info = asc.info()["Ascend310P3"]
    assert info["vector cores (AIV)"] == 7 and info["AI cores (AIC)"] == 8
    assert info["cores a vector kernel runs on"] == 8
    assert asc.info()["Ascend910B1"]["vector cores (AIV)"] == 48


def test_310b1_ub_and_clock_follow_the_ini():
    info = asc.info()["Ascend310B1"]
    assert (info["UB bytes"], info["clock MHz"]) == (253952, 1224)
    with asc.core_context("Ascend310B1"):
        pipe = asc.TPipe()
        pipe.InitBuffer(asc.TBuf(), 253952)                  # the whole UB fits
        with pytest.raises(ConstraintError) as e:
            pipe.InitBuffer(asc.TBuf(), 32)
        assert "253952-byte UB" in e.value.rule


def test_310b1_events_run_at_1224_mhz():
    def k(x):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(x, 128)
        pipe = asc.TPipe(); b = asc.TBuf(); pipe.InitBuffer(b, 512)
        t = b.Get(asc.half)
        asc.DataCopy(t, g, 128)
    res = asc.launch(k, 1, np.zeros(128, np.float16), soc="Ascend310B1")
    ev = next(e for e in res.trace.events if e.name == "DataCopy")
    assert ev.freq_hz == 1224e6
