"""Shared fixture of the differential suite: the one C-model worker of this test process."""

import pytest

from npusim.okk.oracle.fetch import available


@pytest.fixture(scope="session")
def oracle():
    if not available():
        pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)")
    from npusim.okk.oracle.differential import shared_oracle
    o = shared_oracle()
    yield o
    o.close()
