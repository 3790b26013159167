"""``anchorpath author repair``: re-author the broken fields of a drifted site from its bundle."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from anchorpath._errors import AnchorpathError
from anchorpath.cli.options import selectors_option

if TYPE_CHECKING:  # authoring is imported when the command runs, not for --help
    from anchorpath.authoring.repair.result import RepairResult
    from anchorpath.authoring.session.core import Session
    from anchorpath.bundle import Bundle
    from anchorpath.selectors.model import SelectorFile

__all__ = ["repair_cmd"]


def _review(
    result: RepairResult, bundle: str, *, screenshots: bool, open_images: bool
) -> RepairResult:
    """The review session on every repaired page type (seeds: its failing snapshots, the
    verified ones first); the repair as the person leaves it, or ClickException on quit.

    Every write from the session is re-verified with the repair's adoption check
    (``reverify``: last good records on the failing and the last good snapshots, plausible
    values on the failing ones); a file that fails it is not written, with the reason."""
    import re

    from anchorpath._errors import AuthoringError
    from anchorpath.authoring.repair.pipeline import reverify
    from anchorpath.authoring.seeds import seed_from_html
    from anchorpath.bundle import read_bundle
    from anchorpath.cli.author_session import open_session, review_and_write

    assert result.target is not None  # repair_from_bundle names it
    target = result.target
    snaps = read_bundle(bundle).failing
    verified = set(result.verified_pages)
    current = [result]
    for pt_name in dict.fromkeys(c.page_type for c in result.changes):
        sf = current[-1].new
        rx = re.compile(sf.page_types[pt_name].match)
        mine = sorted((s for s in snaps if rx.search(s.url)), key=lambda s: s.url not in verified)
        pages = [seed_from_html(s.body, s.url, source=s.file) for s in mine[:3]]
        changed = [c.field for c in result.changes if c.page_type == pt_name]

        def keep(
            session: Session, _shots: list[Path], pt_name: str = pt_name
        ) -> tuple[SelectorFile, list[Path]]:
            checked = reverify(current[-1], session.build())
            if not checked.adopted:
                raise AuthoringError(
                    f"page type {pt_name}: the edited repair fails the adoption check: "
                    f"{checked.verification.reason()}"
                )
            current.append(checked)
            return checked.new, []

        review_and_write(
            open_session(sf, pt_name, pages, changed=changed),
            target,
            save=keep,
            done=f"page type {pt_name} reviewed",
            screenshots=screenshots,
            open_images=open_images,
        )
    return current[-1]


@click.command("repair")
@click.argument("site")
@click.option(
    "--bundle",
    "bundle",
    required=True,
    type=click.Path(exists=True),
    metavar="PATH",
    help="The drift run's bundle directory (or its bundle.json).",
)
@selectors_option
@click.option(
    "--llm",
    "use_llm",
    is_flag=True,
    help="Where the last good values are not on the failing pages, ask the configured model "
    "for the broken page types' fields (same guards as authoring).",
)
@click.option(
    "--answer",
    "answer",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The answer to the bundle's prompt.md (its JSON format, or a model's whole reply "
    "with the JSON inside): values for the broken fields, checked as --llm checks a model's.",
)
@click.option("--dry-run", is_flag=True, help="Print the repair and its check; write nothing.")
@click.option("--yes", is_flag=True, help="Write the repaired file without the review session.")
@click.option(
    "--screenshots/--no-screenshots",
    default=True,
    show_default=True,
    help="In the session: a PNG per failing page with the repaired fields outlined.",
)
@click.option("--open", "open_images", is_flag=True, help="Open the screenshots in a viewer.")
def repair_cmd(
    site: str,
    bundle: str,
    selectors_dir: Path | None,
    use_llm: bool,
    answer: Path | None,
    dry_run: bool,
    yes: bool,
    screenshots: bool,
    open_images: bool,
) -> None:
    """Repair SITE's selector file from a drift alert's bundle (an LLM only with --llm).

    The flow: a daily `anchorpath run SITE` ends with exit 3 (drift) and writes
    RUN_DIR/bundle (the selector file it used, the last good snapshots and their records, the
    failing snapshots). This command then

    \b
      1. pairs each failing snapshot's records with last good records by key
         (URL, the key field's value, or the key value found on the page);
      2. finds the broken fields: those whose old XPath no longer gives the
         last good value on the failing snapshot;
      3. re-authors only those (failing snapshots as seeds, last good values
         as examples; list pages need two matched records a page); working
         fields keep their XPaths;
      4. adopts the repair only if the repaired file extracts exactly the last
         good records from the failing snapshots (every matched record, every
         field, after normalisation) and still reads them on the last good
         snapshots and golden fixtures (every changed field, fallbacks included;
         the old XPath stays as last fallback). Otherwise it exits 1 naming the
         fields it could not reproduce, and writes nothing.

    With --llm, page types the steps above could not verify (no failing snapshot pairs with
    a last good record: a list page whose records all changed, detail pages of other
    records; or fields not reproduced) go to the configured model: it proposes every field's
    value on up to three failing snapshots (verbatim guard, perturbation grounding, response
    cache, cost ledger), fields whose old XPath gives the same values stay, the others are
    re-authored, keeping the old XPath as last fallback. Adopted only if the repaired file
    reproduces the last good records on the last good snapshots and extracts plausible
    values (filled as often as before, of the field's type) on every failing snapshot.

    With --answer FILE, the values come from an answer to the bundle's prompt.md instead of
    a configured model (paste prompt.md into any model, or fill it in yourself, and save the
    reply): the pages it answers are the seeds, each value must be on its page verbatim, and
    the same adoption check decides. No model is called.

    An adopted repair is printed as a per-field diff (old XPath -> new XPath,
    anchors); without --yes the review session opens on each repaired page type (the
    failing pages as seeds: look, fix, drop; empty lines from a pipe accept; what you leave
    there must pass the same adoption check, else nothing is written) and it is then saved
    to DIR/SITE.json (DIR: --selectors, else the directory the drifted run loaded the file
    from, else paths.selectors_dir): version bumped, the old version archived under
    DIR/.history/SITE/, provenance method "repair". Then re-run
    the site (`anchorpath run SITE`) to fetch and commit the quarantined day.

    \b
    Examples:
      anchorpath author repair mfds-dmf --bundle .anchorpath/state/runs/mfds-dmf/RUN/bundle --yes
      anchorpath author repair mfds-dmf --bundle RUN/bundle --dry-run
      anchorpath author repair mfds-dmf --bundle RUN/bundle --llm
      anchorpath author repair mfds-dmf --bundle RUN/bundle --answer reply.txt --yes
      anchorpath run mfds-dmf
    """
    from anchorpath._config import load_settings
    from anchorpath.authoring.repair.pipeline import save_repair

    if use_llm and answer is not None:
        raise click.UsageError("give --llm or --answer, not both")
    result, manifest = _plan(site, bundle, selectors_dir, use_llm=use_llm, answer=answer)
    _print_repair(result)
    if not result.adopted:
        raise click.ClickException(
            _refusal(result, manifest, Path(bundle), use_llm or answer is not None)
        )
    if not result.changes:
        # Exit non-zero: the alert stands, and a person has to look at the bundle.
        raise click.ClickException(
            "nothing to repair: the selectors still reproduce the last good records on the "
            f"failing snapshots; inspect {Path(bundle)} (README.md) for what the drift gate saw"
        )
    target = result.target
    if dry_run:
        click.echo(f"dry run: not written to {target}", err=True)
        return
    if not yes:
        result = _review(result, bundle, screenshots=screenshots, open_images=open_images)
    try:
        result = save_repair(result)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    assert result.saved is not None
    run_hint = f"anchorpath run {result.site}"
    if target is not None and target.parent != Path(load_settings().paths.selectors_dir):
        run_hint += f" --selectors {target.parent}"
    click.echo(f"wrote {target} (version {result.saved.version}, was {result.old.version})")
    click.echo(f"next: {run_hint}")


def _plan(
    site: str, bundle: str, selectors_dir: Path | None, *, use_llm: bool, answer: Path | None
) -> tuple[RepairResult, Bundle]:
    """The repair as planned from the bundle (LLM-free, then --llm or --answer for what that
    left unverified), and the bundle; nothing written."""
    from anchorpath._config import load_settings
    from anchorpath.authoring.repair.answer import repair_with_answer
    from anchorpath.authoring.repair.llm import repair_with_model
    from anchorpath.authoring.repair.pipeline import repair_from_bundle
    from anchorpath.bundle import read_bundle

    try:
        manifest = read_bundle(bundle)
        if site not in (manifest.site, manifest.selector.site.id):
            raise click.UsageError(
                f"the bundle {bundle} is for site {manifest.site!r}, not {site!r}"
            )
        result = repair_from_bundle(bundle, selectors_dir=selectors_dir, dry_run=True)
        if use_llm:
            result = repair_with_model(result, manifest, load_settings(), site, _note)
        elif answer is not None:
            result = repair_with_answer(result, manifest, answer, load_settings().llm, _note)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    return result, manifest


def _note(line: str) -> None:
    click.echo(line, err=True)


def _print_repair(result: RepairResult) -> None:
    """The broken fields, the per-field diff (stdout) and the notes."""
    from anchorpath.authoring.repair.result import render_diff

    broken = sum(len(v) for v in result.broken.values())
    where = ", ".join(f"{n} ({c} matched records)" for n, c in result.matched.items())
    click.echo(f"{result.site}: {broken} broken field(s) on {where or 'no page'}", err=True)
    for line in render_diff(result):
        click.echo(line)
    for note in result.notes:
        click.echo(f"  note: {note}", err=True)


def _refusal(result: RepairResult, manifest: Bundle, bundle: Path, tried: bool) -> str:
    """Why a repair that fails the adoption check is refused (its mismatches and problems
    printed first); ``tried``: --llm or --answer was given."""
    for m in result.verification.mismatches:
        click.echo(f"  mismatch: {m.describe()}", err=True)
    for p in result.verification.problems:
        click.echo(f"  problem: {p}", err=True)
    if not result.matched:
        return _nothing_matched(manifest, bundle, tried)
    fields = ", ".join(result.unreproduced)
    if not fields:  # a page type that could not be re-authored at all
        why = next(iter(result.verification.problems), "the adoption check failed")
        return f"repair refused, nothing written: {why}"
    return f"repair refused, nothing written: cannot reproduce the last good records for {fields}"


def _nothing_matched(manifest: Bundle, bundle: Path, llm_tried: bool) -> str:
    """One sentence: why no failing page could be paired with a last good record, and what the
    operator can do instead (accept a false alarm, or re-author; ``--answer`` or ``--llm`` if
    neither was tried)."""
    if not manifest.last_good:
        why = (
            "the bundle holds no last good page (no run of the site was committed before, "
            "or its archive was deleted)"
        )
    elif not manifest.last_good_records:
        why = (
            f"the bundle's {len(manifest.last_good)} last good page(s) gave no record with the "
            "selector file the run used"
        )
    elif not manifest.failing:
        why = "the bundle holds no failing pages"
    else:
        why = (
            f"none of the {len(manifest.failing)} failing page(s) shows any of the "
            f"{len(manifest.last_good_records)} last good record(s) (other pages, or other keys)"
        )
    run = manifest.run_id or "RUN_ID"
    return (
        f"repair refused, nothing written: {why}, so there is nothing to learn from; if the "
        f"alert is a false alarm accept the run (anchorpath accept {manifest.site} {run}), "
        f"otherwise re-author the site from the failing pages in {bundle / 'failing'} "
        f"(anchorpath author new-site {manifest.site} --seed PAGE --examples FILE"
        + (
            ")"
            if llm_tried
            else f"; or answer {bundle / 'prompt.md'} and retry this repair with --answer "
            "FILE, or with --llm)"
        )
    )
