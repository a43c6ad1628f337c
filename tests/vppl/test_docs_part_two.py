"""docs/vppl_part_two.md is generated from the PART_TWO table and must be current; every row is a
Python method and a VPPL text operator."""
import os

from npusim import vppl
from npusim.vppl.docs_part_two import BOUND, COST, TESTS, render
from npusim.vppl.semantics import TABLE
from npusim.vppl.semantics_part_two import PART_TWO

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "vppl_part_two.md")


def test_committed_doc_matches_the_table():
    with open(DOC, encoding="utf-8") as f:
        assert f.read() == render(), \
            "regenerate: PYTHONPATH=src python -m npusim.vppl.docs_part_two > docs/vppl_part_two.md"


def test_every_row_documented_callable_and_known_to_the_interpreter():
    text = render()
    assert len(PART_TWO) == 12
    for r in PART_TWO:
        assert f"| `{r.name}` |" in text and r.name in BOUND and r.name in COST and r.name in TESTS
        assert callable(getattr(vppl.Vector, r.pyname)) and TABLE[r.name] is r
