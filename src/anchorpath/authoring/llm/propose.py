"""Field and value proposals from an LLM, each checked against the seed's DOM.

The library API the CLI (and the interactive session) calls:

* :func:`prepare_pages` — prune every seed to Markdown within the token budget;
* :func:`propose_fields` — one call over all seeds: the fields the template shows (names are
  sanitised to snake_case; a field whose example is not on the first seed is dropped);
* :func:`propose_values` — one call per seed (the *value-call contract*: the page's Markdown in
  the messages, a schema with one property per requested field named exactly as the field),
  the **verbatim guard** (a value must occur in the seed's normalised text; otherwise it is
  rejected, re-asked once with the rejection stated, then reported not found), and
  **perturbation grounding** (Huang & Song 2025): where an accepted value occurs at several
  nodes of the Markdown, each occurrence is altered differently and the seed asked again; the
  occurrence whose alteration the model copies is the node it read. Calls per site stay within
  ``n_s + p·n_s + 1`` (value calls, ``p`` perturbation rounds, one discovery call) plus at most
  one guard re-ask per seed, all recorded in the ledger;
* :func:`propose` — both, returning :class:`Proposals` whose ``examples`` feed the example-value
  authoring core unchanged.

Nothing an answer contains is executed, fetched or used as an XPath: answers are only field
names and values, and a value that is not on the page never reaches a selector file.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urljoin

from lxml import etree

from anchorpath._config import LLMConfig
from anchorpath._errors import AnchorpathError, LLMError
from anchorpath._text import excerpt
from anchorpath.authoring.llm.client import ChatRequest, LLMClient, Message, Purpose
from anchorpath.authoring.llm.templates import load_template
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage
from anchorpath.prune import PromptPage, PrunedPage, fit_budget, prune_page
from anchorpath.prune.budget import field_terms, template_chunks
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import FIELD_TYPES

__all__ = [
    "MAX_VALUES",
    "FieldProposal",
    "Proposals",
    "SeedPrompt",
    "ValueVerdict",
    "fields_schema",
    "prepare_pages",
    "propose",
    "propose_fields",
    "propose_values",
    "value_schema",
    "verbatim",
]

Status = Literal["accepted", "not_found", "rejected"]
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")
_SKIP = {"script", "style", "noscript", "template"}
#: Most distinct values kept per field and seed (a list page of 100 rows needs 100).
MAX_VALUES = 200
_VALUE = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]
}


# -- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldProposal:
    """A field the model says the template shows."""

    name: str
    type: str
    description: str
    example: str | None


@dataclass(frozen=True)
class ValueVerdict:
    """What became of one field's proposed value on one seed."""

    field: str
    seed: str
    value: str | list[str] | None  # the accepted value (None unless accepted)
    status: Status
    proposed: str | list[str] | None = None  # what the model answered last
    reason: str | None = None
    reasked: bool = False
    nodes: tuple[str, ...] = ()  # paths of the DOM nodes whose text holds the value
    read_node: str | None = None  # the node perturbation showed the model read


@dataclass
class SeedPrompt:
    """A seed, its pruned page and the Markdown that goes into prompts."""

    seed: SeedPage
    pruned: PrunedPage
    prompt: PromptPage
    text: str  # the seed's visible text, normalised (for the verbatim guard)
    attrs: frozenset[str]  # normalised link/src/content attribute values (url fields)


@dataclass
class Proposals:
    """Fields and per-seed values the LLM proposed, after every check."""

    fields: list[FieldRequest]
    examples: dict[str, dict[str, Any]]
    verdicts: list[ValueVerdict]
    pages: list[SeedPrompt]
    discovered: list[FieldProposal] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Seeds left out because their answers disagree with the others' (see :func:`propose`).
    dropped: list[str] = field(default_factory=list)

    def rejected(self) -> list[ValueVerdict]:
        """Proposals that failed the verbatim guard (hallucinated or not verbatim)."""
        return [v for v in self.verdicts if v.reason and "not on the page" in v.reason]

    def failed_fields(self) -> dict[str, str]:
        """Fields with no accepted value on any seed, and why."""
        out: dict[str, str] = {}
        for f in self.fields:
            vs = [v for v in self.verdicts if v.field == f.name]
            if vs and not any(v.status == "accepted" for v in vs):
                out[f.name] = "; ".join(dict.fromkeys(v.reason or v.status for v in vs))
        return out


# -- the checks -----------------------------------------------------------------------------


