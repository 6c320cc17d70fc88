"""Every parser of untrusted text, fed random and adversarial input.

The entry points: Lighthouse's and Relayroam's reply parsers, the strict JSON loader,
Relayroam's state JSON and state tokens, record lines (``decode_line``,
``open_record``, replay's ``load_record``), TOML configs, and Relayroam's HTTP bodies
over real HTTP. Each must answer with the project's own error (a ParseFailure for a
reply) whatever it is given: unclosed fences, deep nesting, huge numbers, lone
surrogates, 1 MiB strings.

Time is held to linear by counting work, never by a clock. The pre-scans of
``harness.scan`` count their loop turns and the characters each step passed over
(every step is one possessive regular-expression match or one character, starting
where the last step ended); the reply decoder adds every other pass it makes over the
text. A parse that went back over the text once per character, or turned its loop
once per character of a long run, would break these bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import scan
from harness.errors import ConfigError, HarnessError, RecordError
from harness.games.lighthouse.replies import FailureKind as LighthouseKind
from harness.games.lighthouse.replies import parse_keeper_reply, parse_runner_reply
from harness.games.relayroam.actions import parse_action
from harness.games.relayroam.state import StateError, from_canonical_json
from harness.games.relayroam.token import InvalidStateToken, decode_token
from harness.json_reply import (
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_JSON_TOKENS,
    FailureKind,
    StrictJsonError,
    decode_json_object,
    strict_loads,
)
from harness.protocol import ParseFailure
from harness.reader import open_record
from harness.records import decode_line
from harness.registry import get_game
from harness.replay import load_record, replay
from harness.scan import CHUNK, ScanMeter, json_shape, toml_shape
from harness.text import MAX_REPLY_BYTES
from harness.toml_file import MAX_TOML_DEPTH, loads_toml, read_toml
from harness.tournament.config import load_tournament
from tests.in_process import lighthouse
from tests.relayroam.live_server import http, running_server
from tests.sweeps import fuzz

ROOT = Path(__file__).resolve().parents[1]
HAND = ROOT / "tests/golden/hand/short-game.jsonl"
GOLDEN = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
GAME = get_game("lighthouse")
KEY = b"fuzz-test-key-0123456789abcdef0123"
SIZE = MAX_REPLY_BYTES - 64  # a hostile reply: about 1 MiB, under the size cap
HALF = SIZE // 2

# Pieces that trip parsers up, joined at random by hypothesis.
FRAGMENTS = [
    "[", "]", "{", "}", ",", ":", '"', "\\", "\\u", "\\ud800", "```", "```json", "```py",
    "\n", " ", "\t", "a", "1", "-", ".", "e", "1e999", "-1E400", "NaN", "Infinity",
    "true", "null", "\ud800", "\udfff", "\u2028", "\x85", "\x00", '{"move": "N"}',
    '{"transmit": true}', '{"type": "wait"}', "9" * (MAX_INT_DIGITS + 1), "[" * 70,
    '{"a":' * 70, "]" * 70, "#", "=", "'", '"""', "'''", "a.b.c", "[x]", "[[x]]",
]  # fmt: skip
pieces = st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)
untrusted = st.one_of(st.text(max_size=300), pieces)
#: Examples of each property below: few in the default run, many in the slow sweeps.
FEW, MANY = 100, 300


