"""Bad options are usage errors (exit 2) before anything runs; ``extract`` refuses pages it
cannot use with one line and takes a saved page's URL from the page itself."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.cli.options import urls_for_base

SF = {
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "shop", "name": "Shop"},
    "version": 1,
    "fetch": {"start_urls": ["https://shop.example/list"]},
    "page_types": {
        "detail": {
            "match": "/item/",
            "fields": {"sku": {"xpath": "//td[@id='sku']", "type": "string", "required": True}},
        }
    },
    "key": ["sku"],
}
PAGE = "<html><head>{head}</head><body><table><tr><td id='sku'>A-1</td></tr></table></body></html>"


@pytest.fixture
def sel(tmp_path: Path) -> Path:
    d = tmp_path / "selectors"
    d.mkdir()
    (d / "shop.json").write_text(json.dumps(SF), encoding="utf-8")
    return d


def invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    assert "Traceback" not in res.output
    return res.exit_code, res.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--base-url", "127.0.0.1:18931"], "did you mean http://127.0.0.1:18931?"),
        (["--base-url", "http://127.0.0.1:18931/mirror/"], "has a path"),
        (["--url", "not-a-url"], "'not-a-url' is not an absolute http(s) URL"),
        (["--url", "https://bob:pw@shop.example/item/1"], "carries credentials"),
        (["--base-url", "http://bob:pw@127.0.0.1:1"], "carries credentials"),
        (
            ["--base-url", "http://127.0.0.1:18931", "--url", "https://other.example/item/1"],
            "neither the site's origin (https://shop.example) nor --base-url",
        ),
    ],
)
def test_run_usage_errors_before_the_run(
    sel: Path, tmp_path: Path, args: list[str], says: str
) -> None:
    state = tmp_path / "state"
    code, out = invoke("run", "shop", "--selectors", str(sel), "--state", str(state), *args)
    assert code == 2, out
    assert says in out
    assert not state.exists()  # nothing started


def test_url_on_the_site_origin_moves_to_the_base_url() -> None:
    urls = ("https://shop.example/item/1?x=1", "http://127.0.0.1:8000/item/2")
    assert urls_for_base(urls, "https://shop.example/list", "http://127.0.0.1:8000") == (
        "http://127.0.0.1:8000/item/1?x=1",
        "http://127.0.0.1:8000/item/2",
    )
    with pytest.raises(click.UsageError):
        urls_for_base(("https://evil.example/",), "https://shop.example/", "http://127.0.0.1:1")


def _extract(sel: Path, page: Path, *args: str) -> tuple[int, str]:
    return invoke("extract", "-s", str(sel / "shop.json"), *args, str(page))


def test_extract_unknown_charset_is_a_usage_error(sel: Path, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE.format(head=""), encoding="utf-8")
    code, out = _extract(sel, page, "--charset", "klingon-8", "--url", "https://shop.example/")
    assert code == 2 and "unknown charset 'klingon-8'" in out


@pytest.mark.parametrize(
    ("body", "says"),
    [(b"", "empty file"), (b"  \n", "empty file"), (b"%PDF-1.7\n\x00\x01", "binary file")],
)
def test_extract_refuses_empty_and_binary_files(
    sel: Path, tmp_path: Path, body: bytes, says: str
) -> None:
    page = tmp_path / "p.html"
    page.write_bytes(body)
    code, out = _extract(sel, page, "--url", "https://shop.example/item/1")
    assert code == 1
    assert (
        out.strip()
        == f"Error: {page}: {says}, not {'a page' if 'empty' in says else 'an HTML page'}"
    )


@pytest.mark.parametrize(
    "head",
    [
        "<base href='https://shop.example/item/1'>",
        "<link rel='canonical' href='https://shop.example/item/1'>",
        "<meta property='og:url' content='https://shop.example/item/1'>",
    ],
)
def test_extract_takes_the_url_from_the_page(sel: Path, tmp_path: Path, head: str) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE.format(head=head), encoding="utf-8")
    code, out = _extract(sel, page)
    assert code == 0, out
    row = json.loads(out)
    assert (row["_url"], row["sku"]) == ("https://shop.example/item/1", "A-1")


def test_extract_without_any_url_says_so(sel: Path, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE.format(head=""), encoding="utf-8")
    code, out = _extract(sel, page)
    assert code == 1
    assert "declares no URL" in out and "--url" in out


def test_extract_page_no_page_type_matches_exits_1(sel: Path, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE.format(head=""), encoding="utf-8")
    code, out = _extract(sel, page, "--url", "https://shop.example/about")
    assert code == 1
    assert "no page type of" in out and "detail (match '/item/')" in out
    assert "--page-type NAME" in out


def test_extract_page_type_forces_one_and_names_the_others(sel: Path, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(PAGE.format(head=""), encoding="utf-8")
    code, out = _extract(sel, page, "--url", "https://shop.example/about", "--page-type", "detail")
    assert code == 0, out
    assert '"_page_type": "detail"' in out
    code, out = _extract(sel, page, "--url", "https://shop.example/about", "--page-type", "list")
    assert code == 1 and "no page type 'list' (page types: detail)" in out


# -- one spelling per flag ------------------------------------------------------------------


def _commands(group: click.Command, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = [(prefix.strip(), group)]
    if isinstance(group, click.Group):
        for name, sub in group.commands.items():
            out += _commands(sub, f"{prefix} {name}")
    return out


def test_each_shared_flag_means_the_same_in_every_command() -> None:
    """``--selectors`` is always a directory, ``-s`` always ``--selector-file`` (one file),
    ``--state`` a directory, ``--config`` a file and ``--out`` the file an export writes."""
    expect = {
        "--selectors": ("selectors_dir", False, True),
        "--selector-file": ("selector_path", True, False),
        "--state": ("state_dir", False, True),
        "--config": ("config_file", True, False),
        "--out": ("out_path", True, False),
    }
    seen: set[str] = set()
    for name, cmd in _commands(main):
        for p in cmd.params:
            if "-s" in p.opts:
                assert p.opts == ["-s", "--selector-file"], name
            for flag, (dest, file_ok, dir_ok) in expect.items():
                if flag in p.opts:
                    seen.add(flag)
                    assert p.name == dest, (name, flag)
                    assert isinstance(p.type, click.Path), (name, flag)
                    assert (p.type.file_okay, p.type.dir_okay) == (file_ok, dir_ok), (name, flag)
    assert seen == set(expect)
