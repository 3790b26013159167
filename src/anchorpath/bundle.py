"""The drift bundle: what a drifted run hands to re-authoring, written by the runner and read by
authoring. The format is defined here once, below both sides, so neither imports the other.

Layout (``BUNDLE_DIR`` inside the run's directory)::

    bundle.json                     manifest: format, site, selector version, files, fields, command
    README.md                       the same for a human, with the next command
    prompt.md                       a ready re-authoring prompt: broken fields, their last good
                                    values, the failing pages as pruned Markdown, the XPaths
                                    that stopped working (read it, or paste it into any model)
    selector.json                   byte copy of the selector file the run used
    failing_fields.json             {"fields": {field: [evidence, ...]}, "drift": {...}}
    last_good/index.json            [{"url", "file", "sha256"}] of the last good snapshots
    last_good/records.json          the records those snapshots gave (accepted run)
    last_good/NNN.html              the snapshots, bytes exactly as fetched
    failing/index.json              the same for this run's pages
    failing/records.json            what this run extracted (only when given)
    failing/NNN.html

The next command is ``anchorpath author repair SITE --bundle DIR``; authoring reads
``bundle.json`` and finds everything else through it, so the bundle can be moved or mailed.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anchorpath._config import TOKEN_BUDGET
from anchorpath._errors import AnchorpathError, BundleError
from anchorpath.prune import PrunedPage, fit_budget, prune_page, template_chunks
from anchorpath.prune.budget import field_terms
from anchorpath.selectors.evaluate import ExtractionWarning, extract
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import FieldSpec, SelectorFile

__all__ = [
    "BUNDLE_DIR",
    "BUNDLE_FORMAT",
    "Bundle",
    "Snapshot",
    "WrittenBundle",
    "read_bundle",
    "repair_command",
    "repair_prompt",
    "write_bundle",
]

#: The bundle's directory name inside a run directory.
BUNDLE_DIR = "bundle"
#: ``format`` of ``bundle.json``; a reader refuses any other.
BUNDLE_FORMAT = "anchorpath.bundle.v1"
#: Failing pages shown in ``prompt.md`` (each within ``[llm] token_budget``'s default).
PROMPT_PAGES = 3


def repair_command(site: str, bundle: Path) -> str:
    """The exact shell command that starts the repair of ``site`` from ``bundle``."""
    return f"anchorpath author repair {shlex.quote(site)} --bundle {shlex.quote(str(bundle))}"


@dataclass(frozen=True)
class Snapshot:
    """One page of a bundle: the URL it was fetched from, its bytes and the file it came from."""

    url: str
    body: bytes
    file: str


@dataclass(frozen=True)
class Bundle:
    """A re-authoring bundle as read from disk."""

    path: Path
    site: str
    selector: SelectorFile
    selector_version: int | None
    run_id: str | None
    selector_source: str | None  # where the drifted run loaded the selector file from
    last_good: tuple[Snapshot, ...]
    last_good_records: tuple[Mapping[str, Any], ...]
    failing: tuple[Snapshot, ...]
    #: each broken field with the gate's evidence for it
    failing_fields: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class WrittenBundle:
    """A bundle just written: its manifest's facts that the run's alert repeats."""

    site: str
    selector_version: int | None
    created_at: str
    next_command: str


# ---------------------------------------------------------------------------------- reading


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BundleError(f"{path}: cannot read bundle file: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{path}: bundle file is not valid JSON: {exc}") from exc


def _read_snapshots(bundle: Path, index: Any, what: str) -> tuple[Snapshot, ...]:
    if not isinstance(index, list):
        raise BundleError(f"{bundle / 'bundle.json'}: {what!r} must be a list of snapshots")
    out = []
    for i, entry in enumerate(index):
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise BundleError(f"{bundle / 'bundle.json'}: {what}[{i}] has no url")
        path = bundle / str(entry.get("file", ""))
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise BundleError(f"{path}: cannot read snapshot: {exc.strerror or exc}") from exc
        want = entry.get("sha256")
        if want and hashlib.sha256(body).hexdigest() != want:
            raise BundleError(f"{path}: snapshot bytes do not match the bundle's sha256")
        if not body and what == "last_good":
            # Written by an anchorpath that archived a 304 as the page: nothing to learn from.
            raise BundleError(
                f"{path}: the last good snapshot is empty (the page answered 304 and the bundle "
                "was written without the body it stands for); run the site again for a new bundle"
            )
        out.append(Snapshot(entry["url"], body, str(path)))
    return tuple(out)


def read_bundle(bundle_dir: str | Path) -> Bundle:
    """Read and check a re-authoring bundle (``bundle.json`` and everything it names)."""
    path = Path(bundle_dir)
    if path.is_file() and path.name == "bundle.json":
        path = path.parent
    manifest = _read_json(path / "bundle.json")
    if not isinstance(manifest, dict):
        raise BundleError(f"{path / 'bundle.json'}: not a bundle manifest")
    fmt = manifest.get("format")
    if fmt != BUNDLE_FORMAT:
        raise BundleError(
            f"{path / 'bundle.json'}: unsupported bundle format {fmt!r} (expected {BUNDLE_FORMAT})"
        )
    sel_path = path / str(manifest.get("selector_file") or "selector.json")
    try:
        selector = parse_selector_data(_read_json(sel_path), str(sel_path))
    except BundleError:
        raise
    except AnchorpathError as exc:
        raise BundleError(f"{sel_path}: {exc}") from exc
    records = _read_json(path / str(manifest.get("last_good_records") or "last_good/records.json"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise BundleError(f"{path}: last good records must be a list of objects")
    failing_fields = manifest.get("failing_fields") or {}
    version = manifest.get("selector_version")
    return Bundle(
        path=path,
        site=str(manifest.get("site") or selector.site.id),
        selector=selector,
        selector_version=version if isinstance(version, int) else None,
        run_id=manifest.get("run_id"),
        selector_source=manifest.get("selector_source"),
        last_good=_read_snapshots(path, manifest.get("last_good", []), "last_good"),
        last_good_records=tuple(records),
        failing=_read_snapshots(path, manifest.get("failing", []), "failing"),
        failing_fields={
            str(name): tuple(str(e) for e in evidence) if isinstance(evidence, list) else ()
            for name, evidence in failing_fields.items()
        }
        if isinstance(failing_fields, dict)
        else {},
    )


# ---------------------------------------------------------------------------------- writing


def _selector_meta(path: Path) -> tuple[str, int | None]:
    """Site id and version from the selector file (the file stem if it cannot be read)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        site = data.get("site", {}).get("id") or path.stem
        version = data.get("version")
        return str(site), version if isinstance(version, int) else None
    except (OSError, ValueError, AttributeError):
        return path.stem, None


