"""The files a person gives authoring, read with a one-line error naming the file: JSON in
general (:func:`read_json`) and the examples file (:func:`read_examples`: field values per
seed, the no-LLM way to author)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anchorpath._errors import AuthoringError

__all__ = ["read_examples", "read_json"]


def read_json(path: str, what: str) -> Any:
    """The JSON in ``path``; a one-line error naming the file (and ``what`` it should hold)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise AuthoringError(f"{path}: cannot read {what}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise AuthoringError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc


def read_examples(path: str) -> dict[str, Any]:
    """Read an examples JSON file (field -> value(s) per seed); one-line error naming the file."""
    data = read_json(path, "examples")
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise AuthoringError(f'{path}: expected {{"<seed path or URL>": {{"<field>": value}}}}')
    return data
