"""The review session behind ``author new-site`` (without ``--yes``), ``author edit`` and
``author repair``: the shared glue between the CLI and ``authoring.session``."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from anchorpath._errors import AnchorpathError
from anchorpath.authoring.options import AuthoringOptions

if TYPE_CHECKING:  # the session (rich, lxml) is imported when a command runs, not for --help
    from anchorpath._config import Settings
    from anchorpath.authoring.reports import Examples, FieldReport
    from anchorpath.authoring.seeds import SeedPage
    from anchorpath.authoring.session.core import Session
    from anchorpath.authoring.session.sources import ValueSource
    from anchorpath.authoring.session.terminal import SessionOutcome
    from anchorpath.selectors.model import SelectorFile

__all__ = ["edit_cmd", "mutation_seed_option", "open_session", "review_and_write", "session_source"]

#: ``--mutation-seed`` of ``author new-site`` and ``author edit`` (the run CLI never imports
#: authoring, so it lives here, not in :mod:`anchorpath.cli.options`).
mutation_seed_option = click.option(
    "--mutation-seed",
    default=AuthoringOptions.mutation_seed,
    show_default=True,
    type=int,
    help="RNG seed of the perturbation tests.",
)


@contextlib.contextmanager
def session_source(
    examples: Examples | None, llm: bool, settings: Settings, site: str
) -> Iterator[ValueSource | None]:
    """Where the session's added fields get values: the examples, else (when the LLM was
    used) the configured model through its cache and ledger, else nobody (typed values)."""
    from anchorpath.authoring.session.sources import ExampleValues, LLMValues

    if examples is not None:
        yield ExampleValues(examples)
        return
    if not llm:
        yield None
        return
    from anchorpath.authoring.induce import site_id
    from anchorpath.authoring.llm import make_client

    try:
        client = make_client(settings, site_id(site))
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        yield LLMValues(client, settings.llm)
    finally:
        client.close()


def open_session(
    sf: SelectorFile,
    page_type: str,
    pages: Sequence[SeedPage],
    *,
    reports: Mapping[str, FieldReport] | None = None,
    problems: Sequence[str] = (),
    source: ValueSource | None = None,
    options: AuthoringOptions = AuthoringOptions(),
    changed: Sequence[str] = (),
) -> Session:
    """The session on page type ``page_type`` of ``sf`` (``authoring.session.core.Session``),
    or ClickException naming what is wrong."""
    from anchorpath.authoring.session.core import Session

    try:
        return Session(
            sf,
            page_type,
            pages,
            reports=reports,
            problems=problems,
            source=source,
            options=options,
            changed=changed,
        )
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc


def review_and_write(
    session: Session,
    target: Path,
    *,
    screenshots: bool = True,
    open_images: bool = False,
    confirm_write: str | None = None,
    prepare: Callable[[SelectorFile], SelectorFile] | None = None,
    save: Callable[[Session, list[Path]], tuple[SelectorFile, list[Path]]] | None = None,
    done: str | None = None,
) -> SessionOutcome:
    """Run ``session`` at the terminal; on ``w`` save it to ``target`` with golden fixtures
    and screenshots (``prepare`` edits the file just before it is saved; ``save`` replaces
    the saving). Raises ClickException when nothing was written."""
    from anchorpath.authoring.session.fixtures import save_with_fixtures
    from anchorpath.authoring.session.terminal import run_session

    tmp = Path(tempfile.mkdtemp(prefix="anchorpath-session-")) if screenshots else None

    def write(s: Session, shots: list[Path]) -> tuple[SelectorFile, list[Path]]:
        built = s.build() if prepare is None else prepare(s.build())
        return save_with_fixtures(
            built, target, s.pages, s.page_type, changed=s.changed, screenshots=shots
        )

    try:
        outcome = run_session(
            session,
            target=target,
            save=save or write,
            shots_dir=tmp,
            done=done,
            open_images=open_images,
            confirm_write=confirm_write,
        )
    except AnchorpathError as exc:
        raise click.ClickException(f"not written: {exc}") from exc
    finally:
        if tmp is not None and not open_images:
            shutil.rmtree(tmp, ignore_errors=True)
    if not outcome.written:
        raise click.ClickException(f"not written: {target} unchanged")
    return outcome


@click.command("edit")
@click.argument("site")
@click.option(
    "--selectors",
    "selectors_dir",
    default=None,
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Selectors directory holding SITE.json (default: the configured one).",
)
@click.option("--page-type", default=None, help="The page type to review (default: the only one).")
@click.option(
    "--seed",
    "seeds",
    multiple=True,
    metavar="PAGE",
    help="Seed page to review on (default: the file's golden fixtures of the page type).",
)
@click.option(
    "--seed-url",
    "seed_urls",
    multiple=True,
    metavar="URL",
    help="The URL each file --seed stands for, in the same order.",
)
@click.option(
    "--examples",
    "examples_path",
    default=None,
    type=click.Path(dir_okay=False),
    metavar="EXAMPLES.json",
    help="Values of fields to add, per seed: the session proposes them when you add a field.",
)
@click.option(
    "--screenshots/--no-screenshots",
    default=True,
    show_default=True,
    help="Highlighted PNG per seed (Chromium).",
)
@click.option("--open", "open_images", is_flag=True, help="Open the screenshots in a viewer.")
@mutation_seed_option
def edit_cmd(
    site: str,
    selectors_dir: str | None,
    page_type: str | None,
    seeds: tuple[str, ...],
    seed_urls: tuple[str, ...],
    examples_path: str | None,
    screenshots: bool,
    open_images: bool,
    mutation_seed: int,
) -> None:
    """Review an existing selector file in the session: add, fix or drop fields.

    The session shows every field of the page type on the seeds (by default the file's golden
    fixtures), with the same actions as `author new-site`; writing saves version N+1 (parent
    N, the old one archived under .history/), new or updated golden fixtures and screenshots.
    Driven through a pipe, each prompt reads one line (empty: default, q: quit).

    \b
    Examples:
      anchorpath author edit mfds-dmf --page-type detail
      printf 'a\\n...\\n+ posted_on:date\\n' | anchorpath author edit mfds-dmf \\
          --page-type detail --examples posted.json
    """
    from anchorpath._config import load_settings
    from anchorpath.authoring.inputs import read_examples
    from anchorpath.authoring.session.reopen import reopen
    from anchorpath.authoring.session.sources import ExampleValues

    if seed_urls and len(seed_urls) != len(seeds):
        raise click.UsageError(f"--seed-url given {len(seed_urls)} times for {len(seeds)} seeds")
    try:
        settings = load_settings()
        opened = reopen(
            site,
            selectors_dir or settings.paths.selectors_dir,
            page_type=page_type,
            seeds=seeds,
            seed_urls=seed_urls,
        )
        source = ExampleValues(read_examples(examples_path)) if examples_path else None
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    session = open_session(
        opened.selector_file,
        opened.page_type,
        opened.pages,
        source=source,
        options=AuthoringOptions(mutation_seed=mutation_seed),
    )
    review_and_write(session, opened.path, screenshots=screenshots, open_images=open_images)
