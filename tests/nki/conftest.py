import pytest

from npusim.nki import run_context


@pytest.fixture
def run():
    with run_context("trn2") as r:
        yield r
