"""``anchorpath author``: write selector files from seed pages, with example values or an LLM."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from anchorpath._errors import AnchorpathError
from anchorpath._text import did_you_mean, terminal_safe
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.cli.author_repair import repair_cmd
from anchorpath.cli.author_session import edit_cmd, mutation_seed_option
from anchorpath.cli.options import selectors_option

if TYPE_CHECKING:  # authoring is imported when a command runs, not for --help
    from anchorpath._config import Settings
    from anchorpath.authoring.key import KeyChoice
    from anchorpath.authoring.newsite import NewSite, Questions
    from anchorpath.authoring.seeds import SeedPage
    from anchorpath.selectors.model import Discovery, Policy, SelectorFile

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


def _field_specs(specs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--field NAME[:TYPE]`` options as (name, type) pairs."""
    out = []
    for spec in specs:
        fname, _, kind = spec.partition(":")
        if not fname.strip():
            raise click.BadParameter(f"{spec!r}: expected NAME or NAME:TYPE", param_hint="--field")
        out.append((fname.strip(), kind.strip() or "string"))
    return tuple(out)


#: Exit status of ``author new-site`` when the file was written but does not reproduce
#: everything asked: some fields not authored, an example record left out, or a field
#: right on most seeds only.
EXIT_PARTIAL = 5


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
@mutation_seed_option
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
    from anchorpath.authoring.newsite import NewSiteRequest, author_new_site, discover_site

    llm = bool(field_specs or fields_path)
    _check_usage(seeds, seed_urls, examples_path, llm, render, wait_for)
    if len(seeds) < 2:
        click.echo(
            "warning: one seed page: its XPaths are checked on that page alone and may fit "
            "only it; give 2-3 seed pages of the template",
            err=True,
        )
    options = AuthoringOptions(
        list_page=list_page,
        page_type=page_type,
        match=match,
        mutation_seed=mutation_seed,
        allow_constant=allow_constant or not yes,
    )
    request = NewSiteRequest(
        name,
        seeds,
        seed_urls,
        examples_path,
        _field_specs(field_specs),
        fields_path,
        _types(types),
        required,
        keys,
        start_urls,
        "browser" if wait_for is not None else render,
        selectors_dir,
        options,
    )
    try:
        settings = load_settings(overrides={"render.wait_for": wait_for})
        site = author_new_site(request, settings, ask=_questions(yes), note=_echo_page_text)
        sf = site.selector_file
        found = None
        if sf.policy is None or sf.policy.basis is None:
            found = discover_site(seeds, site.pages, settings)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    if found is not None:
        policy = _ask_policy(settings.fetch.contact, _interactive(yes), found)
        site = replace(site, selector_file=replace(sf, policy=replace(policy, discovery=found)))
    _print_result(site)
    if yes:
        _write(site, settings)
    else:
        _review(site, name, settings, options, screenshots=screenshots, open_images=open_images)
    _warn_unrunnable(site)
    if site.failed:
        click.echo(
            f"partial: {len(site.failed)} field(s) not authored: {', '.join(site.failed)}",
            err=True,
        )
    for short in site.shortfalls:
        click.echo(terminal_safe(f"partial: {short}"), err=True)
    if site.partial:
        sys.exit(EXIT_PARTIAL)


def _check_usage(
    seeds: tuple[str, ...],
    seed_urls: tuple[str, ...],
    examples_path: str | None,
    llm_fields: bool,
    render: str | None,
    wait_for: str | None,
) -> None:
    """Flags that cannot go together (a usage error, exit 2)."""
    if seed_urls and len(seed_urls) != len(seeds):
        raise click.UsageError(f"--seed-url given {len(seed_urls)} times for {len(seeds)} seeds")
    if examples_path and llm_fields:
        raise click.UsageError("--examples cannot be combined with --field/--fields")
    if wait_for is not None and render == "http":
        raise click.UsageError(
            "--wait-for needs a browser: it cannot be combined with --render http"
        )


def _echo_page_text(text: str) -> None:
    """A line to stderr that may hold text from the pages (seeds, XPaths, values)."""
    click.echo(terminal_safe(text), err=True)


def _write(site: NewSite, settings: Settings) -> None:
    """``--yes``: keep the rendered seeds, write the file with its golden fixtures."""
    from anchorpath.authoring.session.fixtures import save_with_fixtures

    sf = site.selector_file
    try:
        if site.rendered:
            sf = _keep_snapshots(sf, site, settings)
        # golden fixtures on every write: `check` and the first runs' baseline need them
        saved, files = save_with_fixtures(
            sf,
            site.target,
            site.pages,
            site.result.page_type.name,
            changed=list(site.result.page_type.fields),
        )
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    fixtures = [f for f in files if f.name.endswith(".records.json")]
    click.echo(f"wrote {site.target} (version {saved.version})")
    if fixtures:
        click.echo(f"  golden fixtures: {len(fixtures)} page(s) in {fixtures[0].parent}")


