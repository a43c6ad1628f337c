import pytest

from npusim import vppl


@pytest.fixture(autouse=True)
def fresh_machine():
    """Each test starts on a fresh GEN.2 machine (and leaves a fresh one behind)."""
    vppl.reset()
    yield
    vppl.reset()
