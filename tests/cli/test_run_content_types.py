"""``anchorpath run`` on pages served as ``application/octet-stream``, without a Content-Type,
or as a type outside ``[fetch] accept_content_types`` (and ``--accept-content-type``)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.fetch.testing import FaultServer, ok, status
from anchorpath.selectors.load import save_selector_file
from anchorpath.selectors.model import SelectorFile

FAST = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
    "ANCHORPATH_CONFIG": "",
}


def _page(title: str) -> bytes:
    return f"<!doctype html><html><body><h1>{title}</h1></body></html>".encode()


def _site(tmp_path: Path, server: FaultServer, paths: list[str], titles: list[str]) -> Path:
    sel = tmp_path / "sel"
    sf = SelectorFile.from_dict(
        {
            "site": {"id": "news", "name": "News"},
            "policy": {"basis": "robots"},
            "version": 1,
            "fetch": {"start_urls": [server.url(p) for p in paths]},
            "page_types": {
                "article": {
                    "match": "/a/",
                    "fields": {"headline": {"xpath": "//h1", "required": True, "examples": titles}},
                }
            },
            "key": ["headline"],
        }
    )
    save_selector_file(sf, sel / "news.json")
    return sel


def test_octet_stream_and_missing_content_type_pages_are_read(tmp_path: Path) -> None:
    routes = {
        "/a/1": ok(_page("One"), "application/octet-stream"),
        "/a/2": status(200, {}, _page("Two")),
        "/a/3": ok(_page("Three"), "text/html; charset=utf-8"),
    }
    with FaultServer(routes) as srv:  # type: ignore[arg-type]
        sel = _site(tmp_path, srv, ["/a/1", "/a/2", "/a/3"], ["One", "Two", "Three"])
        where = ["--selectors", str(sel), "--state", str(tmp_path / "st"), "-q"]
        res = CliRunner().invoke(main, ["run", "news", *where], env=FAST)
    assert res.exit_code == 0, res.output
    assert all(f"headline: {t}" in res.output for t in ("One", "Two", "Three"))
    assert "incomplete crawl" not in res.output


def test_other_content_type_needs_the_setting_or_the_flag(tmp_path: Path) -> None:
    with FaultServer({"/a/1": ok(_page("One"), "text/x-html")}) as srv:  # type: ignore[arg-type]
        sel = _site(tmp_path, srv, ["/a/1"], ["One"])
        where = ["--selectors", str(sel), "--state", str(tmp_path / "st"), "-q"]
        runner = CliRunner()
        refused = runner.invoke(main, ["run", "news", *where], env=FAST)
        assert refused.exit_code == 1
        assert "unexpected Content-Type 'text/x-html'" in refused.output
        assert "add it to [fetch] accept_content_types" in refused.output
        env = {**FAST, "ANCHORPATH_FETCH__ACCEPT_CONTENT_TYPES": "text/html,text/x-html"}
        by_env = runner.invoke(main, ["run", "news", *where], env=env)
        assert by_env.exit_code == 0, by_env.output
        # the flag beats the environment (here: replaces it with a list without the type)
        flag = ["--accept-content-type", "text/html"]
        by_flag = runner.invoke(main, ["run", "news", *where, *flag], env=env)
        assert by_flag.exit_code == 1 and "unexpected Content-Type" in by_flag.output
