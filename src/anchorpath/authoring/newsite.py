"""A new site's selector file from what ``author new-site`` was given: the command's decisions.

:func:`author_new_site` takes the resolved flags (:class:`NewSiteRequest`) and the settings
and decides everything between them and the file: where the file goes and whether it extends
an existing one, whether the seeds are rendered (Chromium) or read as bytes, the field
requests (from the examples, from ``--field``/``--fields``, or none so that the model
proposes them), the example-value or the LLM path, the key (``--key``, the existing file's,
or the default key), the start URLs (a file whose seeds declare no URL cannot run and says
so), and the LLM provenance. What only a person can answer (a seed's URL, a key when no
field is one) goes through :class:`Questions`; a script passes None and gets the
conservative answer or a one-line error. The click command only parses flags, prints and
writes. :func:`discover_site` and :func:`keep_snapshots` are the steps after it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from anchorpath._config import Settings
from anchorpath._errors import AuthoringError
from anchorpath._text import did_you_mean
from anchorpath.authoring.extend import add_page_type
from anchorpath.authoring.induce import assemble_site, author_page_type, site_id
from anchorpath.authoring.inputs import read_examples, read_json
from anchorpath.authoring.key import KeyChoice, default_key
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import AuthoringResult, Examples, FieldRequest
from anchorpath.authoring.seeds import SeedPage, load_seed, seed_from_html
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.model import Discovery, Seed, SelectorFile

if TYPE_CHECKING:  # the model's package and the fetcher are imported only when used
    from anchorpath.authoring.llm.author import LLMPageType
    from anchorpath.authoring.llm.cache import CachedClient
    from anchorpath.fetch.polite import PoliteFetcher

__all__ = [
    "NewSite",
    "NewSiteRequest",
    "Questions",
    "author_new_site",
    "discover_site",
    "example_fields",
    "keep_snapshots",
    "llm_fields",
    "read_fields",
    "uses_browser",
]

#: A line of progress for the person running the command (seeds, proposals, LLM cost).
Note = Callable[[str], None]


@dataclass(frozen=True)
class NewSiteRequest:
    """What ``author new-site`` was given. ``fields`` are ``--field NAME:TYPE`` pairs,
    ``types`` the ``--type FIELD=TYPE`` ones, ``render`` ``browser``, ``http`` or None
    (browser for URLs, http for files)."""

    name: str
    seeds: tuple[str, ...]
    seed_urls: tuple[str, ...] = ()
    examples_path: str | None = None
    fields: tuple[tuple[str, str], ...] = ()
    fields_path: str | None = None
    types: Mapping[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    start_urls: tuple[str, ...] = ()
    render: str | None = None
    selectors_dir: Path | None = None
    options: AuthoringOptions = AuthoringOptions()


@dataclass(frozen=True)
class NewSite:
    """The authored file (not written yet) and what was decided on the way."""

    selector_file: SelectorFile
    result: AuthoringResult
    pages: tuple[SeedPage, ...]
    target: Path
    existing: SelectorFile | None
    key_why: str
    decisions: tuple[str, ...] = ()
    key_changed: bool = False
    #: field -> why it was not authored (LLM path)
    failed: Mapping[str, str] = field(default_factory=dict)
    examples: Examples | None = None
    llm: bool = False
    rendered: bool = False
    #: seeds whose URL is unknown; with no --start-url and --match the file cannot run
    urls_unknown: tuple[str, ...] = ()
    unrunnable: bool = False
    #: why the default key leaves some seed records without a key (``KeyChoice.gaps``)
    key_gaps: str | None = None

    @property
    def shortfalls(self) -> tuple[str, ...]:
        """What the file does not do of what was asked: the page type's shortfalls, and a
        default key some seed records lack."""
        return (*self.result.shortfalls, *([self.key_gaps] if self.key_gaps else []))

    @property
    def partial(self) -> bool:
        """Written, but not everything asked: a field left out, or a shortfall."""
        return bool(self.failed or self.shortfalls)


class Questions(Protocol):
    """What only a person can answer, asked at a terminal (a script passes None)."""

    def seed_url(self, page: SeedPage) -> str:
        """The URL of a seed that declares none (empty: leave it unknown)."""
        ...

    def key(self, choice: KeyChoice, names: Sequence[str]) -> tuple[tuple[str, ...], str]:
        """The key when no single field is one (``choice.key``: the combination offered),
        and why."""
        ...


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def uses_browser(render: str | None, seeds: Sequence[str]) -> bool:
    """Chromium renders the seeds: asked for, or by default when a seed is a URL."""
    return render == "browser" or (render is None and any(_is_url(s) for s in seeds))


def read_fields(path: str) -> list[tuple[str, str, str | None]]:
    """``[{"name", "type", "description"}, ...]`` or ``{"name": "type", ...}`` from a file."""
    data = read_json(path, "fields")
    if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
        return [(k, v, None) for k, v in data.items()]
    if isinstance(data, list) and all(isinstance(d, dict) and "name" in d for d in data):
        return [(str(d["name"]), str(d.get("type", "string")), d.get("description")) for d in data]
    raise AuthoringError(
        f'{path}: expected [{{"name": ..., "type": ..., "description": ...}}] or {{"name": "type"}}'
    )


def example_fields(
    examples: Examples, types: Mapping[str, str], required: Sequence[str]
) -> list[FieldRequest]:
    """The fields the examples name, in order, typed by ``types`` (default string)."""
    names: list[str] = []
    for per_seed in examples.values():
        for k in per_seed:
            if k not in names:
                names.append(k)
    unknown = [n for n in [*types, *required] if n not in names]
    if unknown:
        raise AuthoringError(
            f"--type/--required name field(s) not in the examples: {', '.join(unknown)}"
            + did_you_mean(unknown, names)
        )
    return [FieldRequest(n, types.get(n, "string"), required=n in required) for n in names]


def llm_fields(
    given: Sequence[tuple[str, str, str | None]],
    types: Mapping[str, str],
    required: Sequence[str],
) -> list[FieldRequest] | None:
    """Field requests for the model from ``(name, type, description)`` (None: none given, the
    model proposes the fields)."""
    typed = [(n, types.get(n, t), d) for n, t, d in given]
    if not typed:
        if required:
            raise AuthoringError("--required needs --field/--fields (or --examples)")
        return None
    names = [n for n, _, _ in typed]
    unknown = [n for n in required if n not in names]
    if unknown:
        raise AuthoringError(
            f"--required names unknown field(s): {', '.join(unknown)}"
            + did_you_mean(unknown, names)
        )
    return [FieldRequest(n, t, d, required=n in required) for n, t, d in typed]


def _load_pages(
    seeds: Sequence[str], seed_urls: Sequence[str], browser: bool, settings: Settings
) -> list[SeedPage]:
    if browser:
        from anchorpath.authoring.seeds_render import render_seeds

        return render_seeds(seeds, seed_urls, settings)
    fetcher: PoliteFetcher | None = None
    try:
        if any(_is_url(s) for s in seeds):
            from anchorpath.fetch.polite import PoliteFetcher

            fetcher = PoliteFetcher(settings.fetch)
        return [
            load_seed(s, fetch=fetcher, url=seed_urls[i] if seed_urls else None)
            for i, s in enumerate(seeds)
        ]
    finally:
        if fetcher is not None:
            fetcher.close()


def _ask_missing_urls(pages: list[SeedPage], ask: Questions | None) -> list[SeedPage]:
    """At a terminal, the URL of each seed that does not say where it came from."""
    if ask is None:
        return pages
    out = []
    for page in pages:
        url = "" if page.url_known else ask.seed_url(page)
        if url:
            seed = seed_from_html(page.html, url, source=page.source)
            out.append(replace(seed, sha256=page.sha256))
        else:
            out.append(page)
    return out


def _choose_key(
    result: AuthoringResult, ask: Questions | None
) -> tuple[tuple[str, ...], str, str | None]:
    """The key of a new site without --key, why, and why it leaves some seed records without
    a key (None: it does not): a field unique on every distinct seed record, else the
    smallest combination of fields that is, else the first field if only records without a
    value fault it (taken by a script, offered at a terminal), else asked for at a terminal,
    else an error naming the repeats."""
    choice = default_key(result)
    offered = choice.combined or choice.gaps is not None
    if choice.key is not None and not (offered and ask is not None):
        return choice.key, choice.why, choice.gaps
    if ask is None:
        raise AuthoringError(choice.refusal())
    key, why = ask.key(choice, list(result.page_type.fields))
    return key, why, choice.gaps if key == choice.key else None


def _llm_lines(
    out: LLMPageType, client: CachedClient, settings: Settings, sid: str, n_s: int
) -> list[str]:
    """What the model proposed, and what it cost (the ledger; ``n_s`` seeds asked)."""
    from anchorpath.authoring.llm import ledger_path

    lines = []
    props = out.proposals
    for sp in props.pages:
        lines.append(
            f"  seed {sp.seed.source}: {sp.prompt.tokens_raw} tokens of HTML -> "
            f"{sp.prompt.tokens_full} pruned -> {sp.prompt.tokens} in the prompt"
        )
    if props.discovered:
        lines.append(
            "  proposed fields: " + ", ".join(f"{d.name} ({d.type})" for d in props.discovered)
        )
    for v in props.verdicts:
        if v.status == "accepted":
            read = f", read at {v.read_node}" if v.read_node else ""
            again = ", after a re-ask" if v.reasked else ""
            lines.append(f"  {v.field} on {v.seed}: {v.value!r}{again}{read}")
        else:
            lines.append(f"  {v.field} on {v.seed}: not found ({v.reason})")
    lines += [f"  note: {p}" for p in props.problems if "not found" not in p]
    rounds = settings.llm.perturbation_rounds
    per = ", ".join(f"{k} {v}" for k, v in sorted(client.ledger.by_purpose.items()))
    bound = f" ({per}; bound n_s + p*n_s + 1 = {n_s + rounds * n_s + 1} plus re-asks)"
    lines.append(
        f"  LLM: {client.ledger.totals.summary()}"
        + (bound if per else "")
        + f"; ledger {ledger_path(settings, sid)}"
    )
    return lines


@dataclass(frozen=True)
class _Authored:
    result: AuthoringResult
    failed: dict[str, str]
    examples: Examples | None = None
    client: CachedClient | None = None


def _author(
    request: NewSiteRequest, pages: list[SeedPage], settings: Settings, note: Note
) -> _Authored:
    """The example-value path (``--examples``) or the LLM path (prints what the model
    proposed)."""
    if request.examples_path:
        examples = read_examples(request.examples_path)
        fields = example_fields(examples, request.types, request.required)
        result = author_page_type(pages, fields, examples, request.options)
        return _Authored(result, {}, examples=examples)
    given = read_fields(request.fields_path) if request.fields_path else []
    given += [(n, t, None) for n, t in request.fields]
    wanted = llm_fields(given, request.types, request.required)
    from anchorpath.authoring.llm import author_page_type_with_llm, make_client

    sid = site_id(request.name)
    client = make_client(settings, sid)
    try:
        out = author_page_type_with_llm(pages, client, wanted, settings.llm, request.options)
    finally:
        client.close()
    for line in _llm_lines(out, client, settings, sid, len(pages)):
        note(line)
    return _Authored(out.result, out.failed, client=client)


def author_new_site(
    request: NewSiteRequest, settings: Settings, *, ask: Questions | None, note: Note
) -> NewSite:
    """Load the seeds, author the page type and decide the file (see the module docstring);
    nothing is written. ``note`` receives progress lines (the LLM's proposals and cost)."""
    target = Path(request.selectors_dir or settings.paths.selectors_dir)
    target = target / f"{site_id(request.name)}.json"
    existing = load_selector_file(target) if target.is_file() else None
    rendered = uses_browser(request.render, request.seeds)
    pages = _load_pages(request.seeds, request.seed_urls, rendered, settings)
    pages = _ask_missing_urls(pages, ask)
    urls_unknown = tuple(p.source for p in pages if not p.url_known)
    unrunnable = bool(urls_unknown) and not (request.start_urls and request.options.match)
    authored = _author(request, pages, settings, note)
    result = authored.result
    starts = None if unrunnable else request.start_urls or None
    decisions: tuple[str, ...] = ()
    key_changed = False
    key_gaps = None
    if existing is not None:
        ext = add_page_type(existing, result, key=request.keys or None, start_urls=starts)
        sf, decisions, key_changed = ext.selector_file, ext.decisions, ext.key_changed
        key_why = "--key" if request.keys else f"kept from version {existing.version}"
    else:
        key, key_why, key_gaps = (
            (request.keys, "--key", None) if request.keys else _choose_key(result, ask)
        )
        sf = assemble_site(request.name, [result], key=key, start_urls=starts)
    if unrunnable:
        sf = replace(sf, fetch=replace(sf.fetch, start_urls=tuple(p.url for p in pages[:1])))
    if authored.client is not None:
        from anchorpath.authoring.llm import llm_provenance

        sf = llm_provenance(sf, authored.client)
    return NewSite(
        sf,
        result,
        tuple(pages),
        target,
        existing,
        key_why,
        decisions,
        key_changed,
        authored.failed,
        authored.examples,
        authored.client is not None,
        rendered,
        urls_unknown,
        unrunnable,
        key_gaps,
    )


def discover_site(seeds: Sequence[str], pages: Sequence[SeedPage], settings: Settings) -> Discovery:
    """What the site offers besides HTML (feeds, sitemaps, JSON-LD, JSON the pages load);
    the network only for seeds given as URLs (robots.txt's Sitemap lines, /sitemap.xml)."""
    from anchorpath.authoring.discover import discover

    if not any(_is_url(s) for s in seeds):
        return discover(pages, None)
    from anchorpath.fetch.polite import PoliteFetcher

    with PoliteFetcher(settings.fetch) as fetcher:
        return discover(pages, fetcher)


def keep_snapshots(
    sf: SelectorFile, pages: Sequence[SeedPage], target: Path, settings: Settings
) -> tuple[SelectorFile, list[tuple[Path, Path | None]]]:
    """Keep each rendered seed (DOM + full-page screenshot) under ``.seeds/<site>/`` next to
    the selector file, and name the DOM snapshot in provenance; the files kept."""
    from anchorpath.authoring.seeds_render import keep_seeds

    kept = keep_seeds(pages, target.parent / ".seeds" / sf.site.id, settings)
    seeds = []
    for s in sf.provenance.seeds:
        if s.sha256 in kept:
            rel = os.path.relpath(kept[s.sha256][0], target.parent)
            s = Seed(s.url, s.sha256, Path(rel).as_posix())
        seeds.append(s)
    sf = replace(sf, provenance=replace(sf.provenance, seeds=tuple(seeds)))
    return sf, list(kept.values())