def hostile() -> dict[str, str]:
    """About 1 MiB of each kind of hostile reply."""
    return {
        "unclosed fence": "```" + "a" * (SIZE - 3),
        "unclosed json fence, deep": "```json\n" + "[" * (SIZE - 8),
        "fence with a 1 MiB tag": "```" + "a" * (SIZE - 6) + "```",
        "deep arrays": "[" * HALF + "]" * HALF,
        "deep objects": '{"a":' * (HALF // 5) + "1" + "}" * (HALF // 5),
        "deep, arrays and objects": '[{"a":' * (SIZE // 7),
        "closers then openers": "]" * HALF + "[" * HALF,
        "many tokens": "[" + "[]," * (SIZE // 3 - 2) + "[]]",
        "many strings": "[" + '"",' * (SIZE // 3 - 2) + '""]',
        "huge string": '{"move": "N", "notes": "' + "a" * (SIZE - 30) + '"}',
        "escapes": '{"move": "N", "notes": "' + "\\\\" * (HALF - 20) + '"}',
        "unclosed string of escaped quotes": '{"notes": "' + '\\"' * (HALF - 10),
        "lone backslash at the end": '{"notes": "' + "a" * (SIZE - 12) + "\\",
        "4300-digit integers": "[" + ("9" * 4300 + ",") * (SIZE // 4301 - 1) + "1]",
        "a 5000-digit integer": '{"move": ' + "9" * 5000 + "}",
        "1e999": '{"move": "N", "x": 1e999}',
        "many 1e999": "[" + "1e999," * (SIZE // 6 - 2) + "1]",
        "lone surrogates": '{"move": "N", "notes": "' + "\ud800" * (SIZE // 3 - 30) + '"}',
        "escaped lone surrogates": '{"move": "N", "notes": "' + "\\udc00" * (HALF // 3) + '"}',
        "prose": "Go north, I think. [see above] {maybe} " * (SIZE // 40),
    }


HOSTILE = hostile()
LIGHTHOUSE_KINDS = {kind.value for kind in LighthouseKind}
REPLY_KINDS = {kind.value for kind in FailureKind}


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


def error_of(kind: type[Exception], fn: Callable[..., object], *args: object) -> Exception | None:
    """The ``kind`` error that ``fn(*args)`` raised, or None; any other error escapes."""
    try:
        fn(*args)
    except kind as exc:
        return exc
    return None


def step_bound(text: str, tokens: int) -> int:
    """The most loop turns a JSON scan of ``text`` may take having seen ``tokens``: two
    per token (a string's body is a turn of its own), two per slice, one to end."""
    return 2 * tokens + 2 * (len(text) // CHUNK + 1) + 1


# ---- replies ------------------------------------------------------------------------


def check_reply_parsers(text: str) -> list[Any]:
    """Run every reply parser on ``text``; each gives a decision or its ParseFailure."""
    results: list[Any] = [
        parse_runner_reply(text, notes_cap=200),
        parse_keeper_reply(text, message_cap=160, notes_cap=400),
    ]
    for result in results:
        if isinstance(result, ParseFailure):
            assert result.kind in LIGHTHOUSE_KINDS
    action = parse_action(text)
    assert isinstance(action, dict) or action.kind in REPLY_KINDS
    return [*results, action]


@fuzz(FEW, MANY, text=untrusted)
def test_reply_parsers_answer_any_text(text: str) -> None:
    check_reply_parsers(text)
    meter = ScanMeter()
    decode_json_object(text, expect="x", meter=meter)
    assert meter.chars <= 6 * len(text)
    assert meter.steps <= step_bound(text, MAX_JSON_TOKENS) + 4


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_1_mib_replies_fail_cleanly_in_linear_steps(kind: str) -> None:
    text = HOSTILE[kind]
    runner, _keeper, action = check_reply_parsers(text)
    if kind in ("huge string", "escapes", "lone surrogates", "escaped lone surrogates"):
        assert runner.move.value == "N"  # a long but sound reply parses
    else:
        assert isinstance(runner, ParseFailure)
        assert isinstance(action, ParseFailure)
    meter = ScanMeter()
    decode_json_object(text, expect="x", meter=meter)
    # A fixed number of passes over the text, and at most two loop turns per token
    # (capped) and per slice: never a turn per character, never a pass per turn.
    assert meter.chars <= 6 * len(text)
    assert meter.steps <= step_bound(text, MAX_JSON_TOKENS) + 4


@pytest.mark.parametrize(
    ("kind", "failure"),
    [
        ("deep arrays", "too_complex"),
        ("deep objects", "too_complex"),
        ("deep, arrays and objects", "too_complex"),
        ("unclosed json fence, deep", "bad_fence"),
        ("many tokens", "too_complex"),
        ("many strings", "too_complex"),
        ("a 5000-digit integer", "not_json"),
        ("1e999", "not_json"),
        ("closers then openers", "not_json"),
        ("prose", "not_json"),
    ],
)
def test_each_hostile_reply_gets_its_own_failure_kind(kind: str, failure: str) -> None:
    text = HOSTILE[kind]
    runner = parse_runner_reply(text, notes_cap=200)
    action = parse_action(text)
    assert isinstance(runner, ParseFailure)
    assert isinstance(action, ParseFailure)
    assert (runner.kind, action.kind) == (failure, failure)


def test_an_unclosed_fence_of_1_mib_is_a_bad_fence_in_constant_passes() -> None:
    # The regression: this reply once took quadratic time in a backtracking regex.
    steps = []
    for size in (1 << 10, 1 << 16, SIZE):
        text = "```" + "a" * (size - 3)
        for parsed in (parse_runner_reply(text, notes_cap=200), parse_action(text)):
            assert isinstance(parsed, ParseFailure)
            assert parsed.kind == "bad_fence"
            assert "not closed by ```" in parsed.message
        meter = ScanMeter()
        failure = decode_json_object(text, expect="x", meter=meter)
        assert isinstance(failure, ParseFailure)
        assert failure.kind == "bad_fence"
        assert meter.chars <= 6 * size
        steps.append(meter.steps)
    assert steps[0] == steps[1] == steps[2] <= 4  # the same few passes at any size


def old_fence(body: str) -> tuple[str, str] | None:
    """The fence rule as the old backtracking regex read it: (tag, inner) or None."""
    match = re.match(r"\A```([A-Za-z0-9_.+-]*)(.*)```\Z", body, re.DOTALL)
    if match is None or match.group(2).strip().startswith("```"):
        return None
    return match.group(1), match.group(2).strip()


fence_parts = st.lists(
    st.sampled_from(["```", "`", "json", "JSON", "py", "a.b", "\n", " ", '{"move":"N"}', "{"]),
    max_size=8,
).map("".join)


@fuzz(FEW, MANY, text=fence_parts)
def test_the_fence_rule_is_unchanged(text: str) -> None:
    body = text.strip()
    if not body.startswith("```"):
        return
    old = old_fence(body)
    new = decode_json_object(body, expect="x")
    if old is None:
        assert isinstance(new, ParseFailure)
        assert new.kind == "bad_fence"
        assert "not closed" in new.message
    elif old[0].lower() not in ("", "json"):
        assert isinstance(new, ParseFailure)
        assert new.kind == "bad_fence"
        assert "tagged" in new.message
    else:
        assert not (isinstance(new, ParseFailure) and new.kind == "bad_fence")
        try:
            inner = json.loads(old[1])
        except ValueError:
            inner = None
        assert new == inner if isinstance(inner, dict) else isinstance(new, ParseFailure)


def test_numbers_out_of_range_are_refused_like_nan() -> None:
    for number in ("1e999", "-1e999", "1E400", "1.0e309", "9" * 400 + ".0e10"):
        parsed = decode_json_object(f'{{"x": {number}}}', expect="x")
        assert isinstance(parsed, ParseFailure)
        assert parsed.kind == "not_json"
        with pytest.raises(StrictJsonError, match="too large"):
            strict_loads(f"[{number}]")
    assert strict_loads("[1.7e308, -5e-324]") == [1.7e308, -5e-324]
    assert strict_loads("9" * MAX_INT_DIGITS) == int("9" * MAX_INT_DIGITS)
    with pytest.raises(StrictJsonError, match="digits"):
        strict_loads("-" + "9" * (MAX_INT_DIGITS + 1))


# ---- the scan itself ----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=30,
)


@fuzz(FEW, MANY, value=json_values, chunk=st.sampled_from([2, 3, 5, 8, CHUNK]))
def test_the_scan_finds_the_true_depth(value: Any, chunk: int) -> None:
    # Small slices put slice ends inside strings and escapes everywhere.
    text = json.dumps(value, ensure_ascii=bool(chunk % 2))
    original = scan.CHUNK
    scan.CHUNK = chunk
    try:
        meter = ScanMeter()
        shape = json_shape(text, max_depth=1000, meter=meter)
    finally:
        scan.CHUNK = original
    assert shape.depth == depth_of(value)
    assert meter.chars == len(text)  # every character passed over exactly once


@fuzz(FEW, MANY, text=untrusted)
def test_a_scan_passes_over_each_character_once(text: str) -> None:
    meter = ScanMeter()
    shape = json_shape(text, max_depth=10**9, meter=meter)
    assert meter.chars == len(text)
    assert meter.steps <= step_bound(text, shape.tokens)
    meter = ScanMeter()
    toml_shape(text, max_depth=10**9, meter=meter)
    assert meter.chars == len(text)
    assert meter.steps <= 2 * len(text) + 1  # a run and a token per turn


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_scan_stops_at_its_limits(kind: str) -> None:
    text = HOSTILE[kind]
    meter = ScanMeter()
    shape = json_shape(text, max_depth=MAX_JSON_DEPTH, max_tokens=MAX_JSON_TOKENS, meter=meter)
    assert shape.depth <= MAX_JSON_DEPTH + 1
    assert shape.tokens <= MAX_JSON_TOKENS + 1
    assert meter.chars == shape.stopped_at <= len(text)
    assert meter.steps <= step_bound(text, shape.tokens)
    if shape.depth > MAX_JSON_DEPTH:
        assert shape.stopped_at < 10 * MAX_JSON_DEPTH  # the deep ones stop near the start


# ---- strict JSON, Relayroam states and tokens ---------------------------------------


@fuzz(FEW, MANY, text=untrusted)
def test_strict_json_states_and_tokens_answer_any_text(text: str) -> None:
    with contextlib.suppress(StrictJsonError):
        strict_loads(text)
    with pytest.raises(StateError):
        from_canonical_json(text)
    with pytest.raises(InvalidStateToken):
        decode_token(text, KEY)


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_1_mib_states_are_state_errors(kind: str) -> None:
    text = HOSTILE[kind]
    with contextlib.suppress(StrictJsonError):
        strict_loads(text)
    with pytest.raises(StateError):
        from_canonical_json(text)
    with pytest.raises(InvalidStateToken):
        decode_token(text, KEY)


def test_deep_nesting_and_huge_numbers_are_strict_json_errors() -> None:
    for text, says in [
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('{"a":' * 65 + "1" + "}" * 65, "nested too deeply"),
        ("[" * 64 + "]" * 64, None),
        ("9" * 5000, "digits"),
        ("[" + "0," * MAX_JSON_TOKENS + "0]", "too large"),
        ("1e999", "too large"),
    ]:
        if says is None:
            assert depth_of(strict_loads(text)) == 64
        else:
            with pytest.raises(StrictJsonError, match=says):
                strict_loads(text)


# ---- record lines ---------------------------------------------------------------------


@fuzz(FEW, MANY, text=untrusted)
def test_a_record_line_is_a_value_or_a_record_error(text: str) -> None:
    for line in (text, text.encode("utf-8", "surrogatepass")):
        error = error_of(RecordError, decode_line, line, "r.jsonl:3")
        if error is not None:
            assert str(error).startswith("r.jsonl:3: ")
            assert "column" not in str(error)


def corrupted(lines: list[str], how: str) -> tuple[str, int]:
    """The record ``lines`` corrupted one way, and the line number the error names."""
    header = json.loads(lines[0])
    if how == "header is a list":
        return "\n".join([json.dumps([header]), *lines[1:]]), 1
    if how == "tick is a string":
        return "\n".join([lines[0], '"tick"', *lines[2:]]), 2
    if how == "tick number is a string":
        tick = json.loads(lines[1]) | {"tick": "0"}
        return "\n".join([lines[0], json.dumps(tick), *lines[2:]]), 2
    if how == "tick number is true":
        tick = json.loads(lines[2]) | {"tick": True}
        return "\n".join([*lines[:2], json.dumps(tick), *lines[3:]]), 3
    if how == "a seat's turn is a string":
        tick = json.loads(lines[1])
        tick["seats"] = dict.fromkeys(tick["seats"], "x")
        return "\n".join([lines[0], json.dumps(tick), *lines[2:]]), 2
    if how == "deep nesting":
        return "\n".join([*lines[:2], "[" * 5000 + "]" * 5000, *lines[2:]]), 3
    if how == "deep nesting in the header":
        header["config"] = json.loads("[" * 60 + "]" * 60)
        deep = json.dumps(header)[:-1] + ', "x": ' + "[" * 100 + "]" * 100 + "}"
        return "\n".join([deep, *lines[1:]]), 1
    if how == "huge integer":
        return "\n".join([*lines[:3], '{"type": "tick", "tick": ' + "9" * 5000 + "}"]), 4
    if how == "cut mid-line":
        return "\n".join([*lines[:3], lines[3][: len(lines[3]) // 2]]), 4
    if how == "not UTF-8":
        return "\n".join([*lines[:2], "\udcff" + lines[2]]), 3
    raise AssertionError(how)


CORRUPTIONS = [
    "header is a list",
    "tick is a string",
    "tick number is a string",
    "tick number is true",
    "a seat's turn is a string",
    "deep nesting",
    "deep nesting in the header",
    "huge integer",
    "cut mid-line",
    "not UTF-8",
]


#: The corruptions that break a line's JSON itself, not only what the line means.
JSON_CORRUPTIONS = {
    "header is a list",
    "tick is a string",
    "deep nesting",
    "deep nesting in the header",
    "huge integer",
    "cut mid-line",
    "not UTF-8",
}


@pytest.mark.parametrize("how", CORRUPTIONS)
@pytest.mark.parametrize("source", [HAND, GOLDEN], ids=["hand-written", "recorded"])
def test_a_corrupt_record_is_a_record_error_naming_its_line(
    tmp_path: Path, source: Path, how: str
) -> None:
    text, line = corrupted(source.read_text(encoding="utf-8").splitlines(), how)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogateescape") + b"\n")
    with pytest.raises(RecordError) as caught:
        load_record(path, GAME)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert "column" not in message
    if how == "cut mid-line":
        assert "cut short" in message
    if source == GOLDEN and how in JSON_CORRUPTIONS:
        # A recorded record is read by the tournament (resume) with the record models.
        with pytest.raises(RecordError) as caught:
            open_record(path).lines()
        assert str(caught.value).startswith(f"{path}:{line}: ")
        assert "column" not in str(caught.value)


def test_a_line_separator_inside_a_string_does_not_split_a_record(tmp_path: Path) -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    tick = json.loads(lines[1])
    seat = next(iter(tick["seats"]))
    tick["seats"][seat]["replies"][0]["raw"] += "\u2028\x85\u2029"
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(tick, ensure_ascii=False), *lines[2:]]) + "\n")
    record = load_record(path, GAME)
    first: Any = record.ticks[0]
    assert first["seats"][seat]["replies"][0]["raw"].endswith("\u2028\x85\u2029")
    assert len(open_record(path).lines()) == len(lines)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_a_record_cut_or_spliced_anywhere_replays_or_is_a_record_error(
    tmp_path: Path, data: st.DataObject
) -> None:
    raw = HAND.read_bytes()
    cut = data.draw(st.integers(0, len(raw)), label="cut")
    insert = data.draw(pieces, label="insert")
    text = raw[:cut] + insert.encode("utf-8", "surrogatepass") + raw[cut:]
    path = tmp_path / "r.jsonl"
    path.write_bytes(text)
    # A RecordError names the line; a board row cut short is a BoardError, also the
    # project's own error; anything else would escape as a crash.
    error = error_of(HarnessError, lambda: asyncio.run(replay(path, GAME)))
    if isinstance(error, RecordError):
        assert re.match(rf"{re.escape(str(path))}:\d+: ", str(error)), str(error)


def test_the_command_line_names_the_line_of_a_deep_record(tmp_path: Path) -> None:
    lines = HAND.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([lines[0], "[" * 5000 + "]" * 5000, *lines[1:]]) + "\n")
    proc = lighthouse("replay", path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"lighthouse: error: {path}:2: not a JSON line: nested too deeply (more than "
        f"{MAX_JSON_DEPTH} levels of arrays and objects)"
    ]


# ---- TOML configs -----------------------------------------------------------------------

TOML_CASES = {
    "deep arrays": "a = " + "[" * 5000 + "]" * 5000,
    "deep inline tables": "a = " + "{b = " * 5000 + "1" + "}" * 5000,
    "a long dotted header": "[" + ".".join(["a"] * 100_000) + "]",
    "a long dotted key": ".".join(["a"] * 100_000) + " = 1",
    "a 5000-digit integer": "a = " + "9" * 5000,
    "a hex integer over 64 bits": "a = 0x" + "f" * 20_000,
    "just over 64 bits": "a = 9223372036854775808",
    "an unclosed string": 'a = """' + "x" * SIZE,
    "brackets hidden after a quote run": 'a = ["""x"""", ' + "[" * 5000 + "]" * 5000 + "]",
    "a comment of brackets": "a = 1 # " + "[" * 5000,
    "1 MiB of brackets": "[" * SIZE,
}


@pytest.mark.parametrize("kind", list(TOML_CASES))
def test_hostile_toml_is_a_config_error(tmp_path: Path, kind: str) -> None:
    text = TOML_CASES[kind]
    meter = ScanMeter()
    toml_shape(text, max_depth=MAX_TOML_DEPTH, meter=meter)
    assert meter.chars <= len(text)
    assert meter.steps <= 2 * len(text) + 1
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    if kind == "a comment of brackets":
        assert read_toml(path) == {"a": 1}
        return
    with pytest.raises(ConfigError) as caught:
        read_toml(path)
    assert str(caught.value).startswith(str(path))
    with pytest.raises(ConfigError):
        load_tournament(path)


def test_toml_within_the_limits_still_loads() -> None:
    text = (
        "a = " + "[" * MAX_TOML_DEPTH + "]" * MAX_TOML_DEPTH + "\n"
        + ".".join(["k"] * MAX_TOML_DEPTH) + " = 9223372036854775807\n"
        + 'm = """x""""\n'
        + "f = 1.5\n"
    )  # fmt: skip
    table = loads_toml(text, "t.toml")
    assert depth_of(table["a"]) == MAX_TOML_DEPTH
    assert table["m"] == 'x"'


def test_a_config_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_bytes(b'name = "x"\nseeds = [1]\n# \xff\n')
    with pytest.raises(ConfigError, match=rf"{re.escape(str(path))}:3: not UTF-8"):
        load_tournament(path)


@fuzz(FEW, MANY, text=untrusted)
def test_any_toml_text_loads_or_is_a_config_error(text: str) -> None:
    error = error_of(ConfigError, loads_toml, text, "t.toml")
    assert error is None or str(error).startswith("t.toml")


# ---- Relayroam's HTTP bodies ------------------------------------------------------------

ACTION = "/api/games/relayroam/action"
BODIES = {
    "deep arrays": b'{"action": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    "deep objects": b'{"stateToken": "x", "action": ' + b'{"a":' * 5000 + b"1" + b"}" * 5001,
    "a 5000-digit integer": b'{"stateToken": "x", "action": ' + b"9" * 5000 + b"}",
    "1e999": b'{"stateToken": "x", "action": 1e999}',
    "many tokens": b'{"stateToken": "x", "action": [' + b"[]," * 20_000 + b"[]]}",
    "an unclosed string": b'{"stateToken": "' + b'\\"' * 30_000,
    "an escaped lone surrogate key": b'{"\\ud800": 1, "stateToken": "x", "action": {}}',
}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


def assert_refused(status: int, raw: bytes) -> None:
    assert status == 400, raw
    body = json.loads(raw)
    assert body["error"] in ("invalid_json", "invalid_body", "invalid_state_token")


@pytest.mark.parametrize("kind", list(BODIES))
def test_hostile_bodies_are_a_400(server: str, kind: str) -> None:
    reply = http("POST", server + ACTION, BODIES[kind])
    assert_refused(reply.status, reply.raw)
    if kind != "an escaped lone surrogate key":
        assert json.loads(reply.raw)["error"] == "invalid_json"


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.binary(max_size=200), pieces.map(lambda t: t.encode("utf-8", "replace"))))
def test_any_body_is_answered_with_a_client_error(server: str, body: bytes) -> None:
    reply = http("POST", server + ACTION, body)
    assert_refused(reply.status, reply.raw)
