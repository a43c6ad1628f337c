"""The docs/vppl.md section on procedures and byName arguments in VPPL text (procedures.py); spliced
into the part-two section by docs_part_two.render()."""
from .procedures import MAX_DEPTH

SECTION = """
## Procedures and byName arguments in text (our syntax: a choice)

Seed 003 lets a pointer argument be "a local byName argument" (ローカルなbyName引数) of a procedure but
shows no procedure syntax. We chose a minimal Pascal-like form; reference A7.19 picks by-reference
semantics for byName:

```
procedure scale(byName src : pointer, byName dst : pointer, n : integer)
begin
    k : integer = n * 2;                       // a local: lives for one call
    vT = vT.get_array(dst, src, 0, 0, 64, n, 12);
    dst = dst + k;                             // moves the caller's pointer
end;
scale(pA, pB, 4);
```

| item | model | covering test |
|---|---|---|
| `byName p : T` | bound to the caller's variable itself (by reference): reads, assignments and dot operators inside act on it; an operator takes a byName pointer exactly like the pointer variable it names. The argument is a variable name of kind T (`pointer`: a pointer variable, an External pointer or a `use_image` pointer; `integer`; a vector of T's type and length) | test_procedures.py (byname_*) |
| plain `p : T` | by value: a fresh variable holding a copy (integer / pointer: a scalar expression or variable, keeping a pointer's memory and step; vector: a vector variable of that type and length) | test_procedures.py (plain_*) |
| scope | the body sees its parameters, its locals and the program's globals (not the caller's locals: lexical, as in Pascal); locals may shadow globals and vanish after the call | test_locals_shadow_globals_and_calls_nest |
| form | `procedure NAME(params) begin items end;` at top level, declared before its first call; parameters separated by `,` or `;`; the body holds declarations, directives, dot operator statements, assignments and calls; a call is `NAME(args);`. `procedure`, `begin`, `end` are reserved words | test_procedures_are_declared_at_top_level |
| errors | wrong argument count, an expression for a byName argument, an argument of the wrong kind, an unknown procedure, duplicate procedure / parameter / local names: `ConstraintError` with file:line:column and a caret (at the argument for per-argument errors); errors inside a body point at the body's line | test_wrong_calls_point_at_line_and_column, test_errors_inside_a_body_point_at_the_body_line |
| recursion | allowed, at most {depth} nested calls (the language has no conditionals, so recursion never ends on its own: a clear error instead of a Python stack overflow) | test_recursion_is_bounded |
| cost | a call itself places no event (its body's instructions do); the seed gives no call cost | - |
""".replace("{depth}", str(MAX_DEPTH))
