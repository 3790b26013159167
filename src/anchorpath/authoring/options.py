"""How a page type is authored: the settings every authoring entry point shares, held once.

``author new-site`` builds one :class:`AuthoringOptions` from its flags; the core
(``induce``), the page authors (``pages.detail``, ``pages.listing``), LLM authoring
(``llm.author``), the review session and repair take it instead of the same six keyword
arguments each. Each default is defined here and nowhere else. The model's settings (token
budget, perturbation rounds) are not here: they are ``[llm]`` settings, passed as the
:class:`~anchorpath._config.LLMConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AuthoringOptions"]


@dataclass(frozen=True)
class AuthoringOptions:
    """Options of one page type's authoring.

    ``list_page``: True forces a list page (record root), False a detail page, None detects
    it from the examples. ``page_type``: the page type's name (default ``list`` or
    ``detail``). ``match``: its URL regex (default: induced from the seed URLs).
    ``mutation_seed`` seeds the RNG of the perturbation tests; ``operators`` picks the
    mutation operators (None: all of ``scoring.mutate.OPERATORS``). With ``strict`` a value
    that grounds nowhere, or a field no XPath reproduces, is an error; otherwise the field is
    left out and the reason goes to the problems. ``allow_constant`` (LLM authoring): also
    author a field asked for by name whose value is the same on every seed (without it such a
    field is kept only where the pages name the field at the value, see
    ``authoring.llm.confirm``; otherwise it is left out as unconfirmed: a planted banner?).
    """

    list_page: bool | None = None
    page_type: str | None = None
    match: str | None = None
    mutation_seed: int = 0
    operators: tuple[str, ...] | None = None
    strict: bool = True
    allow_constant: bool = True
