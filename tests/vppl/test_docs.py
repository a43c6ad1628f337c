"""docs/vppl.md is generated from the semantics table and must be up to date."""
import os

from npusim import vppl
from npusim.vppl.docs import render
from npusim.vppl.semantics import ROWS

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "vppl.md")


def test_committed_doc_matches_the_table():
    with open(DOC, encoding="utf-8") as f:
        assert f.read() == render(), "regenerate: PYTHONPATH=src python -m npusim.vppl.docs > docs/vppl.md"


def test_every_row_has_a_line_and_every_row_is_a_python_method():
    text = render()
    for r in ROWS:
        assert f"| `{r.name}` |" in text
        assert callable(getattr(vppl.Vector, r.pyname))


def test_info_lists_the_chip_constants():
    info = vppl.info()["SMYLEvideo GEN.2"]
    assert info["clock (Hz)"] == 50e6 and info["dot operators (rows)"] == len(ROWS)


def test_part_two_rows_are_documented_callable_and_known_to_the_interpreter():
    from npusim.vppl.docs_part_two import BOUND, COST, TESTS
    from npusim.vppl.semantics import TABLE
    from npusim.vppl.semantics_part_two import PART_TWO
    text = render()
    assert "## Part two: image, BLAS-like and DNN dot operators" in text
    assert len(PART_TWO) == 12
    for r in PART_TWO:
        assert f"| `{r.name}` |" in text and r.name in BOUND and r.name in COST and r.name in TESTS
        assert callable(getattr(vppl.Vector, r.pyname)) and TABLE[r.name] is r


def test_one_doc_only():
    assert not os.path.exists(os.path.join(os.path.dirname(DOC), "vppl_part_two.md"))
