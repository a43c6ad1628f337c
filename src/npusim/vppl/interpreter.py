"""Run a VPPL text: compile the lark tree into a list of steps, run them on a fresh machine.

Every rule broken while running raises ``VpplSemanticError`` (a ConstraintError) that points at the
line and column with a caret and names the operator and the rule.
"""
from __future__ import annotations

import warnings

from lark import Token

from ..core.errors import ConstraintError, NpuSimError
from . import args, cost
from .execute import runner
from .machine import Machine, using
from .parser import VpplSemanticError, caret, parse
from .semantics import BASES, TABLE
from .types import ALLOC_TYPES, elem_type, wrap_int32
from .vector import Integer, Vector, alloc_vector


def _div(x: int, y: int) -> int:
    if y == 0:
        raise ConstraintError("/", "divisor", "integer division by a nonzero value", 0)
    q = abs(x) // abs(y)
    return wrap_int32(q if (x >= 0) == (y >= 0) else -q)       # truncates toward zero


_PUSH, _CALL, _NEG = "push", "call", "neg"
_BINOP = {"+": lambda a, b: wrap_int32(a + b), "-": lambda a, b: wrap_int32(a - b),
          "*": lambda a, b: wrap_int32(a * b), "/": _div}


class VpplLintWarning(UserWarning):
    """A legal VPPL text that probably does not do what it looks like."""


