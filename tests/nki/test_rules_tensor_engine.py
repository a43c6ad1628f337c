"""TensorE rules ready for nc_matmul: stationary/moving limits, SBUF -> PSUM connectivity, dtypes."""
import pytest

import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import rules, run_context


def mm(run, k=128, m=128, n=512, dt=nl.bfloat16, dst_dt=nl.float32, s_buf=None, m_buf=None, d_buf=None,
       mdt=None):
    s = nl.ndarray((k, m), dt, buffer=s_buf or nl.sbuf)
    mv = nl.ndarray((k, n), mdt or dt, buffer=m_buf or nl.sbuf)
    d = nl.ndarray((min(m, 128), n), dst_dt, buffer=d_buf or nl.psum)
    rules.matmul_operands("nisa.nc_matmul", d, s, mv, run.chip)


def test_valid_matmul_passes(run):
    mm(run)
    mm(run, k=64, m=32, n=16, dt=nl.float32)


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
    with pytest.raises(ConstraintError, match="fp32/tf32"):
        mm(run, m=4, n=4, dt=nl.float32, mdt=nl.bfloat16)
    with pytest.raises(ConstraintError, match="cannot be mixed"):
        mm(run, m=4, n=4, dt=nl.float8_e4m3, mdt=nl.float8_e4m3fn)
    with pytest.raises(ConstraintError, match="fp8, bf16"):
        mm(run, m=4, n=4, dt=nl.int8)


def test_trn3_wider_moving_and_bf16_dst():
    with run_context("trn3") as run:
        s, mv = nl.ndarray((128, 8), nl.bfloat16), nl.ndarray((128, 4096), nl.bfloat16)
        d = nl.ndarray((8, 4096), nl.float32, buffer=nl.psum)
        with pytest.raises(ConstraintError, match="one 2048-byte bank"):
            rules.matmul_operands("nisa.nc_matmul", d, s, mv, run.chip)   # the PSUM bank rule still holds
        del d
        d2 = nl.ndarray((8, 512), nl.bfloat16, buffer=nl.psum)
        rules.matmul_operands("nisa.nc_matmul", d2, s, nl.ndarray((128, 512), nl.bfloat16), run.chip)
