"""The session with field names only: values from the test LLM server (never a real API);
a field added in the session is proposed by the model, with the running cost in the ledger."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.authoring.synth import detail_record
from anchorpath.cli import main
from anchorpath.selectors.load import load_selector_file

FIELDS = ("title", "isbn", "publisher", "series")


def test_field_names_only_then_add_a_field_by_name(
    shop: Path, seed_args: list[str], tmp_path: Path
) -> None:
    truth = {
        f"https://shop.test/b/{i}": {k: [str(detail_record(i)[k])] for k in FIELDS}
        for i in range(3)
    }
    args = ["author", "new-site", "shop", *seed_args, "--selectors", str(shop / "sel")]
    args += ["--field", "isbn", "--field", "publisher", "--no-screenshots", "--render", "http"]
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        env = srv.cli_env(tmp_path / "cache")
        answers = "\n\n+ series\n\nw\n"  # accept both, add series by name, accept, write
        res = CliRunner().invoke(main, args, input=answers, env=env)
        assert res.exit_code == 0, res.output
        asked = srv.calls()
    assert "series: values from LLM truth-1" in res.output
    assert asked >= 4  # three seeds for isbn+publisher, then series
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert list(sf.page_types["detail"].fields) == ["isbn", "publisher", "series"]
    assert sf.provenance.method == "llm" and len(sf.fixtures) == 3
