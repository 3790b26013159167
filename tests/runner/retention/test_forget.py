"""``anchorpath forget`` over a real state directory (demo server on loopback, three days,
a drift bundle): not one byte of the forgotten record's key or own values is left anywhere
in the state directory, its fixtures or the selector file, and ``replay --into store`` does
not bring it back; the audit keeps a keyed hash, never the key."""

from __future__ import annotations

import contextlib
import gzip
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from anchorpath._errors import AnchorpathError, StoreError
from anchorpath.cli import main
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.plan import ReplayOptions
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store
from anchorpath.runner.store.governance import deletions, key_hash
from anchorpath.selectors.load import load_selector_file

from ..conftest import fast

KEY = "수2383-6-ND"  # on listing page 1, with its own detail page and golden fixture


def _forms(text: str) -> list[bytes]:
    out = [text.encode("utf-8"), quote(text, safe="").encode()]
    with contextlib.suppress(UnicodeEncodeError):
        out += [text.encode("cp949"), quote(text.encode("cp949"), safe="").encode()]
    return out


def _everything(root: Path) -> dict[Path, bytes]:
    """Every file under ``root``, gzip members decompressed."""
    out = {}
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            if p.name.endswith(".gz"):
                data = gzip.decompress(data)
            out[p] = data
    return out


def _leaks(root: Path, needles: list[str]) -> list[str]:
    found = []
    for path, data in _everything(root).items():
        for n in needles:
            if any(form in data for form in _forms(n)):
                found.append(f"{path.relative_to(root)}: {n[:30]}")
    return found


@pytest.mark.slow
def test_forget_leaves_no_byte_and_replay_does_not_bring_it_back(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    for day in (1, 2, 3):
        with DemoServer(day=day) as srv:
            if day == 1:
                write_site_file(sel, srv.base_url)
            r = run_site(RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast()))
        assert r.verdict == ("drift" if day == 3 else "ok"), r.reason
    assert r.bundle is not None
    # the record's own values: the key, and what no other stored record carries
    with Store.in_state_dir(state) as store:
        rows = store.query("SELECT key, values_json FROM records")
    mine = {str(v) for k, j in rows if k == KEY for v in json.loads(j).values()}
    theirs = {str(v) for k, j in rows if k != KEY for v in json.loads(j).values()}
    own = [KEY, *sorted(v for v in mine - theirs if len(v) >= 4)]
    assert len(own) >= 3, own
    assert _leaks(state, own) and _leaks(sel, [KEY])  # it is there before
    fixtures_before = len(load_selector_file(sel / "mfds-dmf.json").fixtures)

    res = CliRunner().invoke(
        main,
        ["forget", "mfds-dmf", "--key", KEY, "--by", "kim", "--reason", "request 42",
         "--selectors", str(sel), "--state", str(state)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    leaks = _leaks(state, own)
    assert leaks == [], "\n".join(leaks)
    assert _leaks(sel, own) == []
    sf = load_selector_file(sel / "mfds-dmf.json")
    assert 0 < len(sf.fixtures) < fixtures_before  # its fixture pages went, the others stay
    with Store.in_state_dir(state) as store:
        (audit,) = deletions(store, "mfds-dmf")
        assert audit.by == "kim" and audit.kind == "forget" and audit.counts["events"] >= 1
        assert audit.key_hashes == (key_hash(store, "mfds-dmf", KEY),)
        assert store.query("SELECT COUNT(*) FROM records WHERE key = ?", (KEY,)) == [(0,)]
        with pytest.raises(StoreError, match="append-only"):
            store.write([("DELETE FROM deletions", ())])
    # the archives still read: the other records replay; the forgotten one never returns
    for into in ("scratch", "store"):
        with contextlib.suppress(AnchorpathError):  # a refused backfill writes nothing
            replay_site(ReplayOptions("mfds-dmf", sel, state, into=into, by="kim", settings=fast()))
    with Store.in_state_dir(state) as store:
        assert store.query("SELECT COUNT(*) FROM records WHERE key = ?", (KEY,)) == [(0,)]
        assert store.query("SELECT COUNT(*) FROM events WHERE key = ?", (KEY,)) == [(0,)]
        assert store.query("SELECT COUNT(*) FROM records") != [(0,)]
    # ... and a later run of the site does not store it again
    with DemoServer(day=2) as srv:
        again = run_site(RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast()))
    with Store.in_state_dir(state) as store:
        assert store.query("SELECT COUNT(*) FROM records WHERE key = ?", (KEY,)) == [(0,)]
    assert again.verdict in ("ok", "drift")


def test_forget_refuses_unknown_keys_and_needs_a_reason(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    Store.in_state_dir(state).close()
    base = ["--selectors", str(sel), "--state", str(state)]
    res = CliRunner().invoke(
        main, ["forget", "mfds-dmf", "--key", "nope", "--by", "kim", "--reason", "x", *base]
    )
    assert res.exit_code == 1 and "no record or event with key(s) 'nope'" in res.output
    res = CliRunner().invoke(main, ["forget", "mfds-dmf", "--key", "nope", "--by", "kim", *base])
    assert res.exit_code == 2
    assert json.loads((sel / "mfds-dmf.json").read_text(encoding="utf-8"))["policy"]
