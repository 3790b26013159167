"""Versions from files, the .history archive and git; fixture pages beside the current file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchorpath._errors import ReviewError
from anchorpath.review.sources import git_versions, latest_run_pages, load_version, merge_pages
from anchorpath.selectors.load import save_selector_file


def _write_history(tmp_path: Path, shop: Any) -> Path:
    sel = tmp_path / "selectors"
    (sel / "fixtures").mkdir(parents=True)
    (sel / "fixtures" / "a.html").write_bytes(shop.item_page("A-1", "Alpha", "12"))
    data = shop.data(fixtures=[{"page": "fixtures/a.html", "url": f"{shop.ORIGIN}/item?id=A-1"}])
    path = sel / "shop.json"
    save_selector_file(shop.selector(data), path)
    data["page_types"]["item"]["fields"]["name"]["xpath"] = "//h1"
    save_selector_file(shop.selector(data), path)  # v2; v1 archived in .history/shop/v1.json
    return sel


def test_site_at_version_and_current(tmp_path: Path, shop: Any) -> None:
    sel = _write_history(tmp_path, shop)
    v1 = load_version("shop@1", sel)
    assert (v1.ref.label, v1.ref.version, v1.path) == ("shop@1", 1, str(sel / "shop.json"))
    # Archived versions read their fixtures relative to the current file's folder.
    assert [p.source for p in v1.pages] == ["fixtures/a.html"] and not v1.notes
    assert load_version("shop", sel).ref.version == 2
    assert load_version(f"{sel / 'shop.json'}@2", sel).ref.version == 2


def test_unknown_version_and_site_are_review_errors(tmp_path: Path, shop: Any) -> None:
    sel = _write_history(tmp_path, shop)
    with pytest.raises(ReviewError, match="version 9 not found"):
        load_version("shop@9", sel)
    with pytest.raises(ReviewError, match="no selector file for site 'nope'"):
        load_version("nope@1", sel)


def test_missing_fixture_pages_become_one_note(tmp_path: Path, shop: Any) -> None:
    sel = _write_history(tmp_path, shop)
    (sel / "fixtures" / "a.html").unlink()
    v = load_version("shop", sel)
    assert v.pages == ()
    assert v.notes == (
        f"1 golden fixture page(s) of shop v2 not found under {sel} (fixtures/a.html)",
    )


def test_merge_pages_drops_repeats(tmp_path: Path, shop: Any) -> None:
    sel = _write_history(tmp_path, shop)
    v1, v2 = load_version("shop@1", sel), load_version("shop@2", sel)
    assert len(merge_pages(v1.pages, v2.pages)) == 1


def test_git_versions_skip_history_records_and_unchanged(changed: Path) -> None:
    sel = changed / "selectors"
    (sel / ".history" / "mfds-dmf").mkdir(parents=True)
    (sel / ".history" / "mfds-dmf" / "v1.json").write_bytes((sel / "mfds-dmf.json").read_bytes())
    (sel / "fixtures" / "mfds-dmf" / "list-1.records.json").write_text("[]", encoding="utf-8")
    pairs = git_versions("main", [sel], cwd=changed)
    assert len(pairs) == 1
    old, new = pairs[0]
    assert old is not None and new is not None
    assert old.ref.label == "main:selectors/mfds-dmf.json"
    assert new.ref.label == "working tree:selectors/mfds-dmf.json"
    assert len(old.pages) == len(new.pages) == 26


def test_git_old_side_reads_fixtures_at_the_ref(changed: Path) -> None:
    page = changed / "selectors" / "fixtures" / "mfds-dmf" / "list-1.html"
    committed = page.read_bytes()
    page.write_bytes(b"<html>edited</html>")
    ((old, new),) = git_versions("main", [changed / "selectors"], cwd=changed)
    assert old is not None and new is not None
    assert next(p.body for p in old.pages if p.source.endswith("list-1.html")) == committed
    assert (
        next(p.body for p in new.pages if p.source.endswith("list-1.html"))
        == b"<html>edited</html>"
    )


def test_git_deleted_file_has_no_new_side(repo: Path) -> None:
    (repo / "selectors" / "mfds-dmf.json").unlink()
    ((old, new),) = git_versions("main", [repo / "selectors"], cwd=repo)
    assert old is not None and new is None


def test_git_invalid_old_version_is_an_error(repo: Path, git_cmd: Any) -> None:
    path = repo / "selectors" / "mfds-dmf.json"
    good = path.read_bytes()
    path.write_text("{", encoding="utf-8")
    git_cmd(repo, "commit", "-qam", "broken")
    path.write_bytes(good)
    with pytest.raises(ReviewError, match=r"^HEAD:selectors/mfds-dmf.json: invalid JSON"):
        git_versions("HEAD", [repo / "selectors"], cwd=repo)


def test_state_without_database_is_an_error(tmp_path: Path, shop: Any) -> None:
    with pytest.raises(ReviewError, match="no state database"):
        latest_run_pages(tmp_path, "shop", [shop.selector()])


def test_state_without_runs_has_no_pages(tmp_path: Path, shop: Any) -> None:
    from anchorpath.runner.store.database import Store

    Store.in_state_dir(tmp_path).close()
    assert latest_run_pages(tmp_path, "shop", [shop.selector()]) == (None, ())


def _state_with_run(tmp_path: Path, shop: Any, pages: dict[str, bytes]) -> Path:
    from anchorpath.fetch.warc import WarcWriter
    from anchorpath.runner.store.database import RunRow, Store

    state = tmp_path / "state"
    run_dir = state / "runs" / "shop" / "R2"
    with WarcWriter(run_dir / "pages-01.warc.gz") as w:
        for url, body in pages.items():
            w.write_exchange(
                url=url,
                method="GET",
                request_headers=[],
                status=404 if url.endswith("gone") else 200,
                reason="OK",
                response_headers=[("Content-Type", "text/html; charset=utf-8")],
                payload=body,
            )
    with Store.in_state_dir(state) as store:
        for rid, started in (("R1", "2024-01-01T00:00:00Z"), ("R2", "2024-01-02T00:00:00Z")):
            store.commit_run(
                RunRow(
                    rid,
                    "shop",
                    started,
                    started,
                    "drift",
                    run_dir=str(state / "runs" / "shop" / rid),
                )
            )
    return state


def test_latest_run_pages_reads_its_warc(tmp_path: Path, shop: Any) -> None:
    o = shop.ORIGIN
    state = _state_with_run(
        tmp_path,
        shop,
        {
            f"{o}/item?id=A": shop.item_page("A", "Alpha", "1"),
            f"{o}/item?id=gone": b"<html>404</html>",
            f"{o}/robots.txt": b"User-agent: *",
        },
    )
    run_id, pages = latest_run_pages(state, "shop", [shop.selector()])
    assert run_id == "R2"
    assert [(p.url, p.kind, p.source) for p in pages] == [(f"{o}/item?id=A", "run", "run R2")]


def test_cli_diff_with_state_replays_the_run(tmp_path: Path, shop: Any) -> None:
    from click.testing import CliRunner

    from anchorpath.cli import main

    state = _state_with_run(
        tmp_path, shop, {f"{shop.ORIGIN}/item?id=A": shop.item_page("A", "Alpha", "1", "Acme")}
    )
    new = shop.data()
    new["page_types"]["item"]["fields"]["name"]["xpath"] = (
        "//th[.='Maker']/following-sibling::td[1]"
    )
    (tmp_path / "old.json").write_text(json.dumps(shop.data()), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), encoding="utf-8")
    res = CliRunner().invoke(
        main,
        ["diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--state", str(state)],
    )
    assert res.exit_code == 1, res.output
    assert "replayed on 1 page of run R2: 1 value changed" in res.stdout
    assert 'changed     A: "Alpha" → "Acme"' in res.stdout
    assert "no pages to replay" not in res.stdout
