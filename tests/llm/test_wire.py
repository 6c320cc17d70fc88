"""A provider's body, read into the project's types: every shape that is not a completion
is a one-line BadResponseError, every count that is not a count is unknown.

The readers are tested here on bytes; tests/llm/test_hostile_server.py plays the same
shapes through both SDKs in whole tournaments.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import BadResponseError
from harness.llm.types import MAX_TOKEN_COUNT, CompletionRequest, Message, Usage, token_count
from harness.llm.wire import (
    MAX_BODY_DEPTH,
    MAX_MODEL_CHARS,
    Reader,
    anthropic_completion,
    openai_completion,
    read_completion,
)
from harness.testing.llm_server import Reply, completion_body

REQUEST = CompletionRequest(model="asked-model", messages=(Message("user", "hi"),))
READERS: dict[str, Reader] = {"openai": openai_completion, "anthropic": anthropic_completion}
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


def good(sdk: str, text: str = '{"move": "N"}', **reply: Any) -> bytes:
    """The scripted server's completion body for ``text``."""
    return completion_body(PATHS[sdk], {"model": "served-model"}, Reply(text, **reply))


def read(sdk: str, body: bytes) -> Any:
    return read_completion(sdk, READERS[sdk], body, REQUEST)


def failure(sdk: str, body: bytes) -> str:
    with pytest.raises(BadResponseError) as caught:
        read(sdk, body)
    assert caught.value.kind == "decode"
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{sdk}: the answer is not a completion")
    return message


@pytest.mark.parametrize("sdk", sorted(READERS))
def test_a_good_body_reads_as_its_text_model_and_counts(sdk: str) -> None:
    completion = read(sdk, good(sdk, "hello", input_tokens=12, output_tokens=3))
    assert (completion.text, completion.model) == ("hello", "served-model")
    assert completion.usage == Usage(12, 3, None)


BODIES = {
    "empty": (b"", "the body is empty"),
    "blank": (b" \r\n\t", "the body is empty"),
    "html": (b"<html><body>502 Bad Gateway</body></html>", "not JSON"),
    "null": (b"null", "the body is null, not an object"),
    "list": (b"[1, 2]", "the body is an array, not an object"),
    "string": (b'"ok"', "the body is a string, not an object"),
    "deep": (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    "deep_object": (b'{"a":' * 200_000 + b"1" + b"}" * 200_000, "nested too deeply"),
    "cut_short": (b'{"choices": [{"message": {"content": "hal', "Unterminated string"),
    "not_utf8": (b'{"x": "\xff\xfe"}', "not valid UTF-8"),
}


@pytest.mark.parametrize("sdk", sorted(READERS))
@pytest.mark.parametrize("case", sorted(BODIES))
def test_a_body_that_is_no_json_object_is_refused_in_one_line(sdk: str, case: str) -> None:
    body, words = BODIES[case]
    assert words in failure(sdk, body)


def test_a_five_thousand_digit_count_is_refused_before_python_converts_it() -> None:
    for sdk in READERS:
        body = good(sdk, usage_json='{"prompt_tokens": ' + "9" * 5000 + "}")
        assert "an integer of 5000 digits is too large" in failure(sdk, body)


def openai_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(good("openai"))
    doc.update(changes)
    return doc


def with_message(**message: Any) -> bytes:
    doc = openai_doc()
    doc["choices"][0]["message"].update(message)
    return json.dumps(doc).encode()


SHAPES = {
    "openai": {
        "content an object": (with_message(content={"move": "N"}), "content is an object"),
        "content a number": (with_message(content=7), "content is a number"),
        "model an object": (json.dumps(openai_doc(model={})).encode(), "model is an object"),
        "choices a string": (json.dumps(openai_doc(choices="x")).encode(), "choices is a string"),
        "choices empty": (json.dumps(openai_doc(choices=[])).encode(), "choices is empty"),
        "choice a list": (json.dumps(openai_doc(choices=[[]])).encode(), "choices[0] is an array"),
        "no message": (json.dumps(openai_doc(choices=[{}])).encode(), "message is absent"),
        "error in a 200": (
            json.dumps({"error": {"message": "upstream\nfailed"}}).encode(),
            'the body is an error: "upstream\\nfailed"',
        ),
    },
    "anthropic": {
        "content an object": (
            json.dumps({**json.loads(good("anthropic")), "content": {}}).encode(),
            "content is an object",
        ),
        "text an object": (
            json.dumps(
                {**json.loads(good("anthropic")), "content": [{"type": "text", "text": {}}]}
            ).encode(),
            "content[0].text is an object",
        ),
        "block a string": (
            json.dumps({**json.loads(good("anthropic")), "content": ["hi"]}).encode(),
            "content[0] is a string",
        ),
        "model an object": (
            json.dumps({**json.loads(good("anthropic")), "model": {"a": 1}}).encode(),
            "model is an object",
        ),
        "error in a 200": (
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            'the body is an error: "Overloaded"',
        ),
        "another type": (
            json.dumps({**json.loads(good("anthropic")), "type": "completion"}).encode(),
            "type is \"completion\", expected 'message'",
        ),
    },
}


@pytest.mark.parametrize(
    ("sdk", "case"), [(sdk, case) for sdk, cases in SHAPES.items() for case in sorted(cases)]
)
def test_a_json_object_of_the_wrong_shape_is_refused_naming_the_field(sdk: str, case: str) -> None:
    body, words = SHAPES[sdk][case]
    assert words in failure(sdk, body)


def test_null_content_is_an_empty_reply_and_a_missing_model_is_the_one_asked_for() -> None:
    doc = openai_doc()
    doc["choices"][0]["message"]["content"] = None
    del doc["model"]
    completion = read("openai", json.dumps(doc).encode())
    assert (completion.text, completion.model) == ("", "asked-model")
    long_name = read("openai", json.dumps(openai_doc(model="m" * 10_000)).encode()).model
    assert long_name == "m" * MAX_MODEL_CHARS


def test_a_forced_tool_call_is_the_reply_and_other_blocks_are_left_out() -> None:
    doc = json.loads(good("anthropic"))
    doc["content"] = [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "tool_use", "id": "t", "name": "reply", "input": {"move": "N"}},
        {"type": "text", "text": "ignored"},
    ]
    assert read("anthropic", json.dumps(doc).encode()).text == '{"move": "N"}'


