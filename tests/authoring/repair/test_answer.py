"""``author repair --answer``: the bundle's prompt.md answered by a person or any model, given
back as a file, goes through the same verbatim guard, grounding and adoption check as
``--llm``. No model is called."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from anchorpath.bundle import read_bundle, repair_prompt
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

from .conftest import detail_old
from .test_llm import NEW, NEW_ORIGIN, OLD, OLD_ORIGIN, detail_new_plain, setup

__all__ = ["setup"]  # the fixture, shared with test_llm


def _answer(values: dict[str, dict[str, Any]], tmp_path: Path, text: str | None = None) -> Path:
    path = tmp_path / "answer.json"
    body = json.dumps(values, ensure_ascii=False, indent=2)
    path.write_text(body if text is None else text.replace("JSON", body), encoding="utf-8")
    return path


def _repair(bundle: Path, selectors: Path, *extra: str) -> Any:
    args = ["author", "repair", "shop", "--bundle", str(bundle), "--selectors", str(selectors)]
    return CliRunner().invoke(main, [*args, *extra])


def _truth(n: int = 3) -> dict[str, dict[str, Any]]:
    return {
        f"{NEW_ORIGIN}/item?id={it['code']}": {"name": it["name"], "price": it["price"]}
        for it in NEW[:n]
    }


def test_an_answer_repairs_what_the_llm_free_repair_cannot(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, _truth_lists = setup
    res = _repair(bundle, selectors, "--answer", str(_answer(_truth(), tmp_path)), "--yes")
    assert res.exit_code == 0, res.output
    assert "--answer: values for page type(s) detail from" in res.output
    sf = load_selector_file(selectors / "shop.json")
    assert (sf.version, sf.parent_version) == (2, 1)
    assert "Product name" in sf.page_types["detail"].fields["name"].xpath
    # the new template reads (a page the answer did not cover too), and the old one still does
    (rec,) = extract(sf, detail_new_plain(NEW[3]), f"{NEW_ORIGIN}/item?id=H-807")
    assert rec.values["name"] == "Theta bracket" and rec.values["price"] == 18
    (rec,) = extract(sf, detail_old(OLD[0]), f"{OLD_ORIGIN}/item?id=A-100")
    assert rec.values["name"] == "Alpha widget" and rec.values["price"] == 12


def test_a_models_whole_reply_with_the_json_inside_is_an_answer(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, _ = setup
    echo = json.dumps({u: {"name": "…", "price": "…"} for u in _truth()})
    reply = (
        f"You asked for:\n```json\n{echo}\n```\n"
        "Here are the values from the pages:\n\n```json\nJSON\n```\n\nHope it helps."
    )
    res = _repair(
        bundle, selectors, "--answer", str(_answer(_truth(), tmp_path, reply)), "--dry-run"
    )
    assert res.exit_code == 0, res.output
    assert "all reproduced" in res.output and "dry run: not written" in res.output


def test_a_value_not_on_its_page_is_rejected_and_nothing_is_written(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, _ = setup
    made_up = {u: {**v, "price": "99"} for u, v in _truth().items()}
    before = (selectors / "shop.json").read_bytes()
    res = _repair(bundle, selectors, "--answer", str(_answer(made_up, tmp_path)), "--yes")
    assert res.exit_code == 1, res.output
    assert "'99' is not on the page" in res.output and "nothing written" in res.output
    assert (selectors / "shop.json").read_bytes() == before


def test_bad_answers_are_one_line_errors(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, _ = setup
    url = f"{NEW_ORIGIN}/item?id=E-504"
    cases = [
        ({"http://elsewhere.test/x": {"name": "x"}}, "is not one of the bundle's failing pages"),
        ({url: {"nmae": "Epsilon sprocket"}}, "no field 'nmae' on its page type"),
        ({url: {"name": "…"}}, "still the placeholder '…'; fill it in"),
        ({url: {"name": {"a": 1}}}, "a value must be text, a list of texts or null"),
    ]
    for values, message in cases:
        res = _repair(bundle, selectors, "--answer", str(_answer(values, tmp_path)), "--yes")
        assert res.exit_code == 1, res.output
        assert message in res.output and "answer.json" in res.output
        assert "Traceback" not in res.output
    path = tmp_path / "reply.txt"
    path.write_text("I could not find the values, sorry.", encoding="utf-8")
    res = _repair(bundle, selectors, "--answer", str(path))
    assert res.exit_code == 1 and "no JSON object found" in res.output
    res = _repair(bundle, selectors, "--answer", str(path), "--llm")
    assert res.exit_code == 2 and "--llm or --answer, not both" in res.output


def test_the_prompts_answer_format_filled_in_is_adopted(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, _ = setup
    b = read_bundle(bundle)
    prompt = repair_prompt(
        (bundle / "selector.json").read_bytes(),
        {"name": ["vanished"], "price": ["vanished"]},
        b.last_good_records,
        [(s.url, s.body) for s in b.failing],
        command=f"anchorpath author repair shop --bundle {bundle}",
    )
    assert f"anchorpath author repair shop --bundle {bundle} --answer answer.json" in prompt
    m = re.search(r"## Answer.*?```json\n(.*?)```", prompt, re.S)
    assert m is not None
    template = json.loads(m.group(1))
    truth = {f"{NEW_ORIGIN}/item?id={it['code']}": it for it in NEW}
    filled = {u: {f: truth[u][f] for f in fields} for u, fields in template.items()}
    assert filled and all(set(v) == {"name", "price"} for v in filled.values())
    res = _repair(bundle, selectors, "--answer", str(_answer(filled, tmp_path)), "--yes")
    assert res.exit_code == 0, res.output
    assert load_selector_file(selectors / "shop.json").version == 2
