"""Part two's section of docs/vppl.md (image, BLAS-like and DNN operators), rendered from the PART_TWO
table; ``npusim.vppl.docs`` (the one generator) appends it to part one's section, and
tests/vppl/test_docs.py checks the committed file is current."""
from __future__ import annotations

from dataclasses import fields

from . import cost, cost_part_two as C, spec
from .ops_blas import U_MAX, V_MAX, V_MAX_L, X_PER_VECTOR
from .ops_image import MAX_WIDTH_BYTES, MAX_WIDTH_F16
from .docs_procedures import SECTION
from .readings_part_two import ReadingsPartTwo
from .semantics_part_two import PART_TWO

# the documented error bound of each operator against float64 numpy on the same (quantised) inputs
BOUND = {
    "get_array": "exact (p << (q-8) is p/256 in Qq)",
    "FPBLmAvX_uB_L": "<= 1/2 LSB of F16Qq (unless saturated)",
    "FPBLmAvX_uB": "<= 1/2 LSB of F16Qq (unless saturated)",
    "DNN_poolingLayer": "exact",
    "DNN_convolutionLayer": "last channel: <= 1/2 LSB of F16Q12; partial results exact F32Q24 (unless saturated)",
    "DNN_convolutionLayerNPN": "as DNN_convolutionLayer",
    "DNN_convolutionLayerNP1": "<= 1/2 LSB of F16Q12",
    "DNN_localContrastNormalizationLayer": "<= 2^-13 + (1/2 + 2|y| + 1/d) / d, d = max(sigma, mean sigma) in LSBs (the 1/d: the rounded mean's half LSB, seen through the floored d) (unless saturated: |y| >= 8 is possible, up to sqrt(25 C))",
    "DNN_relu": "exact",
    "DNN_softmaxN": "<= 1 LSB of F32Q16",
    "DNN_softmax": "<= 1 LSB of F32Q16",
    "DNN_conv32to16": "<= 1/2 LSB of F16Qq16 (bit-exact vs a Python-integer reference)",
}

TESTS = {
    "get_array": "tests/vppl/test_get_array.py",
    "FPBLmAvX_uB_L": "tests/vppl/test_blas.py::test_L_*",
    "FPBLmAvX_uB": "tests/vppl/test_blas.py::test_uB_*",
    "DNN_poolingLayer": "tests/vppl/test_dnn_pooling.py",
    "DNN_convolutionLayer": "tests/vppl/test_dnn_conv.py::test_padded_convolution_three_channels, test_property_half_lsb",
    "DNN_convolutionLayerNPN": "tests/vppl/test_dnn_conv.py::test_npn_four_channels_and_partial_results_are_f32q24",
    "DNN_convolutionLayerNP1": "tests/vppl/test_dnn_conv.py::test_np1_outputs_f16_at_once_and_matches_conv32to16_path",
    "DNN_localContrastNormalizationLayer": "tests/vppl/test_dnn_lcn.py",
    "DNN_relu": "tests/vppl/test_dnn_activation.py::test_relu_*",
    "DNN_softmaxN": "tests/vppl/test_dnn_activation.py::test_softmax_*",
    "DNN_softmax": "tests/vppl/test_dnn_activation.py::test_softmax_*",
    "DNN_conv32to16": "tests/vppl/test_dnn_activation.py::test_conv32to16_*",
}

COST = {
    "get_array": "ISSUE + height x (ROW_SETUP + regs(ceil32(w)) + regs(output row))",
    "FPBLmAvX_uB_L": "ISSUE + regs(X + B + mA) x MOVE + regs(mA) x MAC + ceil8(u)/8 x ROW_SETUP + regs(Y)",
    "FPBLmAvX_uB": "as FPBLmAvX_uB_L",
    "DNN_poolingLayer": "ISSUE + regs(input) + regs(output) x (k^2 x OP + MOVE) + rows x ROW_SETUP",
    "DNN_convolutionLayer": "ISSUE + regs(input) + regs(output) x (k^2 x MAC + MOVE + 2) + rows x ROW_SETUP",
    "DNN_convolutionLayerNPN": "as DNN_convolutionLayer",
    "DNN_convolutionLayerNP1": "as DNN_convolutionLayer",
    "DNN_localContrastNormalizationLayer": "per channel: regs(input) + regs(output) x (k^2 x 2 OP + MOVE + 2 OP + "
                                           "2 DIV) + rows x ROW_SETUP",
    "DNN_relu": "ISSUE + regs(units x 32 B) x (MOVE + OP) + regs(units x 32 B) x MOVE",
    "DNN_softmaxN": "ISSUE + regs(2n) x (MOVE + EXP + DIV + 2 OP) + regs(4n) x MOVE + 4",
    "DNN_softmax": "as DNN_softmaxN",
    "DNN_conv32to16": "ISSUE + regs(units x 64 B) x (MOVE + OP) + regs(units x 32 B) x MOVE",
}

