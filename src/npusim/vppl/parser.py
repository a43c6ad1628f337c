"""VPPL text -> lark tree (LALR, built once). Syntax errors point at line and column with a caret."""
from __future__ import annotations

import os
from functools import lru_cache

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..core.errors import ConstraintError, NpuSimError

_GRAMMAR = os.path.join(os.path.dirname(__file__), "grammar.lark")

_RULE_WORDS = {"SEP": "',' or ';'", "SEMICOLON": "';'", "COLON": "':'", "LPAR": "'('", "RPAR": "')'",
               "EQUAL": "'='", "DOT": "'.'", "NAME": "a name", "INT": "a number", "LSQB": "'['",
               "RSQB": "']'", "COMMA": "','", "ADDOP": "'+' or '-'", "MULOP": "'*' or '/'", "MINUS": "'-'",
               "INTEGER": "'integer'", "VLIST": "'vList'", "$END": "end of file",
               "PROCEDURE": "'procedure'", "BEGIN": "'begin'", "END": "'end'", "BYNAME": "'byName'",
               "POINTER": "'pointer'", "EXTERNAL": "'External'"}


def caret(source: str, line: int, column: int) -> str:
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return f"    {text}\n    {' ' * max(column - 1, 0)}^"


class VpplSyntaxError(NpuSimError, SyntaxError):
    """A VPPL text that the grammar does not accept."""

    def __init__(self, filename: str, line: int, column: int, message: str, source: str):
        self.filename, self.line, self.column, self.detail = filename, line, column, message
        NpuSimError.__init__(self, f"{filename}:{line}:{column}: syntax error: {message}\n"
                                   f"{caret(source, line, column)}")

    def __str__(self) -> str:
        return self.args[0]


class VpplSemanticError(ConstraintError):
    """A rule broken while running a VPPL text: the ConstraintError, plus where in the text."""

    def __init__(self, err: ConstraintError, filename: str, line: int, column: int, source: str):
        ConstraintError.__init__(self, err.api, err.param, err.rule, err.value)
        self.filename, self.line, self.column = filename, line, column
        self.text = f"{filename}:{line}:{column}: error: {ConstraintError.__str__(self)}\n" \
                    f"{caret(source, line, column)}"

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=1)
def parser() -> Lark:
    with open(_GRAMMAR, encoding="utf-8") as f:
        return Lark(f.read(), parser="lalr", lexer="contextual", maybe_placeholders=False)


def _expected(e: UnexpectedInput) -> str:
    exp = None
    ip = getattr(e, "interactive_parser", None)
    if ip is not None:
        try:
            exp = sorted(ip.accepts())          # what really fits here (LALR's table is over-inclusive)
        except Exception:                       # noqa: BLE001 - fall back to the table's list
            exp = None
    exp = exp or sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or ())
    words = [_RULE_WORDS.get(x, x) for x in exp if not x.startswith("__")]
    return ", ".join(words[:6]) if words else "something else"


def _rule(e: UnexpectedToken) -> str:
    """Which construct was being read, from the parser's value stack: 'in the declaration of x'."""
    try:
        stack = e.interactive_parser.parser_state.value_stack
    except AttributeError:
        return ""
    i = len(stack)
    while i > 0 and not (hasattr(stack[i - 1], "data") and stack[i - 1].data.startswith("__start")):
        i -= 1
    part = stack[i:]
    types = [getattr(x, "type", None) for x in part]
    if not part or types[0] != "NAME":
        return ""
    name = str(part[0])
    if len(types) > 1 and types[1] == "COLON":
        return f" in the declaration of '{name}' (name : type [= value] followed by ',' or ';')"
    if len(types) > 1 and types[1] == "LPAR":
        return f" in the directive {name}(...)"
    if "DOT" in types:
        j = types.index("DOT")
        op = str(part[j + 1]) if j + 1 < len(part) else "?"
        return f" in the dot operator statement '{op}' (x = y.op$XX(args);)"
    if len(types) > 1 and types[1] == "EQUAL":
        return f" in the assignment to '{name}' (name = expression;)"
    return ""


def parse(source: str, filename: str = "<vppl>"):
    try:
        return parser().parse(source)
    except UnexpectedToken as e:
        tok = e.token
        what = "end of file" if tok.type == "$END" else repr(str(tok))
        line = e.line if e.line and e.line > 0 else source.count("\n") + 1
        col = e.column if e.column and e.column > 0 else 1
        raise VpplSyntaxError(filename, line, col, f"unexpected {what}{_rule(e)}; expected {_expected(e)}",
                              source) from None
    except UnexpectedCharacters as e:
        raise VpplSyntaxError(filename, e.line, e.column,
                              f"unexpected character {source[e.pos_in_stream]!r}; expected {_expected(e)}",
                              source) from None
    except UnexpectedEOF as e:
        n = source.count("\n") + 1
        raise VpplSyntaxError(filename, n, 1, f"unexpected end of file; expected {_expected(e)}", source) from None
