"""Render docs/vppl.md from the semantics tables (``python -m npusim.vppl.docs > docs/vppl.md``): part
one's section (machine, language, general / element / reduction operators: ``semantics.ROWS``) then part
two's (image, BLAS-like, DNN operators: ``semantics_part_two.PART_TWO``, rendered by ``docs_part_two``).

tests/vppl/test_docs.py checks that the committed file is exactly what this renders.
"""
from __future__ import annotations

from . import cost, spec
from .semantics import ROWS

HEAD = """# npusim.vppl: TOPS SMYLEvideo GEN.2 VPPL

VPPL is TOPS Systems' Pascal-like language for the SMYLEvideo GEN.2 many-core video-mining processor
(topscom.co.jp/SPECIAL/vppl/intro.html). Its vector *dot operators* (seed 003, "ベクタ・ドット演算子の一覧",
= topscom.co.jp/SPECIAL/vppl/dotFunc.html) look like methods on a *target vector* and rewrite it in place.
npusim runs them from Python and runs VPPL text. No public simulator exists; the instruction-set
simulator (ISIM) ships only with TOPS' compiler. This file is generated from
`src/npusim/vppl/semantics.py` by `python -m npusim.vppl.docs`; a test checks it is up to date.

Two parts, one table each: this first part covers the machine, the language, modes and the general,
element and reduction operators (issue 8); **Part two** (below) covers pointers, External globals, fixed
point, get_array, the BLAS-like FPBLmAvX* and the DNN_* operators (issue 9).

## Python surface

```python
from npusim import vppl
v = vppl.Vector("i16", 32, 99)                    # vTest0 : i16[32] = 99,
w = vppl.vList([55, 99, 33, 44], "i16")            # vList[...]
v.min_IW(w)                                       # min$IW: '$' becomes '_'; in place on v, returns v
t = vppl.alloc_vector("vTEMP", "__I16V", 16)      # alloc_vector(vTEMP, __I16V, 16)
r = vppl.Integer()                                # scalar_result : integer,
t.r_max_IW(w, r); int(r)                          # output scalars are Integer variables
res = vppl.run(text, images={"A": img})           # VPPL text; vectors -> numpy arrays, integers -> int
np.asarray(v)                                     # a Vector is array-like (zero-copy)
with vppl.mode("extended"): ...                   # suffixes outside GEN.2 (default mode "gen2": errors)
```

`npusim vppl FILE [--extended] [--PINA a.png|a.npy] [--PINB b.png|b.npy] [--reading mul=q15] [--trace t.json]`
runs a file and prints its variables and the simulated time. A text with `External` globals (part two)
takes the host's bindings from the command line: `--extern NAME=FILE.npy` (a pointer gets a fresh 32-byte
aligned data-memory block holding the array, as the loader places data; a vector gets its elements; an
integer a one-element array), `--extern NAME=INT`, `--extern NAME=zeros:NBYTES` (a zeroed output block),
or `--externs FILE.npz` (every array bound by name); `--read NAME=DTYPE:COUNT[:OUT.npy]` prints (and saves)
what a pointer points at after the run. An unbound External is an error that names these options.
`examples/vppl/small_cnn.py --write-inputs DIR` and `gemv_bias_relu.py --write-inputs DIR` write the files
and print the command line (tests/vppl/test_cli_externs.py runs both).

## The machine

| item | model | source |
|---|---|---|
| vectors | declared element type i8/u8/i16/u16/i32/u32 (or F16Qq/F32Qq fixed point stored as int16/int32) and any declared length up to 2^20 elements (see Argument rules); each vector variable is its own core `Memory` | seed 003 examples; reference A7.1 |
| element sizes | B = 8, W = 16, L = 32 bits; `$XX` = U (unsigned) / I (signed) + size | seed 003 ("要素サイズを示す語B, W, L") |
| suffix vs declaration | an operator reinterprets the vector's bits as its suffix's element type: the signedness may differ (the seed: signed data may be added with `$UW`), the size may not (error) | seed 003, add$XX remark |
| `integer` | 32-bit two's complement; assignments keep the low 32 bits; `/` truncates toward zero; declared without a value it is unassigned: reading it warns and gives poison (4), or raises under strict | reference A7.19; DESIGN (never silently zero) |
| vector register | {reg} bits (an estimate: every seed example is `i16[32]` = 512 bits); used by filter_sub's margin and the cost model | reference A6.3 |
| data memory | {dm} bytes (the compiler's `--EXM` size), a core `Memory`; `Machine.dm_store(array)` places data 32-byte aligned (capacity checked by the core `Allocator`) and returns a `Pointer`; `Pointer.view(dtype, shape)` is a bounds-checked `TensorView` | compiler.html; seed 003 (get_array: 32-byte alignment) |
| image buffers A, B | 8-bit 2-D arrays from numpy or PNG (RGB averaged to grey), as `--PINA/--PINB` load them; `use_image(p, A)` sets pointer variable `p` to one, with the row step | compiler.html; seed 003 (get_array: the pointer's step width) |
| clock | {mhz:g} MHz; scalar and SIMD instructions issue in order on one core (engines `simd`, `scalar`) | topscom.co.jp/SMYLEGEN2/performance.htm |
| work vectors | reductions need an `alloc_vector()` target and leave it undefined (poison); reading a never-written or clobbered vector warns and reads poison, or raises `UninitializedReadError` under `configure(strict=True)` / `uninitialized="error"` | seed 003 (リダクション系: "alloc_vector()によりアロケートしたベクタを指定しなければなりません") |

## Modes: GEN.2 strictness

The seed marks, operator by operator, which suffixes "the current instruction set supports"
("現命令セットでサポートされるのは…"). In the default mode `"gen2"` every other suffix raises
`ConstraintError(param="suffix")` naming the supported ones, as the compiler's `--G2` switch warns
about instructions beyond the minimum GEN.2 set. Mode `"extended"` (`vppl.mode("extended")`,
`vppl.run(..., mode="extended")`, `npusim vppl --extended`) runs them all with the rules below.

## The VPPL text language

The lark grammar (`src/npusim/vppl/grammar.lark`) covers what the seed shows: declarations
`name : i16[32] = 99,` / `= vList[...]` / `name : integer,` ending in `,` or `;`; directives
`alloc_vector(v, __I16V, 16)` and `use_image(p, A)`; statements `x = y.op$XX(args);` (y is changed in
place; x, when different, receives a copy and a `VpplLintWarning` says so: reference A7.3 reading (a),
since the seed says the target is rewritten in place), `y.op$XX(args);`, scalar assignments `x = expr;` with
`+ - * / ( )`; `~` (the seed's elision mark) and `//`, `(* *)` comments are ignored. Syntax errors and
every broken rule point at line and column with a caret and name the operator and the rule:

```
t.vppl:3:7: error: min$UW: parameter 'suffix' breaks the rule "the GEN.2 instruction set has only min$UB, min$IW (the compiler's --G2 check); mode='extended' runs the others" (got 'UW')
    v = v.min$UW(v);
          ^
```

## Semantics table

One row per operator and suffix. *overflow*: what a result outside the element range becomes.
*GEN.2*: in the current instruction set (runs in mode "gen2"). Every row is run against an independent
Python-integer reference by `tests/vppl/test_operators_table.py::test_row_matches_reference[<op>]`
(general and reduction rows) or by the named element test, and its GEN.2 flag by
`test_gen2_flag_is_enforced[<op>]`. Rounding: every operator is integer-exact (no rounding step) unless
the row says otherwise.

| operator | group | arguments (seed order) | element | overflow | rounding | target | argument side effects | GEN.2 | cycles (estimate) | source | covering test |
|---|---|---|---|---|---|---|---|---|---|---|---|
"""

