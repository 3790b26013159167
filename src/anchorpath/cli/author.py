"""``anchorpath author``: write selector files from seed pages and example values (no LLM)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from anchorpath._errors import AnchorpathError, AuthoringError

__all__ = ["COMMANDS", "author_group"]


@click.group("author")
def author_group() -> None:
    """Author selector files from seed pages and example values.

    \b
    Examples:
      anchorpath author new-site shop --seed a.html --seed b.html --examples ex.json --yes
    """


def _read_examples(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise AuthoringError(f"{path}: cannot read examples: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise AuthoringError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise AuthoringError(f'{path}: expected {{"<seed path or URL>": {{"<field>": value}}}}')
    return data


def _field_requests(
    examples: dict[str, Any], types: tuple[str, ...], required: tuple[str, ...]
) -> list[Any]:
    from anchorpath.authoring.reports import FieldRequest

    names: list[str] = []
    for per_seed in examples.values():
        for k in per_seed:
            if k not in names:
                names.append(k)
    type_of: dict[str, str] = {}
    for spec in types:
        name, sep, kind = spec.partition("=")
        if not sep:
            raise click.BadParameter(f"{spec!r}: expected FIELD=TYPE", param_hint="--type")
        type_of[name] = kind
    unknown = [n for n in [*type_of, *required] if n not in names]
    if unknown:
        raise AuthoringError(
            f"--type/--required name field(s) not in the examples: {', '.join(unknown)}"
        )
    return [FieldRequest(n, type_of.get(n, "string"), required=n in required) for n in names]


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
    help="The URL each file --seed stands for, in the same order (for page-type "
    "matching and relative links).",
)
@click.option(
    "--examples",
    "examples_path",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="EXAMPLES.json",
    help='{"<seed path or URL>": {"<field>": "value" | ["value", ...]}}',
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
    help="Mark a field required (the first one is the default key).",
)
@click.option("--key", "keys", multiple=True, metavar="FIELD", help="Record key field(s).")
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
@click.option(
    "--out",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Directory for NAME.json (default: the configured selectors directory).",
)
@click.option("--yes", is_flag=True, help="Write the file without asking.")
def new_site(
    name: str,
    seeds: tuple[str, ...],
    seed_urls: tuple[str, ...],
    examples_path: str,
    types: tuple[str, ...],
    required: tuple[str, ...],
    keys: tuple[str, ...],
    list_page: bool | None,
    page_type: str | None,
    match: str | None,
    start_urls: tuple[str, ...],
    mutation_seed: int,
    out_dir: str | None,
    yes: bool,
) -> None:
    """Author a new site's selector file from seed pages and example values, without an LLM.

    Every example value is grounded to its node on every seed, anchor-first XPaths are
    generated, verified on all seeds (exact values, nothing spurious, leave-one-seed-out) and
    scored under synthetic DOM mutations; the best XPath plus up to two fallbacks is kept per
    field. Values given as lists (one per example record, at least two) make it a list page
    with an induced record root and pagination.

    \b
    Examples:
      anchorpath author new-site shop --seed p1.html --seed p2.html --seed p3.html \\
          --examples examples.json --yes
      anchorpath author new-site dmf --seed d1.html --seed-url http://x/view?id=1 \\
          --seed d2.html --seed-url http://x/view?id=2 --examples ex.json --required reg_no --yes
    """
    from anchorpath._config import load_settings
    from anchorpath.authoring.induce import assemble_site, author_page_type
    from anchorpath.authoring.seeds import load_seed
    from anchorpath.selectors.load import dump_selector_file, save_selector_file

    if seed_urls and len(seed_urls) != len(seeds):
        raise click.UsageError(f"--seed-url given {len(seed_urls)} times for {len(seeds)} seeds")
    fetcher: Any = None
    try:
        settings = load_settings()
        if any(s.startswith(("http://", "https://")) for s in seeds):
            from anchorpath.fetch.polite import PoliteFetcher

            fetcher = PoliteFetcher(settings.fetch)
        examples = _read_examples(examples_path)
        pages = [
            load_seed(s, fetch=fetcher, url=seed_urls[i] if seed_urls else None)
            for i, s in enumerate(seeds)
        ]
        fields = _field_requests(examples, types, required)
        result = author_page_type(
            pages,
            fields,
            examples,
            list_page=list_page,
            mutation_seed=mutation_seed,
            name=page_type,
            match=match,
        )
        sf = assemble_site(name, [result], key=keys or None, start_urls=start_urls or None)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        close = getattr(fetcher, "close", None)
        if callable(close):
            close()
    pt = result.page_type
    click.echo(
        f"{sf.site.id}: page type {pt.name!r} (match {pt.match!r}), "
        f"{len(pt.fields)} fields, authored in {result.elapsed:.2f}s",
        err=True,
    )
    if pt.record_root:
        click.echo(f"  record root: {pt.record_root}", err=True)
    if result.pagination:
        click.echo(f"  next page:   {result.pagination.next_xpath}", err=True)
    for fname, rep in result.fields.items():
        loo = {True: "ok", False: "FAILS", None: "n/a"}[rep.leave_one_out_ok]
        click.echo(
            f"  {fname}: {rep.xpath}  (robustness {rep.robustness}, leave-one-out {loo}"
            f", {len(rep.fallbacks)} fallbacks)",
            err=True,
        )
    for p in result.problems:
        click.echo(f"  warning: {p}", err=True)
    target = Path(out_dir or settings.paths.selectors_dir) / f"{sf.site.id}.json"
    if not yes:
        if not sys.stdin.isatty():
            click.echo(dump_selector_file(sf), nl=False)
            raise click.ClickException(f"not written: pass --yes to write {target}")
        if not click.confirm(f"Write {target}?", default=True):
            raise click.ClickException("not written")
    try:
        saved = save_selector_file(sf, target)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {target} (version {saved.version})")


from anchorpath.cli.author_repair import repair_cmd  # noqa: E402 - registered last

author_group.add_command(repair_cmd)

COMMANDS = [author_group]
