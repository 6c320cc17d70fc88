"""No control character from outside reaches the terminal, in any command.

The commands run as real subprocesses over hostile data: a model whose replies and
notes hold terminal escapes (clear screen, set title, OSC 52 clipboard write, CSI 6n,
a C1 CSI, bidi overrides), a server whose error message holds them, and a results
folder whose file names hold them. Every byte the commands write to stdout and
stderr is checked: the escapes show as ``\\u001b`` and so on, and never arrive whole.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.testing.llm_server import Action, Fail, Reply, ScriptedLLMServer
from harness.text import TerminalGuard, script_json, terminal_safe, write_control
from harness.tournament.progress import CLEAR_LINE, Progress

#: What a hostile model, server or file name sends: clear screen, set the title, write
#: the clipboard (OSC 52), ask the cursor position (CSI 6n, whose answer lands in the
#: input), a one-byte C1 CSI, a bidi override and isolate, a line separator, DEL, NUL,
#: a carriage return and a backspace (which hide what came before on the line).
HOSTILE = (
    "\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;aGk=\x07\x1b[6n\x9b31m"
    "\u202eevil\u202c\u2066x\u2069\u2028\x7f\x00\rcover\b"
)
#: Every character a terminal would act on or reorder (what harness.text shows).
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
KEY_ENV = "LIGHTHOUSE_TEST_API_KEY"


def assert_safe(*texts: str) -> None:
    for text in texts:
        found = UNSAFE.search(text)
        if found is not None:
            around = text[max(found.start() - 40, 0) : found.end() + 40]
            pytest.fail(f"{found.group()!r} reached the terminal: {around!r}")


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def lighthouse(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        env={**os.environ, KEY_ENV: "sk-test-terminal"},
        capture_output=True,
        check=False,
        timeout=240,
    )
    # strict: a lone surrogate (from a file name) must not be printed as one either
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert_safe(out, err)
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


def hostile_model(path: str, body: dict[str, Any]) -> Action:
    """A keeper that transmits and keeps notes full of escapes; runners that say WAIT."""
    if "You are the KEEPER" in json.dumps(body):
        reply = {"transmit": True, "message": f"Sprocket N {HOSTILE}"[:150], "notes": HOSTILE}
        return Reply(json.dumps(reply))
    return Reply(json.dumps({"move": "WAIT", "notes": HOSTILE}))


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=hostile_model) as srv:
        yield srv


def refusing(server: ScriptedLLMServer) -> None:
    """The preflight is answered; the first call of the episode is refused with a
    message full of escapes (a 400: the turn falls back at once, with a warning)."""
    server.push(
        Reply('{"transmit": false}'),
        Fail(400, body={"error": {"message": f"bad {HOSTILE}", "type": "invalid_request"}}),
    )


def test_play_and_replay_show_a_models_escapes_and_a_servers_as_text(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    refusing(server)
    record = tmp_path / "ep.jsonl"
    played = lighthouse(
        "play", "--seed", "7", "--keeper", "openai:test-model", "--base-url", server.openai_url,
        "--api-key-env", KEY_ENV, "--record", str(record), "--call-timeout", "5",
        "--allowance", "10",
    cwd=tmp_path)  # fmt: skip
    assert played.returncode == 0, played.stderr
    # the server's message is in the warning line, its escapes shown, on one line
    warning = next(line for line in played.stderr.splitlines() if line.startswith("warning:"))
    assert "bad \\u001b]0;PWNED\\u0007" in warning
    # and the keeper's message is in the ticks play drew (as Python writes a string)
    assert "Sprocket N \\x1b]0;PWNED\\x07" in played.stdout
    lines = record.read_text(encoding="utf-8").split("\n")  # U+2028 splits no line
    assert any(HOSTILE in text for line in lines if line for text in strings(json.loads(line)))

    viewed = lighthouse("replay", str(record), "--view", cwd=tmp_path)
    assert viewed.returncode == 0, viewed.stderr
    assert "\\u001b]52;c;aGk=\\u0007" in viewed.stdout  # the notes, shown as text
    assert "\\u202eevil" in viewed.stdout
    reparsed = lighthouse("replay", str(record), "--reparse", cwd=tmp_path)
    assert reparsed.returncode == 0, reparsed.stderr


TOURNAMENT = """
name = "hostile"
seeds = [1, 2]
episode_timeout_seconds = 900
[providers.p]
kind = "openai"
base_url = "{url}"
api_key_env = "{key}"
[[entrants]]
name = "model"
keeper = {{ provider = "p", model = "m", call_timeout_seconds = 5, allowance_seconds = 10 }}
runners = {{ baseline = "wallhug" }}
[rules]
maxTicks = 6
"""


def test_run_report_replay_view_and_merge_over_a_hostile_folder(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    refusing(server)
    (tmp_path / "t.toml").write_text(TOURNAMENT.format(url=server.openai_url, key=KEY_ENV))
    ran = lighthouse("run", "t.toml", "--out", "res", "--workers", "0", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "bad \\u001b]0;PWNED" in ran.stderr  # the warning line, shown
    # hostile file names in the folder: named (shown, not executed) and skipped
    records = tmp_path / "res" / "records"
    os.mkfifo(records / f"{HOSTILE[:12]}.jsonl")
    (records / "\x1b]0;link\x07.jsonl").symlink_to("/dev/zero")

    done = {}
    for args in (
        ("report", "res"),
        ("report", "res", "--format", "csv"),
        ("report", "res", "--format", "json"),
        ("replay", "res"),
        ("view", "res", "--out", "site"),
        ("merge", "res", "--out", "merged"),
        ("run", "t.toml", "--out", "res", "--dry-run"),
    ):
        done[args] = lighthouse(*args, cwd=tmp_path)
        assert done[args].returncode in (0, 1), (args, done[args].stderr)
    replayed = done["replay", "res"]
    assert "\\u001b]0;PWNED" in replayed.stdout  # the FIFO's name, shown
    assert "skipped: a FIFO" in replayed.stdout
    assert "skipped: a symlink out of the folder (to /dev/zero)" in replayed.stdout
    # a JSON report through the guard is still JSON, with the same values
    report = done["report", "res", "--format", "json"]
    assert json.loads(report.stdout)["entrants"][0]["entrant"] == "model"


def test_a_hostile_name_on_the_command_line_is_shown_in_its_error(tmp_path: Path) -> None:
    name = HOSTILE.replace("\x00", "")  # no argument can hold a NUL
    done = lighthouse("report", f"no-{name}", cwd=tmp_path)
    assert done.returncode == 2
    assert "\\u001b]0;PWNED" in done.stderr
    done = lighthouse("run", f"{name}.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "\\u001b[2J" in done.stderr


# --- the building blocks ---------------------------------------------------------------


@pytest.mark.parametrize(
    "char",
    [*map(chr, [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]),
     "\u061c", "\u200e", "\u200f", *map(chr, range(0x2028, 0x202F)),
     *map(chr, range(0x2066, 0x206A)), chr(0xD800), chr(0xDFFF)],
)  # fmt: skip
def test_every_control_character_is_shown_as_an_escape(char: str) -> None:
    shown = terminal_safe(f"a{char}b")
    assert shown == f"a\\u{ord(char):04x}b"
    # JSON's escape: JSON passing through keeps its value
    assert json.loads(f'"{shown}"') == f"a{char}b"


def test_layout_is_kept_unless_the_text_must_stay_on_one_line() -> None:
    text = "line one\n\tline two"
    assert terminal_safe(text) == text
    assert terminal_safe(text, one_line=True) == "line one\\u000a\\u0009line two"
    plain = "Sprocket N; Gizmo — Ratchet ✓ 鍵"
    assert terminal_safe(plain) is plain  # nothing to show: the text itself


def test_the_guard_shows_everything_and_lets_only_the_harness_draw() -> None:
    raw = io.StringIO()
    guard = TerminalGuard(raw)
    print(f"note: {HOSTILE}", file=guard)
    write_control(guard, CLEAR_LINE)
    assert raw.getvalue() == f"note: {terminal_safe(HOSTILE)}\n{CLEAR_LINE}"


def test_the_live_status_line_still_redraws_through_the_guard() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    raw = Tty()
    progress = Progress(3, 0, stream=TerminalGuard(raw))  # type: ignore[arg-type]
    assert progress.live
    progress.show()
    assert raw.getvalue().startswith(CLEAR_LINE + "0/3 episodes")


def test_inline_script_data_cannot_end_or_comment_out_its_script() -> None:
    value = {"notes": "<!--<script></script>&\u2028\u2029</SCRIPT>"}
    text = script_json(value)
    assert not {"<", ">", "&", "\u2028", "\u2029"} & set(text)
    assert json.loads(text) == value