ELEMENT_TESTS = {
    "init_ins_sort": "test_ins_sort_keeps_ascending_keys_with_payload_and_drops_the_tail",
    "ins_sort": "test_ins_sort_keeps_ascending_keys_with_payload_and_drops_the_tail, test_ins_sort_from_a_start_element",
    "get_element": "test_get_set_element_and_record_use_32_bit_units",
    "set_element": "test_get_set_element_and_record_use_32_bit_units",
    "get_record": "test_get_set_element_and_record_use_32_bit_units",
    "set_record": "test_get_set_element_and_record_use_32_bit_units",
}

LIMITS = """
## Limits the seed states, and their checks

| rule | source | error | test |
|---|---|---|---|
| shift_up / shift_down shift 0..255 bits | seed: "シフト量として許されるのは0~255ビットまで" | `ConstraintError(param="amount")` | test_shift_up_down_allow_0_to_255_bits |
| filter_sub's target is two vector registers longer than its argument | seed: "引数のベクタ変数より2ベクタ・レジスタ分長くなければなりません" | `param="target"` | test_filter_sub_target_is_two_registers_longer |
| reductions use an alloc_vector() target as work area | seed: "alloc_vector()によりアロケートしたベクタを指定しなければなりません" | `param="target"` | test_reduction_target_must_come_from_alloc_vector |
| suffixes outside the current instruction set | seed: "現命令セットでサポートされるのは…" + compiler `--G2` | `param="suffix"` (mode gen2) | test_gen2_flag_is_enforced |
| get/set_element index, get/set_record record and element (8 integers per record) | seed: 32-bit units, "Integer変数が8個格納されたレコード" | `param="index"/"record"/"element"` | test_element_operators_check_their_ranges |
| ins_sort start element inside the vector | seed: 先頭要素番号 | `param="start"` | test_element_operators_check_their_ranges |
| init_ins_sort / ins_sort list fixed in the registers (alloc_vector) | seed: "固定アロケートする必要があります" | `param="target"` | test_ins_sort_list_must_come_from_alloc_vector |
| suffix size = element size; argument vectors as long as the target | npusim (the seed's examples always match) | `param="target"/"vector"` | test_suffix_size_must_match_the_element_size, test_argument_vectors_have_the_targets_length |
| argument counts and kinds (vector, scalar, integer variable) | seed signatures | `param="arguments"` or the parameter | test_wrong_argument_kinds_and_counts |
"""

