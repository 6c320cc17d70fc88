"""The one redaction: any 8-character slice of a key, and its URL and base64 encodings,
the key reversed, in hex, shifted by one, spread out with separators or grouped.

Each example builds a redactor for a new key (a few milliseconds of set building), so
the property tests have no per-example deadline: a loaded machine is not a failure."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Iterator
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.llm.secrets import REDACTED, SEPARATORS, WINDOW, Redactor, redact, register_secret

#: Characters a usable key may hold (see harness.llm.keys): printable ASCII, no space.
KEY_CHARS = st.characters(min_codepoint=0x21, max_codepoint=0x7E)
KEYS = st.text(KEY_CHARS, min_size=WINDOW, max_size=80)


def slices(text: str, size: int = WINDOW) -> Iterator[str]:
    """Every ``size``-character slice of ``text``."""
    for i in range(len(text) - size + 1):
        yield text[i : i + size]


def b64_inner(prefix: bytes, piece: str, encode: Callable[[bytes], bytes]) -> str:
    """The base64 characters of ``piece`` in ``prefix + piece + "!"``, generously trimmed.

    Characters at either end share bits with the neighbours; two on each side are
    dropped so the test does not depend on exactly which.
    """
    encoded = encode(prefix + piece.encode() + b"!").decode()
    start = (len(prefix) * 8) // 6 + 2
    end = ((len(prefix) + len(piece)) * 8) // 6 - 2
    return encoded[start:end]


def assert_hidden(out: str, key: str) -> None:
    for piece in slices(key):
        assert piece not in out, f"slice {piece!r} of the key survived"


@settings(deadline=None)
@given(
    key=KEYS,
    data=st.data(),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
)
def test_every_slice_of_a_random_key_is_hidden(
    key: str, data: st.DataObject, before: str, after: str
) -> None:
    start = data.draw(st.integers(0, len(key) - WINDOW), label="start")
    end = data.draw(st.integers(start + WINDOW, len(key)), label="end")
    message = f"{before}{key[start:end]}{after} and again: {key}"
    out = Redactor([key])(message)
    assert_hidden(out, key)
    assert REDACTED in out


ENCODINGS: dict[str, Callable[[str], str]] = {
    "quote": lambda s: quote(s, safe=""),
    "quote_slash": quote,
    "quote_plus": quote_plus,
    "upper": str.upper,
    "lower_percent": lambda s: quote(s, safe="").lower(),
}


@settings(deadline=None)
@given(
    key=KEYS,
    data=st.data(),
    name=st.sampled_from(sorted(ENCODINGS)),
    before=st.text(max_size=30),
    after=st.text(max_size=30),
)
def test_url_encoded_and_case_changed_slices_are_hidden(
    key: str, data: st.DataObject, name: str, before: str, after: str
) -> None:
    start = data.draw(st.integers(0, len(key) - WINDOW), label="start")
    end = data.draw(st.integers(start + WINDOW, len(key)), label="end")
    encoded = ENCODINGS[name](key[start:end])
    out = Redactor([key])(before + encoded + after)
    for piece in slices(encoded):
        assert piece not in out, f"{name}: {piece!r} of {encoded!r} survived"


@settings(deadline=None)
@given(
    key=KEYS,
    data=st.data(),
    prefix=st.binary(max_size=7),
    urlsafe=st.booleans(),
)
def test_base64_in_every_alignment_is_hidden(
    key: str, data: st.DataObject, prefix: bytes, urlsafe: bool
) -> None:
    start = data.draw(st.integers(0, len(key) - WINDOW), label="start")
    end = data.draw(st.integers(start + WINDOW, len(key)), label="end")
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    piece = key[start:end]
    message = "Authorization: Basic " + encode(prefix + piece.encode() + b"!").decode()
    out = Redactor([key])(message)
    inner = b64_inner(prefix, piece, encode)
    for window in slices(inner):
        assert window not in out, f"{window!r} of the base64 survived in {out!r}"


def test_a_basic_auth_header_is_hidden() -> None:
    key = "sk-test-CANARY7f3a9b2c/+="
    header = base64.b64encode(f"user:{key}".encode()).decode()
    out = Redactor([key])(f"echo: Authorization: Basic {header}")
    assert out.startswith("echo: Authorization: Basic ")
    for window in slices(header[8:-4]):
        assert window not in out


@settings(deadline=None)
@given(text=st.text(st.characters(min_codepoint=0x30, max_codepoint=0x39), max_size=200))
def test_text_sharing_no_slice_with_the_key_is_left_alone(text: str) -> None:
    # the key has no digits, so no slice of it (or of its encodings) can be in the text
    assert Redactor(["sk-only-LETTERS-and-dashes-here"])(text) == text


def test_a_key_shorter_than_the_window_is_hidden_whole() -> None:
    out = Redactor(["ollama"])("key 'ollama' rejected; OLLAMA said so; olla is fine")
    assert out == f"key '{REDACTED}' rejected; {REDACTED} said so; olla is fine"


def test_the_marker_never_forms_a_slice_with_its_neighbours() -> None:
    # a key holding the old ASCII marker: replacing pieces of it must not recreate them
    key = "[REDACTED]x[REDACTED]y"
    out = Redactor([key])(f"a{key}b {key[3:15]} c")
    assert_hidden(out, key)


def test_a_one_mebibyte_message_keeps_every_other_byte() -> None:
    key = "sk-proj-Zq8/Ww+e=Rt5%Yu7&Io9"
    filler = "the server said no, politely. " * 35_000  # about 1 MiB
    message = filler + quote(key, safe="") + filler + key[5:20] + filler
    out = Redactor([key])(message)
    assert_hidden(out, key)
    assert quote(key, safe="")[3:11] not in out
    assert out == f"{filler}{REDACTED}{filler}{REDACTED}{filler}"


def test_registered_keys_are_hidden_by_redact_and_in_log_records(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "sk-log-Kq3Vb8Xn2Mz7Lp4Wr9"
    register_secret(key)
    assert key[4:14] not in redact(f"echo {key[4:14]}")
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("openai._base_client")  # any logger: the factory sees all
    log.debug("request headers: %s", {"authorization": f"Bearer {key}"})
    log.warning("%s", quote(key, safe=""))
    log.warning("format error", key)  # too many arguments: logging would print them
    try:
        raise ValueError(f"key {key} refused")
    except ValueError:
        log.exception("call failed")
    text = caplog.text
    assert "request headers" in text
    assert "call failed" in text
    assert "arguments withheld" in text
    assert_hidden(text, key)
    for record in caplog.records:
        assert_hidden(record.getMessage(), key)


def compact(text: str) -> str:
    """``text`` lower-cased without separators: how a spread-out echo reads."""
    return "".join(c for c in text.lower() if c not in SEPARATORS)


ALTERED: dict[str, Callable[[str], str]] = {
    "reversed": lambda k: k[::-1],
    "hex": lambda k: k.encode().hex(),
    "HEX": lambda k: k.encode().hex().upper(),
    "shifted up": lambda k: "".join(chr(ord(c) + 1) for c in k),
    "shifted down": lambda k: "".join(chr(ord(c) - 1) for c in k),
    "swapped case": str.swapcase,
    "first dropped": lambda k: k[1:],
    "last dropped": lambda k: k[:-1],
}


@settings(deadline=None)
@given(
    key=KEYS,
    name=st.sampled_from(sorted(ALTERED)),
    before=st.text(max_size=30),
    after=st.text(max_size=30),
)
def test_a_key_reversed_in_hex_shifted_or_recased_is_hidden(
    key: str, name: str, before: str, after: str
) -> None:
    # a key cut by one is a slice of it: of 8 characters or more when the key has 9
    assume(not name.endswith("dropped") or len(key) > WINDOW)
    form = ALTERED[name](key)
    out = Redactor([key])(f"{before} {form} {after}")
    assert REDACTED in out
    for piece in slices(form):
        assert piece.lower() not in out.lower(), f"{name}: {piece!r} survived in {out!r}"


@settings(deadline=None)
@given(
    key=KEYS,
    data=st.data(),
    separator=st.text(st.sampled_from(" \t\n-_.:,;|/"), min_size=1, max_size=3),
    group=st.integers(1, 6),
    reverse=st.booleans(),
)
def test_a_key_spread_out_or_in_groups_is_hidden(
    key: str, data: st.DataObject, separator: str, group: int, reverse: bool
) -> None:
    start = data.draw(st.integers(0, len(key) - WINDOW), label="start")
    end = data.draw(st.integers(start + WINDOW, len(key)), label="end")
    piece = key[start:end][::-1] if reverse else key[start:end]
    spread = separator.join(piece[i : i + group] for i in range(0, len(piece), group))
    out = Redactor([key])(f"said: {spread} (end)")
    hidden = compact(out.replace(REDACTED, "|"))
    material = compact(piece)
    for window in slices(material):
        assert window not in hidden, f"{window!r} of {spread!r} survived in {out!r}"


def test_the_second_pass_hides_only_what_holds_the_key() -> None:
    key = "sk-test-CANARY7f3a9b2c4d5e6f708192a3b4c5d6e7f8"
    text = "a b c - d e: the server, politely, said no. " * 200
    assert Redactor([key])(text) == text
    spread = " ".join(key)
    out = Redactor([key])(f"before. {spread} after.")
    assert out == f"before. {REDACTED} after."
