"""cut_short: the one cut of a text a message shows, to a limit, ending with ``...``."""

from __future__ import annotations

import json

import pytest

from harness.text import cut_short, show_value


def test_text_at_the_limit_is_whole() -> None:
    assert cut_short("a" * 40, 40) == "a" * 40


def test_one_over_the_limit_is_cut_with_the_ellipsis_inside_the_limit() -> None:
    cut = cut_short("a" * 41, 40)
    assert cut == "a" * 37 + "..."
    assert len(cut) == 40


def test_short_and_empty_texts_are_whole() -> None:
    assert cut_short("", 40) == ""
    assert cut_short("abc", 3) == "abc"
    assert cut_short("abcd", 3) == "..."


def test_the_limit_counts_code_points_not_bytes() -> None:
    # 40 two-byte runes (80 bytes of UTF-8) fit a limit of 40
    assert cut_short("\u00e9" * 40, 40) == "\u00e9" * 40
    # a rune outside the BMP is one character, never split
    text = "\U0001f600" * 41
    assert cut_short(text, 40) == "\U0001f600" * 37 + "..."


def test_a_lone_surrogate_is_kept_as_it_is() -> None:
    # records scrub them elsewhere; a message shows the text it was given
    text = "\ud800" * 41
    assert cut_short(text, 40) == "\ud800" * 37 + "..."
    assert cut_short("\udfff", 40) == "\udfff"


def test_quoting_before_the_cut_counts_the_quotes_after_does_not() -> None:
    text = "x" * 39
    assert cut_short(json.dumps(text), 40) == '"' + "x" * 36 + "..."
    assert json.dumps(cut_short(text, 40)) == '"' + "x" * 39 + '"'


def test_a_limit_without_room_for_the_ellipsis_is_refused() -> None:
    with pytest.raises(ValueError, match="no room"):
        cut_short("abcdef", 2)


def test_show_value_cuts_its_json_so() -> None:
    assert show_value("a" * 70) == '"' + "a" * 56 + "..."
    assert show_value("a" * 58) == '"' + "a" * 58 + '"'
    # what JSON cannot hold is shown by its repr, cut to the limit without an ellipsis
    assert show_value(b"x" * 100, 10) == "b'xxxxxxxx"
