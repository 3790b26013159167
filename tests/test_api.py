"""The Python API (``anchorpath.api`` and the package's ``__all__``), and the README's
"Python API" section run as a doctest."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import anchorpath
from anchorpath.api import RecordRows

REPO = Path(__file__).resolve().parents[1]
SELECTOR = REPO / "selectors" / "mfds-dmf.json"
LIST_1 = REPO / "selectors" / "fixtures" / "mfds-dmf" / "list-1.html"
LIST_URL = "http://127.0.0.1:8765/dmf/list.do?page=1"


def test_exported_members() -> None:
    """``__all__`` is sorted, every name in it resolves, and every public name of the package
    (modules aside) is in it: nothing public by accident, nothing listed that is missing."""
    assert anchorpath.__all__ == sorted(anchorpath.__all__)
    assert len(set(anchorpath.__all__)) == len(anchorpath.__all__)
    for name in anchorpath.__all__:
        assert getattr(anchorpath, name) is not None, name
    public = {
        name
        for name, value in vars(anchorpath).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    } - {"annotations", "TYPE_CHECKING", "Any"}
    assert public <= set(anchorpath.__all__), sorted(public - set(anchorpath.__all__))
    for name in ("load", "extract", "run", "records", "Record", "RunResult", "AnchorpathError"):
        assert name in anchorpath.__all__


def test_every_error_is_exported_and_an_anchorpath_error() -> None:
    from anchorpath import _errors

    defined = {
        name
        for name, value in vars(_errors).items()
        if isinstance(value, type) and issubclass(value, Exception)
    }
    assert defined == set(_errors.__all__)
    assert defined <= set(anchorpath.__all__), sorted(defined - set(anchorpath.__all__))
    for name in defined:
        assert issubclass(getattr(anchorpath, name), anchorpath.AnchorpathError)


def test_import_is_cheap() -> None:
    """``import anchorpath`` loads neither the runner nor the network, browser or LLM libraries;
    ``RunResult`` is the runner's type, loaded on first use."""
    code = (
        "import sys, anchorpath\n"
        "heavy = ('anchorpath.runner', 'anchorpath.fetch', 'anchorpath.authoring', 'httpx',"
        " 'playwright', 'openai', 'sqlite3', 'warcio')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
        "from anchorpath.runner.run_types import RunResult\n"
        "print(anchorpath.RunResult is RunResult)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["[]", "True"]


def test_py_typed_is_shipped() -> None:
    assert (Path(anchorpath.__file__).parent / "py.typed").is_file()


def test_load_names_the_file_of_a_bad_selector_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(anchorpath.SelectorFileError, match=r"bad\.json"):
        anchorpath.load(bad)
    with pytest.raises(anchorpath.SelectorFileError, match=r"missing\.json"):
        anchorpath.load(tmp_path / "missing.json")


def test_extract_returns_typed_records_from_a_path_or_a_model() -> None:
    page = LIST_1.read_bytes()
    by_path = anchorpath.extract(SELECTOR, page, url=LIST_URL)
    by_model = anchorpath.extract(anchorpath.load(SELECTOR), page, LIST_URL)
    assert by_path == by_model
    assert len(by_path) == 10
    assert all(isinstance(r, anchorpath.Record) and r.page_type == "list" for r in by_path)


def test_a_page_no_page_type_matches_raises_instead_of_an_empty_list() -> None:
    sf = anchorpath.load(SELECTOR)
    with pytest.raises(anchorpath.ExtractionError) as err:
        anchorpath.extract(sf, LIST_1.read_bytes(), url="http://127.0.0.1:8765/notice.do")
    message = str(err.value)
    assert "http://127.0.0.1:8765/notice.do" in message
    assert "list" in message and "detail" in message and "page_type=" in message


def test_page_type_forces_one_and_an_unknown_one_is_named() -> None:
    sf = anchorpath.load(SELECTOR)
    forced = anchorpath.extract(sf, LIST_1.read_bytes(), url="file:///x.html", page_type="list")
    assert len(forced) == 10
    with pytest.raises(
        anchorpath.ExtractionError, match=r"no page type 'lists' \(page types: list, detail\)"
    ):
        anchorpath.extract(sf, LIST_1.read_bytes(), url=LIST_URL, page_type="lists")


def test_run_refuses_a_bad_url_and_an_unknown_setting(tmp_path: Path) -> None:
    with pytest.raises(anchorpath.ConfigError, match="base_url"):
        anchorpath.run(SELECTOR, state=tmp_path, base_url="127.0.0.1:8765")
    with pytest.raises(anchorpath.ConfigError, match=r"fetch\.min_dealy"):
        anchorpath.run(SELECTOR, state=tmp_path, overrides={"fetch.min_dealy": 0})
    with pytest.raises(anchorpath.AnchorpathError, match="nosuch"):
        anchorpath.run("nosuch", selectors=tmp_path, state=tmp_path)


@pytest.mark.slow
def test_run_reports_progress_and_returns_the_run_result(tmp_path: Path) -> None:
    from anchorpath.demo import DemoServer
    from anchorpath.runner.progress import PageRead, ProgressEvent, RunStarted

    seen: list[ProgressEvent] = []
    with DemoServer(day=1) as srv:
        result = anchorpath.run(
            SELECTOR,
            state=tmp_path,
            base_url=srv.base_url,
            overrides={
                "fetch.allow_private_networks": True,
                "fetch.min_delay": 0.0,
                "fetch.contact": "tests@anchorpath.invalid",
            },
            progress=seen.append,
        )
    assert isinstance(result, anchorpath.RunResult) and result.verdict == "ok"
    pages = [e for e in seen if isinstance(e, PageRead)]
    assert isinstance(seen[0], RunStarted) and pages and pages[-1].done == result.pages
    assert pages[-1].records == result.records


def test_records_fails_at_the_call_not_at_the_first_row(tmp_path: Path) -> None:
    with pytest.raises(anchorpath.StoreError, match="no state database"):
        anchorpath.records(tmp_path, "mfds-dmf")
    with pytest.raises(anchorpath.SelectorFileError, match=r"nosuch\.json"):
        anchorpath.records(tmp_path, str(tmp_path / "nosuch.json"))
    with pytest.raises(anchorpath.ConfigError, match="as_of"):
        anchorpath.records(tmp_path, "mfds-dmf", as_of="yesterday")


def test_to_pandas_without_pandas_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    rows = RecordRows(iter([{"_key": "a"}]))
    with pytest.raises(anchorpath.AnchorpathError, match="pip install pandas"):
        rows.to_pandas()


def _readme_section() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Python API\n(.*?)^## ", readme, re.S | re.M)
    assert match, "README has no 'Python API' section"
    return "\n".join(re.findall(r"```python\n(.*?)```", match.group(1), re.S))


@pytest.mark.slow
def test_readme_python_api_section(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's examples, run as written from the repository root (the second block runs
    the demo site's day 1 through ``anchorpath.run``: a few seconds)."""
    monkeypatch.chdir(REPO)
    for name in list(os.environ):
        if name.startswith("ANCHORPATH_"):
            monkeypatch.delenv(name)
    text = _readme_section()
    assert text.count(">>>") >= 10
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md#python-api", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} README example(s) failed (output above)"