def _dump(path: Path, data: Any) -> None:
    path.write_text(
        json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
    )


def _write_snapshots(
    folder: Path, pages: Sequence[tuple[str, bytes]], records: Sequence[Mapping[str, Any]] | None
) -> list[dict[str, str]]:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for i, (url, body) in enumerate(pages, 1):
        name = f"{i:03d}.html"
        (folder / name).write_bytes(body)
        index.append(
            {
                "url": url,
                "file": f"{folder.name}/{name}",
                "sha256": hashlib.sha256(body).hexdigest(),
            }
        )
    _dump(folder / "index.json", index)
    if records is not None:
        _dump(folder / "records.json", list(records))
    return index


def write_bundle(
    bundle: Path,
    selector_file_path: Path,
    last_good: Sequence[tuple[str, bytes]],
    last_good_records: Sequence[Mapping[str, Any]],
    failing: Sequence[tuple[str, bytes]],
    *,
    failing_fields: Mapping[str, Sequence[str]],
    structural: Sequence[str] = (),
    score: float = 0.0,
    evidence: Mapping[str, Any] | None = None,
    failing_records: Sequence[Mapping[str, Any]] | None = None,
    run_id: str | None = None,
) -> WrittenBundle:
    """Write a bundle into the directory ``bundle`` (replacing one already there); return what
    its manifest (``bundle.json``) says of it.

    ``last_good`` and ``failing`` are ``(url, body)`` snapshots; ``last_good_records`` are the
    records the last accepted run extracted from them; ``failing_fields`` names each broken
    field with its evidence; ``evidence`` is the gate's full result, kept beside them.
    """
    selector_file_path = Path(selector_file_path)
    site, version = _selector_meta(selector_file_path)
    command = repair_command(site, bundle)
    try:
        if bundle.exists():  # a resumed run rewrites its bundle from scratch
            shutil.rmtree(bundle)
        bundle.mkdir(parents=True)
        shutil.copyfile(selector_file_path, bundle / "selector.json")
        good_index = _write_snapshots(bundle / "last_good", last_good, last_good_records)
        bad_index = _write_snapshots(bundle / "failing", failing, failing_records)
        fields = {k: list(v) for k, v in failing_fields.items()}
        _dump(bundle / "failing_fields.json", {"fields": fields, "drift": dict(evidence or {})})
        manifest = {
            "format": BUNDLE_FORMAT,
            "site": site,
            "selector_version": version,
            "run_id": run_id,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "selector_file": "selector.json",
            "selector_source": str(selector_file_path),
            "last_good": good_index,
            "last_good_records": "last_good/records.json",
            "failing": bad_index,
            "failing_records": "failing/records.json" if failing_records is not None else None,
            "failing_fields": fields,
            "structural": list(structural),
            "score": round(score, 3),
            "next_command": command,
        }
        _dump(bundle / "bundle.json", manifest)
        (bundle / "README.md").write_text(_readme(manifest), encoding="utf-8")
        prompt = repair_prompt(
            selector_file_path.read_bytes(),
            fields,
            last_good_records,
            failing,
            structural=structural,
            command=command,
        )
        (bundle / "prompt.md").write_text(prompt, encoding="utf-8")
    except OSError as exc:
        raise BundleError(f"{bundle}: cannot write the bundle: {exc}") from exc
    return WrittenBundle(site, version, str(manifest["created_at"]), command)


