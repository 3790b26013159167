"""Static check that an XPath stays inside XPath 1.0's core: core functions, no variables.

lxml compiles far more than a selector file may use: ``document()``, EXSLT ``str:``/``re:``
calls, ``$variables`` and prefixed names all compile and then fail (or read files) when they
are evaluated, long after the run fetched its pages. A selector file is data a person reviews
and a runner evaluates on untrusted pages, so it may only use what every XPath 1.0 engine
evaluates without context: the core function library over the page itself. This module
tokenizes an expression (XPath 1.0 section 3.7 lexical rules) and names the first thing
outside that subset; it does no I/O and evaluates nothing.
"""

from __future__ import annotations

import re

__all__ = ["CORE_FUNCTIONS", "core_problem"]

CORE_FUNCTIONS = frozenset(
    {
        # node-set functions
        "last",
        "position",
        "count",
        "id",
        "local-name",
        "namespace-uri",
        "name",
        # string functions
        "string",
        "concat",
        "starts-with",
        "contains",
        "substring-before",
        "substring-after",
        "substring",
        "string-length",
        "normalize-space",
        "translate",
        # boolean functions
        "boolean",
        "not",
        "true",
        "false",
        "lang",
        # number functions
        "number",
        "sum",
        "floor",
        "ceiling",
        "round",
    }
)
_NODE_TYPES = frozenset({"node", "text", "comment", "processing-instruction"})
_OPERATOR_NAMES = frozenset({"and", "or", "mod", "div"})

_NAME = r"[A-Za-z_\u00c0-\uffff][\w.\-\u00b7\u00c0-\uffff]*"
_TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<literal>"[^"]*"|'[^']*')
  | (?P<number>\d+(?:\.\d*)?|\.\d+)
  | (?P<var>\$\s*(?:{_NAME}(?::{_NAME})?)?)
  | (?P<axis>{_NAME}\s*::)
  | (?P<qname>{_NAME}:(?:{_NAME}|\*)|{_NAME})
  | (?P<other>\.\.|//|::|!=|<=|>=|.)
    """,
    re.X | re.S,
)


def _ends_operand(token: tuple[str, str]) -> bool:
    kind, text = token
    return kind in ("literal", "number", "qname") or text in (")", "]", ".", "..", "*")


def core_problem(expr: str) -> str | None:
    """Why ``expr`` leaves XPath 1.0's core, or None when it stays inside it.

    Assumes ``expr`` compiles (syntax errors are reported separately).
    """
    tokens: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(expr):
        kind = m.lastgroup or "other"
        if kind != "ws":
            tokens.append((kind, m.group()))
    for i, (kind, text) in enumerate(tokens):
        if kind == "var":
            name = text.replace(" ", "")
            return f"variable {name!r} is not allowed (selectors have no variables)"
        if kind != "qname":
            continue
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        # "and"/"div"... right after an operand are operators, not names (XPath 1.0, 3.7).
        if text in _OPERATOR_NAMES and i and _ends_operand(tokens[i - 1]):
            continue
        if nxt == "(" and text not in _NODE_TYPES:
            if ":" in text:
                prefix = text.split(":", 1)[0]
                return (
                    f"function {text}() is an extension ({prefix}: namespace), not XPath 1.0 core"
                )
            if text not in CORE_FUNCTIONS:
                return f"function {text}() is not an XPath 1.0 core function"
            continue
        if ":" in text:
            prefix = text.split(":", 1)[0]
            return f"namespace prefix {prefix!r} is not defined (in {text!r})"
    return None