def _review(
    site: NewSite,
    name: str,
    settings: Settings,
    options: AuthoringOptions,
    *,
    screenshots: bool,
    open_images: bool,
) -> None:
    """Without ``--yes``: the review session writes the file (rendered seeds are kept only
    when it is written: quit leaves nothing)."""
    from anchorpath.cli.author_session import open_session, review_and_write, session_source

    with session_source(site.examples, site.llm, settings, name) as source:
        session = open_session(
            site.selector_file,
            site.result.page_type.name,
            site.pages,
            reports=site.result.fields,
            problems=site.result.problems,
            source=source,
            options=options,
            changed=list(site.result.page_type.fields),
        )
        review_and_write(
            session,
            site.target,
            screenshots=screenshots,
            open_images=open_images,
            confirm_write="Change the key and write" if site.key_changed else None,
            prepare=(lambda f: _keep_snapshots(f, site, settings)) if site.rendered else None,
        )


def _warn_unrunnable(site: NewSite) -> None:
    if site.unrunnable:
        click.echo(
            f"WARNING: {site.target} cannot run until its URLs are set: no URL is known for "
            f"{', '.join(site.urls_unknown)} (no --seed-url, <base href>, <link rel=canonical> "
            "or og:url), so its start URL and match are local file paths. Author it again with "
            "--seed-url URL per seed (or --start-url and --match), or edit the file; "
            "`anchorpath run` refuses it until then.",
            err=True,
        )


def _ask_policy(contact: str, interactive: bool, found: Discovery) -> Policy:
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


class _Terminal:
    """Questions only a person answers, asked at the terminal."""

    def seed_url(self, page: SeedPage) -> str:
        from anchorpath.selectors.page_url import is_http_url

        url = click.prompt(
            f"URL of {page.source} (it declares none; empty: leave unknown)",
            default="",
            show_default=False,
        ).strip()
        while url and not is_http_url(url):
            url = click.prompt("an absolute http(s) URL, please", default="").strip()
        return str(url)

    def key(self, choice: KeyChoice, names: Sequence[str]) -> tuple[tuple[str, ...], str]:
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


def _questions(yes: bool) -> Questions | None:
    return _Terminal() if _interactive(yes) else None


def _print_result(site: NewSite) -> None:
    sf, result, pt = site.selector_file, site.result, site.result.page_type
    echo = _echo_page_text  # seeds, XPaths and values come from pages
    echo(
        f"{sf.site.id}: page type {pt.name!r} (match {pt.match!r}), "
        f"{len(pt.fields)} fields, authored in {result.elapsed:.2f}s"
    )
    if result.url_pattern is not None:
        up = result.url_pattern
        echo(f"  match: {up.describe()}" + "".join(f"; {n}" for n in up.notes))
    for p in site.pages:
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
    for problem in result.problems:
        if problem not in result.shortfalls:  # printed last, as "partial: ..."
            echo(f"  warning: {problem}")
    for line in site.decisions:
        echo(f"  {line}")
    echo(f"  key: {', '.join(sf.key)} ({site.key_why})")
    echo(f"  start URL: {', '.join(sf.fetch.start_urls)}")
    for other in sf.page_types.values():
        what = "list" if other.record_root else "detail"
        emit = "" if other.emit else ", emit false"
        follow = f", follow {' | '.join(other.follow)}" if other.follow else ""
        echo(f"  page type {other.name} ({what}{emit}): match {other.match!r}{follow}")
    for fname, why in site.failed.items():
        click.echo(f"  not authored: {fname}: {why}", err=True)
    if site.key_changed and site.existing is not None:
        click.echo(
            f"key change: {', '.join(site.existing.key)} -> {', '.join(sf.key)}. Every stored "
            "record of this site was identified by the old key: all records are re-issued — "
            "the next run issues every record again as new under the new key, and the records "
            "stored under the old key are withdrawn (once a complete crawl no longer finds "
            "them).",
            err=True,
        )


def _keep_snapshots(sf: SelectorFile, site: NewSite, settings: Settings) -> SelectorFile:
    """The rendered seeds kept next to the file (``authoring.newsite.keep_snapshots``), said."""
    from anchorpath.authoring.newsite import keep_snapshots

    sf, kept = keep_snapshots(sf, site.pages, site.target, settings)
    for html_path, png in kept:
        click.echo(f"  kept seed {html_path}" + (f" and {png.name}" if png else ""), err=True)
    return sf


author_group.add_command(repair_cmd)
author_group.add_command(edit_cmd)

COMMANDS = [author_group]
