"""LLM-assisted authoring of one page type: proposals in, a verified selector file out.

:func:`author_with_llm` asks the model for values (and fields, when none are given), hands the
accepted values to the example-value core (grounding, XPath generation, verification and
mutation scoring — deterministic; where perturbation showed which of several nodes with the
value the model read, grounding keeps that node) and assembles a selector file whose provenance
names the method ``llm``, the model, the endpoint host and the prompt templates' hash. A field
that cannot be authored does not sink the site: it is left out and listed with its reason
(``partial``). :func:`make_client` builds the configured client with its cache and ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lxml import etree

from anchorpath._config import LLMConfig, Settings
from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.authoring.induce import assemble_site, author_page_type
from anchorpath.authoring.llm.cache import CachedClient
from anchorpath.authoring.llm.client import LLMClient
from anchorpath.authoring.llm.confirm import Confirmation, check_constants, reads_confirmed_nodes
from anchorpath.authoring.llm.ledger import Ledger, LedgerTotals
from anchorpath.authoring.llm.propose import Proposals, propose
from anchorpath.authoring.llm.templates import templates_hash
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import AuthoringResult, FieldRequest
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "LLMAuthoring",
    "LLMPageType",
    "author_page_type_with_llm",
    "author_with_llm",
    "ledger_path",
    "llm_provenance",
    "make_client",
]


@dataclass
class LLMAuthoring:
    """What an LLM-assisted authoring produced."""

    selector_file: SelectorFile | None
    result: AuthoringResult | None
    proposals: Proposals
    failed: dict[str, str] = field(default_factory=dict)  # field -> why it was left out
    totals: LedgerTotals | None = None

    @property
    def partial(self) -> bool:
        return bool(self.failed)


def ledger_path(settings: Settings, site: str) -> Path:
    """``<cache_dir>/llm-ledger/<site>.jsonl`` (next to the response cache)."""
    return Path(settings.paths.cache_dir) / "llm-ledger" / f"{site}.jsonl"


def make_client(settings: Settings, site: str, *, inner: LLMClient | None = None) -> CachedClient:
    """The configured OpenAI-compatible client (or ``inner``) with cache and per-site ledger."""
    if inner is None:
        from anchorpath.authoring.llm.openai_client import OpenAIClient

        inner = OpenAIClient(settings.llm)
    ledger = Ledger(
        ledger_path(settings, site),
        site=site,
        price_input=settings.llm.price_input,
        price_output=settings.llm.price_output,
    )
    return CachedClient(inner, Path(settings.paths.cache_dir) / "llm", ledger)


def _page_shape(
    fields: list[FieldRequest], props: Proposals, list_page: bool | None
) -> tuple[list[FieldRequest], bool | None]:
    """A list page when most single-valued fields came back with several values per seed;
    otherwise a detail page, where a field answered with several values becomes a list field."""
    multi = {
        f.name
        for f in fields
        if f.type != "list"
        and any(isinstance(ex.get(f.name), list) for ex in props.examples.values())
    }
    if list_page is None and fields:
        singles = [f for f in fields if f.type != "list"]
        list_page = bool(singles) and len(multi) * 2 > len(singles)
    if list_page:
        return fields, True
    out = [replace(f, type="list") if f.name in multi else f for f in fields]
    for f in out:
        if f.name in multi:
            props.problems.append(f"field {f.name!r}: several values on a seed; authored as a list")
    return out, list_page


@dataclass
class LLMPageType:
    """One page type authored from LLM proposals (before it is assembled into a file)."""

    result: AuthoringResult
    proposals: Proposals
    failed: dict[str, str] = field(default_factory=dict)  # field -> why it was left out


def author_page_type_with_llm(
    seeds: Sequence[SeedPage],
    client: LLMClient,
    fields: Sequence[FieldRequest] | None,
    llm: LLMConfig,
    options: AuthoringOptions = AuthoringOptions(),
) -> LLMPageType:
    """Propose and check values (and fields, when ``fields`` is None), then run the core.

    Seeds whose answers disagree with the others' are left out (:func:`propose` says so).
    Without ``options.allow_constant``, a field asked for by name whose value is the same on
    every seed is authored only when the pages name the field at that value, and only if its
    XPath reads the node so named (see :mod:`~anchorpath.authoring.llm.confirm`); otherwise
    it is left out as unconfirmed: a script (``--yes``) passes False, a person reviewing the
    session sees the value and decides. ``llm`` gives the token budget and the perturbation
    rounds; the core always runs non-strict (a field that cannot be authored is left out and
    listed in ``failed``).

    Raises only when no field at all could be authored, or on an endpoint error."""
    props = propose(client, seeds, fields, llm)
    seeds = [s for s in seeds if s.source not in props.dropped]
    failed = props.failed_fields()
    # fields asked for by name, no --allow-constant: a constant value needs the page's word
    named = fields is not None and not options.allow_constant
    constants = check_constants(props, seeds) if named else Confirmation()
    failed.update(constants.unconfirmed)
    pins = constants.pins(seeds)
    usable = [f for f in props.fields if f.name not in failed]
    usable, list_page = _page_shape(usable, props, options.list_page)
    options = replace(options, list_page=list_page, strict=False)
    if not usable:
        raise AuthoringError(
            "no field has a verified value on any seed: "
            + "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:3])
        )
    # A value rejected twice is unknown on that seed, not absent: such a field is verified on
    # the seeds where its value is known (detail pages; a list page needs every seed).
    unknown: dict[str, frozenset[str]] = {}
    if not list_page:
        for f in usable:
            gone = frozenset(
                v.seed
                for v in props.verdicts
                if v.field == f.name and v.status != "accepted" and "rejected" in (v.reason or "")
            )
            if gone:
                unknown[f.name] = gone
    full = [f for f in usable if f.name not in unknown]
    groups: dict[frozenset[str], list[FieldRequest]] = {}
    for f in usable:
        if f.name in unknown:
            groups.setdefault(unknown[f.name], []).append(f)
    result: AuthoringResult | None = None
    if full:
        result = _core(seeds, full, props, options, pins)
    for gone, group in groups.items():
        subset = [s for s in seeds if s.source not in gone]
        try:
            part = _core(subset, group, props, options, pins)
        except AuthoringError as exc:
            failed.update({f.name: str(exc) for f in group})
            continue
        note = (
            f"verified on {len(subset)} of {len(seeds)} seeds (value rejected on "
            f"{', '.join(sorted(gone))})"
        )
        part = replace(
            part, problems=(*part.problems, *(f"field {f.name!r}: {note}" for f in group))
        )
        result = part if result is None else _merge(result, part)
    if result is None:
        raise AuthoringError(
            "no field could be authored: " + "; ".join(f"{k}: {v}" for k, v in failed.items())
        )
    order = [f.name for f in usable if f.name in result.page_type.fields]
    result = replace(
        result,
        page_type=replace(result.page_type, fields={n: result.page_type.fields[n] for n in order}),
    )
    if constants.confirmed:
        result = _keep_confirmed(result, constants, seeds, failed)
    if not result.page_type.record_root:
        notes = _read_node_notes(result, props, seeds)
        result = replace(result, problems=(*result.problems, *notes))
    for f in usable:
        if f.name not in result.page_type.fields:
            why = [p for p in result.problems if repr(f.name) in p or f" {f.name} " in p]
            failed[f.name] = why[0] if why else "no XPath reproduces its values on every seed"
    return LLMPageType(result, props, failed)


def _keep_confirmed(
    result: AuthoringResult,
    constants: Confirmation,
    seeds: Sequence[SeedPage],
    failed: dict[str, str],
) -> AuthoringResult:
    """The confirmed constant fields stay only where their XPath reads, on every seed, the
    node the page names; the others join ``failed`` (a label elsewhere on the page does not
    vouch for the node read)."""
    docs = {s.source: parse_html(s.html) for s in seeds}
    root = result.page_type.record_root
    drop: list[str] = []
    for name in constants.confirmed:
        spec = result.page_type.fields.get(name)
        if spec is None:
            continue
        selected = {src: _selected_paths(doc, spec.xpath, root) for src, doc in docs.items()}
        if not reads_confirmed_nodes(constants, name, selected):
            drop.append(name)
            failed[name] = (
                f"the same value on all {len(seeds)} seeds and its XPath does not read the "
                "node the page names: unconfirmed; review it in the session (without --yes) "
                "or pass --allow-constant"
            )
    notes = [n for n in constants.notes() if not any(repr(d) in n for d in drop)]
    fields = {k: v for k, v in result.page_type.fields.items() if k not in drop}
    return replace(
        result,
        page_type=replace(result.page_type, fields=fields),
        fields={k: v for k, v in result.fields.items() if k not in drop},
        problems=(*result.problems, *notes),
    )


def _core(
    seeds: Sequence[SeedPage],
    fields: Sequence[FieldRequest],
    props: Proposals,
    options: AuthoringOptions,
    pins: dict[str, dict[str, str]],
) -> AuthoringResult:
    if not seeds:
        raise AuthoringError(f"{', '.join(f.name for f in fields)}: no seed with a verified value")
    # The node perturbation showed the model read is the one grounding keeps (the XPath
    # chosen then selects it, not another node with the same text).
    # A confirmed constant is grounded at the node the page names (where the model's own
    # node is unknown).
    read: dict[str, dict[str, str]] = {k: dict(v) for k, v in pins.items()}
    for v in props.verdicts:
        if v.read_node is not None:
            read.setdefault(v.seed, {})[v.field] = v.read_node
    return author_page_type(
        seeds,
        fields,
        {s.source: props.examples[s.source] for s in seeds},
        options,
        read_nodes=read,
    )


def _merge(base: AuthoringResult, part: AuthoringResult) -> AuthoringResult:
    """``base`` with the fields ``part`` authored added (same page type, field order kept)."""
    fields = {**base.page_type.fields, **part.page_type.fields}
    return replace(
        base,
        page_type=replace(base.page_type, fields=fields),
        fields={**base.fields, **part.fields},
        problems=(*base.problems, *part.problems),
    )


def _selected_paths(doc: etree._Element, xpath: str, root: str | None = None) -> list[str] | None:
    """Absolute paths of the elements an XPath reaches (owners of text and attribute results),
    from every record of ``root`` when given; None when it computes a string
    (``normalize-space(...)``): nothing to compare."""
    try:
        contexts = doc.xpath(root) if root else [doc]
        results = [
            c.xpath(xpath)
            for c in (contexts if isinstance(contexts, list) else [])
            if isinstance(c, etree._Element)
        ]
    except etree.XPathError:
        return None
    found: list[Any] = []
    for r in results:
        if not isinstance(r, list):
            return None
        found.extend(r)
    paths = []
    for item in found:
        el = (
            item if isinstance(item, etree._Element) else getattr(item, "getparent", lambda: None)()
        )
        if el is not None:
            paths.append(str(el.getroottree().getpath(el)))
    return paths


def _read_node_notes(
    result: AuthoringResult, props: Proposals, seeds: Sequence[SeedPage]
) -> list[str]:
    """Where perturbation showed the node the model read, say so when the chosen XPath still
    reads the value somewhere else (grounding kept that node, but no XPath through it held on
    every seed: same text, another node, a person should look)."""
    docs = {s.source: parse_html(s.html) for s in seeds}
    elsewhere: dict[str, list[tuple[str, str, str]]] = {}
    for v in props.verdicts:
        spec = result.page_type.fields.get(v.field)
        if v.read_node is None or spec is None or v.seed not in docs:
            continue
        paths = _selected_paths(docs[v.seed], spec.xpath)
        if not paths:
            continue
        if not any(p == v.read_node or p.startswith(v.read_node + "/") or
                   v.read_node.startswith(p + "/") for p in paths):  # fmt: skip
            elsewhere.setdefault(v.field, []).append((v.seed, v.read_node, paths[0]))
    return [
        f"field {name!r}: the model read its value at {cases[0][1]}, the selector reads it at "
        f"{cases[0][2]} (on {len(cases)} of {len(seeds)} seeds; same text, another node: check)"
        for name, cases in elsewhere.items()
    ]


def llm_provenance(sf: SelectorFile, client: LLMClient) -> SelectorFile:
    """``sf`` with provenance method ``llm``, the model, the endpoint host and the hash of the
    prompt templates."""
    return replace(
        sf,
        provenance=replace(
            sf.provenance,
            method="llm",
            model=client.model,
            endpoint=client.endpoint,
            prompt_hash=templates_hash(),
        ),
    )


def author_with_llm(
    name: str,
    seeds: Sequence[SeedPage],
    client: LLMClient,
    fields: Sequence[FieldRequest] | None,
    llm: LLMConfig,
    options: AuthoringOptions = AuthoringOptions(),
    *,
    key: Sequence[str] | None = None,
    start_urls: Sequence[str] | None = None,
    author: str | None = None,
) -> LLMAuthoring:
    """A one-page-type site: :func:`author_page_type_with_llm`, ``assemble_site`` and
    :func:`llm_provenance`."""
    try:
        pt = author_page_type_with_llm(seeds, client, fields, llm, options)
    except AnchorpathError as exc:
        raise AuthoringError(f"{name}: {exc}") from exc
    if key is not None:
        key = [k for k in key if k in pt.result.page_type.fields] or None
    sf = assemble_site(name, [pt.result], key=key, start_urls=start_urls, author=author)
    totals = client.ledger.totals if isinstance(client, CachedClient) else None
    return LLMAuthoring(llm_provenance(sf, client), pt.result, pt.proposals, pt.failed, totals)
