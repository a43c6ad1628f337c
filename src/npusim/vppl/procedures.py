"""Procedures with byName parameters in VPPL text (issue 9 item 1).

Seed 003 lets an operator's pointer argument be a pointer variable, an External global or "a local
byName argument" (ローカルなbyName引数) of a procedure, but shows no procedure syntax. Our choice, a
minimal Pascal-like form (reference A7.19 picks by-reference semantics for byName)::

    procedure scale(byName src : pointer, byName dst : pointer, n : integer)
    begin
        k : integer = n * 2;          // a local: lives for one call
        ...statements...
    end;
    scale(pA, pB, 64);

* ``byName p : T`` binds ``p`` to the caller's variable itself (by reference): reads and assignments
  inside go to it, and operators take a byName pointer exactly like the pointer variable it names.
  The argument must be a variable name of kind T (pointer, integer, or a vector of T's type and length).
* a plain parameter is a copy (by value): an integer / pointer expression, or a vector variable.
* the body sees its parameters, its own locals and the program's globals declared before the call
  (not the caller's locals: scoping is lexical, as in Pascal); locals may shadow globals.
* parameters are separated by ',' or ';' (Pascal uses ';'); ``procedure``, ``begin`` and ``end``
  become reserved words. Procedures are declared at top level, before their first call; a procedure
  may call itself (up to ``MAX_DEPTH`` nested calls).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Token

from ..core.errors import ConstraintError
from .args import literal
from .parser import VpplSemanticError
from .pointer import Pointer
from .pointers import PointerVariable
from .types import elem_type
from .vector import Integer, Vector

MAX_DEPTH = 64          # our limit on nested calls (recursion), so a runaway recursion is a clear error


@dataclass
class Param:
    name: str
    tok: Token
    byname: bool
    vtype: object           # the grammar's vtype tree

    def kind(self) -> str:
        if self.vtype.data == "vector_type":
            return f"{self.vtype.children[0]}[{self.vtype.children[1]}]"
        return self.vtype.data.replace("_type", "")

    def text(self) -> str:
        return ("byName " if self.byname else "") + f"{self.name} : {self.kind()}"


@dataclass
class Procedure:
    name: str
    params: list[Param]
    steps: list = field(default_factory=list)

    def signature(self) -> str:
        return f"{self.name}({', '.join(p.text() for p in self.params)})"


class Scope(dict):
    """A procedure call's variables: the globals (visible), plus its own names (parameters and locals),
    which alone count for 'each name is declared once' so a local may shadow a global."""

    def __init__(self, globals_: dict, depth: int):
        super().__init__(globals_)
        self.globals, self.depth, self.own = globals_, depth, set()

    def __setitem__(self, key, value) -> None:
        self.own.add(key)
        super().__setitem__(key, value)


def _first_token(tree, default):
    if isinstance(tree, Token):
        return tree
    for v in tree.scan_values(lambda v: isinstance(v, Token)):
        return v
    return default


def _same_vector_type(v: Vector, vtype) -> bool:
    tname, length = str(vtype.children[0]), literal(str(vtype.children[1]))
    return v.etype.name == elem_type(tname).name and v.length == length


def _by_name(proc: Procedure, p: Param, obj):
    """The caller's variable itself, after checking it is of the parameter's kind."""
    kind = p.vtype.data
    ok = (kind == "pointer_type" and isinstance(obj, (PointerVariable, Pointer))
          or kind == "integer_type" and isinstance(obj, Integer) and not isinstance(obj, PointerVariable)
          or kind == "vector_type" and isinstance(obj, Vector) and _same_vector_type(obj, p.vtype))
    if not ok:
        got = f"{obj.etype.name}[{obj.length}]" if isinstance(obj, Vector) else type(obj).__name__
        raise ConstraintError(proc.name, p.name, f"a byName {p.kind()} parameter is passed a variable of that "
                              "kind", got)
    return obj


def _by_value(proc: Procedure, p: Param, v):
    """A fresh variable holding a copy of the argument's value."""
    kind = p.vtype.data
    if kind == "vector_type":
        if not (isinstance(v, Vector) and _same_vector_type(v, p.vtype)):
            got = f"{v.etype.name}[{v.length}]" if isinstance(v, Vector) else type(v).__name__
            raise ConstraintError(proc.name, p.name, f"a {p.kind()} parameter is passed a vector of that type "
                                  "and length", got)
        out = Vector(v.etype.name, v.length, None, name=p.name)
        out.a[...] = v.a
        out.valid = v.valid
        return out
    if isinstance(v, Vector):
        raise ConstraintError(proc.name, p.name, f"a {p.kind()} parameter is passed a scalar", "vector")
    if kind == "pointer_type":
        if isinstance(v, PointerVariable):
            return PointerVariable(v.read(proc.name), v.step, p.name, space=v.space)
        if isinstance(v, Pointer):
            return PointerVariable(v.address, v.step, p.name, space=v.memory)
        return PointerVariable(v.read(proc.name) if isinstance(v, Integer) else int(v), name=p.name)
    if isinstance(v, Pointer):
        raise ConstraintError(proc.name, p.name, "an integer parameter is passed an integer", "Pointer")
    return Integer(v.read(proc.name) if isinstance(v, Integer) else int(v), p.name)