def _readme(m: Mapping[str, Any]) -> str:
    lines = [
        f"# Drift alert: {m['site']} (selector version {m['selector_version']})",
        "",
        f"Run {m['run_id'] or '?'} produced data that no longer looks like the accepted runs "
        f"(score {m['score']}). Nothing was written to the store; the run is quarantined.",
        "",
        "## Failing fields",
        "",
    ]
    for name, evidence in m["failing_fields"].items():
        lines.append(f"- **{name}**")
        lines += [f"  - {e}" for e in evidence]
    lines += [f"- {s}" for s in m["structural"]]
    lines += [
        "",
        f"Last good snapshots: {len(m['last_good'])} (`last_good/`), "
        f"failing snapshots: {len(m['failing'])} (`failing/`).",
        "",
        "## Next",
        "",
        "```sh",
        m["next_command"],
        "```",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- prompt.md


def _broken(sf: SelectorFile, names: Sequence[str]) -> list[tuple[str, FieldSpec]]:
    """``(page type, spec)`` of each broken field (``page_type.field`` or a bare name); every
    field of every page type when the gate named none (structural drift)."""
    out: list[tuple[str, FieldSpec]] = []
    for key in names:
        pt_name, _, fname = key.rpartition(".")
        for name, pt in sf.page_types.items():
            if (not pt_name or pt_name == name) and fname in pt.fields:
                out.append((name, pt.fields[fname]))
    if not out:
        out = [(n, f) for n, pt in sf.page_types.items() for f in pt.fields.values()]
    return list(dict.fromkeys(out))


def _path_query(url: str) -> str:
    """A page's path and query: the same page on another origin (a moved or re-served site)
    pairs with its last good snapshot."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def _prompt_pages(
    sf: SelectorFile, pts: Sequence[str], failing: Sequence[tuple[str, bytes]], good: set[str]
) -> list[tuple[str | None, str, bytes]]:
    """Up to :data:`PROMPT_PAGES` failing pages, taken in turn from each broken page type,
    pages with last good records first."""
    queues: list[list[tuple[str | None, str, bytes]]] = []
    for pt in pts:
        rx = re.compile(sf.page_types[pt].match)
        pages: list[tuple[str | None, str, bytes]] = [
            (pt, u, b) for u, b in failing if rx.search(u)
        ]
        pages.sort(key=lambda page: _path_query(page[1]) not in good)
        queues.append(pages)
    out: list[tuple[str | None, str, bytes]] = []
    while len(out) < PROMPT_PAGES and any(queues):
        for q in queues:
            if q and len(out) < PROMPT_PAGES:
                out.append(q.pop(0))
    if not out:
        out = [(None, u, b) for u, b in failing[:PROMPT_PAGES]]
    return out


def _fence(text: str) -> str:
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}markdown\n{text}\n{ticks}"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _broken_field_lines(
    pt_name: str,
    spec: FieldSpec,
    failing_fields: Mapping[str, Sequence[str]],
    last_good_records: Sequence[Mapping[str, Any]],
) -> list[str]:
    """One broken field in the prompt: its XPaths, its anchor, its last good values and the
    drift gate's evidence."""
    evidence = failing_fields.get(f"{pt_name}.{spec.name}") or failing_fields.get(spec.name, [])
    values = [
        r.get(spec.name)
        for r in last_good_records
        if r.get("_page_type") in (pt_name, None) and r.get(spec.name) not in (None, "", [])
    ]
    examples = list(dict.fromkeys(_show(v) for v in values))[:5]
    lines = [
        f"- **{spec.name}** (page type `{pt_name}`, {spec.type})",
        f"  - XPath that stopped working: `{spec.xpath}`",
    ]
    lines += [f"  - fallback: `{x}`" for x in spec.fallbacks]
    if spec.anchor is not None and spec.anchor.value:
        lines.append(f"  - it was anchored on the label {_show(spec.anchor.value)}")
    if examples:
        lines.append(f"  - last good values: {', '.join(examples)}")
    return lines + [f"  - drift evidence: {e}" for e in evidence]


def repair_prompt(
    selector: bytes,
    failing_fields: Mapping[str, Sequence[str]],
    last_good_records: Sequence[Mapping[str, Any]],
    failing: Sequence[tuple[str, bytes]],
    *,
    structural: Sequence[str] = (),
    command: str = "",
) -> str:
    """A ready re-authoring prompt (Markdown) for a person or any model: the broken fields with
    the XPaths that stopped working and their last good values, and up to
    :data:`PROMPT_PAGES` failing pages (those with a last good record first) as pruned Markdown
    within :data:`~anchorpath._config.TOKEN_BUDGET` tokens each, with the answer format."""
    try:
        sf = parse_selector_data(json.loads(selector.decode("utf-8")), "selector.json")
    except (AnchorpathError, ValueError) as exc:
        return f"# Re-authoring prompt\n\nThe selector file cannot be read ({exc}).\n"
    broken = _broken(sf, list(failing_fields))
    pts = list(dict.fromkeys(pt for pt, _f in broken))
    good_by_url: dict[str, list[Mapping[str, Any]]] = {}
    for rec in last_good_records:
        good_by_url.setdefault(_path_query(str(rec.get("_url", ""))), []).append(rec)
    lines = [
        f"# Re-authoring prompt: {sf.site.id} (selector version {sf.version})",
        "",
        "The pages of this site changed their template and the XPaths below stopped extracting "
        "the right values. Read each failing page (pruned to Markdown below) and give, for every "
        "broken field, its value on that page exactly as the page shows it (copy the text "
        "verbatim; no reformatting, no guessing: `null` when the page does not show it).",
        "",
        "## Broken fields",
        "",
    ]
    for pt_name, spec in broken:
        lines += _broken_field_lines(pt_name, spec, failing_fields, last_good_records)
    lines += [f"- structural: {s}" for s in structural]
    lines += ["", "## Failing pages", ""]
    chosen = _prompt_pages(sf, pts, failing, set(good_by_url))
    terms = field_terms([spec.name for _p, spec in broken])
    pruned: list[PrunedPage | None] = []
    for _pt, url, body in chosen:
        try:
            pruned.append(prune_page(body, url))
        except AnchorpathError:
            pruned.append(None)
    template = template_chunks([p for p in pruned if p is not None])
    answer: dict[str, dict[str, Any]] = {}
    for k, ((page_pt, url, body), page) in enumerate(zip(chosen, pruned, strict=True), 1):
        is_list = sf.page_types[page_pt].record_root is not None if page_pt else False
        names = [spec.name for p, spec in broken if p == page_pt or page_pt is None]
        lines += [f"### Page {k}: {url} (page type `{page_pt}`)", ""]
        good = good_by_url.get(_path_query(url), [])
        if good:
            lines.append("Last good values on this page:")
            for n in names:
                vals = [r.get(n) for r in good if n in r]
                if vals:
                    lines.append(f"- {n}: {_show(vals if is_list else vals[0])}")
            lines.append("")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtractionWarning)
            try:
                now = extract(sf, body, url)
            except AnchorpathError:
                now = []
        said = []
        for n in names:
            got = [r.values.get(n) for r in now]
            filled = [v for v in got if v not in (None, "", [])]
            if not filled:
                said.append(f"{n}: nothing" + (f" on any of {len(got)} records" if is_list else ""))
            else:
                said.append(f"{n}: {_show(got if is_list else got[0])}")
        lines += ["What the old XPaths give on it now: " + "; ".join(said) + ".", ""]
        if page is None:
            lines += ["(the page could not be parsed)", ""]
        else:
            fitted = fit_budget(page, TOKEN_BUDGET, terms, template)
            lines += [_fence(fitted.markdown), ""]
        answer[url] = {n: (["…", "…"] if is_list else "…") for n in names}
    lines += [
        "## Answer",
        "",
        "Answer with JSON only: per page URL, per broken field, the value as the page shows it"
        " (on a list page, a list with one value per record, in page order; `null` where absent):",
        "",
        "```json",
        json.dumps(answer, ensure_ascii=False, indent=2),
        "```",
        "",
        "Save the answer (the JSON, or the model's whole reply with the JSON in it) as "
        "`answer.json` and give it back to `anchorpath author repair`; each value must be on "
        "its page verbatim, and the repair is adopted only if it reproduces the last good "
        "records:",
        "",
        "```sh",
        f"{command or 'anchorpath author repair SITE --bundle DIR'} --answer answer.json",
        "```",
        "",
        "Or let it ask a configured model (an OpenAI-compatible endpoint, `[llm]` settings):",
        "",
        "```sh",
        f"{command or 'anchorpath author repair SITE --bundle DIR'} --llm",
        "```",
        "",
    ]
    return "\n".join(lines)