def _norm(text: str) -> str:
    """The runner's normalisation (NFKC, white space collapsed); case is kept: verbatim."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _texts(root: etree._Element) -> list[Any]:
    """The text nodes under ``root`` (lxml "smart strings" with ``getparent``/``is_tail``)."""
    found = root.xpath(".//text()")
    return found if isinstance(found, list) else []


def _page_text(doc: etree._Element) -> tuple[str, frozenset[str]]:
    attrs: set[str] = set()
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        for name in ("href", "src", "content", "title", "alt", "value", "datetime"):
            v = el.get(name)
            if v:
                attrs.add(_norm(v))
    # text and tails in document order, with skipped elements' own text left out
    out: list[str] = []
    for t in _texts(doc):
        owner = t.getparent()
        if owner is not None and getattr(t, "is_tail", False):
            owner = owner.getparent()
        if owner is not None and isinstance(owner.tag, str) and owner.tag in _SKIP:
            continue
        out.append(str(t))
    joined = "".join(out)
    return _norm(joined) + "\n" + _norm(" ".join(out)), frozenset(attrs)


def verbatim(value: str, page: SeedPrompt, ftype: str = "string") -> bool:
    """Does ``value`` occur in the seed's text after normalisation (or as a link/src value
    for url fields)?"""
    v = _norm(value)
    if not v:
        return False
    if v in page.text:
        return True
    return ftype == "url" and v in page.attrs


def _as_values(raw: Any) -> list[str] | None:
    """An answer's values for one field, normalised. A list page's answer repeats values
    (one per record), so they are kept as given up to :data:`MAX_VALUES`; a longer list is
    a flood, not records: each value once, at most :data:`MAX_VALUES` of them (an answer
    listing a value 10,000 times costs what one costs)."""
    if raw is None:
        return None
    items = raw if isinstance(raw, list) else [raw]
    flood = len(items) > MAX_VALUES
    vals: list[str] = []
    seen: set[str] = set()
    for x in items:
        if not isinstance(x, str) or not (v := _norm(x)):
            continue
        if flood and v in seen:
            continue
        seen.add(v)
        vals.append(v)
        if len(vals) >= MAX_VALUES:
            break
    return vals or None


# -- schemas and prompts --------------------------------------------------------------------


def value_schema(names: Sequence[str]) -> dict[str, Any]:
    """One property per field, named exactly as the field: string, array of strings or null."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(names),
        "properties": {n: _VALUE for n in names},
    }


def fields_schema() -> dict[str, Any]:
    item = {
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "description", "type", "example"],
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "type": {"type": "string", "enum": list(FIELD_TYPES)},
            "example": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["fields"],
        "properties": {"fields": {"type": "array", "items": item}},
    }


def _field_list(fields: Sequence[FieldRequest]) -> str:
    lines = []
    for f in fields:
        desc = f": {f.description}" if f.description else ""
        lines.append(f"- {f.name} (type {f.type}){desc}")
    return "\n".join(lines)


def value_request(
    page: SeedPrompt, fields: Sequence[FieldRequest], markdown: str, *, purpose: Purpose = "values"
) -> ChatRequest:
    user = load_template("values").render(
        seed_label=page.seed.source,
        url=page.seed.url,
        markdown=markdown,
        field_list=_field_list(fields),
    )
    return ChatRequest(
        (Message("system", load_template("system").text), Message("user", user)),
        value_schema([f.name for f in fields]),
        "field_values",
        purpose,
        page.seed.source,
        accept=_acceptable(page, fields, on_page=purpose != "perturb"),
    )


def _acceptable(
    page: SeedPrompt, fields: Sequence[FieldRequest], *, on_page: bool = True
) -> Callable[[Any], bool]:
    """Whether a value answer passes the guard as a whole (cached only then): an object whose
    fields hold at most :data:`MAX_VALUES` values each, every one on the page (``on_page``;
    a perturbation round's page is altered on purpose, so only the count holds there)."""

    def accept(data: Any) -> bool:
        if not isinstance(data, dict):
            return False
        for f in fields:
            raw = data.get(f.name)
            if isinstance(raw, list) and len(raw) > MAX_VALUES:
                return False
            vals = _as_values(raw) if on_page else None
            if vals is not None and not all(verbatim(v, page, f.type) for v in dict.fromkeys(vals)):
                return False
        return True

    return accept


# -- steps ----------------------------------------------------------------------------------


