"""A conservative plain-Python check compiled from a JSON Schema (draft 2020-12).

jsonschema walks a schema keyword by keyword for every value (``descend``, ``evolve``, the
referencing machinery): ~1.5 ms of CPU for one selector file (most of what ``run --all`` spent
loading 32 sites before its first request), ~80 µs for one extracted record.
:func:`compile_check` turns a schema, once, into nested closures that answer a single question:
does jsonschema *certainly* accept this instance? ``True`` only then. ``False`` means "not
known here": the caller asks jsonschema, which alone words the problems. Used for selector
files (:mod:`~anchorpath.selectors.load`) and records (``runner.drift.validate``). The check
may be stricter than the schema, never looser:

* types are exact where jsonschema is lenient: ``integer`` is an ``int`` (jsonschema also
  takes ``1.0``), ``number`` an ``int`` or ``float``; a ``bool`` is neither, as in jsonschema;
* ``enum`` and ``const`` compare type and value (``1`` is not ``True``, nor ``1.0``);
* ``format`` asks the validator's own :class:`~jsonschema.FormatChecker` (the same functions);
* a keyword not known here (``oneOf``, ``patternProperties``, ``$dynamicRef``, ...) makes its
  subschema "not known": every value that reaches it takes jsonschema's path. ``$ref`` is
  followed inside the document only (``#/...``); ``$id`` and ``$schema`` only at the top.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sized
from typing import Any

from jsonschema import FormatChecker

__all__ = ["Check", "compile_check"]

#: True only when jsonschema certainly accepts the value.
Check = Callable[[Any], bool]

#: Keywords that never reject a value (``$defs`` is reached through ``$ref``).
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$defs",
    }
)
#: Keywords checked together by :meth:`_Compiler.members`.
_MEMBERS = frozenset({"properties", "additionalProperties"})
#: Keywords only meaningful at the top of the document here.
_TOP_ONLY = frozenset({"$schema", "$id"})

_TYPES: dict[str, Check] = {
    "null": lambda v: v is None,
    "boolean": lambda v: v is True or v is False,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) is int or type(v) is float,
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
#: Values jsonschema certainly does not take for numbers (numeric keywords skip them).
_NOT_NUMBERS = (str, list, dict, bool, type(None))
#: Size keywords: the kind of value they apply to, and whether they are a lower bound.
_SIZED: dict[str, tuple[type[Sized], bool]] = {
    "minLength": (str, True),
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
    "minProperties": (dict, True),
    "maxProperties": (dict, False),
}
#: ``enum``/``const`` members compared by exact type and value.
_SCALARS = (str, int, float, bool, type(None))


def _always(v: Any) -> bool:
    return True


def _never(v: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def check(v: Any) -> bool:
        for c in checks:  # noqa: SIM110 (all() over a generator costs a third more here)
            if not c(v):
                return False
        return True

    return check


def _numeric(test: Callable[[int | float], bool]) -> Check:
    def check(v: Any) -> bool:
        t = type(v)
        if t is int or t is float:
            return test(v)
        return isinstance(v, _NOT_NUMBERS)

    return check


def _members(values: list[Any]) -> Check:
    """Equal to one of ``values`` by exact type (members other than scalars never match here)."""
    scalars = [m for m in values if type(m) in _SCALARS]
    if scalars and all(type(m) is str for m in scalars):
        names = frozenset(scalars)
        return lambda v: type(v) is str and v in names
    pairs = [(type(m), m) for m in scalars]
    if len(pairs) == 1:
        kind, value = pairs[0]
        return lambda v: type(v) is kind and v == value
    return lambda v: any(type(v) is t and v == m for t, m in pairs)


class _Compiler:
    def __init__(self, root: Mapping[str, Any], format_checker: FormatChecker | None) -> None:
        self.root = root
        self.format_checker = format_checker
        self.refs: dict[str, Check] = {}

    def schema(self, schema: Any, top: bool = False) -> Check:
        if schema is True:
            return _always
        if not isinstance(schema, dict):
            return _never
        checks: list[Check] = []
        if "properties" in schema or "additionalProperties" in schema:
            members = self.members(schema)
            if members is None:
                return _never
            checks.append(members)
        for key, arg in schema.items():
            if key in _ANNOTATIONS or key in _MEMBERS or (top and key in _TOP_ONLY):
                continue
            check = self.keyword(key, arg, schema)
            if check is None:
                return _never
            if check is not _always:
                checks.append(check)
        return _all(checks)

    def keyword(self, key: str, arg: Any, schema: Mapping[str, Any]) -> Check | None:
        """The check of one keyword (``_always`` when it rejects nothing, None: not known)."""
        if key == "type":
            return _type_check(arg)
        if key == "enum":
            return _members(arg) if isinstance(arg, list) else None
        if key == "const":
            return _members([arg])
        if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            return _bound_check(key, arg)
        if key in _SIZED:
            return _sized_check(key, arg)
        if key == "pattern":
            return _pattern_check(arg)
        if key == "format":
            fc = self.format_checker
            if fc is None:
                return _always
            return lambda v: fc.conforms(v, arg)
        if key == "required":
            if not isinstance(arg, list):
                return None
            required = frozenset(arg)
            return lambda v: not isinstance(v, dict) or v.keys() >= required
        if key in ("items", "allOf", "anyOf"):
            return self.composite(key, arg, schema)
        if key == "$ref":
            return self.ref(arg) if isinstance(arg, str) else None
        return None

    def composite(self, key: str, arg: Any, schema: Mapping[str, Any]) -> Check | None:
        """``items``, ``allOf`` and ``anyOf``: checks made of the sub-schemas' checks."""
        if key == "items":
            if "prefixItems" in schema:
                return None
            item = self.schema(arg)
            if item is _always:
                return _always
            return lambda v: not isinstance(v, list) or all(map(item, v))
        if not isinstance(arg, list) or not arg:
            return None
        subs = [self.schema(s) for s in arg]
        if key == "allOf":
            return _all(subs)
        return lambda v: any(s(v) for s in subs)

    def members(self, schema: Mapping[str, Any]) -> Check | None:
        """``properties`` and ``additionalProperties`` in one pass over an object's members."""
        declared = schema.get("properties", {})
        if not isinstance(declared, dict) or "patternProperties" in schema:
            return None
        props = {name: self.schema(sub) for name, sub in declared.items()}
        extra = self.schema(schema.get("additionalProperties", True))

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name, value in v.items():  # noqa: SIM110 (see _all)
                if not props.get(name, extra)(value):
                    return False
            return True

        return check

    def ref(self, ref: str) -> Check | None:
        """A reference into this document (``#`` or ``#/json/pointer``), compiled once (a
        cycle of references goes through the entry made before compiling)."""
        if ref in self.refs:
            return self.refs[ref]
        if (ref != "#" and not ref.startswith("#/")) or "%" in ref:
            return None
        target: Any = self.root
        for part in ref[2:].split("/") if ref != "#" else []:
            if isinstance(target, dict) and target is not self.root and "$id" in target:
                return None  # a new base URI: its own references resolve elsewhere
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return None
        compiled: list[Check] = []
        self.refs[ref] = lambda v: compiled[0](v)
        compiled.append(self.schema(target, top=target is self.root))
        self.refs[ref] = compiled[0]
        return compiled[0]