# (operator, argument, rule, source)
LIMITS = [
    ("get_array", "type", "0 (byte copy) or 8..15 (to F16Qq, q = type)", "seed"),
    ("get_array", "width", f"1..{MAX_WIDTH_BYTES} (type 0), 1..{MAX_WIDTH_F16} (types 8..15)", "seed"),
    ("get_array", "x", "a non-negative multiple of 32", "seed"),
    ("get_array", "source / destination", "32-byte aligned addresses (every source row: the step is a "
     "multiple of 32 when height > 1); the source holds a step", "seed"),
    ("get_array", "width / y", "x + ceil32(width) inside the source row; every row inside the buffer "
     "(an address error on the hardware)", "reading"),
    ("FPBLmAvX_uB_L", "q", "8, 10 or 12", "seed"),
    ("FPBLmAvX_uB_L", "v", f"1..{V_MAX_L}", "seed"),
    ("FPBLmAvX_uB_L", "u", ">= 1; memory-limited (address error beyond DM)", "seed"),
    ("FPBLmAvX_uB_L", "relu", "0 or 1", "seed"),
    ("FPBLmAvX_uB_L / FPBLmAvX_uB", "mA pointer", "mA zero-padded: columns v..ceil32(v) and rows u..ceil8(u) "
     "are zero (the padding tool's job)", "seed"),
    ("FPBLmAvX_uB_L", "X vector k", f"allocated; holds X[{X_PER_VECTOR}k : {X_PER_VECTOR}(k+1)] of ceil32(v)",
     "reading"),
    ("FPBLmAvX_uB_L", "B vector / target", "allocated; at least 8 F16 elements (one u block)", "reading"),
    ("FPBLmAvX_uB", "v / u / q", f"v 1..{V_MAX}, u 1..{U_MAX}, q 8/10/12", "seed"),
    ("FPBLmAvX_uB", "X vector / B vector / target", "allocated; hold ceil32(v) / ceil8(u) / ceil8(u) "
     "F16 elements", "reading"),
    ("DNN_poolingLayer", "kernel size / stride", "2/3/5/7, 1/2", "seed"),
    ("DNN_poolingLayer", "output width / height", "ceil(in / stride); kernel 2 stride 2: in // 2", "seed + reading"),
    ("DNN_convolutionLayer", "kernel size / stride / q / phase", "3/5, 1/2, 12, 0/1/2", "seed"),
    ("DNN_convolutionLayer", "output width / height", "ceil(in / stride) ((k-1)/2 padding)", "seed"),
    ("DNN_convolutionLayerNPN / NP1", "kernel size / stride / q / phase", "5, 1, 12, 0/1/2", "seed"),
    ("DNN_convolutionLayerNPN / NP1", "output width / height", "in - 4", "seed"),
    ("DNN_localContrastNormalizationLayer", "kernel size / q / channels", "5, 12, >= 1", "seed"),
    ("DNN_localContrastNormalizationLayer", "output width / height", "= input size", "reading"),
    ("DNN_relu", "units / q", ">= 1 (16 elements each), 12", "seed"),
    ("DNN_softmaxN / DNN_softmax", "q / elements", "12 (also for the F16Q8-input DNN_softmax), >= 1", "seed"),
    ("DNN_conv32to16", "units / F32 q / F16 q", ">= 1 (16 elements each), 0..31, 0..15", "seed + format"),
    ("all", "target and every work / accumulation vector", "allocated with alloc_vector()", "seed"),
    ("all", "every pointer", "the whole access inside its memory, element-aligned", "reading"),
]


