"""TensorE rules of nisa.nc_matmul (the one set of matmul checks): stationary/moving limits, SBUF -> PSUM
connectivity, dst dtype (with the official simulator's wording), input dtypes; trn3 results spanning banks."""
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def mm(run, k=128, m=128, n=512, dt=nl.bfloat16, dst_dt=nl.float32, s_buf=None, m_buf=None, d_buf=None,
       mdt=None):
    s = nl.ndarray((k, m), dt, buffer=s_buf or nl.sbuf)
    mv = nl.ndarray((k, n), mdt or dt, buffer=m_buf or nl.sbuf)
    s.write(np.zeros(s.shape, s.tv.dtype.np))
    mv.write(np.zeros(mv.shape, mv.tv.dtype.np))
    d = nl.ndarray((min(m, 128), n), dst_dt, buffer=d_buf or nl.psum)
    return nisa.nc_matmul(dst=d, stationary=s, moving=mv)


def test_valid_matmul_passes(run):
    assert mm(run).event.name == "nisa.nc_matmul"
    assert mm(run, k=64, m=32, n=16, dt=nl.float32).event.engine == "tensor"


def test_limits_and_connectivity(run):
    with pytest.raises(ConstraintError, match="M <= 128"):
        mm(run, m=129, n=4)
    with pytest.raises(ConstraintError, match="N <= 512"):
        mm(run, m=4, n=513)
    with pytest.raises(ConstraintError, match="reads its inputs from SBUF"):
        mm(run, m=4, n=4, s_buf=nl.psum)
    with pytest.raises(ConstraintError, match="writes its result to PSUM"):
        mm(run, m=4, n=4, d_buf=nl.sbuf)
    with pytest.raises(ConstraintError, match="nc_matmul dst dtype must be float32 on gen3"):
        mm(run, m=4, n=4, dst_dt=nl.bfloat16)
    with pytest.raises(ConstraintError, match="float32/tfloat32 the other is too"):
        mm(run, m=4, n=4, dt=nl.float32, mdt=nl.bfloat16)
    with pytest.raises(ConstraintError, match="fp8 formats .* not mixed"):
        mm(run, m=4, n=4, dt=nl.float8_e4m3, mdt=nl.float8_e4m3fn)
    with pytest.raises(ConstraintError, match="input dtype"):
        mm(run, m=4, n=4, dt=nl.int8)


def test_trn3_wider_moving_and_bf16_dst():
    with run_context("trn3") as run:
        # trn3: an fp32 result of N = 4096 spans all 8 PSUM banks (the part-one rule wrongly rejected it)
        ins = mm(run, m=8, n=4096)
        assert ins.event.args["N"] == 4096
        del ins
        assert mm(run, m=8, n=8192, dst_dt=nl.bfloat16).event.args["N"] == 8192     # bf16: 8192 columns
        assert mm(run, m=8, n=512, dst_dt=nl.bfloat16).event.engine == "tensor"