def compile_check(schema: Mapping[str, Any], format_checker: FormatChecker | None) -> Check:
    """The conservative check of ``schema`` (see the module docstring); ``format_checker`` is
    the one the schema's jsonschema validator uses (None: formats are not checked)."""
    return _Compiler(schema, format_checker).schema(dict(schema), top=True)


def _type_check(arg: Any) -> Check | None:
    """``type``: one JSON type name or a list of them."""
    names = [arg] if isinstance(arg, str) else arg
    if not isinstance(names, list) or not all(n in _TYPES for n in names):
        return None
    tests = [_TYPES[n] for n in names]
    return tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests)


def _bound_check(key: str, arg: Any) -> Check | None:
    """``minimum``, ``maximum`` and their exclusive forms (numbers only)."""
    if type(arg) not in (int, float):
        return None
    bound = arg
    if key == "minimum":
        return _numeric(lambda v: v >= bound)
    if key == "maximum":
        return _numeric(lambda v: v <= bound)
    if key == "exclusiveMinimum":
        return _numeric(lambda v: v > bound)
    return _numeric(lambda v: v < bound)


def _sized_check(key: str, arg: Any) -> Check | None:
    """``minLength``/``maxLength``/``minItems``/``maxItems`` (see ``_SIZED``)."""
    if type(arg) is not int:
        return None
    kind, at_least = _SIZED[key]
    n = arg
    if at_least:
        return lambda v: not isinstance(v, kind) or len(v) >= n
    return lambda v: not isinstance(v, kind) or len(v) <= n


def _pattern_check(arg: Any) -> Check | None:
    """``pattern``: a regular expression a string must contain (None: not one Python reads)."""
    if not isinstance(arg, str):
        return None
    try:
        search = re.compile(arg).search
    except re.error:
        return None
    return lambda v: not isinstance(v, str) or search(v) is not None
