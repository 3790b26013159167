"""Prompt templates: versioned text files in ``anchorpath/prompts/`` (package data).

A template is ``<name>.v<N>.txt`` with ``$placeholders`` (:class:`string.Template`, so JSON braces
need no escaping). Its sha256 goes into the selector file's provenance, so a file says exactly
which wording produced the values it was authored from.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import cache
from importlib import resources

from anchorpath._errors import LLMError

__all__ = ["TEMPLATE_VERSIONS", "Template", "load_template", "templates_hash"]

#: The version of each template this release uses.
TEMPLATE_VERSIONS = {"system": 1, "values": 1, "fields": 1, "retry": 1}


@dataclass(frozen=True)
class Template:
    name: str
    version: int
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def render(self, **values: object) -> str:
        try:
            return string.Template(self.text).substitute({k: str(v) for k, v in values.items()})
        except (KeyError, ValueError) as exc:
            raise LLMError(f"prompt template {self.name}.v{self.version}: {exc}") from exc


@cache
def load_template(name: str, version: int | None = None) -> Template:
    """The packaged template ``name`` (at ``version``, default: the current one)."""
    v = TEMPLATE_VERSIONS.get(name) if version is None else version
    if v is None:
        raise LLMError(f"no prompt template named {name!r}")
    try:
        text = (resources.files("anchorpath.prompts") / f"{name}.v{v}.txt").read_text("utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise LLMError(f"prompt template {name}.v{v}.txt is missing from the package") from exc
    return Template(name, v, text)


def templates_hash() -> str:
    """sha256 over every current template (name, version and text): the provenance hash."""
    h = hashlib.sha256()
    for name in sorted(TEMPLATE_VERSIONS):
        t = load_template(name)
        h.update(f"{t.name}.v{t.version}\n".encode())
        h.update(t.text.encode("utf-8"))
    return h.hexdigest()
