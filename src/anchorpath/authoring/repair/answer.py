"""A written answer to a bundle's ``prompt.md``, given back with ``author repair --answer``.

``prompt.md`` asks, per failing page URL, for each broken field's value as the page shows it
(a list, one value per record, on a list page). Whoever answers it — a person, or any model
the prompt was pasted into — hands the answer back as a file: the JSON itself, or the model's
whole reply with the JSON inside it (a fenced block, or the first JSON object in the text).

:func:`read_answer` checks the file against the bundle (every URL one of its failing pages,
every field one of that page's page type, every value a string, a list of strings or null;
one clear error naming the file and the entry otherwise). :func:`answer_repair` then repairs
exactly as ``--llm`` does (:func:`~anchorpath.authoring.repair.llm.repair_with_values`): the
answered pages are the seeds, the answer is the model (:class:`AnswerClient`), so each value
passes the verbatim guard and grounding, and the result is adopted only if it reproduces the
last good records. An answer cannot be asked again: no re-ask, no perturbation round (a value
found at several nodes is grounded at all of them, and the authoring core keeps the XPath that
holds on every seed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from anchorpath._config import LLMConfig
from anchorpath._errors import AuthoringError
from anchorpath.authoring.repair.llm import repair_with_values
from anchorpath.authoring.repair.result import RepairResult
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage, seed_from_html
from anchorpath.bundle import Bundle
from anchorpath.selectors.model import PageType, SelectorFile

if TYPE_CHECKING:
    from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest
    from anchorpath.authoring.llm.propose import Proposals

__all__ = ["Answer", "AnswerClient", "answer_repair", "read_answer", "repair_with_answer"]

#: What prompt.md writes where a value goes: an answer still holding it is not filled in.
PLACEHOLDER = "…"
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.S)

Value = str | list[str] | None


@dataclass(frozen=True)
class Answer:
    """Values per failing page (the bundle's URL) and field, as the answer gives them."""

    path: Path
    pages: Mapping[str, Mapping[str, Value]]


def _path_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _json_in(text: str) -> Any:
    """The JSON object in ``text``: all of it, else a fenced block (one filled in, when the
    reply also echoes the prompt's template), else the first object."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    blocks = []
    for block in _FENCE.findall(text):
        try:
            data = json.loads(block)
        except ValueError:
            continue
        if isinstance(data, dict):
            blocks.append((PLACEHOLDER in json.dumps(data, ensure_ascii=False), data))
    if blocks:
        return sorted(blocks, key=lambda b: b[0])[0][1]
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            data, _end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(data, dict) and data:
            return data
    return None


def _value(raw: Any, where: str) -> Value:
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise AuthoringError(f"{where}: a value must be text, a list of texts or null")
    if isinstance(raw, int | float):
        return str(raw)
    if isinstance(raw, str):
        if raw.strip() == PLACEHOLDER:
            raise AuthoringError(f"{where}: still the placeholder {PLACEHOLDER!r}; fill it in")
        return raw
    if isinstance(raw, list):
        return [v for v in (_value(x, where) for x in raw) if isinstance(v, str)]
    raise AuthoringError(f"{where}: a value must be text, a list of texts or null")


def read_answer(path: str | Path, bundle: Bundle) -> Answer:
    """Read and check an answer to ``bundle``'s ``prompt.md`` (see the module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise AuthoringError(f"{path}: cannot read the answer: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise AuthoringError(f"{path}: the answer is not UTF-8 text") from exc
    data = _json_in(text)
    if not isinstance(data, dict) or not data:
        raise AuthoringError(
            f"{path}: no JSON object found (expected the answer format of the bundle's "
            "prompt.md: per page URL, per field, the value)"
        )
    failing = {s.url: s.url for s in bundle.failing}
    failing.update({_path_query(u): u for u in list(failing)})
    pages: dict[str, dict[str, Value]] = {}
    sf = bundle.selector
    for url, fields in data.items():
        where = f"{path}: page {url!r}"
        own = failing.get(url) or failing.get(_path_query(str(url)))
        if own is None:
            raise AuthoringError(f"{where} is not one of the bundle's failing pages")
        pt = sf.page_type_for(own)
        if not isinstance(fields, dict):
            raise AuthoringError(f"{where}: expected an object of field values")
        for name in fields:
            if pt is None or name not in pt.fields:
                known = ", ".join(pt.fields) if pt is not None else "none"
                raise AuthoringError(
                    f"{where}: no field {name!r} on its page type (fields: {known})"
                )
        pages[own] = {n: _value(v, f"{where}, field {n!r}") for n, v in fields.items()}
    return Answer(path, pages)


class AnswerClient:
    """The answer as the model of the value calls (an
    :class:`~anchorpath.authoring.llm.client.LLMClient`): each seed's question is answered
    with the answer's values for that page (null for fields it does not give)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    @property
    def model(self) -> str:
        return f"answer {self.answer.path.name}"

    @property
    def endpoint(self) -> str:
        return "file"

    @property
    def temperature(self) -> float:
        return 0.0

    @property
    def top_p(self) -> float:
        return 1.0

    def complete(self, request: ChatRequest) -> ChatAnswer:
        from anchorpath.authoring.llm.client import ChatAnswer

        values = self.answer.pages.get(request.seed or "", {})
        names = list(request.schema.get("properties", {}))
        return ChatAnswer({n: values.get(n) for n in names}, self.model, mode="answer")


def answer_repair(
    result: RepairResult,
    answer: Answer,
    llm: LLMConfig,
) -> RepairResult:
    """Repair the page types the LLM-free ``result`` left unverified from ``answer``'s values,
    as ``--llm`` would from the model's (the answered pages of each page type are its seeds;
    each pruned to ``llm.token_budget`` tokens, no perturbation rounds)."""
    from anchorpath.authoring.llm.propose import propose

    client = AnswerClient(answer)

    def ask(seeds: Sequence[SeedPage], reqs: Sequence[FieldRequest]) -> Proposals:
        # only the fields the answer gives (prompt.md asks for the broken ones): the others
        # were not asked, they are not "not found"
        given = {n for s in seeds for n in answer.pages.get(s.source, {})}
        asked = [r for r in reqs if r.name in given]
        return propose(client, seeds, asked, replace(llm, perturbation_rounds=0), reask=False)

    def seeds_of(bundle: Bundle, pt: PageType, sf: SelectorFile) -> list[SeedPage]:
        rx = re.compile(pt.match)
        return [
            seed_from_html(s.body, s.url, source=s.url)
            for s in bundle.failing
            if s.url in answer.pages and rx.search(s.url)
        ]

    return repair_with_values(result, ask, seeds_of, source="answer")


def repair_with_answer(
    result: RepairResult,
    bundle: Bundle,
    path: Path,
    llm: LLMConfig,
    note: Callable[[str], None],
) -> RepairResult:
    """``author repair --answer FILE``: the answer's values for the page types the LLM-free
    ``result`` left unverified (the file is read and checked even when none is left)."""
    from anchorpath.authoring.repair.llm import unverified_page_types

    given = read_answer(path, bundle)
    todo = unverified_page_types(result, bundle)
    if not todo:
        note("--answer: every page type verified without it; the answer is not used")
        return result
    note(f"--answer: values for page type(s) {', '.join(todo)} from {path}")
    return answer_repair(result, given, llm)
