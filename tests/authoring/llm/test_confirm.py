"""authoring/llm/confirm: a constant value is confirmed only where the page names the field."""

from __future__ import annotations

import pytest

from anchorpath.authoring.llm.confirm import (
    Confirmation,
    Evidence,
    check_constants,
    field_words,
    names_field,
    reads_confirmed_nodes,
    what_confirms,
)
from anchorpath.authoring.llm.propose import Proposals
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import SeedPage, seed_from_html


def test_field_words_split_at_underscores_dashes_and_camel_case() -> None:
    assert field_words("publication_date") == {"publication", "date"}
    assert field_words("datePosted") == {"date", "posted"}
    assert field_words("mpaa-rating") == {"mpaa", "rating"}
    assert field_words("isbn_13") == {"isbn"}  # a number alone names nothing


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Publication Date:", "publication_date"),
        ("Date", "publication_date"),  # one shared word
        ("Published:", "publication_date"),  # a shared 5-letter prefix
        ("Rated", "rating"),  # the same word once the ending is dropped
        ("Genres", "genre"),
        ("Date Posted:", "date_posted"),
        ("Team", "team"),
        ("product-publisher", "publisher"),  # a class name
    ],
)
def test_labels_that_name_the_field(text: str, name: str) -> None:
    assert names_field(text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Contact Information:", "company"),  # no synonym list
        ("promo", "publisher"),
        ("ISBN-13:", "publisher"),  # names another field
        ("Pub.", "publisher"),  # too short a prefix
    ],
)
def test_texts_that_do_not(text: str, name: str) -> None:
    assert not names_field(text, name)


def test_a_text_merely_before_the_value_must_be_a_name_through_and_through() -> None:
    assert names_field("MPAA Rating", "mpaa_rating", whole=True)
    assert not names_field("Choose your rating", "mpaa_rating", whole=True)
    assert names_field("Choose your rating:", "mpaa_rating")  # a label by its colon


def test_a_label_another_requested_field_matches_better_names_that_one() -> None:
    fields = ["publisher", "publication_date"]
    assert names_field("Publisher", "publisher", others=fields)
    assert not names_field("Publisher", "publication_date", others=fields)
    assert names_field("Publisher", "publication_date")  # alone, the prefix would do


def test_the_xpath_must_read_the_named_node_on_every_seed() -> None:
    c = Confirmation(
        confirmed={
            "team": (
                Evidence("a", "/html/body/table/tr[2]/td", "Team", "label"),
                Evidence("b", "/html/body/table/tr[2]/td", "Team", "label"),
            )
        }
    )
    node = "/html/body/table/tr[2]/td"
    assert reads_confirmed_nodes(c, "team", {"a": [node], "b": [node + "/a"]})
    assert not reads_confirmed_nodes(c, "team", {"a": [node], "b": ["/html/body/div[1]"]})
    assert not reads_confirmed_nodes(c, "team", {"a": [node], "b": None})  # a computed string


def test_the_message_says_what_confirms_a_value() -> None:
    assert 'a label such as "Publication Date:"' in what_confirms("publication_date")
    assert 'a label such as "Date Posted:"' in what_confirms("datePosted")


def _proposals(bodies: list[str], value: str) -> tuple[Proposals, list[SeedPage]]:
    seeds = [
        seed_from_html(f"<html><body><h1>Player {i}</h1>{b}</body></html>", f"http://t.test/p/{i}")
        for i, b in enumerate(bodies)
    ]
    props = Proposals(
        fields=[FieldRequest("name"), FieldRequest("team")],
        examples={s.source: {"name": f"Player {i}", "team": value} for i, s in enumerate(seeds)},
        verdicts=[],
        pages=[],
    )
    return props, seeds


@pytest.mark.parametrize(
    "body",
    [
        "<dl><dt>Team</dt><dd>Gulls</dd></dl>",  # a label element before it
        "<table><tr><td>Team</td><td>2024</td><td>Gulls</td></tr></table>",  # the row's 1st cell
        "<table><tr><th>No</th><th>Team</th></tr><tr><td>7</td><td>Gulls</td></tr></table>",
        "<p><b>Team:</b> Gulls</p>",  # the element whose tail it is
        "<p>Team: Gulls</p>",  # its own text node
        "<p>Plays for <span itemprop='team'>Gulls</span></p>",  # its markup
        "<p><a href='/teams/gulls-fc'>Gulls</a></p>",  # the path of the link it is
        "<h3>Teams</h3><p>Gulls</p>",  # a heading that is a name, no colon
    ],
)
def test_a_constant_the_page_names_is_confirmed(body: str) -> None:
    props, seeds = _proposals([body] * 3, "Gulls")
    c = check_constants(props, seeds)
    assert list(c.confirmed) == ["team"] and not c.unconfirmed
    assert set(c.pins(seeds)) == {s.source for s in seeds}


@pytest.mark.parametrize(
    "body",
    [
        "<div class='promo'>Gulls</div>",  # nothing names it (issue 25's banner)
        "<h3>Choose your team</h3><div>Gulls</div>",  # a sentence before it, not a name
        "<ul><li>Team: Foxes</li><li>Gulls</li></ul>",  # a labelled value next to it
        "<p><b>Name:</b> Gulls</p>",  # labelled as another field
    ],
)
def test_a_constant_nothing_names_stays_unconfirmed(body: str) -> None:
    props, seeds = _proposals([body] * 3, "Gulls")
    c = check_constants(props, seeds)
    assert not c.confirmed and list(c.unconfirmed) == ["team"]
    assert c.unconfirmed["team"].startswith('the same value "Gulls" on all 3 seeds, and no label')


def test_every_seed_must_name_it() -> None:
    named, bare = "<dl><dt>Team</dt><dd>Gulls</dd></dl>", "<div>Gulls</div>"
    props, seeds = _proposals([named, named, bare], "Gulls")
    c = check_constants(props, seeds)
    assert not c.confirmed and f"names the field on {seeds[2].source}" in c.unconfirmed["team"]