def _cell(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


HEAD = """
## Part two: image, BLAS-like and DNN dot operators

Seed 003's sections 画像操作向け演算子 (get_array), BLAS類似演算子 (FPBLmAvX_uB_L, FPBLmAvX_uB) and DNN向け演算子
(DNN_*). All of them use the target vector as a work area (it must come from `alloc_vector`), load their
inputs from memory through pointer variables and store their results to memory as a side effect.
This part is generated from `src/npusim/vppl/semantics_part_two.py` (the `PART_TWO` table, the same
`OpRow` type as part one's table) by the same `python -m npusim.vppl.docs`.

## Python surface

```python
from npusim import vppl
m = vppl.Machine()                                  # data memory (DM), image buffers A/B, timeline
with vppl.using(m):
    pX = vppl.dm_put(x_raw)                         # a DM block holding the data; a PointerVariable to it
    pY = vppl.dm_alloc(2 * 16)                      # a fresh 32-byte aligned block
    t = vppl.alloc_vector("vT", "__I16V", 8)
    t.FPBLmAvX_uB_L(12, u, v, x0, x1, x2, x3, vb, pX, pY, pB, pA, 1)   # seed argument order
    y = vppl.dm_read(pY, "int16", 16)
vppl.run_with(text, machine=m, images={"A": img}, externals={"pX": pX, ...})   # VPPL text
```

## Pointers, External globals, byName arguments, data memory

| item | model | source |
|---|---|---|
| `vppl.Pointer` (part one) | an immutable address in a memory with a row step: `Machine.dm_store(array)` returns one, `use_image(p, A)` binds one (step = image width); every operator accepts it | seed 003 |
| pointer variable | `vppl.PointerVariable(address, step=0, space=None)`: a mutable 32-bit integer holding an address (scalar arithmetic works: `p = p + 64;` keeps its memory and step), the memory it points into (None: DM) and a step (row pitch in bytes). In text: `p : pointer = 4096,`; an `External p : pointer` bound to a `vppl.Pointer` becomes a variable holding its address | seed 003 ("ポインタ変数") |
| any address-holding variable | an `integer` variable (or immediate) holding an address points into DM with step 0: the seed allows "External宣言された大域変数でも、ローカルなbyName引数でも"; that it really holds an address is the programmer's business | seed 003 |
| `External` | `External p : pointer,` / `External n : integer,` / `External v : i16[32],` declare globals the host binds (`run_with(..., externals={{...}})`); the host's object is shared (changes are visible to the host) | seed 003; reference A7.19 |
| `byName` | `vppl.ByName(var)` in Python: a reference to a variable; reads go through to it. In text, a procedure's `byName` parameter (see Procedures below) | reference A7.19 (pass-by-reference) |
| image buffer | `use_image(p, A)` binds `p` to image buffer A; its step is the image width; get_array's source must be 32-byte aligned on every row | compiler.html --PINA; seed 003 |
| data memory | {dm} bytes (`--EXM`); `dm_alloc` / `dm_put` take 32-byte aligned blocks from the machine's DM allocator (the one `Machine.dm_store` uses), the loader's role; `dm_read` / `dm_write` | compiler.html |
| alignment | 32 bytes for get_array's addresses and x (stated by the seed); element size for the other operators (the seed states none) | seed 003 |
| address errors | any access outside its memory raises `ConstraintError` naming the operator and the pointer argument (the hardware would raise an address error) | seed 003 ("アドレスエラーが起こる可能性") |
| uninitialised reads | loads and stores go through core `TensorView`s: reading never-written DM warns (`UninitializedReadWarning`) and reads the core's poison value, or raises under `uninitialized="error"` | core options |
| work vectors | the target and every work / accumulation vector must be allocated (`alloc_vector`); afterwards each holds the last block the instruction moved through it (documented per row, never poison) | seed 003 |

## Fixed-point arithmetic

F16Qq is a signed 16-bit integer r standing for r x 2^-q, F32Qq the same in 32 bits
(`npusim.vppl.fixed_point`). The seed names the formats but not the arithmetic; the choices:

* **accumulators**: products of two F16Qq are exact Q(2q) integers and sums are exact (int64; no
  1024-term F16 dot product reaches 2^41, and a 7x7 or 5x5xC window even less). The simulator computes
  the GEMV in float64 BLAS, exact because every partial sum is an integer below 2^53.
* **rounding of shifts**: a right shift that drops fraction bits rounds half up (adds 2^(s-1), then shifts
  arithmetically), the DSP "round" instruction (reference A7.15 / A7.17). Left shifts are exact.
* **saturation**: every store to an F16 or F32 format saturates to its range; nothing wraps inside a
  layer. ReLU applies after saturation.
* **host-side quantisation** (`to_fixed`) rounds to nearest even; get_array's byte -> F16Qq conversion is
  the lossless p << (q-8) (reference A6.2).
* **convolution across input channels**: phase 0 (first) = bias (one F16Q12 value) + conv, phase 1
  (middle) = previous + conv, both stored as F32Q24 (= F32Q(2q), exact); phase 2 (last) = previous + conv
  rounded once to F16Q12. A one-channel phase-0 result becomes F16Q12 with `DNN_conv32to16(.., 24, 12)`.
* **LCN**: integer window sums; mean and output round half up, variance and square root floor.
* **softmax**: float64 exp and normalisation, rounded to nearest into F32Q16 (the hardware's exp table is
  not published; reference A7.16); 1 LSB is the documented bound.

## Semantics table

Every operator's arguments are in the seed's order; `pointer` = anything holding an address, `work
vector` = an allocated vector, `scalar` = a parameter or immediate. *bound* is the error against float64
numpy on the same quantised inputs that the covering test asserts. All rows run in GEN.2 mode.

| operator | group | arguments (seed order) | overflow | rounding | target | side effects | bound vs float64 | cycles (estimate) | source | covering test |
|---|---|---|---|---|---|---|---|---|---|---|
"""


TAIL = """
## Cost model (estimates)

TOPS publishes no per-instruction timings. On one GEN.2 core at {mhz:g} MHz with {reg}-bit vector
registers (both as in part one), an operator issues (ISSUE = {issue} cycle) and then streams its data
through vector registers; regs(n) = ceil(n bytes / {regb}).

| constant | value | meaning | source |
|---|---|---|---|
| MOVE_PER_REG | {move} | load or store of one register | estimate |
| MAC_PER_REG | {mac} | multiply-accumulate of one register of F16 lanes | estimate (as part one's MUL_PER_REG) |
| OP_PER_REG | {op} | max / add / compare over one register | estimate |
| EXP_PER_REG | {exp} | exp table look-up + interpolation per register | estimate |
| DIV_PER_REG | {div} | per-lane divide / square root per register (iterative) | estimate |
| ROW_SETUP | {row} | address update per row / block | estimate |

## Examples

* `examples/vppl/gemv_bias_relu.vppl` / `.py`: Y = max(mA.X + B, 0) in F16Q10 via FPBLmAvX_uB_L (100 x 700,
  padded by `pad_fpbl` to 104 x 704), in VPPL text and from Python, both checked within 1/2 LSB.
* `examples/vppl/small_cnn.vppl` / `.py`: get_array from a 128x128 image, 5x5 NP1 convolution (1 -> 4
  channels), ReLU, 2x2 max pooling, 3x3 padded convolution (4 -> 4 channels through the first/middle/last
  phases), ReLU, pooling, LCN over 4 channels, pooling, a 900 -> 10 fully connected layer
  (FPBLmAvX_uB_L) and softmax, all in VPPL text. The script checks every layer against float64 numpy fed
  with the simulator's own input, within the layer's bound above, and the final probabilities end to end
  against the float64 network (within 0.02; measured 8e-4).
* Both texts also run under the CLI, with the host's data from files: `python examples/vppl/small_cnn.py
  --write-inputs DIR` (or `gemv_bias_relu.py --write-inputs DIR`) writes the image and an `.npz` of the
  External arrays and prints the command, e.g. `npusim vppl examples/vppl/small_cnn.vppl --PINA DIR/image.npy
  --externs DIR/small_cnn_inputs.npz --read pS=int32:10` (tests/vppl/test_cli_externs.py checks the CLI's
  results equal the Python host's).
* `examples/vppl/motion_proc.vppl` / `.py`: moving pixels across three 8x8 frames bound as External
  vectors, counted by a procedure that takes the frames by value and returns its count through a
  byName integer; both counts checked against numpy (tests/vppl/test_procedures.py).

## Benchmark

`benchmarks/bench_vppl_cnn.py`: the small CNN on a 128x128 image (text compiled once) against the same
network in plain float64 numpy: 24.0 ms vs 8.9 ms, 2.7x (target: within 5x; 2.3x to 2.7x over several runs)
on the shared 2-core AMD EPYC development machine; re-measured in CPU time (`time.process_time`, median of 15
interleaved runs): 15.6 ms vs 6.4 ms, 2.5x.

## Not covered

procedure calls in expressions (functions) and control flow (the seed shows none); vFile; processes and ZOMP
channels; the exact hardware exp table of the softmax; average pooling (the max reading is taken).
"""

GENERAL = """Points shared by every operator:

- **"パラメータまたは即値" (parameter or immediate)** vs **"変数" (variable)**: the seed distinguishes them
  (get_array's x and y may be variables; widths, kernel sizes and q must be parameters or immediates).
  The part-one language has no parameter (constant) declarations, so an integer variable is accepted
  wherever the seed asks for a parameter; the values are checked at run time all the same.
- **Alignment**: 32 bytes only where the seed states it (get_array's addresses and x); elsewhere the
  element size, because the seed states nothing and the DNN maps it describes (e.g. 62 x 62 F16) cannot
  all start on 32-byte boundaries when channels follow each other.
- **Map layout**: a channel is rows x columns, row-major and contiguous (pitch = width); channels follow
  each other (LCN's several channels, DNN_relu's units). The seed gives no pitch argument.
- **Work vectors**: the seed requires allocated vectors but says nothing of their contents afterwards; each
  ends holding the last block the instruction moved through it (deterministic, never poison), and must
  be large enough for what the reading loads into it (FPBLmAvX: X in 256-element quarters).
- **Partial sums between input channels** are F32Q24 (no rounding until the last channel), which gives
  DNN_conv32to16 its role of finishing a one-channel result.

Per operator:

"""


def render() -> str:
    head = HEAD.replace("{dm}", str(spec.DM_BYTES)).replace("{{", "{").replace("}}", "}")
    at = head.index("\n## Fixed-point arithmetic")
    out = [head[:at] + SECTION + head[at:]]          # procedures / byName in text (docs_procedures.py)
    for r in PART_TWO:
        args = ", ".join(f"{p} ({k})" for p, k in r.params)
        out.append("| " + " | ".join(_cell(x) for x in (
            f"`{r.name}`", r.group, args, r.overflow, r.rounding, r.target, r.side_effects, BOUND[r.name],
            COST[r.name], r.source, TESTS[r.name])) + " |\n")
    out.append("\n## Interpretations of open points (the reading taken and why)\n\n")
    out.append(GENERAL)
    for r in PART_TWO:
        out.append(f"- **{r.name}**: {r.note or 'as the seed states.'}\n")
    out.append("\n## Alternative readings (`m.readings_part_two = ReadingsPartTwo(...)`)\n\n"
               "| field | default | choices | meaning |\n|---|---|---|---|\n")
    for f in fields(ReadingsPartTwo):
        out.append(f"| {f.name} | {f.default} | {', '.join(f.metadata['choices'])} | {_cell(f.metadata['doc'])} |\n")
    out.append("\nCovered by tests/vppl/test_readings_part_two.py.\n")
    out.append("\n## Limits (each raises `ConstraintError` naming the argument)\n\n"
               "| operator | argument | rule | source |\n|---|---|---|---|\n")
    for op, arg, rule, src in LIMITS:
        out.append(f"| {_cell(op)} | {_cell(arg)} | {_cell(rule)} | {src} |\n")
    out.append(TAIL.format(mhz=spec.FREQ_HZ / 1e6, reg=spec.REG_BITS, regb=spec.REG_BITS // 8, issue=cost.ISSUE,
                           move=C.MOVE_PER_REG, mac=C.MAC_PER_REG, op=C.OP_PER_REG, exp=C.EXP_PER_REG,
                           div=C.DIV_PER_REG, row=C.ROW_SETUP))
    # a section of docs/vppl.md: its own headings sit one level below "## Part two"
    return "".join(out).replace("\n## ", "\n### ").replace("\n### Part two", "\n## Part two")

