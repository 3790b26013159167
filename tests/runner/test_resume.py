"""An unfinished run that cannot be resumed says what changed: selector file or which option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorpath.runner.checkpoint import save_checkpoint
from anchorpath.runner.model import Checkpoint
from anchorpath.runner.resume import find_unfinished, options_fingerprint, what_changed
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store


def _cp(**options: Any) -> Checkpoint:
    fp = {"urls": [], "full": False, "base_url": None, **options}
    return Checkpoint("r1", "books", "2026-12-01T00:00:00Z", 1, "sha-1", fp)


def test_what_changed_names_the_option_and_values() -> None:
    now = {"urls": [], "full": False, "base_url": "http://127.0.0.1:8000"}
    assert what_changed(_cp(), "sha-1", now) == (
        "--base-url changed (was not given, now http://127.0.0.1:8000)"
    )
    assert what_changed(_cp(full=True), "sha-2", {**now, "base_url": None}) == (
        "the selector file changed; --full changed (was given, now not given)"
    )
    assert what_changed(_cp(), "sha-1", {**now, "base_url": None}) == ""


def test_abandoned_run_note_says_what_changed(tmp_path: Path) -> None:
    opts = RunOptions("books", tmp_path / "sel", tmp_path / "state", base_url="http://h:1")
    run_dir = tmp_path / "state" / "runs" / "books" / "r1"
    run_dir.mkdir(parents=True)
    save_checkpoint(run_dir, _cp())
    notes: list[str] = []
    with Store.in_state_dir(tmp_path / "state") as store:
        found = find_unfinished(
            opts,
            "books",
            "sha-1",
            store,
            lambda event: notes.append(str(getattr(event, "message", ""))),
        )
    assert found is None
    assert options_fingerprint(opts)["base_url"] == "http://h:1"
    assert notes == [
        "abandoned unfinished run r1: --base-url changed (was not given, now http://h:1) since "
        "it started, so it cannot be finished as started (its files are kept); starting a new run"
    ]
    assert (run_dir / "checkpoint.abandoned.json").is_file()