COST = """
## Cost model (ESTIMATES)

TOPS publishes no instruction timings. The model: a SIMD instruction takes `ISSUE` cycles plus a
per-register cost for each {reg}-bit register its target spans; multiplies are slower; a reduction adds
a log2(lanes) combining tree and a move to the scalar register file; each scalar statement takes
`SCALAR_OP` cycles on the scalar pipe. Instructions issue in order (SIMD waits for the scalar pipe and
vice versa). Clock {mhz:g} MHz (performance.htm: the GEN.2 prototype runs at 50 MHz and needs about 370K
cycles per frame for moving-object detection; a sanity bound, not a calibration).

| constant | value | meaning | source |
|---|---|---|---|
| ISSUE | {ISSUE} | issue + scalar-operand setup per instruction | estimate |
| PER_REG | {PER_REG} | cycles per vector register, element-wise ops | estimate (one SIMD pass per register) |
| MUL_PER_REG | {MUL_PER_REG} | cycles per register, mul / e_mul / filter_sub / prod | estimate |
| BROADCAST | {BROADCAST} | e_add/e_sub/e_mul: scalar -> work vector | estimate |
| TO_SCALAR | {TO_SCALAR} | reduction result or get_* -> scalar register | estimate |
| SORT_PER_REG | {SORT_PER_REG} | ins_sort compare + shift per register | estimate |
| SCALAR_OP | {SCALAR_OP} | one scalar assignment | estimate |
| REG_BITS | {reg} | vector register width | inference from i16[32] (reference A6.3) |
| FREQ_HZ | {freq:g} | clock | performance.htm |
"""


def _cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _elem(r) -> str:
    if r.dt is None:
        return "declared type" if r.group != "element" else "32-bit units"
    if r.src_dt is not None:
        return f"{r.src_dt.name} -> {r.dt.name}"
    return r.dt.name


def _cost(r) -> str:
    if r.linear_cost:
        return f"{r.linear_cost[0]} + {r.linear_cost[1]} per register"
    if r.cost is cost.reduction:
        per = cost.MUL_PER_REG if r.base == "prod" else cost.PER_REG
        return f"{cost.ISSUE} + {per} per register + log2(lanes) + {cost.TO_SCALAR}"
    if r.cost is cost.sort:
        return f"{cost.ISSUE} + {cost.SORT_PER_REG} per register"
    return f"{cost.ISSUE + cost.TO_SCALAR}"


