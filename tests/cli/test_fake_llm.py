"""``lighthouse fake-llm``, the ``scripted`` provider kind, and the key hint for a local
server: a model seat played end to end with no key but the one the message names."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.cli import main
from harness.errors import ConfigError
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.schema_reply import MAX_DEPTH, schema_instance, schema_reply
from harness.protocol import ParseFailure
from harness.registry import game_names, get_game
from harness.testing.fake_llm import FakeReplies, fake_llm_server, load_script
from tests.in_process import lighthouse

LIGHTHOUSE = [sys.executable, "-m", "harness.cli"]


def _environ() -> dict[str, str]:
    """This process's environment without any model key."""
    return {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*flags: str) -> tuple[subprocess.Popen[str], list[str]]:
    """``lighthouse fake-llm`` started, and what it printed up to its last line."""
    server = subprocess.Popen(
        [*LIGHTHOUSE, "fake-llm", "--port", "0", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environ(),
        # Ctrl-C as a terminal gives it, even when these tests run where SIGINT is
        # ignored (a background job of a shell), which a child would inherit
        preexec_fn=_default_sigint,
    )
    assert server.stdout is not None
    printed: list[str] = []
    for line in server.stdout:
        printed.append(line.rstrip("\n"))
        if line.startswith("Ctrl-C stops it"):
            break
    return server, printed


def _stop(server: subprocess.Popen[str]) -> str:
    server.send_signal(signal.SIGINT)
    try:
        _, err = server.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()  # say what it printed rather than leave it running
        _, err = server.communicate()
        raise AssertionError(f"fake-llm did not stop within 60 s of SIGINT: {err!r}") from None
    assert server.returncode == 0, err
    return err


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_printed_command_plays_a_model_keeper_against_the_fake_server(
    tmp_path: Path,
) -> None:
    server, printed = _start()
    try:
        exports = [line.strip() for line in printed if line.strip().startswith("export ")]
        commands = [line.strip() for line in printed if line.strip().startswith("lighthouse play")]
        assert len(exports) == 1, printed
        assert len(commands) == 1, printed
        name, _, value = exports[0].removeprefix("export ").partition("=")
        words = shlex.split(commands[0])
        assert "--base-url" in words
        record = tmp_path / "ep.jsonl"
        # the printed command line, run in this process (the server is the real process)
        # without the variable, the error says that any value works
        refused = lighthouse(*words[1:], env=_environ())
        assert refused.returncode == 2
        assert f"{name} is not set" in refused.stderr
        assert "any value works" in refused.stderr
        played = lighthouse(*words[1:], "--record", record, env={**_environ(), name: value})
        assert played.returncode == 0, played.stderr
    finally:
        err = _stop(server)
    assert "stopped" in err
    lines = _records(record)
    header = lines[0]
    keeper = next(s for s in header["seats"] if s["seat"] == "keeper")
    assert keeper["agent"]["kind"] == "llm"
    sources = {t["seats"]["keeper"]["source"] for t in lines if t["type"] == "tick"}
    assert sources == {"llm"}
    assert lines[-1]["type"] == "end"


def test_a_script_answers_by_role_over_both_apis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "replies.json"
    orders = [{"transmit": True, "message": "runner 1 go N", "notes": ""}, "not json"]
    script.write_text(json.dumps({"keeper": orders}))
    monkeypatch.setenv("LIGHTHOUSE_TEST_FAKE_KEY", "not-a-real-key")
    for kind in ("openai", "anthropic"):
        with fake_llm_server(script=script) as server:
            url = server.openai_url if kind == "openai" else server.anthropic_url
            result = harness.play(
                "lighthouse",
                2,
                keeper={"provider": "fake", "model": "fake-model"},
                providers={
                    "fake": {
                        "kind": kind,
                        "base_url": url,
                        "api_key_env": "LIGHTHOUSE_TEST_FAKE_KEY",
                    }
                },
                rules={"maxTicks": 6},
            )
            keeper = [t["seats"]["keeper"] for t in result.ticks]
            # the first reply of the script, then "not json" retried with the first again
            assert keeper[0]["raw"] == json.dumps(orders[0])
            assert keeper[0]["source"] == "llm"
            assert keeper[1]["source"] == "llm_retry"
            assert keeper[1]["replies"][0]["raw"] == "not json"


def test_kind_scripted_plays_a_model_seat_with_no_server() -> None:
    result = harness.play(
        "lighthouse",
        3,
        keeper={"provider": "none", "model": "any"},
        runners={"provider": "none", "model": "any"},
        providers={"none": {"kind": "scripted"}},
    )
    sources = {s["source"] for t in result.ticks for s in t["seats"].values()}
    assert sources == {"llm"}
    assert result.ticks[0]["seats"]["runner1"]["decision"]["move"] == "WAIT"


def test_kind_scripted_runs_in_a_config(tmp_path: Path) -> None:
    config = tmp_path / "fake.toml"
    config.write_text(
        'name = "fake"\nseeds = { start = 0, stop = 2 }\nreference = "lantern"\n'
        '[providers.none]\nkind = "scripted"\n'
        '[[entrants]]\nname = "lantern"\nkeeper = { baseline = "lantern" }\n'
        'runners = { baseline = "wallhug" }\n'
        '[[entrants]]\nname = "fake"\nkeeper = { provider = "none", model = "any" }\n'
        'runners = { baseline = "wallhug" }\n'
    )
    out = tmp_path / "out"
    assert main(["run", str(config), "--out", str(out), "--workers", "0"]) == 0
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    fake = [e for e in episodes if e.get("entrant") == "fake"]
    assert len(fake) == 2
    records = sorted(out.glob("**/fake--*.jsonl"))
    assert len(records) == 2
    sources = {t["seats"]["keeper"]["source"] for t in _records(records[0])[1:-1]}
    assert sources == {"llm"}
    assert main(["report", str(out)]) == 0


@pytest.mark.parametrize("game", game_names())
def test_the_default_reply_is_one_every_role_can_use(game: str) -> None:
    entry = get_game(game)
    state = entry.rules.new_state(entry.rules.make_config(entry.variants[0], {}, None), 1)
    replies = FakeReplies()
    for seat in entry.rules.active_seats(state):
        spec = next(s for s in entry.rules.seats(state) if s.seat == seat)
        observation = entry.rules.observe(state, seat)
        system = PromptSet.load(default_prompt_files(game, spec.role)).system.text
        # known by its system prompt alone, as a request without structured output is
        body = {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": "?"}]
        }
        text = replies("/v1/chat/completions", body).text
        assert text == schema_reply(entry.seat_io.reply_schema(spec.role))
        decision = entry.seat_io.parse_reply(observation, text)
        assert not isinstance(decision, ParseFailure), (seat, text, decision)
        assert entry.seat_io.refuse(observation, decision) is None


def test_a_request_it_cannot_place_gets_an_empty_object() -> None:
    replies = FakeReplies()
    bodies: list[Any] = [{}, [], {"messages": "x"}, {"system": [{"type": "text", "text": 7}]}, None]
    for body in bodies:
        assert replies("/v1/messages", body).text == "{}"


def test_schema_instances_follow_the_rule_and_stay_bounded() -> None:
    assert schema_instance({"type": "string", "minLength": 3}) == "xxx"
    assert schema_instance({"enum": ["N", "Wait"]}) == "Wait"
    assert schema_instance({"type": ["null", "integer"], "minimum": 2}) == 2
    assert schema_instance({"type": "array", "items": {"type": "boolean"}, "minItems": 2}) == [
        False,
        False,
    ]
    assert schema_instance({"anyOf": [{"const": "a"}, {"type": "string"}]}) == "a"
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH * 4):
        deep = {"type": "object", "properties": {"a": deep}, "required": ["a"]}
    text = schema_reply(deep)  # no recursion error: null past the bound
    assert text.count("{") == MAX_DEPTH + 1
    assert schema_reply(None) == "{}"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[", "not a JSON script"),
        ("[]", "no replies"),
        ('{"keeper": 3}', "--script"),
        ("[1, 2]", "--script"),
        ('{"a": 1, "a": 2}', "not a JSON script"),
        ("[" * 5000, "not a JSON script"),
    ],
)
def test_a_bad_script_is_a_one_line_error(tmp_path: Path, text: str, problem: str) -> None:
    script = tmp_path / "bad.json"
    script.write_text(text)
    with pytest.raises(ConfigError, match=problem):
        load_script(script)


def test_a_missing_script_or_a_taken_port_stops_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fake-llm", "--script", str(tmp_path / "none.json")]) == 2
    assert "cannot read it" in capsys.readouterr().err
    with fake_llm_server() as taken:
        assert main(["fake-llm", "--port", str(taken.port)]) == 2
    assert "cannot listen there" in capsys.readouterr().err