class Program:
    """A compiled VPPL text: steps (line, column, callable(env)) run in order."""

    def __init__(self, source: str, filename: str = "<vppl>"):
        self.source, self.filename = source, filename
        self.steps: list[tuple[int, int, object]] = []
        for item in parse(source, filename).children:
            getattr(self, "_c_" + item.data)(item)

    # ---- running ----

    def run(self, machine: Machine, images: dict | None = None) -> dict:
        env: dict[str, object] = {}
        with using(machine):
            for which, img in (images or {}).items():
                machine.set_image(which, img)
            self._run_steps(self.steps, env)
        return env

    def _run_steps(self, steps, env) -> None:
        """Run steps in order; a broken rule points at its step (a procedure body's steps at their own line)."""
        for line, col, fn in steps:
            try:
                fn(env)
            except VpplSemanticError:
                raise
            except ConstraintError as e:
                raise VpplSemanticError(e, self.filename, line, col, self.source) from None
            except NpuSimError as e:          # uninitialised reads in strict mode, bounds: say where
                if not getattr(e, "_vppl_where", False):
                    e._vppl_where = True
                    e.add_note(f"{self.filename}:{line}:{col}: here\n{caret(self.source, line, col)}")
                raise

    # ---- helpers ----

    def _err(self, tok, api, param, rule, value):
        raise VpplSemanticError(ConstraintError(api, param, rule, value), self.filename, tok.line, tok.column,
                                self.source)

    def _expr(self, t):
        """A compiled scalar expression: env -> int, or the variable itself for ``var`` (a vector or an
        integer variable, decided when it runs)."""
        if isinstance(t, Token):
            raise AssertionError(t)
        kind = t.data
        if kind == "number":
            v = self._number(t.children[0])
            return lambda env: v
        if kind in ("neg", "binop"):
            return self._postfix(t)
        if kind == "var":
            tok = t.children[0]
            name = str(tok)

            def get(env, _n=name, _t=tok):
                try:
                    return env[_n]
                except KeyError:
                    raise ConstraintError("name", _n, "a variable is declared before use", _n) from None
            return get
        raise AssertionError(kind)

    def _number(self, tok) -> int:
        try:
            return args.literal(str(tok))
        except ConstraintError as e:
            self._err(tok, e.api, e.param, e.rule, e.value)

    def _postfix(self, t):
        """An arithmetic expression compiled into postfix code and run by a loop with an explicit stack:
        no Python recursion, so 500 unary minus signs or a 10,000-term sum are plain expressions."""
        code, todo = [], [(t, False)]
        while todo:                                  # iterative post-order walk of the tree
            node, children_done = todo.pop()
            kind = node.data
            if kind == "number":
                code.append((_PUSH, self._number(node.children[0])))
            elif kind == "var":
                code.append((_CALL, self._scalar(node)))
            elif children_done:
                code.append((_NEG, None) if kind == "neg" else (_BINOP[str(node.children[1])], None))
            else:
                todo.append((node, True))
                operands = [node.children[0]] if kind == "neg" else [node.children[0], node.children[2]]
                todo.extend((c, False) for c in reversed(operands))

        def run(env):
            stack = []
            for op, arg in code:
                if op is _PUSH:
                    stack.append(arg)
                elif op is _CALL:
                    stack.append(arg(env))
                elif op is _NEG:
                    stack.append(wrap_int32(-stack.pop()))
                else:
                    b = stack.pop()
                    stack.append(op(stack.pop(), b))
            return stack[0]
        return run

    def _scalar(self, t):
        f = self._expr(t)
        if t.data != "var":
            return f

        def get(env):
            v = f(env)
            if isinstance(v, Integer):
                return v.read("expression")
            raise ConstraintError("expression", str(t.children[0]), "scalar expressions use integer variables",
                                  type(v).__name__)
        return get

    def _pos(self, tok):
        return tok.line, tok.column

    # ---- compilers, one per grammar rule ----

    def _c_decl(self, t):
        name_tok, vtype = t.children[0], t.children[1]
        init = t.children[2] if len(t.children) > 2 else None
        name = str(name_tok)
        if vtype.data == "pointer_type":                # part two (lang_part_two.py)
            return self._c_pointer_decl(t)
        if vtype.data == "integer_type":
            if init is not None and init.data == "vlist":
                self._err(name_tok, "declaration", name, "an integer is initialised with a scalar expression",
                          "vList[...]")
            f = self._scalar(init) if init is not None else (lambda env: None)

            def decl_int(env):
                self._fresh(env, name)
                env[name] = Integer(f(env), name)          # no initialiser: never assigned yet
        else:
            type_tok, len_tok = vtype.children
            try:
                et = elem_type(str(type_tok))
            except ValueError as e:
                self._err(type_tok, "declaration", "type", getattr(e, "rule", str(e)), str(type_tok))
            try:
                length = args.vector_length("vector declaration", args.literal(str(len_tok)))
            except ConstraintError as e:
                self._err(len_tok, e.api, e.param, e.rule, e.value)
            if init is None:
                def make(env):
                    return Vector(et, length, None, name=name)
            elif init.data == "vlist":
                items = [self._scalar(c) for c in init.children]

                def make(env):
                    if len(items) != length:
                        raise ConstraintError("vList", name, f"a vList initialiser gives all {length} elements",
                                              len(items))
                    return Vector(et, length, [f(env) for f in items], name=name)
            else:
                f = self._scalar(init)

                def make(env):
                    return Vector(et, length, f(env), name=name)

            def decl_int(env):
                self._fresh(env, name)
                env[name] = make(env)
        self.steps.append((*self._pos(name_tok), decl_int))

    @staticmethod
    def _fresh(env, name):
        if name in getattr(env, "own", env):        # a procedure's scope: only its own names (procedures.py)
            raise ConstraintError("declaration", name, "each name is declared once", name)

    def _c_directive(self, t):
        name_tok, args = t.children[0], t.children[1:]
        d = str(name_tok)
        if d == "alloc_vector":
            if len(args) != 3 or any(a.data != "var" for a in args[:2]):
                self._err(name_tok, "alloc_vector", "arguments", "alloc_vector(name, __I16V-style type, length)",
                          len(args))
            vname, tname = str(args[0].children[0]), str(args[1].children[0])
            n = self._scalar(args[2])
            if tname not in ALLOC_TYPES:
                self._err(args[1].children[0], "alloc_vector", "type", f"one of {', '.join(ALLOC_TYPES)}", tname)

            def run(env):
                self._fresh(env, vname)
                env[vname] = alloc_vector(vname, tname, n(env))
        elif d == "use_image":
            if len(args) != 2 or any(a.data != "var" for a in args):
                self._err(name_tok, "use_image", "arguments", "use_image(pointer name, A or B)", len(args))
            pname, which = str(args[0].children[0]), str(args[1].children[0]).upper()

            def run(env):
                from .machine import machine
                p = machine().image_pointer(which, pname)
                self._fresh(env, pname)
                env[pname] = p
        elif d in getattr(self, "procs", {}):
            return self._c_call(t)                  # a procedure call (procedures.py)
        else:
            self._err(name_tok, d, "directive", "a known directive (alloc_vector, use_image), a procedure "
                      "declared above, or a dot operator statement", d)
        self.steps.append((*self._pos(name_tok), run))

    def _c_assign(self, t):
        name_tok, expr = t.children
        name = str(name_tok)
        if expr.data == "var":
            src = self._expr(expr)

            def run(env):
                dst, v = self._lookup(env, name), src(env)
                if isinstance(dst, Vector) and isinstance(v, Vector):
                    if v.length != dst.length or v.etype.np.itemsize != dst.etype.np.itemsize:
                        raise ConstraintError("=", name, "a vector is copied into a vector of the same type and "
                                              "length", f"{v.etype.name}[{v.length}]")
                    v.check_valid("=")
                    dst.a[...] = v.a.view(dst.a.dtype)
                    dst.valid = v.valid
                elif isinstance(dst, Integer) and isinstance(v, Integer):
                    dst.value = v.read("=")
                else:
                    raise ConstraintError("=", name, "both sides are vectors or both are integers",
                                          f"{type(dst).__name__} = {type(v).__name__}")
        else:
            f = self._scalar(expr)

            def run(env):
                dst = self._lookup(env, name)
                if not isinstance(dst, Integer):
                    raise ConstraintError("=", name, "a scalar expression is assigned to an integer variable",
                                          type(dst).__name__)
                dst.value = f(env)
        tl_src = f"{self.filename}:{name_tok.line}"

        def step(env):
            run(env)
            from .machine import machine
            m = machine()
            m.timeline.place("scalar", "assign", cost.SCALAR_OP, order="none",
                             not_before_ns=m.simd_engine.free_ns, source=tl_src)
        self.steps.append((*self._pos(name_tok), step))

    @staticmethod
    def _lookup(env, name):
        try:
            return env[name]
        except KeyError:
            raise ConstraintError("name", name, "a variable is declared before use", name) from None

    def _c_dot_stmt(self, t):
        names = []
        for c in t.children:
            if isinstance(c, Token):
                names.append(c)
            else:
                break
        args = t.children[len(names):]
        if len(names) == 3:
            lhs_tok, tgt_tok, op_tok = names
        else:
            lhs_tok, (tgt_tok, op_tok) = None, names
        op = str(op_tok)
        row = TABLE.get(op)
        if row is None:
            base = op.split("$")[0]
            if base in BASES:
                sfx = ", ".join(r.name for r in BASES[base])
                self._err(op_tok, op, "suffix", f"a suffix the operator has ({sfx})", op.partition("$")[2])
            self._err(op_tok, op, "operator", "a dot operator of the seed (general, element, reduction)", op)
        argf = []
        for a in args:
            argf.append(self._expr(a))
        tgt, lhs = str(tgt_tok), (str(lhs_tok) if lhs_tok is not None else None)
        src = f"{self.filename}:{op_tok.line}"
        run_op = getattr(row, "run", None) or runner(row)     # the instruction closure (execute.runner)
        if lhs is not None and lhs != tgt:
            # dot operators rewrite their target in place (seed 003); the assignment only copies it
            warnings.warn(f"{self.filename}:{op_tok.line}:{op_tok.column}: {lhs} = {tgt}.{op}(...) also "
                          f"changes {tgt} in place (dot operators rewrite their target); {lhs} gets a copy",
                          VpplLintWarning, stacklevel=2)

        copy_to_lhs = lhs is not None and lhs != tgt
        lookup = self._lookup

        def run(env):
            target = env.get(tgt)
            if target.__class__ is not Vector:
                target = lookup(env, tgt)                 # undeclared: its error
                if not isinstance(target, Vector):
                    raise ConstraintError(op, "target", "the target of a dot operator is a vector variable",
                                          f"{tgt}: {type(target).__name__}")
            run_op(target, *[f(env) for f in argf], source=src)
            if copy_to_lhs:
                dst = self._lookup(env, lhs)
                if not isinstance(dst, Vector) or dst.nbytes != target.nbytes:
                    raise ConstraintError(op, lhs, "the assigned variable is a vector as long as the target",
                                          type(dst).__name__)
                dst.a.view(target.a.dtype)[...] = target.a
                dst.valid = target.valid
        self.steps.append((*self._pos(op_tok), run))


def result(env: dict) -> dict:
    """Variables as the Python surface returns them: vectors as numpy arrays (copies), integers as int."""
    out = {}
    for k, v in env.items():
        if isinstance(v, Vector):
            out[k] = v.a.copy()
        elif isinstance(v, Integer):
            out[k] = v.value
    return out


def run(source: str, images: dict | None = None, mode: str = "gen2", filename: str = "<vppl>",
        machine: Machine | None = None) -> dict:
    prog = Program(source, filename)
    env = prog.run(machine or Machine(mode), images)
    return result(env)
