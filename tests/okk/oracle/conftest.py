"""Shared fixture of the differential suite: one C-model worker per test session (per xdist worker)."""

import pytest

from npusim.okk.oracle.fetch import available


@pytest.fixture(scope="session")
def oracle():
    if not available():
        pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)")
    from npusim.okk.oracle.cmodel import Oracle
    o = Oracle("backend")
    yield o
    o.close()
