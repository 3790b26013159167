"""``policy.store_raw: false``: the archive keeps headers and digests, not page bodies; the
next run still works (conditional requests, drift gate) and ``replay`` says what it cannot
do."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest

from anchorpath._errors import RunError
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.fetch.warc import BODY_OMITTED, WarcReader
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.plan import ReplayOptions
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_types import RunOptions, warc_segments
from anchorpath.selectors.load import load_selector_file, save_selector_file

from ..conftest import fast


def test_no_raw_bodies_are_kept_and_replay_says_why(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    path = write_site_file(sel, "http://127.0.0.1:8765", max_pages=4)
    sf = load_selector_file(path)
    assert sf.policy is not None
    save_selector_file(replace(sf, policy=replace(sf.policy, store_raw=False)), path, bump=False)
    results = []
    for _ in range(2):
        with DemoServer(day=1) as srv:
            results.append(
                run_site(RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast()))
            )
    assert [r.verdict for r in results] == ["ok", "ok"]
    assert results[0].counts().new > 0 and results[1].events == []
    for r in results:
        segments = warc_segments(r.run_dir)
        data = b"".join(gzip.decompress(s.read_bytes()) for s in segments)
        assert BODY_OMITTED.encode() in data and b"WARC-Payload-Digest" in data
        assert "등록번호".encode("cp949") not in data and "등록번호".encode() not in data
        assert list(WarcReader(segments).responses()) == []  # nothing to replay from
    with pytest.raises(RunError, match="store_raw: false"):
        replay_site(ReplayOptions("mfds-dmf", sel, state, settings=fast()))
