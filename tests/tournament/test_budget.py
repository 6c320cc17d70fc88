"""Spending under control: the cost cap, --limit, and the keys checked before anything.

The cap is checked against the scripted server: a run stops with a recorded cost
within the cap and less than one episode's bound below it, leaves a resumable folder
whose report says why, and finishes when the cap is raised.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import ConfigError
from harness.report.selection import CostCapStop
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.budget import Admission, episode_bounds
from harness.tournament.config import load_tournament
from harness.tournament.growth import recorded_cost
from harness.tournament.run import TournamentOutcome, game_of, run_tournament
from harness.tournament.store import ResultsFolder

KEY_ENV = "BUDGET_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-budget-test-0123456789"}
CONFIG = """
name = "budget"
seeds = {{ start = 0, stop = 8 }}
variants = ["default"]
concurrency = {concurrency}
rules = {{ maxTicks = 3 }}
{extra}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"
prices = {{ scripted = {{ input_per_mtok = 1000.0, output_per_mtok = 4000.0 }} }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "model"
keeper = {{ provider = "local", model = "scripted", max_tokens = 64 }}
runners = {{ baseline = "wallhug" }}
"""


def keeper_reply(path: str, body: dict[str, Any]) -> Action:
    # Large usage figures, so that a call costs a fair share of its bound.
    return Reply(
        '{"transmit": true, "message": "Sprocket N; Gizmo W"}',
        input_tokens=900,
        output_tokens=60,
    )


def write(tmp_path: Path, server: ScriptedLLMServer, concurrency: int = 3, extra: str = "") -> Path:
    path = tmp_path / "budget.toml"
    path.write_text(
        CONFIG.format(url=server.openai_url, key_env=KEY_ENV, concurrency=concurrency, extra=extra)
    )
    return path


def play(path: Path, out: Path, **kwargs: Any) -> TournamentOutcome:
    return asyncio.run(run_tournament(load_tournament(path), out, environ=ENVIRON, **kwargs))


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_cost_cap_stops_within_one_episode_bound_and_resumes_when_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], concurrency: int
) -> None:
    out = tmp_path / "out"
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server, concurrency)
        config = load_tournament(path)
        bound = episode_bounds(config, game_of(config), config.entrants)["model"].cost_usd
        assert bound is not None
        # 3 ticks x (a call and a retry): 6 calls, 2 x 64 output tokens a turn
        assert episode_bounds(config, game_of(config), config.entrants)["model"].calls == 6
        cap = 2.5 * bound
        stopped = play(path, out, max_cost=cap)
        spent = recorded_cost(ResultsFolder(out).summaries())
        assert stopped.stopped is not None
        assert stopped.stopped.reason == "cost_cap"
        assert 0 < stopped.played < 16
        assert stopped.spent_usd == pytest.approx(spent)
        assert cap - bound < spent <= cap
        manifest = ResultsFolder(out).manifest()
        assert manifest.stopped == CostCapStop(reason="cost_cap", cap_usd=cap, spent_usd=spent)

        capsys.readouterr()
        assert main(["report", str(out)]) == 0
        report = capsys.readouterr().out
        assert f"Stopped at the cost cap: ${spent:,.2f} of ${cap:,.2f}" in report
        assert f"incomplete: {stopped.played}/16 episodes" in report.lower()

        finished = {s.episode_id for s in ResultsFolder(out).summaries()}
        resumed = play(path, out, max_cost=100 * bound)
    assert resumed.stopped is None
    assert (resumed.already_done, resumed.played) == (len(finished), 16 - len(finished))
    assert ResultsFolder(out).manifest().stopped is None
    assert len({s.episode_id for s in ResultsFolder(out).summaries()}) == 16


def test_the_config_max_cost_caps_too_and_needs_every_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server, extra="max_cost = 0.0001")
        out = tmp_path / "out"
        outcome = play(path, out)
        # no model episode fits under so small a cap: only free (baseline) episodes
        # were admitted, and the run stopped at the first model episode
        assert outcome.stopped is not None
        assert outcome.stopped.cap_usd == 0.0001
        assert outcome.played < 16
        assert {s.entrant for s in ResultsFolder(out).summaries()} == {"lantern"}
        assert recorded_cost(ResultsFolder(out).summaries()) == 0
        # a cap needs a price for every model; refused before anything is created
        unpriced = tmp_path / "unpriced.toml"
        text = path.read_text().splitlines()
        unpriced.write_text("\n".join(line for line in text if not line.startswith("prices")))
        seen = len(server.requests)
        with pytest.raises(ConfigError, match=r"no price for openai:scripted"):
            play(unpriced, tmp_path / "other", max_cost=5.0)
        assert not (tmp_path / "other").exists()
        assert len(server.requests) == seen


def test_limit_plays_at_most_n_and_the_report_says_why_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, ENVIRON[KEY_ENV])
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        out = tmp_path / "out"
        capsys.readouterr()
        argv = ["run", str(path), "--out", str(out), "--limit", "5", "--no-report"]
        assert main(argv) == 0
        assert "stopped after --limit 5" in capsys.readouterr().err
        assert len(ResultsFolder(out).summaries()) == 5
        assert main(["report", str(out)]) == 0
        report = capsys.readouterr().out
        assert "Stopped after `--limit 5` episodes." in report
        assert "incomplete: 5/16 episodes" in report.lower()
        assert play(path, out).played == 11


def test_narrowing_reaches_the_plan_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, ENVIRON[KEY_ENV])
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        out = tmp_path / "out"
        argv = ["run", str(path), "--out", str(out), "--seeds", "2:5", "--entrants", "model"]
        assert main([*argv, "--no-report"]) == 0
        summaries = ResultsFolder(out).summaries()
        assert sorted((s.entrant, s.seed) for s in summaries) == [
            ("model", 2),
            ("model", 3),
            ("model", 4),
        ]
        manifest = ResultsFolder(out).manifest()
        assert manifest.episodes == 3
        assert manifest.narrowing is not None
        assert manifest.narrowing.config_episodes == 16
        capsys.readouterr()
        assert main(["report", str(out)]) == 0
        report = capsys.readouterr().out
        assert "complete: 3/3 episodes" in report
        assert (
            "Narrowed run (--seeds 2:5 --entrants model); the whole config plans 16 episodes."
            in report
        )
        whole = play(path, out)
    assert (whole.already_done, whole.played) == (3, 13)
    assert ResultsFolder(out).manifest().narrowing is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--seeds", "9:20"], "--seeds 9:20: none of the config's seeds (0..7, 8 in all) is in it"),
        (["--seeds", "5"], "--seeds: '5' is not A:B"),
        (["--seeds", "5:5"], "B (5) must be greater than A (5)"),
        (["--entrants", "model,nobody"], "not an entrant of the config: nobody"),
        (["--limit", "0"], "--limit: must be a whole number >= 1"),
        (["--max-cost", "-1"], "--max-cost: must be a positive number"),
        (["--max-cost", "nan"], "--max-cost: must be a positive number"),
        (["--detect", "2"], "--detect: goes with --dry-run"),
    ],
)
def test_narrowing_flags_are_checked_before_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        capsys.readouterr()
        assert main(["run", str(path), "--out", str(tmp_path / "out"), *flags]) == 2
        err = capsys.readouterr().err
        assert message in err
        assert not (tmp_path / "out").exists()
        assert server.requests == []


TWO_PROVIDERS = """
name = "keys"
seeds = [1]
rules = { maxTicks = 3 }

[providers.a]
kind = "openai"
api_key_env = "GROW_KEY_A"

[providers.b]
kind = "anthropic"
api_key_env = "GROW_KEY_B"

[providers.unused]
kind = "openai"
api_key_env = "GROW_KEY_UNUSED"

[[entrants]]
name = "one"
keeper = { provider = "a", model = "m" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "two"
keeper = { baseline = "lantern" }
runners = { provider = "b", model = "m" }
"""


def test_every_missing_key_is_named_at_once_before_anything_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GROW_KEY_A", "GROW_KEY_B", "GROW_KEY_UNUSED"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "keys.toml"
    path.write_text(TWO_PROVIDERS)
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("lighthouse: error:") == 1
    assert "GROW_KEY_A (openai), GROW_KEY_B (anthropic) are not set" in err
    assert "GROW_KEY_UNUSED" not in err  # a provider no entrant uses needs no key
    assert not (tmp_path / "out").exists()
    # a dry run needs none, and says which a run would need
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "GROW_KEY_A NOT SET, GROW_KEY_B NOT SET" in out
    assert not (tmp_path / "out").exists()


def test_growing_a_folder_checks_the_new_entrants_keys_and_leaves_it_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GROW_KEY_A", raising=False)
    path, out = tmp_path / "keys.toml", tmp_path / "out"
    baseline_only = TWO_PROVIDERS.split("[[entrants]]")[0] + (
        '[[entrants]]\nname = "lantern"\nkeeper = { baseline = "lantern" }\n'
        'runners = { baseline = "wallhug" }\n'
    )
    path.write_text(baseline_only)
    assert main(["run", str(path), "--out", str(out), "--no-report", "--workers", "0"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    path.write_text(baseline_only + "[[entrants]]" + TWO_PROVIDERS.split("[[entrants]]")[1])
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--no-report"]) == 2
    assert "GROW_KEY_A is not set" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_admission_waits_for_episodes_in_flight_and_stops_with_none_in_flight() -> None:
    async def scenario() -> list[str]:
        gate = Admission(cap_usd=10.0, spent_usd=1.0, limit=None)
        steps: list[str] = []
        assert await gate.admit(4.0)  # 1 + 4 <= 10
        assert await gate.admit(4.0)  # 1 + 8 <= 10
        third = asyncio.ensure_future(gate.admit(4.0))  # 1 + 12 > 10: waits
        await asyncio.sleep(0)
        steps.append(f"waiting={not third.done()} in_flight={gate.in_flight}")
        await gate.finish(4.0, 0.5)  # 1.5 + 4 + 4 <= 10: the third fits now
        steps.append(f"third={await third}")
        await gate.finish(4.0, 3.0)  # spent 4.5, in flight 4
        await gate.finish(4.0, 3.0)  # spent 7.5, none in flight
        steps.append(f"fourth={await gate.admit(4.0)} stop={gate.stop}")
        steps.append(f"free={await gate.admit(0.0)}")  # once stopped, nothing is admitted
        return steps

    assert asyncio.run(scenario()) == [
        "waiting=True in_flight=2",
        "third=True",
        "fourth=False stop=Stop(reason='cost_cap', cap_usd=10.0, limit=None)",
        "free=False",
    ]


def test_admission_counts_a_limit() -> None:
    async def scenario() -> list[bool]:
        gate = Admission(cap_usd=None, spent_usd=0.0, limit=2)
        return [await gate.admit(1.0) for _ in range(4)]

    assert asyncio.run(scenario()) == [True, True, False, False]


def test_a_results_line_records_the_cost_the_gate_counts(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        out = tmp_path / "out"
        outcome = play(path, out, max_cost=1000.0)
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    by_hand = sum(seat["costUsd"] for line in lines for seat in line["seats"].values())
    # 900 input tokens at $1000/M and 60 output at $4000/M: $1.14 a call
    calls = sum(seat["calls"] for line in lines for seat in line["seats"].values())
    assert by_hand == pytest.approx(calls * 1.14)
    assert outcome.spent_usd == pytest.approx(by_hand)


def test_a_ledger_of_cached_and_reasoning_tokens_is_priced_and_bounded_kind_by_kind(
    tmp_path: Path,
) -> None:
    def cached_reply(path: str, body: dict[str, Any]) -> Action:
        return Reply(
            '{"transmit": true, "message": "Sprocket N; Gizmo W"}',
            input_tokens=900,
            cached_tokens=600,
            output_tokens=60,
            reasoning_tokens=20,
        )

    rates = (
        "prices = { scripted = { input_per_mtok = 1000.0, output_per_mtok = 4000.0, "
        "cached_input_per_mtok = 100.0, reasoning_per_mtok = 5000.0 } }"
    )
    with ScriptedLLMServer(default=cached_reply) as server:
        path = write(tmp_path, server)
        path.write_text(
            "\n".join(rates if line.startswith("prices") else line
                      for line in path.read_text().splitlines())
        )  # fmt: skip
        config = load_tournament(path)
        bound = episode_bounds(config, game_of(config), config.entrants)["model"]
        out = tmp_path / "out"
        outcome = play(path, out, max_cost=1000.0)
    # the bound: every input token at the dearest input rate (the input's, here), every
    # output token at the dearest output rate (reasoning's)
    assert bound.cost_usd == pytest.approx(
        (bound.input_tokens * 1000.0 + bound.output_tokens * 5000.0) / 1e6
    )
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    keepers = [line["seats"]["keeper"] for line in lines if line["entrant"] == "model"]
    assert keepers
    for keeper in keepers:
        calls = keeper["calls"]
        assert keeper["inputTokens"] == 900 * calls
        assert keeper["cachedInputTokens"] == 600 * calls
        assert keeper["reasoningTokens"] == 20 * calls
        # 300 plain at $1000/M, 600 read at $100/M, 40 output at $4000/M, 20 reasoning
        # at $5000/M: $0.62 a call (the full input price would make it $1.16)
        assert keeper["costUsd"] == pytest.approx(calls * 0.62)
    assert outcome.spent_usd == pytest.approx(sum(k["costUsd"] for k in keepers))


def test_a_model_without_a_price_shows_no_price_never_zero_dollars(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, ENVIRON[KEY_ENV])
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        text = path.read_text().splitlines()
        path.write_text("\n".join(line for line in text if not line.startswith("prices")))
        out = tmp_path / "out"
        capsys.readouterr()
        assert main(["run", str(path), "--out", str(out), "--workers", "0"]) == 0
    progress = capsys.readouterr().err
    assert "cost no price" in progress
    lines = ResultsFolder(out).summaries()
    model = [line for line in lines if line.entrant == "model"]
    assert model
    assert all(line.seats["keeper"].unpriced == line.seats["keeper"].calls for line in model)
    assert main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    rows = {  # the model figures' table: calls, retries (rescued), ..., cost, latency
        line.split("|")[1].strip(): line for line in report.splitlines() if "rescued) |" in line
    }
    # the model's calls had no price: its cell says so; the baselines made no call
    assert "| no price |" in rows["model"]
    assert "$0.0000" in rows["lantern"]
    assert "$0.0000" not in rows["model"]
    assert main(["report", str(out), "--format", "json"]) == 0
    by_name = {row["entrant"]: row for row in json.loads(capsys.readouterr().out)["entrants"]}
    assert by_name["model"]["unpricedCalls"] == sum(m.seats["keeper"].calls for m in model)
    assert "unpricedCalls" not in by_name["lantern"]


def test_a_dry_run_on_a_folder_expects_a_cost_from_the_finished_ledgers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, ENVIRON[KEY_ENV])
    with ScriptedLLMServer(default=keeper_reply) as server:
        path = write(tmp_path, server)
        out = tmp_path / "out"
        # no folder yet: only the bound, no estimate
        capsys.readouterr()
        assert main(["run", str(path), "--out", str(out), "--dry-run"]) == 0
        assert "expected cost" not in capsys.readouterr().out
        assert main(["run", str(path), "--out", str(out), "--limit", "12", "--no-report",
                     "--workers", "0"]) == 0  # fmt: skip
        capsys.readouterr()
        assert main(["run", str(path), "--out", str(out), "--dry-run"]) == 0
        told = capsys.readouterr().out
    finished = [s for s in ResultsFolder(out).summaries() if s.entrant == "model"]
    assert finished
    mean = sum(seat.cost_usd for s in finished for seat in s.seats.values()) / len(finished)
    left = 8 - len(finished)
    expected = f"${mean * left:,.2f}"
    assert f"expected cost of what is left ~{expected}: an ESTIMATE, not a bound" in told
    assert f"model ~{expected} (from {len(finished)} finished episode" in told
    # the bound stays beside it, labelled as one
    assert "cost <= (upper bound)" in told


def test_a_seat_sent_its_history_is_bounded_with_every_earlier_exchange(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=keeper_reply) as server:
        plain = load_tournament(write(tmp_path, server))
        path = write(tmp_path, server)
        path.write_text(path.read_text().replace("max_tokens = 64", "max_tokens = 64, history = 4"))
        remembering = load_tournament(path)
    without = episode_bounds(plain, game_of(plain), plain.entrants)["model"]
    with_history = episode_bounds(remembering, game_of(remembering), remembering.entrants)["model"]
    assert with_history.calls == without.calls  # the same calls, each sending more
    assert with_history.output_tokens == without.output_tokens
    # each of 2 calls a turn, 3 turns, sends 4 more exchanges: a prompt and 64 tokens each
    extra = with_history.input_tokens - without.input_tokens
    assert extra > 0
    assert extra % (2 * 3 * 4) == 0
    per_exchange = extra // (2 * 3 * 4)
    assert per_exchange > 64 + 100  # the reply's 64 tokens and a whole observation
    assert with_history.cost_usd is not None
    assert without.cost_usd is not None
    assert with_history.cost_usd > without.cost_usd
