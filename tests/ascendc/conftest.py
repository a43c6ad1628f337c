import pytest

from npusim import ascendc as asc


@pytest.fixture
def core():
    """A fresh Ascend910B1 vector core with a 64 KiB VECCALC scratch buffer; ``core.t(dtype, n, off)``
    makes a LocalTensor at byte offset ``off``."""
    with asc.core_context("Ascend910B1") as ctx:
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.InitBuffer(buf, 64 * 1024)

        class Core:
            context = ctx

            @staticmethod
            def t(dtype, n, off):
                return buf.GetWithOffset(dtype, n, off)
        yield Core
