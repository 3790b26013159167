"""64-bit SimHash: near-duplicates at Hamming distance <= 3, real edits above."""

from __future__ import annotations

import random

from anchorpath.demo.data import expected_events, expected_records
from anchorpath.runner.store.database import changed_fields
from anchorpath.runner.store.simhash import hamming, is_long_text, near_duplicate, simhash

TEXT = (
    "본 원료의약품은 제조소 변경에 따라 재등록되었습니다. 제조방법 및 시험방법은 기존과 동일하며, "
    "안정성 시험 자료가 추가로 제출되었습니다. 변경 사항은 허가 조건에 따라 관리됩니다. "
    "The manufacturer submitted additional stability data for the active substance, and the "
    "test methods remain unchanged compared with the previous registration."
)


def test_identical_and_whitespace_punctuation_edits() -> None:
    assert simhash(TEXT) == simhash(TEXT)
    edited = TEXT.replace("되었습니다. ", "되었습니다 .  ", 1).replace(", ", " , ")
    assert hamming(simhash(TEXT), simhash(edited)) <= 3
    assert near_duplicate(TEXT, edited)


def test_different_texts_are_far_apart() -> None:
    rng = random.Random(7)
    words = TEXT.split()
    other = " ".join(rng.sample(words, len(words)))
    unrelated = "Completely different remark about a withdrawn registration and its holder. " * 3
    assert hamming(simhash(TEXT), simhash(unrelated)) > 3
    assert not near_duplicate(TEXT, unrelated)
    # Reordering keeps the words but changes bigrams: not a near duplicate either.
    assert hamming(simhash(TEXT), simhash(other)) > 3


def test_fingerprint_is_64_bits_and_stable() -> None:
    h = simhash(TEXT)
    assert 0 <= h < 2**64
    assert h == simhash(TEXT)  # blake2b, not hash(): stable across processes
    assert simhash("") == 0


def test_demo_trivial_remarks_edit_is_not_a_change() -> None:
    ev = expected_events(1, 2)
    assert ev.trivial
    before = {r["reg_no"]: r for r in expected_records(1)}
    after = {r["reg_no"]: r for r in expected_records(2)}
    for key in ev.trivial:
        a, b = before[key], after[key]
        assert a["remarks"] != b["remarks"]
        assert is_long_text(a["remarks"], b["remarks"])
        assert changed_fields(a, b) == {}
    for key, names in ev.changed.items():
        assert set(changed_fields(before[key], after[key])) == set(names)


def test_short_strings_compare_exactly() -> None:
    assert changed_fields({"a": "ACME Ltd."}, {"a": "ACME Ltd"}) == {"a": ("ACME Ltd.", "ACME Ltd")}
