"""authoring/llm/confirm: a constant value is confirmed only where the page names the field."""

from __future__ import annotations

import pytest

from anchorpath.authoring.llm.confirm import (
    Confirmation,
    Evidence,
    field_words,
    names_field,
    reads_confirmed_nodes,
    what_confirms,
)


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
