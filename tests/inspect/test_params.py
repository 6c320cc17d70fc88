"""Task parameters as ``-T`` gives them (seeds, variants, rules, seats, prompts, settings),
and a record read back from a log's store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai._util.config import parse_cli_args

from harness.errors import ConfigError, RecordError
from harness.registry import get_game
from lighthouse_harness import tasks
from lighthouse_harness.params import MAX_SAMPLES, parse_rules, parse_seeds, parse_variants
from lighthouse_harness.record import parse_record


@pytest.mark.parametrize(
    ("given", "seeds"),
    [
        ("seeds=0:5", [0, 1, 2, 3, 4]),
        ("seeds=10-13", [10, 11, 12]),
        ("seeds=7", [7]),
        ("seeds=3,1,3,2", [3, 1, 2]),
        ("seeds=0:2,9", [0, 1, 9]),
    ],
)
def test_seeds_as_the_command_line_gives_them(given: str, seeds: list[int]) -> None:
    # through Inspect's own parsing of -T, so the shapes are the ones a task receives
    assert parse_seeds(parse_cli_args([given])["seeds"]) == seeds


def test_seeds_from_python() -> None:
    assert parse_seeds(range(3, 6)) == [3, 4, 5]
    assert parse_seeds([4, "1:3"]) == [4, 1, 2]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("5:5", "empty"),
        ("9:2", "empty"),
        ("0:999999999", f"at most {MAX_SAMPLES:,}"),
        ("-3", "not a seed"),
        ("seven", "not a seed"),
        (True, "not a seed"),
        (-1, "seed must be an integer"),
        (3.5, "not a seed or a range"),
        ([], "at least one seed"),
        ("1:" + "9" * 40, "not a seed"),
    ],
)
def test_bad_seeds_are_config_errors(value: Any, words: str) -> None:
    with pytest.raises(ConfigError, match=r"^seeds: ") as raised:
        parse_seeds(value)
    assert words in str(raised.value)


def test_variants_and_rules() -> None:
    game = get_game("lighthouse")
    assert parse_variants(game, None) == ["default"]
    assert parse_variants(game, parse_cli_args(["variant=default,spring"])["variant"]) == [
        "default",
        "spring",
    ]
    with pytest.raises(ConfigError, match="variant: lighthouse has"):
        parse_variants(game, "winter")
    assert parse_rules(parse_cli_args(["rules={maxTicks: 20}"])["rules"]) == {"maxTicks": 20}
    assert parse_rules('{"maxTicks": 20}') == {"maxTicks": 20}
    # hostile text too: nesting past any stack, an integer past Python's 4,300 digits
    deep, huge = "[" * 100_000, '{"maxTicks": ' + "9" * 5000 + "}"
    for bad in ("maxTicks=20", "[1, 2]", 5, deep, huge):
        with pytest.raises(ConfigError, match=r"^rules: "):
            parse_rules(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"variant": "winter"}, "variant: lighthouse has"),
        ({"rules": {"maxTicks": 0}}, "maxTicks"),
        ({"rules": {"noSuchRule": 1}}, "noSuchRule"),
        ({"runners": "nobody"}, "'nobody' is not a runner baseline"),
        ({"structured_output": "xml"}, "structured_output"),
        ({"call_timeout": 0}, "call_timeout_seconds"),
    ],
)
def test_a_bad_parameter_stops_the_task_before_any_sample(
    kwargs: dict[str, Any], words: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        tasks.lighthouse_keeper(seeds="0:2", **kwargs)
    assert words in str(raised.value)


def test_a_prompts_folder_must_hold_the_role_s_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"keeper\.system\.md"):
        tasks.lighthouse_keeper(seeds=0, prompts=str(tmp_path))
    root = Path(__file__).resolve().parents[2]
    task = tasks.lighthouse_team(seeds=0, prompts=str(root / "prompts" / "lighthouse"))
    assert len(task.dataset) == 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("[" * 100_000, "not a JSON line"),
        ('{"game": "chess"}\n', "names no game"),
        ('{"game": 7}\n', "names no game"),
        ('"header"\n', "names no game"),
        ('{"type": "header", "game": "lighthouse"}\n', "sample 3:1:"),
        ("\ud800\n", "not a JSON line"),
    ],
)
def test_a_record_that_is_not_one_is_a_record_error(text: str, words: str) -> None:
    # what a log's store holds is read as hostile input: one error, never a crash
    with pytest.raises(RecordError) as raised:
        parse_record(text, "sample 3")
    assert words in str(raised.value)
