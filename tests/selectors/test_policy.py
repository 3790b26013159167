"""The selector file's ``policy`` section: loaded, saved canonically, warned about."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from anchorpath.selectors.load import dump_selector_file, load_selector_file, parse_selector_data
from anchorpath.selectors.policy import policy_warnings

DEMO = Path(__file__).resolve().parents[2] / "src/anchorpath/demo/mfds-dmf.json"


def test_the_demo_file_carries_a_policy_and_round_trips() -> None:
    sf = load_selector_file(DEMO)
    assert sf.policy is not None and sf.policy.basis == "robots"
    assert dump_selector_file(sf) == DEMO.read_text(encoding="utf-8")
    assert policy_warnings(sf, "demo") == []


def test_missing_basis_and_unknown_personal_fields_are_warnings() -> None:
    data = load_selector_file(DEMO).to_dict()
    bare = copy.deepcopy(data)
    del bare["policy"]
    sf = parse_selector_data(bare)
    assert sf.missing_basis() and "no policy.basis" in policy_warnings(sf, "f.json")[0]
    data["policy"] = {"basis": "feed", "personal": ["nobody"]}
    warnings = policy_warnings(parse_selector_data(data), "f.json")
    assert any("/policy/personal/0" in w for w in warnings)
    assert any("/policy/retention_days" in w for w in warnings)


@pytest.mark.parametrize(
    "policy", [{"basis": "scraping"}, {"basis": "robots", "terms_url": "ftp://x"}]
)
def test_bad_policy_values_are_schema_errors(policy: dict[str, str]) -> None:
    data = load_selector_file(DEMO).to_dict()
    data["policy"] = policy
    with pytest.raises(Exception, match="/policy/"):
        parse_selector_data(data, "f.json")
