"""The docs/vppl.md section on argument rules, limits and determinism (issue 17; vppl/args.py);
appended by docs.render()."""
from . import spec

SECTION = """
## Argument rules, limits and determinism (issue 17)

Every public constructor and helper normalises its arguments first (`vppl/args.py`): a value of the wrong
kind raises `ConstraintError(api, param, rule, value)` (a `ValueError` too, so older `except ValueError`
code still works), never a TypeError, OverflowError, RecursionError or MemoryError. Fuzzed by
`npusim.fuzz.vppl` (`make fuzz`, `tests/fuzz/test_fuzz_vppl.py`): every dot operator from Python, the
constructors and helpers, and random, malformed and pathological VPPL text.

| argument | accepted | refused | test (`tests/fuzz/test_fuzz_vppl.py`) |
|---|---|---|---|
| vector length (`Vector`, `alloc_vector`, `name : T[n]`) | an integer in [1, {max_len}] (npusim's limit, checked before anything is allocated: {max_len} 32-bit elements are 4 MiB) | bool, float, None, 0, negative, longer (`i8[10000000000]`) | `test_vector_length_is_bounded_before_anything_is_allocated` |
| element type | `i8 u8 i16 u16 i32 u32`, `F16Qq`/`F32Qq` with q below the width, a matching numpy dtype | anything else | `test_constructors_and_helpers_raise_constraint_errors` |
| vector initialiser | an integer (its low bits), an `Integer`, or one integer per element | bool, float, str, None (None in Python means "uninitialised") | same |
| `Integer(value)`, `Integer.set` | int, numpy integer or `Integer` (low 32 bits kept), or None (never assigned) | bool, float, NaN, inf | same |
| `Machine(mode, reg_bits, freq_hz, dm_bytes, readings, name)` | mode `gen2`/`extended`; reg_bits a multiple of 8 in [8, 65536]; a positive finite clock; dm_bytes in [1, 2^31]; a `Readings` | anything else | same |
| `Readings(...)` fields | one of each field's choices | anything else | same |
| `dm_alloc`, `dm_read`, `dm_write`, `PointerVariable` | integer sizes, counts and steps >= 0; a numeric dtype; numeric host arrays; the access inside the memory | bool, float, None; object/str arrays; out of range | same |
| `execute(row, target, args)` | an operator row, a target vector, a list of arguments | anything else | same |
| number literal in text | decimal (leading zeros allowed: `09` is 9) or `0x` hex, at most {digits} digits | longer literals | `test_number_literals` |

Expressions in text are compiled to postfix code and run with an explicit stack, so their size is limited
only by memory: 500 unary minus signs, a 10,000-term sum or 3,000 nested parentheses are ordinary
expressions (`test_500_unary_minus_signs_and_a_10000_term_sum`).

Determinism: two runs of the same program give identical values and identical traces. A machine's core
label defaults to `gen2-core0` for every machine (name machines whose events share one trace), and default
vector names `v0, v1, ...` count per machine, not per process
(`test_two_runs_give_identical_values_and_traces`).
""".replace("{max_len}", str(spec.MAX_VECTOR_ELEMENTS)).replace("{digits}", str(spec.MAX_LITERAL_DIGITS))