def _c_proc_decl(self, t):
    name_tok = t.children[0]
    name = str(name_tok)
    procs = self.__dict__.setdefault("procs", {})
    if name in procs or name in ("alloc_vector", "use_image"):
        self._err(name_tok, "procedure", name, "each procedure is declared once and is not a directive's name",
                  name)
    params, body = [], []
    for c in t.children[1:]:
        if c.data == "param":
            byname = isinstance(c.children[0], Token) and c.children[0].type == "BYNAME"
            ptok, vtype = c.children[1 if byname else 0], c.children[-1]
            if any(p.name == str(ptok) for p in params):
                self._err(ptok, name, str(ptok), "each parameter name is used once", str(ptok))
            if vtype.data == "vector_type":
                try:
                    elem_type(str(vtype.children[0]))
                except ValueError as e:
                    self._err(vtype.children[0], name, str(ptok), getattr(e, "rule", str(e)), str(vtype.children[0]))
            params.append(Param(str(ptok), ptok, byname, vtype))
        else:
            body.append(c)
    proc = Procedure(name, params)
    procs[name] = proc                      # before the body: a procedure may call itself
    outer, self.steps = self.steps, proc.steps
    try:
        for item in body:
            getattr(self, "_c_" + item.data)(item)
    finally:
        self.steps = outer


def _c_call(self, t):
    name_tok, args = t.children[0], t.children[1:]
    proc: Procedure = self.procs[str(name_tok)]
    if len(args) != len(proc.params):
        self._err(name_tok, proc.name, "arguments", f"{len(proc.params)} argument(s): {proc.signature()}",
                  len(args))
    binders = []
    for p, a in zip(proc.params, args):
        tok = _first_token(a, name_tok)
        if p.byname:
            if a.data != "var":
                self._err(tok, proc.name, p.name, "a byName argument is a variable name (passed by reference)",
                          "an expression")
            get = self._expr(a)

            def bind(env, _p=p, _get=get):
                return _by_name(proc, _p, _get(env))
        else:
            get = self._expr(a)

            def bind(env, _p=p, _get=get):
                return _by_value(proc, _p, _get(env))
        binders.append((tok, bind))

    def call(env):
        depth = getattr(env, "depth", 0) + 1
        if depth > MAX_DEPTH:
            raise ConstraintError(proc.name, "calls", f"calls nest at most {MAX_DEPTH} deep", depth)
        bound = []
        for tok, bind in binders:               # arguments are evaluated in the caller's scope
            try:
                bound.append(bind(env))
            except ConstraintError as e:
                if isinstance(e, VpplSemanticError):
                    raise
                raise VpplSemanticError(e, self.filename, tok.line, tok.column, self.source) from None
        scope = Scope(getattr(env, "globals", env), depth)
        for p, obj in zip(proc.params, bound):
            scope[p.name] = obj
        self._run_steps(proc.steps, scope)
    self.steps.append((*self._pos(name_tok), call))


def install() -> None:
    from .interpreter import Program
    Program._c_proc_decl = _c_proc_decl
    Program._c_call = _c_call