def prepare_pages(
    seeds: Sequence[SeedPage],
    *,
    budget: int,
    terms: Sequence[str] = (),
    keep_links: bool = False,
) -> list[SeedPrompt]:
    """Prune every seed and fit it to ``budget`` tokens by relevance to ``terms``."""
    pruned = []
    for s in seeds:
        try:
            pruned.append(prune_page(s.html, s.url, keep_links=keep_links))
        except AnchorpathError as exc:
            raise LLMError(f"{s.source}: cannot prune seed page: {exc}") from exc
    template = template_chunks(pruned)
    out = []
    for s, p in zip(seeds, pruned, strict=True):
        text, attrs = _page_text(parse_html(s.html))
        out.append(SeedPrompt(s, p, fit_budget(p, budget, terms, template), text, attrs))
    return out


def _snake(name: str) -> str:
    s = re.sub(r"[^0-9a-z]+", "_", unicodedata.normalize("NFKC", name).lower()).strip("_")
    return s if _NAME.match(s or "") else ""


def propose_fields(
    client: LLMClient,
    pages: Sequence[SeedPrompt],
    *,
    max_fields: int = 12,
    problems: list[str] | None = None,
) -> list[FieldProposal]:
    """One call: the fields common to the seeds, with names sanitised and examples checked."""
    blocks = [
        f"<page {i + 1}: {p.seed.url}>\n{p.prompt.markdown}\n</page {i + 1}>"
        for i, p in enumerate(pages)
    ]
    user = load_template("fields").render(
        n_pages=len(pages), pages="\n\n".join(blocks), max_fields=max_fields
    )
    req = ChatRequest(
        (Message("system", load_template("system").text), Message("user", user)),
        fields_schema(),
        "template_fields",
        "fields",
    )
    answer = client.complete(req)
    out: list[FieldProposal] = []
    notes = problems if problems is not None else []
    for item in answer.data.get("fields", []):
        name = _snake(str(item.get("name", "")))
        if not name:
            notes.append(
                f"proposed field {str(item.get('name'))[:40]!r}: not a usable name; dropped"
            )
            continue
        if any(f.name == name for f in out):
            continue
        example = item.get("example")
        ftype = item.get("type") if item.get("type") in FIELD_TYPES else "string"
        if example is not None and not verbatim(str(example), pages[0], ftype):
            notes.append(
                f"proposed field {name!r}: example {str(example)[:60]!r} is not on the page;"
                " dropped"
            )
            continue
        out.append(FieldProposal(name, ftype, str(item.get("description", ""))[:200], example))
        if len(out) >= max_fields:
            break
    return out


def _variant(value: str, k: int) -> str | None:
    """``value`` with its last letter or digit changed, differently for each ``k``."""
    for i in range(len(value) - 1, -1, -1):
        ch = value[i]
        if ch.isdigit() and ch.isascii():
            new = str((int(ch) + 1 + k) % 10)
        elif ch.isascii() and ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            new = chr((ord(ch) - base + 1 + k) % 26 + base)
        else:
            continue
        return value[:i] + new + value[i + 1 :]
    return None


def _check(f: FieldRequest, raw: Any, page: SeedPrompt) -> tuple[list[str] | None, str | None]:
    """Accepted values, or ``(None, reason)``; ``(None, None)`` means the model said null."""
    vals = _as_values(raw)
    if vals is None:
        return None, None
    bad = [v for v in dict.fromkeys(vals) if not verbatim(v, page, f.type)]
    if bad:
        return None, f"{bad[0][:80]!r} is not on the page"
    return vals, None


def _shape(f: FieldRequest, vals: list[str], base_url: str) -> str | list[str]:
    if f.type == "url":  # links as the page writes them; the core compares resolved URLs
        vals = [urljoin(base_url, v) for v in vals]
    if f.type == "list" or len(vals) > 1:
        return vals
    return vals[0]