def _readings() -> str:
    from dataclasses import fields
    from .readings import Readings
    lines = ["\n## Alternative readings (`vppl.Readings`)\n\n",
             "Where the seed is ambiguous and a second reading is plausible, `Machine(readings=Readings(...))`, "
             "`vppl.mode(..., readings=...)` or `vppl.run(..., readings=...)` selects it. The table above and "
             "the table-driven tests use the defaults; `tests/vppl/test_readings.py` pins the alternatives.\n\n",
             "| field | default | choices | meaning |\n|---|---|---|---|\n"]
    for f in fields(Readings):
        lines.append(f"| `{f.name}` | `{f.default}` | {', '.join(f.metadata['choices'])} | "
                     f"{_cell(f.metadata['doc'])} |\n")
    return "".join(lines)


def render() -> str:
    out = [HEAD.replace("{reg}", str(spec.REG_BITS)).replace("{dm}", str(spec.DM_BYTES))
           .replace("{mhz:g}", f"{spec.FREQ_HZ / 1e6:g}")]
    for r in ROWS:
        args = ", ".join(f"{p} ({k})" for p, k in r.params) or "-"
        test = ELEMENT_TESTS.get(r.base, f"test_row_matches_reference[{r.name}]")
        out.append("| " + " | ".join(_cell(x) for x in (
            f"`{r.name}`", r.group, args, _elem(r), r.overflow, r.rounding, r.target, r.side_effects,
            "yes" if r.gen2 else "no", _cost(r), r.source, test)) + " |\n")
    out.append("\n## Interpretations of ambiguous points (one per operator; the chosen reading and why)\n\n")
    seen = set()
    for r in ROWS:
        key = (r.base, r.note, r.source)
        if r.base in seen and not r.note:
            continue
        if key in seen:
            continue
        seen.add(key)
        seen.add(r.base)
        if r.note or r.source != "seed 003":
            out.append(f"- **{r.base}** ({r.source}): {r.note or 'as the seed states.'}\n")
    out.append(_readings())
    out.append(LIMITS)
    out.append(COST.format(reg=spec.REG_BITS, mhz=spec.FREQ_HZ / 1e6, freq=spec.FREQ_HZ,
                           **{k: getattr(cost, k) for k in ("ISSUE", "PER_REG", "MUL_PER_REG", "BROADCAST",
                                                            "TO_SCALAR", "SORT_PER_REG", "SCALAR_OP")}))
    out.append(TAIL)
    from .docs_part_two import render as part_two
    out.append(part_two())
    from .docs_args import SECTION as args_section          # issue 17: argument rules and limits
    out.append(args_section)
    return "".join(out)


TAIL = """
## Examples

`examples/vppl/` holds VPPL texts run by `npusim vppl` and the same programs in Python, each checking
itself against numpy: `frame_diff.vppl` / `frame_diff.py` (moving-object detection: frame difference,
threshold, count), `topk.vppl` / `topk.py` (top-k smallest with ins_sort), `dot.vppl` / `dot.py`
(dot product and sum of squares with prod$IW). `examples/vppl/seed/` holds the seed's examples verbatim.

## Benchmarks

`benchmarks/bench_vppl.py`: a 64-operator program (add$UW, sub$IW, mul$IW, min$IW, max$IW, e_add$UW,
e_mul$IW, element_shift_right$W, 8 rounds) on i16[4096] vectors, through the Python API and as VPPL
text, against plain numpy doing the same math (target: within 3x); parsing and compiling a
1,000-statement text (target: under 0.5 s); and the per-instruction overhead on a one-register
vector. Numbers are in BENCHMARKS.md (`make bench`). Measured in CPU time (`time.process_time`, median of
101 runs interleaved with the numpy baseline, on the shared, loaded 2-core development machine): Python API
0.96 ms vs numpy 0.39 ms (2.5x; 2.4x on the fastest runs), VPPL text 2.5x to 2.8x, parse + compile of
1,000 statements 60 to 100 ms, per-instruction overhead 4 to 5 us (numpy's own call: 0.5 us). About half
of that overhead is the core timeline's `place` (one event per instruction); the rest is the row's
closure (`execute.runner`: everything row-invariant bound once, fast acceptance of already-valid
arguments, the caller's file:line taken from one frame).
"""

if __name__ == "__main__":
    import sys
    sys.stdout.write(render())
