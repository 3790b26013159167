"""The alert of a drifted run: ``alert.json`` and a re-authoring bundle.

Layout written by :func:`write_alert_bundle` (``RUN_DIR`` is the run's directory)::

    RUN_DIR/alert.json                  what broke and what to run next (machine-readable)
    RUN_DIR/bundle/
        bundle.json                     manifest: site, selector version, files, fields, command
        README.md                       the same for a human, with the next command
        selector.json                   byte copy of the selector file the run used
        failing_fields.json             {field: [evidence, ...]} plus the full drift result
        last_good/index.json            [{"url", "file", "sha256"}] of the last good snapshots
        last_good/records.json          the records those snapshots gave (accepted run)
        last_good/NNN.html              the snapshots, bytes exactly as fetched
        failing/index.json              the same for this run's pages
        failing/records.json            what this run extracted (only when given)
        failing/NNN.html

The next command is ``anchorpath author repair SITE --bundle RUN_DIR/bundle``; authoring reads
``bundle.json`` and finds everything else through it, so the bundle can be moved or mailed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.runner.drift import DriftResult

__all__ = ["BUNDLE_DIR", "BUNDLE_FORMAT", "repair_command", "write_alert_bundle"]

BUNDLE_DIR = "bundle"
BUNDLE_FORMAT = "anchorpath.bundle.v1"


def repair_command(site: str, bundle: Path) -> str:
    """The exact shell command that starts the repair of ``site`` from ``bundle``."""
    return f"anchorpath author repair {shlex.quote(site)} --bundle {shlex.quote(str(bundle))}"


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


def _snapshots(
    folder: Path, pages: Sequence[tuple[str, bytes]], records: list[dict[str, Any]] | None
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
        _dump(folder / "records.json", records)
    return index


def write_alert_bundle(
    run_dir: Path,
    selector_file_path: Path,
    last_good: list[tuple[str, bytes]],
    last_good_records: list[dict[str, Any]],
    failing: list[tuple[str, bytes]],
    drift: DriftResult,
    *,
    failing_records: list[dict[str, Any]] | None = None,
    run_id: str | None = None,
) -> Path:
    """Write ``alert.json`` and the re-authoring bundle into ``run_dir``; return the bundle dir.

    ``last_good`` and ``failing`` are ``(url, body)`` snapshots; ``last_good_records`` are the
    records the last accepted run extracted from them (``Record.values`` dicts or
    ``Record.to_dict()``); ``failing_records`` optionally what this run extracted.
    """
    run_dir = Path(run_dir)
    selector_file_path = Path(selector_file_path)
    site, version = _selector_meta(selector_file_path)
    bundle = run_dir / BUNDLE_DIR
    command = repair_command(site, bundle)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        if bundle.exists():  # a resumed run rewrites its bundle from scratch
            shutil.rmtree(bundle)
        bundle.mkdir(parents=True)
        shutil.copyfile(selector_file_path, bundle / "selector.json")
        good_index = _snapshots(bundle / "last_good", last_good, last_good_records)
        bad_index = _snapshots(bundle / "failing", failing, failing_records)
        _dump(bundle / "failing_fields.json", {"fields": drift.fields, "drift": drift.to_dict()})
        manifest = {
            "format": BUNDLE_FORMAT,
            "site": site,
            "selector_version": version,
            "run_id": run_id,
            "created_at": created,
            "selector_file": "selector.json",
            "selector_source": str(selector_file_path),
            "last_good": good_index,
            "last_good_records": "last_good/records.json",
            "failing": bad_index,
            "failing_records": "failing/records.json" if failing_records is not None else None,
            "failing_fields": drift.fields,
            "structural": drift.structural,
            "score": round(drift.score, 3),
            "next_command": command,
        }
        _dump(bundle / "bundle.json", manifest)
        (bundle / "README.md").write_text(_readme(manifest), encoding="utf-8")
        alert = {
            "kind": "drift",
            "site": site,
            "run_id": run_id,
            "selector_version": version,
            "created_at": created,
            "verdict": drift.verdict,
            "score": round(drift.score, 3),
            "fields": drift.fields,
            "structural": drift.structural,
            "bundle": str(bundle),
            "next_command": command,
        }
        _dump(run_dir / "alert.json", alert)
    except OSError as exc:
        raise RunError(f"{bundle}: cannot write the alert bundle: {exc}") from exc
    return bundle


def _readme(m: dict[str, Any]) -> str:
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
