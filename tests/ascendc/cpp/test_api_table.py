"""The C++ route is generated from one table: every public name of npusim.ascendc has a row, and the
checked-in headers are what the generator writes today (re-run ``python -m npusim.ascendc.cpp.generate``)."""
import ctypes

from npusim import ascendc as asc
from npusim.ascendc.cpp import api_table, bridge, generate


def test_every_public_name_has_a_row():
    missing = [n for n in api_table.public_names(asc) if n not in api_table.rows()]
    assert not missing, (f"public names of npusim.ascendc with no row in cpp/api_table.py: {missing}; add a "
                         "row (an API family, or 'python_only') and re-run python -m npusim.ascendc.cpp.generate")


def test_no_row_names_something_the_module_lacks():
    stale = [n for n in api_table.rows() if not hasattr(asc, n)]
    assert not stale


def test_headers_are_up_to_date():
    assert generate.main(["--check"]) == 0, "run python -m npusim.ascendc.cpp.generate"


def test_bridge_table_matches_the_c_struct_layout():
    fields = [f for f, _ in bridge.Api._fields_]
    assert fields[5:] == api_table.table_fields()
    text = generate.types_header()
    for f in api_table.table_fields():
        assert f"    npusim::fn_t {f};\n" in text
    assert ctypes.sizeof(bridge.Api) == 24 + 8 * len(api_table.table_fields())


def test_enum_values_and_param_defaults_come_from_the_python_module():
    text = generate.types_header()
    assert "CAST_ODD = 6" in text and "VECCALC = 11" in text and "LCM = 11" in text
    assert "uint8_t dstRepStride = 8;" in text and "uint16_t blockCount = 1;" in text
    for name, code in [("HardEvent", 3), ("pipe_t", 1)]:
        member = api_table.enum_from_code(getattr(asc, name), code)
        assert f"{member.name} = {code}" in text


def test_new_vector_rows_are_picked_up_from_the_python_tables():
    from npusim.ascendc import vector_binary, vector_unary
    rows = api_table.rows()
    assert all(rows[n] in ("binary", "binary_cast") for n in vector_binary.SPECS)
    assert all(rows[n] in ("unary", "unary_scalar") for n in vector_unary.SPECS)


def test_vendor_tiling_structs_match_the_python_module():
    """SoftMaxTiling embedded in an op's tiling data: the ctypes struct (packing from Python), the C++ struct
    (include/npusim_vendor_tiling.h) and the Python module's tiling dataclass list the same fields."""
    import dataclasses
    import os
    from npusim.ascendc.cpp import tiling
    names = [f.name for f in dataclasses.fields(asc.SoftMaxTiling)]
    assert [f[0] for f in tiling.VENDOR_STRUCTS["SoftMaxTiling"]._fields_] == names
    text = open(os.path.join(generate.INCLUDE, "npusim_vendor_tiling.h")).read()
    body = text[text.index("struct SoftMaxTiling"):]
    body = body[:body.index("};")]
    assert [n.split("=")[0].strip() for n in body.split("{", 1)[1].replace("uint32_t", "").split(",")] == names