def propose_values(
    client: LLMClient,
    pages: Sequence[SeedPrompt],
    fields: Sequence[FieldRequest],
    *,
    perturbation_rounds: int = 1,
    reask: bool = True,
) -> tuple[dict[str, dict[str, Any]], list[ValueVerdict]]:
    """Per seed: one value call, the verbatim guard with one re-ask (``reask``: an answer
    written once, ``author repair --answer``, cannot be asked again), perturbation grounding."""
    examples: dict[str, dict[str, Any]] = {}
    verdicts: list[ValueVerdict] = []
    for page in pages:
        req = value_request(page, fields, page.prompt.markdown)
        answer = client.complete(req).data
        accepted: dict[str, list[str]] = {}
        rejected: dict[str, tuple[Any, str]] = {}
        nulls: set[str] = set()
        for f in fields:
            vals, why = _check(f, answer.get(f.name), page)
            if vals is not None:
                accepted[f.name] = vals
            elif why is not None:
                rejected[f.name] = (answer.get(f.name), why)
            else:
                nulls.add(f.name)
        reasked: set[str] = set()
        if rejected and reask:
            retry_fields = [f for f in fields if f.name in rejected]
            base = value_request(page, retry_fields, page.prompt.markdown, purpose="reask")
            problems = "\n".join(
                f"- {name}: {why}; copy it exactly from the page or answer null"
                for name, (_, why) in rejected.items()
            )
            prev = {name: _as_values(raw) for name, (raw, _) in rejected.items()}

            req2 = ChatRequest(
                (
                    *base.messages,
                    Message("assistant", json.dumps(prev, ensure_ascii=False)),
                    Message("user", load_template("retry").render(problems=problems)),
                ),
                base.schema,
                base.schema_name,
                "reask",
                page.seed.source,
                accept=base.accept,
            )
            again = client.complete(req2).data
            for f in retry_fields:
                reasked.add(f.name)
                vals, why = _check(f, again.get(f.name), page)
                if vals is not None:
                    accepted[f.name] = vals
                    del rejected[f.name]
                elif why is not None:
                    rejected[f.name] = (again.get(f.name), why)
                else:
                    rejected[f.name] = (None, rejected[f.name][1] + "; re-asked: null")
        read = _perturb(client, page, fields, accepted, perturbation_rounds)
        ex: dict[str, Any] = {}
        for f in fields:
            if f.name in accepted:
                vals = accepted[f.name]
                ex[f.name] = _shape(f, vals, page.seed.url)
                spans = [s.path for v in dict.fromkeys(vals) for s in page.pruned.spans_with(v)]
                verdicts.append(
                    ValueVerdict(
                        f.name,
                        page.seed.source,
                        ex[f.name],
                        "accepted",
                        ex[f.name],
                        reasked=f.name in reasked,
                        nodes=tuple(dict.fromkeys(spans)),
                        read_node=read.get(f.name),
                    )
                )
            elif f.name in rejected:
                raw, why = rejected[f.name]
                ex[f.name] = None
                verdicts.append(
                    ValueVerdict(
                        f.name,
                        page.seed.source,
                        None,
                        "not_found",
                        raw if isinstance(raw, str) else _as_values(raw),
                        f"{why} (rejected{', re-asked once' if f.name in reasked else ''})",
                        reasked=f.name in reasked,
                    )
                )
            else:
                ex[f.name] = None
                verdicts.append(
                    ValueVerdict(
                        f.name, page.seed.source, None, "not_found", None, "model answered null"
                    )
                )
        examples[page.seed.source] = ex
    return examples, verdicts


def _perturb(
    client: LLMClient,
    page: SeedPrompt,
    fields: Sequence[FieldRequest],
    accepted: Mapping[str, list[str]],
    rounds: int,
) -> dict[str, str]:
    """field -> path of the node the model read, for values found at several nodes."""
    ambiguous: dict[str, tuple[str, list[str]]] = {}
    for f in fields:
        vals = accepted.get(f.name)
        if not vals or len(vals) != 1:
            continue
        spans = page.pruned.spans_with(vals[0])
        paths = [s.path for s in spans]
        # Only when every occurrence in the prompt maps to one text node, in order.
        if len(set(paths)) > 1 and page.prompt.occurrences(vals[0]) == len(spans):
            ambiguous[f.name] = (vals[0], paths)
    read: dict[str, str] = {}
    todo = dict(ambiguous)
    for r in range(max(0, rounds)):
        if not todo:
            break
        edits: list[tuple[str, int, str]] = []
        variants: dict[str, dict[str, int]] = {}
        for name, (value, paths) in todo.items():
            vs: dict[str, int] = {}
            for k in range(len(paths)):
                v = _variant(value, k + r * len(paths))
                if v is None or v in vs:
                    break
                vs[v] = k
                edits.append((value, k, v))
            variants[name] = vs
        markdown = page.prompt.perturbed(edits)
        sub = [f for f in fields if f.name in todo]
        answer = client.complete(value_request(page, sub, markdown, purpose="perturb")).data
        for name in list(todo):
            got = answer.get(name)
            got = got[0] if isinstance(got, list) and got else got
            hit = variants[name].get(_norm(got)) if isinstance(got, str) else None
            if hit is not None:
                read[name] = todo[name][1][hit]
                del todo[name]
    return read