USAGES = {
    # usage JSON: what each SDK's counts come to (input, output)
    "null": ("null", (None, None)),
    "absent counts": ("{}", (None, None)),
    "a string": ('"12"', (None, None)),
    "nan": (
        '{"prompt_tokens": NaN, "completion_tokens": NaN, "input_tokens": NaN, '
        '"output_tokens": NaN}',
        (None, None),
    ),
    "overflow": (
        '{"prompt_tokens": 1e999, "input_tokens": 1e999, "completion_tokens": 3, '
        '"output_tokens": 3}',
        (None, 3),
    ),
    "ten to the 400": (
        '{"prompt_tokens": 1'
        + "0" * 400
        + ', "input_tokens": 1'
        + "0" * 400
        + ', "completion_tokens": 3, "output_tokens": 3}',
        (None, 3),
    ),
    "negative": (
        '{"prompt_tokens": -9990, "input_tokens": -9990, "completion_tokens": 2, '
        '"output_tokens": 2}',
        (None, 2),
    ),
    "strings": (
        '{"prompt_tokens": "5", "input_tokens": "5", "completion_tokens": true, '
        '"output_tokens": true}',
        (None, None),
    ),
    "integral floats": (
        '{"prompt_tokens": 5.0, "input_tokens": 5.0, "completion_tokens": 2.5, '
        '"output_tokens": 2.5}',
        (5, None),
    ),
}


@pytest.mark.parametrize("sdk", sorted(READERS))
@pytest.mark.parametrize("case", sorted(USAGES))
def test_counts_that_are_not_counts_are_unknown_and_the_reply_stands(sdk: str, case: str) -> None:
    usage, (tokens_in, tokens_out) = USAGES[case]
    completion = read(sdk, good(sdk, "the reply", usage_json=usage))
    assert completion.text == "the reply"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (
        tokens_in,
        tokens_out,
    )


@given(value=st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()))
def test_a_token_count_is_a_bounded_non_negative_integer_or_unknown(value: object) -> None:
    count = token_count(value)
    assert count is None or (type(count) is int and 0 <= count <= MAX_TOKEN_COUNT)
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:
        assert count == value


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)
KEYS = ["choices", "message", "content", "model", "usage", "type", "text", "error", "name", "input",
        "prompt_tokens", "completion_tokens", "input_tokens", "output_tokens", "tool_use", "reply",
        "completion_tokens_details", "reasoning_tokens", "index"]  # fmt: skip


def mutate(doc: Any, data: st.DataObject) -> Any:
    """``doc`` with one value somewhere inside replaced by any JSON value."""
    if isinstance(doc, dict) and doc and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(doc)))
        return {**doc, key: mutate(doc[key], data)}
    if isinstance(doc, list) and doc and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(doc) - 1))
        return [*doc[:index], mutate(doc[index], data), *doc[index + 1 :]]
    return data.draw(JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5))


def assert_read_or_refused(sdk: str, body: bytes) -> None:
    try:
        completion = read(sdk, body)
    except BadResponseError as exc:
        refused: BadResponseError | None = exc
    else:
        refused = None
    if refused is not None:
        assert refused.kind == "decode"
        assert "\n" not in str(refused)
        return
    assert isinstance(completion.text, str)
    assert isinstance(completion.model, str)
    assert len(completion.model) <= MAX_MODEL_CHARS
    for count in completion.usage.as_json().values():
        assert count is None or (type(count) is int and 0 <= count <= MAX_TOKEN_COUNT)


@settings(max_examples=300)
@given(sdk=st.sampled_from(sorted(READERS)), data=st.data())
def test_any_change_to_a_good_body_is_read_or_refused_never_raised(
    sdk: str, data: st.DataObject
) -> None:
    doc = mutate(json.loads(good(sdk, "x")), data)
    assert_read_or_refused(sdk, json.dumps(doc).encode())


@settings(max_examples=300)
@given(sdk=st.sampled_from(sorted(READERS)), body=st.binary(max_size=200) | JSON.map(
    lambda v: json.dumps(v).encode()))  # fmt: skip
def test_any_body_at_all_is_read_or_refused_never_raised(sdk: str, body: bytes) -> None:
    assert_read_or_refused(sdk, body)


def test_depth_is_bounded_for_every_body_shape() -> None:
    inner = "[" * MAX_BODY_DEPTH + "]" * MAX_BODY_DEPTH
    body = good("openai").replace(b'"usage":', b'"extra": ' + inner.encode() + b', "usage":')
    assert "nested too deeply" in failure("openai", body)
