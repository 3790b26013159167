"""``anchorpath author``: write selector files from seed pages, with example values or an LLM."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath._text import did_you_mean, terminal_safe
from anchorpath.authoring.inputs import read_examples, read_json
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.cli.options import selectors_option

__all__ = ["COMMANDS", "author_group"]


@click.group("author")
def author_group() -> None:
    """Author selector files from seed pages and example values.

    \b
    Examples:
      anchorpath author new-site shop --seed a.html --seed b.html --examples ex.json --yes
    """


def _types(types: tuple[str, ...]) -> dict[str, str]:
    """``--type FIELD=TYPE`` options as {field: type} (the last one of a field wins)."""
    type_of: dict[str, str] = {}
    for spec in types:
        name, sep, kind = spec.partition("=")
        if not sep:
            raise click.BadParameter(f"{spec!r}: expected FIELD=TYPE", param_hint="--type")
        type_of[name] = kind
    return type_of


def _field_requests(
    examples: dict[str, Any], types: tuple[str, ...], required: tuple[str, ...]
) -> list[Any]:
    from anchorpath.authoring.reports import FieldRequest

    names: list[str] = []
    for per_seed in examples.values():
        for k in per_seed:
            if k not in names:
                names.append(k)
    type_of = _types(types)
    unknown = [n for n in [*type_of, *required] if n not in names]
    if unknown:
        raise AuthoringError(
            f"--type/--required name field(s) not in the examples: {', '.join(unknown)}"
            + did_you_mean(unknown, names)
        )
    return [FieldRequest(n, type_of.get(n, "string"), required=n in required) for n in names]


#: Exit status of ``author new-site`` when the file was written but does not reproduce
#: everything asked: some fields not authored, an example record left out, or a field
#: right on most seeds only.
EXIT_PARTIAL = 5


def _read_fields(path: str) -> list[tuple[str, str, str | None]]:
    """``[{"name", "type", "description"}, ...]`` or ``{"name": "type", ...}`` from a file."""
    data = read_json(path, "fields")
    if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
        return [(k, v, None) for k, v in data.items()]
    if isinstance(data, list) and all(isinstance(d, dict) and "name" in d for d in data):
        return [(str(d["name"]), str(d.get("type", "string")), d.get("description")) for d in data]
    raise AuthoringError(
        f'{path}: expected [{{"name": ..., "type": ..., "description": ...}}] or {{"name": "type"}}'
    )


def _llm_fields(
    specs: tuple[str, ...],
    fields_path: str | None,
    types: tuple[str, ...],
    required: tuple[str, ...],
) -> list[Any] | None:
    """Field requests from ``--field``/``--fields`` (None: let the LLM propose fields)."""
    from anchorpath.authoring.reports import FieldRequest

    given: list[tuple[str, str, str | None]] = _read_fields(fields_path) if fields_path else []
    for spec in specs:
        fname, _, kind = spec.partition(":")
        if not fname.strip():
            raise click.BadParameter(f"{spec!r}: expected NAME or NAME:TYPE", param_hint="--field")
        given.append((fname.strip(), kind.strip() or "string", None))
    type_of = _types(types)
    given = [(n, type_of.get(n, t), d) for n, t, d in given]
    if not given:
        if required:
            raise AuthoringError("--required needs --field/--fields (or --examples)")
        return None
    names = [n for n, _, _ in given]
    unknown = [n for n in required if n not in names]
    if unknown:
        raise AuthoringError(
            f"--required names unknown field(s): {', '.join(unknown)}"
            + did_you_mean(unknown, names)
        )
    return [FieldRequest(n, t, d, required=n in required) for n, t, d in given]


def _load_pages(
    seeds: tuple[str, ...], seed_urls: tuple[str, ...], render: str | None, settings: Any
) -> list[Any]:
    from anchorpath.authoring.seeds import load_seed
    from anchorpath.authoring.seeds_render import render_seeds

    if render == "browser" or (
        render is None and any(s.startswith(("http://", "https://")) for s in seeds)
    ):
        return render_seeds(seeds, seed_urls, settings)
    fetcher: Any = None
    try:
        if any(s.startswith(("http://", "https://")) for s in seeds):
            from anchorpath.fetch.polite import PoliteFetcher

            fetcher = PoliteFetcher(settings.fetch)
        return [
            load_seed(s, fetch=fetcher, url=seed_urls[i] if seed_urls else None)
            for i, s in enumerate(seeds)
        ]
    finally:
        if fetcher is not None:
            fetcher.close()


@author_group.command("new-site")
@click.argument("name")
@click.option(
    "--seed",
    "seeds",
    multiple=True,
    required=True,
    metavar="PAGE",
    help="Seed page (file or http(s) URL) of one template; give 2-3 or more.",
)
@click.option(
    "--seed-url",
    "seed_urls",
    multiple=True,
    metavar="URL",
    help="The URL each file --seed stands for, in the same order (for page-type matching, "
    "start URL and relative links). Default: what the page says (<base href>, canonical "
    "link, og:url), else asked in a session; without one the file cannot run.",
)
@click.option(
    "--examples",
    "examples_path",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="EXAMPLES.json",
    help='Example values, no LLM: {"<seed path or URL>": {"<field>": "value" | [...]}}',
)
@click.option(
    "--field",
    "field_specs",
    multiple=True,
    metavar="NAME[:TYPE]",
    help="A field the LLM finds the values of (repeat). Without --field, --fields and "
    "--examples the LLM proposes the fields too.",
)
@click.option(
    "--fields",
    "fields_path",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="FIELDS.json",
    help='Fields for the LLM: [{"name", "type", "description"}] or {"name": "type"}.',
)
@click.option(
    "--render",
    type=click.Choice(["browser", "http"]),
    default=None,
    help="browser: Chromium renders the seeds (third-party requests blocked; files with "
    "every request blocked); http: parse the bytes. Default: browser for URLs, http for files.",
)
@click.option(
    "--wait-for",
    "wait_for",
    default=None,
    metavar="SELECTOR",
    help="Read a rendered seed only once this CSS selector (or XPath starting with / or ( ) "
    "is in its DOM; an error if it never appears. Implies --render browser. Default: "
    "[render] wait_for, else the load event.",
)
@click.option(
    "--type",
    "types",
    multiple=True,
    metavar="FIELD=TYPE",
    help="Value type of a field (string, integer, number, date, datetime, url, list).",
)
@click.option(
    "--required",
    "required",
    multiple=True,
    metavar="FIELD",
    help="Mark a field required (required fields are tried first for the default key).",
)
@click.option(
    "--key",
    "keys",
    multiple=True,
    metavar="FIELD",
    help="Record key field(s) (default: the first field, required ones first, with a "
    "different value in every seed record).",
)
@click.option(
    "--list-page/--detail-page",
    "list_page",
    default=None,
    help="Force list-page (record root) or detail-page authoring (default: detected).",
)
@click.option("--page-type", default=None, help="Page type name (default: list or detail).")
@click.option(
    "--match",
    default=None,
    metavar="REGEX",
    help="URL regex of the page type (default: common prefix of the seed URLs).",
)
@click.option(
    "--start-url",
    "start_urls",
    multiple=True,
    metavar="URL",
    help="Where runs start (default: the first seed URL).",
)
@click.option(
    "--mutation-seed",
    default=0,
    show_default=True,
    type=int,
    help="RNG seed of the perturbation tests.",
)
@selectors_option
@click.option(
    "--yes", is_flag=True, help="Write the file without the review session (scripts, CI)."
)
@click.option(
    "--allow-constant",
    is_flag=True,
    help="With --yes and an LLM: also write a --field whose value is the same on every seed "
    "and that the page does not name. Without it such a value is kept only where, on every "
    "seed, a label or the node's markup at it shares a word with the field name "
    "('Publisher: X' for --field publisher); otherwise it is left out as unconfirmed (it may "
    "be a planted banner). A page that writes the field's name next to a planted value gets "
    "it through: review untrusted sites in the session.",
)
@click.option(
    "--screenshots/--no-screenshots",
    default=True,
    show_default=True,
    help="In the session: a PNG per seed with every field's matched nodes outlined (Chromium).",
)
@click.option("--open", "open_images", is_flag=True, help="Open the screenshots in a viewer.")
def new_site(
    name: str,
    seeds: tuple[str, ...],
    seed_urls: tuple[str, ...],
    examples_path: str | None,
    field_specs: tuple[str, ...],
    fields_path: str | None,
    render: str | None,
    wait_for: str | None,
    types: tuple[str, ...],
    required: tuple[str, ...],
    keys: tuple[str, ...],
    list_page: bool | None,
    page_type: str | None,
    match: str | None,
    start_urls: tuple[str, ...],
    mutation_seed: int,
    selectors_dir: Path | None,
    yes: bool,
    allow_constant: bool,
    screenshots: bool,
    open_images: bool,
) -> None:
    """Author a new site's selector file from seed pages, with example values or an LLM.

    With --examples no LLM is used. Otherwise the configured OpenAI-compatible endpoint
    ([llm] settings, ANCHORPATH_LLM_BASE_URL / ANCHORPATH_LLM_MODEL / ANCHORPATH_LLM_API_KEY)
    reads each seed once, pruned to Markdown, and proposes the value of every --field (or,
    with no field given, the fields too). A proposed value must occur verbatim on its seed or
    it is rejected, re-asked once, then reported not found; answers are cached, so authoring
    again makes no call, and every call goes to a per-site ledger with tokens and cost. A
    seed whose answers disagree with the others' (one value for several fields: a page that
    instructs the model) is dropped, said, and authoring goes on with the others. With --yes,
    a --field whose value is the same on every seed is kept only where the page names the
    field at it on every seed (a label such as "Publisher:", or the node's class, itemprop or
    link path, sharing a word with the field name) and its XPath reads that node; otherwise
    it is left out as unconfirmed unless --allow-constant is given (the session shows it to
    a person instead).

    Either way every value is grounded to its node on every seed, anchor-first XPaths are
    generated, verified on all seeds (exact values, nothing spurious, leave-one-seed-out) and
    scored under synthetic DOM mutations; the best XPath plus up to two fallbacks is kept per
    field. Values given as lists (one per record, at least two) make it a list page with an
    induced record root and pagination. Exit status 5: the file was written but is partial,
    each reason listed: a field could not be authored, a list example that does not sit in a
    record like the others was left out, or a list field's XPath is right on most seeds only.

    \b
    Examples:
      anchorpath author new-site shop --seed p1.html --seed p2.html --seed p3.html \\
          --examples examples.json --yes
      anchorpath author new-site dmf --seed d1.html --seed-url http://x/view?id=1 \\
          --seed d2.html --seed-url http://x/view?id=2 --examples ex.json --required reg_no --yes
      anchorpath author new-site shop --seed p1.html --seed p2.html --seed p3.html \\
          --field title --field price:number --field isbn --yes
      anchorpath author new-site shop --seed https://shop.example/item/1 \\
          --seed https://shop.example/item/2 --wait-for "#price" --field price --yes
      ANCHORPATH_LLM_BASE_URL=http://127.0.0.1:8080/v1 anchorpath author new-site news \\
          --seed https://example.org/a/1 --seed https://example.org/a/2 --yes
    """
    from anchorpath._config import load_settings
    from anchorpath.authoring.extend import add_page_type
    from anchorpath.authoring.induce import assemble_site, author_page_type
    from anchorpath.selectors.load import load_selector_file

    if seed_urls and len(seed_urls) != len(seeds):
        raise click.UsageError(f"--seed-url given {len(seed_urls)} times for {len(seeds)} seeds")
    if examples_path and (field_specs or fields_path):
        raise click.UsageError("--examples cannot be combined with --field/--fields")
    if wait_for is not None and render == "http":
        raise click.UsageError(
            "--wait-for needs a browser: it cannot be combined with --render http"
        )
    if wait_for is not None:
        render = "browser"
    if len(seeds) < 2:
        click.echo(
            "warning: one seed page: its XPaths are checked on that page alone and may fit "
            "only it; give 2-3 seed pages of the template",
            err=True,
        )
    options = AuthoringOptions(
        list_page=list_page, page_type=page_type, match=match, mutation_seed=mutation_seed
    )
    failed: dict[str, str] = {}
    llm_client: Any = None
    examples: dict[str, Any] | None = None
    try:
        settings = load_settings(overrides={"render.wait_for": wait_for})
        target = Path(selectors_dir or settings.paths.selectors_dir) / f"{_site_id(name)}.json"
        existing = load_selector_file(target) if target.is_file() else None
        rendered = render == "browser" or (
            render is None and any(s.startswith(("http://", "https://")) for s in seeds)
        )
        pages = _load_pages(seeds, seed_urls, render, settings)
        pages = _ask_missing_urls(pages, interactive=_interactive(yes))
        urls_unknown = [p.source for p in pages if not p.url_known]
        unrunnable = bool(urls_unknown) and not (start_urls and match)
        if examples_path:
            examples = read_examples(examples_path)
            fields = _field_requests(examples, types, required)
            result = author_page_type(pages, fields, examples, options)
        else:
            llm_fields = _llm_fields(field_specs, fields_path, types, required)
            result, failed, llm_client = _author_llm(
                name,
                pages,
                llm_fields,
                settings,
                replace(options, allow_constant=allow_constant or not yes),
            )
        starts = None if unrunnable else start_urls or None
        decisions: tuple[str, ...] = ()
        key_changed = False
        if existing is not None:
            ext = add_page_type(existing, result, key=keys or None, start_urls=starts)
            sf, decisions, key_changed = ext.selector_file, ext.decisions, ext.key_changed
            key_why = "--key" if keys else f"kept from version {existing.version}"
        else:
            key, key_why = (keys, "--key") if keys else _default_key(result, yes)
            sf = assemble_site(name, [result], key=key, start_urls=starts)
        if unrunnable:
            sf = replace(sf, fetch=replace(sf.fetch, start_urls=tuple(p.url for p in pages[:1])))
        if llm_client is not None:
            from anchorpath.authoring.llm import llm_provenance

            sf = llm_provenance(sf, llm_client)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    if sf.policy is None or sf.policy.basis is None:
        try:
            found = _discover(seeds, pages, settings)
        except AnchorpathError as exc:
            raise click.ClickException(str(exc)) from exc
        policy = _ask_policy(settings.fetch.contact, _interactive(yes), found)
        sf = replace(sf, policy=replace(policy, discovery=found))
    _print_result(sf, result, key_why, decisions, pages)
    for fname, why in failed.items():
        click.echo(f"  not authored: {fname}: {why}", err=True)
    if key_changed and existing is not None:
        click.echo(
            f"key change: {', '.join(existing.key)} -> {', '.join(sf.key)}. Every stored record "
            "of this site was identified by the old key: all records are re-issued — the next "
            "run issues every record again as new under the new key, and the records stored "
            "under the old key are withdrawn (once a complete crawl no longer finds them).",
            err=True,
        )
    if rendered and yes:
        try:
            sf = _keep_snapshots(sf, pages, target, settings)
        except AnchorpathError as exc:
            raise click.ClickException(str(exc)) from exc
    if not yes:
        from anchorpath.cli.author_session import review_and_write, session_source

        with session_source(examples, llm_client is not None, settings, name) as source:
            review_and_write(
                sf,
                result.page_type.name,
                pages,
                target,
                reports=result.fields,
                problems=result.problems,
                source=source,
                options=options,
                changed=list(result.page_type.fields),
                screenshots=screenshots,
                open_images=open_images,
                confirm_write="Change the key and write" if key_changed else None,
                # rendered seeds are kept only when the file is written (quit leaves nothing)
                prepare=(lambda f: _keep_snapshots(f, pages, target, settings))
                if rendered
                else None,
            )
    else:
        from anchorpath.authoring.session.fixtures import save_with_fixtures

        try:
            # golden fixtures on every write: `check` and the first runs' baseline need them
            saved, files = save_with_fixtures(
                sf,
                target,
                pages,
                result.page_type.name,
                changed=list(result.page_type.fields),
            )
        except AnchorpathError as exc:
            raise click.ClickException(str(exc)) from exc
        fixtures = [f for f in files if f.name.endswith(".records.json")]
        click.echo(f"wrote {target} (version {saved.version})")
        if fixtures:
            click.echo(f"  golden fixtures: {len(fixtures)} page(s) in {fixtures[0].parent}")
    _warn_unrunnable(target, unrunnable, urls_unknown)
    if failed:
        click.echo(f"partial: {len(failed)} field(s) not authored: {', '.join(failed)}", err=True)
    for short in result.shortfalls:
        click.echo(terminal_safe(f"partial: {short}"), err=True)
    if failed or result.shortfalls:
        sys.exit(EXIT_PARTIAL)


def _warn_unrunnable(target: Path, unrunnable: bool, urls_unknown: list[str]) -> None:
    if unrunnable:
        click.echo(
            f"WARNING: {target} cannot run until its URLs are set: no URL is known for "
            f"{', '.join(urls_unknown)} (no --seed-url, <base href>, <link rel=canonical> or "
            "og:url), so its start URL and match are local file paths. Author it again with "
            "--seed-url URL per seed (or --start-url and --match), or edit the file; "
            "`anchorpath run` refuses it until then.",
            err=True,
        )


def _discover(seeds: tuple[str, ...], pages: list[Any], settings: Any) -> Any:
    """What the site offers besides HTML (feeds, sitemaps, JSON-LD, JSON the pages load);
    the network only for seeds given as URLs (robots.txt's Sitemap lines, /sitemap.xml)."""
    from anchorpath.authoring.discover import discover

    if not any(s.startswith(("http://", "https://")) for s in seeds):
        return discover(pages, None)
    from anchorpath.fetch.polite import PoliteFetcher

    with PoliteFetcher(settings.fetch) as fetcher:
        return discover(pages, fetcher)


def _ask_policy(contact: str, interactive: bool, found: Any) -> Any:
    """The new file's ``policy``: asked in a session (what the site offers shown first, the
    recommended basis the default), conservative defaults otherwise (and printed, so that
    the person running a script sees what was recorded for them)."""
    from anchorpath._config import DEFAULT_CONTACT
    from anchorpath.authoring.discover import describe_discovery
    from anchorpath.authoring.policy import default_policy, describe_policy
    from anchorpath.selectors.model import BASES, Policy

    policy = default_policy(None if contact == DEFAULT_CONTACT else contact)
    lines = describe_discovery(found)
    if not interactive:
        click.echo("besides the HTML pages, the site offers:", err=True)
        for line in lines:
            click.echo(f"  {line}", err=True)
        click.echo("policy (conservative defaults; edit the file to change them):", err=True)
        for line in describe_policy(policy):
            click.echo(f"  {line}", err=True)
        return policy
    click.echo("Besides the HTML pages, the site offers:")
    for line in lines:
        click.echo(f"  {line}")
    suggested = (found.recommended or "").split(":", 1)[0]
    click.echo("Why may this site be collected? (recorded in the file's policy section)")
    basis = click.prompt(
        "  basis",
        type=click.Choice(BASES),
        default=suggested if suggested in BASES else policy.basis,
    )
    purpose = click.prompt("  purpose", default="", show_default=False).strip() or None
    who = click.prompt("  contact", default=policy.contact or "", show_default=bool(policy.contact))
    terms = click.prompt("  terms URL (empty: none)", default="", show_default=False).strip()
    days = click.prompt(
        "  retention in days", type=click.IntRange(min=1), default=policy.retention_days
    )
    answers = {
        "basis": basis,
        "purpose": purpose,
        "contact": who.strip() or None,
        "terms_url": terms or None,
        "retention_days": days,
    }
    return Policy.from_dict({k: v for k, v in answers.items() if v is not None})


def _interactive(yes: bool) -> bool:
    """A person is at the terminal to answer questions (and was not told --yes)."""
    return not yes and sys.stdin.isatty()


def _site_id(name: str) -> str:
    import re

    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._") or "site"


def _default_key(result: Any, yes: bool) -> tuple[tuple[str, ...], str]:
    """The key of a new site without --key: a field unique on every distinct seed record,
    else the smallest combination of fields that is (under --yes taken, at a terminal offered
    as the answer), else asked for at a terminal, else an error naming the repeats."""
    from anchorpath.authoring.key import default_key

    choice = default_key(result)
    if choice.key is not None and not (choice.combined and _interactive(yes)):
        return choice.key, choice.why
    if choice.key is None and not _interactive(yes):
        raise AuthoringError(choice.refusal())
    names = list(result.page_type.fields)
    click.echo(terminal_safe(choice.missing()), err=True)
    offer = ",".join(choice.key) if choice.key is not None else None
    while True:
        answer = click.prompt(
            f"key field(s), comma-separated ({', '.join(names)})", default=offer, err=True
        )
        key = tuple(k.strip() for k in answer.split(",") if k.strip())
        if key == choice.key:
            return key, choice.why
        unknown = [k for k in key if k not in names]
        if key and not unknown:
            return key, "chosen at the prompt"
        if not key:
            click.echo("no key field given", err=True)
            continue
        click.echo(f"not a field: {', '.join(unknown)}{did_you_mean(unknown, names)}", err=True)


def _ask_missing_urls(pages: list[Any], *, interactive: bool) -> list[Any]:
    """In a session, ask for the URL of each seed that does not say where it came from."""
    from anchorpath.authoring.seeds import seed_from_html
    from anchorpath.selectors.page_url import is_http_url

    if not interactive:
        return pages
    out = []
    for page in pages:
        if page.url_known:
            out.append(page)
            continue
        url = click.prompt(
            f"URL of {page.source} (it declares none; empty: leave unknown)",
            default="",
            show_default=False,
        ).strip()
        while url and not is_http_url(url):
            url = click.prompt("an absolute http(s) URL, please", default="").strip()
        if url:
            seed = seed_from_html(page.html, url, source=page.source)
            out.append(replace(seed, sha256=page.sha256))
        else:
            out.append(page)
    return out


def _print_result(
    sf: Any, result: Any, key_why: str, decisions: tuple[str, ...], pages: list[Any]
) -> None:
    pt = result.page_type

    def echo(text: str) -> None:  # seeds, XPaths and values come from pages
        click.echo(terminal_safe(text), err=True)

    echo(
        f"{sf.site.id}: page type {pt.name!r} (match {pt.match!r}), "
        f"{len(pt.fields)} fields, authored in {result.elapsed:.2f}s"
    )
    if result.url_pattern is not None:
        up = result.url_pattern
        echo(f"  match: {up.describe()}" + "".join(f"; {n}" for n in up.notes))
    for p in pages:
        echo(f"  seed {p.source}: {p.url}" + ("" if p.url_from == "given" else f" ({p.url_from})"))
    if pt.record_root:
        echo(f"  record root: {pt.record_root}")
    if result.pagination:
        echo(f"  next page:   {result.pagination.next_xpath}")
    for fname, rep in result.fields.items():
        loo = {True: "ok", False: "FAILS", None: "n/a"}[rep.leave_one_out_ok]
        echo(
            f"  {fname}: {rep.xpath}  (robustness {rep.robustness}, leave-one-out {loo}"
            f", {len(rep.fallbacks)} fallbacks)"
        )
    for p in result.problems:
        if p not in result.shortfalls:  # printed last, as "partial: ..."
            echo(f"  warning: {p}")
    for line in decisions:
        echo(f"  {line}")
    echo(f"  key: {', '.join(sf.key)} ({key_why})")
    echo(f"  start URL: {', '.join(sf.fetch.start_urls)}")
    for other in sf.page_types.values():
        what = "list" if other.record_root else "detail"
        emit = "" if other.emit else ", emit false"
        follow = f", follow {' | '.join(other.follow)}" if other.follow else ""
        echo(f"  page type {other.name} ({what}{emit}): match {other.match!r}{follow}")


def _keep_snapshots(sf: Any, pages: list[Any], target: Path, settings: Any) -> Any:
    """Keep each rendered seed (DOM + full-page screenshot) under ``.seeds/<site>/`` next to
    the selector file, and name the DOM snapshot in provenance."""
    import os

    from anchorpath.authoring.seeds_render import keep_seeds
    from anchorpath.selectors.model import Seed

    kept = keep_seeds(pages, target.parent / ".seeds" / sf.site.id, settings)
    seeds = []
    for s in sf.provenance.seeds:
        if s.sha256 in kept:
            rel = os.path.relpath(kept[s.sha256][0], target.parent)
            s = Seed(s.url, s.sha256, Path(rel).as_posix())
        seeds.append(s)
    for html_path, png in kept.values():
        click.echo(f"  kept seed {html_path}" + (f" and {png.name}" if png else ""), err=True)
    return replace(sf, provenance=replace(sf.provenance, seeds=tuple(seeds)))


def _author_llm(
    name: str,
    pages: list[Any],
    fields: list[Any] | None,
    settings: Any,
    options: AuthoringOptions,
) -> tuple[Any, dict[str, str], Any]:
    """The LLM path: proposals, checks and the core; prints what the model proposed."""
    from anchorpath.authoring.llm import author_page_type_with_llm, ledger_path, make_client

    sid = _site_id(name)
    client = make_client(settings, sid)
    try:
        out = author_page_type_with_llm(pages, client, fields, settings.llm, options)
    finally:
        client.close()

    def echo(text: str) -> None:  # seeds, XPaths and values come from pages
        click.echo(terminal_safe(text), err=True)

    props = out.proposals
    for sp in props.pages:
        echo(
            f"  seed {sp.seed.source}: {sp.prompt.tokens_raw} tokens of HTML -> "
            f"{sp.prompt.tokens_full} pruned -> {sp.prompt.tokens} in the prompt"
        )
    if props.discovered:
        echo("  proposed fields: " + ", ".join(f"{d.name} ({d.type})" for d in props.discovered))
    for v in props.verdicts:
        if v.status == "accepted":
            read = f", read at {v.read_node}" if v.read_node else ""
            again = ", after a re-ask" if v.reasked else ""
            echo(f"  {v.field} on {v.seed}: {v.value!r}{again}{read}")
        else:
            echo(f"  {v.field} on {v.seed}: not found ({v.reason})")
    for p in props.problems:
        if "not found" not in p:
            echo(f"  note: {p}")
    n_s, rounds = len(pages), settings.llm.perturbation_rounds
    per = ", ".join(f"{k} {v}" for k, v in sorted(client.ledger.by_purpose.items()))
    echo(
        f"  LLM: {client.ledger.totals.summary()}"
        + (
            f" ({per}; bound n_s + p*n_s + 1 = {n_s + rounds * n_s + 1} plus re-asks)"
            if per
            else ""
        )
        + f"; ledger {ledger_path(settings, sid)}"
    )
    return out.result, out.failed, client


from anchorpath.cli.author_repair import repair_cmd  # noqa: E402 - registered last
from anchorpath.cli.author_session import edit_cmd  # noqa: E402

author_group.add_command(repair_cmd)
author_group.add_command(edit_cmd)

COMMANDS = [author_group]
