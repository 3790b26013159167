"""``anchorpath records`` / ``anchorpath events``: the data out of the state database."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.runner.store.database import Event, RunRow, Store
from anchorpath.runner.store.export import parse_time

DAY1 = "2026-11-29T06:00:00.000000Z"
DAY2 = "2026-11-30T06:00:00.000000Z"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    with Store.in_state_dir(state) as store:
        day1 = {
            "B1": {"isbn": "B1", "title": "Game Over", "authors": ["Kim", "Lee"]},
            "B2": {"isbn": "B2", "title": "Game Over", "authors": []},
        }
        store.commit_run(
            RunRow("r1", "books", DAY1, DAY1, "ok"),
            seen=day1,
            events=[Event("B1", "new"), Event("B2", "new")],
        )
        day2 = {"B1": {"isbn": "B1", "title": "Game Over, 2nd ed.", "authors": ["Kim", "Lee"]}}
        store.commit_run(
            RunRow("r2", "books", DAY2, DAY2, "ok"),
            seen=day2,
            events=[
                Event("B1", "changed", {"title": ("Game Over", "Game Over, 2nd ed.")}),
                Event("B2", "withdrawn"),
            ],
        )
    return state


def invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_current_records_as_csv(state: Path, tmp_path: Path) -> None:
    sel = tmp_path / "nosel"
    code, out, _ = invoke(
        "records", "books", "--state", str(state), "--selectors", str(sel), "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["_key"] for r in rows] == ["B1"]
    assert rows[0]["title"] == "Game Over, 2nd ed."
    assert rows[0]["authors"] == "Kim; Lee"
    assert rows[0]["_valid_from"] == DAY2 and rows[0]["_valid_to"] == ""


def test_records_as_of_a_past_time(state: Path) -> None:
    code, out, _ = invoke("records", "books", "--state", str(state), "--as-of", "2026-11-29T12:00")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["_key"], r["title"]) for r in rows] == [("B1", "Game Over"), ("B2", "Game Over")]
    code, out, _ = invoke("records", "books", "--state", str(state), "--as-of", "2026-11-28")
    assert (code, out) == (0, "")


def test_records_to_a_file_as_json(state: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "books.json"
    code, out, err = invoke(
        "records", "books", "--state", str(state), "--format", "json", "--out", str(out_file)
    )
    assert code == 0 and out == ""
    assert "1 records written to" in err
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert data[0]["_key"] == "B1"


def test_events_since(state: Path) -> None:
    code, out, _ = invoke("events", "books", "--state", str(state), "--since", "2026-11-30")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["kind"], r["key"]) for r in rows] == [("changed", "B1"), ("withdrawn", "B2")]
    assert rows[0]["fields"]["title"] == {"old": "Game Over", "new": "Game Over, 2nd ed."}
    code, out, _ = invoke("events", "books", "--state", str(state), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["kind"] for r in rows] == ["new", "new", "changed", "withdrawn"]
    assert json.loads(rows[2]["fields"])["title"]["new"] == "Game Over, 2nd ed."


def test_bad_time_is_a_usage_error(state: Path) -> None:
    code, _out, err = invoke("events", "books", "--state", str(state), "--since", "yesterday")
    assert code == 2
    assert "--since" in err and "ISO 8601" in err


def test_unknown_site_and_missing_database_are_one_line(state: Path, tmp_path: Path) -> None:
    code, _out, err = invoke("records", "shop", "--state", str(state))
    assert code == 1
    assert "no run of site 'shop' (sites with runs: books)" in err
    assert err.count("\n") == 1
    code, _out, err = invoke("events", "books", "--state", str(tmp_path / "nowhere"))
    assert code == 1 and "no state database" in err
    assert not (tmp_path / "nowhere").exists()


def test_failed_export_leaves_no_partial_file(state: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "x.csv"
    code, _out, _err = invoke("records", "shop", "--state", str(state), "--out", str(out_file))
    assert code == 1
    assert list(tmp_path.glob("*x.csv*")) == []


def test_parse_time_normalises_to_utc() -> None:
    assert parse_time("2026-12-01") == "2026-12-01T00:00:00.000000Z"
    assert parse_time("2026-12-01T09:00:00+09:00") == "2026-12-01T00:00:00.000000Z"
    assert parse_time("2026-12-01T06:00Z") == "2026-12-01T06:00:00.000000Z"