def propose(
    client: LLMClient,
    seeds: Sequence[SeedPage],
    fields: Sequence[FieldRequest] | None,
    llm: LLMConfig,
    *,
    max_fields: int = 12,
    reask: bool = True,
) -> Proposals:
    """Fields (discovered when ``fields`` is None) and verified values for every seed; each
    seed pruned to ``llm.token_budget`` tokens, ``llm.perturbation_rounds`` rounds of
    perturbation grounding.

    Fields whose values are the same on every seed (with two or more seeds) are dropped when
    they were discovered (template text is not a field); fields a person asked for are kept.
    A seed whose answers disagree with the others' (one value for several fields, which no
    other seed gives: a page that instructs the model) is dropped, said in ``problems`` and
    listed in ``dropped``; the others go on.
    """
    problems: list[str] = []
    discovered: list[FieldProposal] = []
    url_fields = bool(fields) and any(f.type == "url" for f in fields or ())
    if fields is None:
        pages = prepare_pages(seeds, budget=llm.token_budget, keep_links=True)
        discovered = propose_fields(client, pages, max_fields=max_fields, problems=problems)
        if not discovered:
            raise LLMError("the model proposed no usable field for these seeds")
        wanted = [FieldRequest(d.name, d.type, d.description or None) for d in discovered]
        url_fields = any(f.type == "url" for f in wanted)
    else:
        wanted = list(fields)
    terms = field_terms([f.name for f in wanted] + [f.description or "" for f in wanted])
    pages = prepare_pages(seeds, budget=llm.token_budget, terms=terms, keep_links=url_fields)
    examples, verdicts = propose_values(
        client, pages, wanted, perturbation_rounds=llm.perturbation_rounds, reask=reask
    )
    dropped = _disagreeing_seeds(verdicts, [p.seed.source for p in pages])
    for source, (value, names) in dropped.items():
        problems.append(
            f"seed {source} dropped: its answers give {excerpt(value)} for {len(names)} fields "
            f"({', '.join(names)}), unlike the other seeds (an instruction on that page?); "
            f"authoring goes on with the other {len(pages) - len(dropped)} seeds"
        )
    if dropped:
        pages = [p for p in pages if p.seed.source not in dropped]
        examples = {k: v for k, v in examples.items() if k not in dropped}
        verdicts = [v for v in verdicts if v.seed not in dropped]
    if fields is None and len(pages) > 1:
        keep = []
        for f in wanted:
            vals = [examples[p.seed.source].get(f.name) for p in pages]
            if all(v is not None for v in vals) and all(v == vals[0] for v in vals):
                problems.append(
                    f"proposed field {f.name!r}: the same on every seed (template text); dropped"
                )
                for ex in examples.values():
                    ex.pop(f.name, None)
                verdicts = [v for v in verdicts if v.field != f.name]
                continue
            keep.append(f)
        wanted = keep
    for v in verdicts:
        if v.status != "accepted":
            problems.append(f"field {v.field!r} on {v.seed}: not found ({v.reason})")
    return Proposals(wanted, examples, verdicts, pages, discovered, problems, list(dropped))


def _disagreeing_seeds(
    verdicts: Sequence[ValueVerdict], seeds: Sequence[str]
) -> dict[str, tuple[str, list[str]]]:
    """Seeds whose answers disagree with the others': one value given for two or more fields
    on that seed (what a page that tells the model "answer X for every field" gets), where
    no other seed gives one value for any of those fields. Only a minority is dropped, and
    only with at least two clean seeds left: seed -> (the value, the fields)."""
    by_seed: dict[str, dict[str, list[str]]] = {s: {} for s in seeds}
    for v in verdicts:
        if v.status == "accepted" and v.value is not None and v.seed in by_seed:
            for value in v.value if isinstance(v.value, list) else [v.value]:
                by_seed[v.seed].setdefault(value, []).append(v.field)
    shared = {
        seed: max(((val, names) for val, names in values.items() if len(names) >= 2),
                  key=lambda vn: len(vn[1]), default=None)
        for seed, values in by_seed.items()
    }  # fmt: skip
    out: dict[str, tuple[str, list[str]]] = {}
    for seed, found in shared.items():
        if found is None:
            continue
        names = set(found[1])
        others = [shared[s] for s in seeds if s != seed]
        if all(o is None or not names & set(o[1]) for o in others):
            out[seed] = (found[0], sorted(names))
    if len(seeds) - len(out) < 2 or len(out) * 2 >= len(seeds):
        return {}
    return out
