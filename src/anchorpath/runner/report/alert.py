"""The alert of a drifted run: ``alert.json`` beside the run and the drift bundle
(:mod:`anchorpath.bundle` defines its format) that re-authoring starts from.

``RUN_DIR/alert.json`` says what broke and what to run next (machine-readable);
``RUN_DIR/bundle/`` holds the selector file, the last good and the failing snapshots.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anchorpath._errors import BundleError, RunError
from anchorpath.bundle import BUNDLE_DIR, write_bundle
from anchorpath.runner.drift.check import DriftResult

__all__ = ["write_alert_bundle"]


def write_alert_bundle(
    run_dir: Path,
    selector_file_path: Path,
    last_good: Sequence[tuple[str, bytes]],
    last_good_records: Sequence[Mapping[str, Any]],
    failing: Sequence[tuple[str, bytes]],
    drift: DriftResult,
    *,
    failing_records: Sequence[Mapping[str, Any]] | None = None,
    run_id: str | None = None,
) -> Path:
    """Write ``alert.json`` and the re-authoring bundle into ``run_dir``; return the bundle dir.

    ``last_good`` and ``failing`` are ``(url, body)`` snapshots; ``last_good_records`` are the
    records the last accepted run extracted from them (``Record.values`` dicts or
    ``Record.to_dict()``); ``failing_records`` optionally what this run extracted.
    """
    run_dir = Path(run_dir)
    bundle = run_dir / BUNDLE_DIR
    try:
        written = write_bundle(
            bundle,
            Path(selector_file_path),
            last_good,
            last_good_records,
            failing,
            failing_fields=drift.fields,
            structural=drift.structural,
            score=drift.score,
            evidence=drift.to_dict(),
            failing_records=failing_records,
            run_id=run_id,
        )
        alert = {
            "kind": "drift",
            "site": written.site,
            "run_id": run_id,
            "selector_version": written.selector_version,
            "created_at": written.created_at,
            "verdict": drift.verdict,
            "score": round(drift.score, 3),
            "fields": drift.fields,
            "structural": drift.structural,
            "bundle": str(bundle),
            "next_command": written.next_command,
        }
        (run_dir / "alert.json").write_text(
            json.dumps(alert, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
        )
    except BundleError as exc:
        raise RunError(str(exc)) from exc
    except OSError as exc:
        raise RunError(f"{run_dir / 'alert.json'}: cannot write the alert: {exc}") from exc
    return bundle
