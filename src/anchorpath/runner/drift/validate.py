"""Validation of extracted records against a JSON Schema derived from the selector file.

Each page type gets a draft 2020-12 schema built from its fields' declarations:

=========== ==========================================================================
field type  schema
=========== ==========================================================================
string      ``{"type": "string", "minLength": 1}`` (+ ``pattern``)
integer     ``{"type": "integer"}``
number      ``{"type": "number"}``
date        ``{"type": "string", "format": "date"}`` (ISO 8601 ``YYYY-MM-DD``)
datetime    ``{"type": "string", "format": "date-time"}``
url         ``{"type": "string", "format": "uri"}`` (absolute http(s) URL)
list        ``{"type": "array", "items": <string schema>}`` (``minItems: 1`` if required)
=========== ==========================================================================

Required fields are listed in ``required`` and may not be null; optional fields also accept
null. Formats are always *checked* (jsonschema only annotates them by default), with checkers
that need no extra packages.

Each schema is compiled once per process (sites of ``run --all`` share equal schemas), into a
jsonschema validator and a plain-Python check (:mod:`anchorpath.selectors.schema_check`, with
the format checkers below). A record the check passes is valid without walking jsonschema's
keyword machinery (~80 µs a record, under the GIL); any other record goes to ``iter_errors``,
which alone words the problems. The check is conservative: it passes a value only where
jsonschema certainly would (e.g. ``integer`` only for an ``int``; jsonschema also takes
``1.0``, which then takes the slow path).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator, FormatChecker

from anchorpath.selectors.model import FieldSpec, PageType
from anchorpath.selectors.schema_check import Check, compile_check

__all__ = ["RecordValidator", "compiled", "record_schema"]

_checker = FormatChecker(formats=())


def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    dt.date.fromisoformat(value)
    return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value))


def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def _is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and " " not in value


_checker.checks("date", raises=ValueError)(_is_date)
_checker.checks("date-time", raises=ValueError)(_is_datetime)
_checker.checks("uri", raises=ValueError)(_is_uri)


def _value_schema(spec: FieldSpec) -> dict[str, Any]:
    if spec.type == "integer":
        return {"type": "integer"}
    if spec.type == "number":
        return {"type": "number"}
    if spec.type == "date":
        return {"type": "string", "format": "date"}
    if spec.type == "datetime":
        return {"type": "string", "format": "date-time"}
    if spec.type == "url":
        return {"type": "string", "format": "uri"}
    text: dict[str, Any] = {"type": "string", "minLength": 1}
    if spec.pattern:
        text["pattern"] = spec.pattern
    if spec.type == "list":
        out: dict[str, Any] = {"type": "array", "items": text}
        if spec.required:
            out["minItems"] = 1
        return out
    return text


def record_schema(page_type: PageType) -> dict[str, Any]:
    """The JSON Schema a record of ``page_type`` must satisfy."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in page_type.fields.items():
        schema = _value_schema(spec)
        if spec.required:
            required.append(name)
        else:
            schema = {"anyOf": [{"type": "null"}, schema]}
        props[name] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"record of page type {page_type.name}",
        "type": "object",
        "properties": props,
        "required": required,
    }


@functools.lru_cache(maxsize=256)
def _compiled(schema_json: str) -> tuple[Draft202012Validator, Check]:
    schema = json.loads(schema_json)
    return Draft202012Validator(schema, format_checker=_checker), compile_check(schema, _checker)


def compiled(schema: dict[str, Any]) -> tuple[Draft202012Validator, Check]:
    """The validator of ``schema`` and its fast check, built once per process for equal
    schemas (keys in the same order: jsonschema reports a value's problems in that order)."""
    return _compiled(json.dumps(schema))


class RecordValidator:
    """Validates records of every page type of a selector file (schemas compiled once per
    process, see :func:`compiled`)."""

    def __init__(self, page_types: Mapping[str, PageType]) -> None:
        self.schemas = {name: record_schema(pt) for name, pt in page_types.items()}
        self._compiled = {name: compiled(s) for name, s in self.schemas.items()}

    def problems(self, page_type: str, values: Mapping[str, Any]) -> list[str]:
        """One ``field: message`` line per violation (empty when the record is valid)."""
        entry = self._compiled.get(page_type)
        if entry is None:
            return [f"unknown page type {page_type!r}"]
        validator, fast = entry
        record = dict(values)
        if fast(record):
            return []
        out = []
        for err in sorted(validator.iter_errors(record), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in err.path) or "(record)"
            message = err.message
            if err.validator == "anyOf" and err.context:
                message = err.context[-1].message
            out.append(f"{where}: {message}")
        return out
