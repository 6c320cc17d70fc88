"""``lighthouse run --dry-run``: the plan, its bounds and its power, with nothing called or
written, and the seeds ``--detect`` asks for checked by hand: the spread of seed
differences (both variants together), Holm's alpha / m, the t-based sample size."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.report.methods.tdist import t_quantile
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament

ROOT = Path(__file__).resolve().parents[2]
#: keeper-models.toml's prices, US dollars per million tokens: (input, output)
PRICES = {"gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00), "claude-sonnet": (3.00, 15.00)}


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to open a connection or resolve a name is recorded and refused."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network access in a dry run")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def rows(text: str) -> dict[str, list[str]]:
    """The plan table's rows by entrant: cells split on runs of two or more spaces."""
    out = {}
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 6 and cells[0] != "entrant":
            out[cells[0]] = cells
    return out


def number(cell: str) -> float:
    return float(cell.replace(",", "").replace("$", ""))


def test_keeper_models_dry_run_prints_calls_and_a_cost_bound_offline(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    offline: list[Any],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    capsys.readouterr()
    assert main(["run", str(ROOT / "configs/keeper-models.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert offline == []
    assert list(tmp_path.iterdir()) == []  # no results folder, no file
    assert "400 episodes planned" in out
    assert "0 already done, 400 to play" in out
    assert "UPPER BOUND" in out
    assert "ANTHROPIC_API_KEY NOT SET, OPENAI_API_KEY NOT SET" in out
    table = rows(out)
    # a baseline entrant calls nothing and costs nothing
    assert table["lantern"][3:6] == ["0", "0", "0"]
    assert table["lantern"][-1] == "$0.00"
    total = 0.0
    for name, (price_in, price_out) in PRICES.items():
        row = table[name]
        done, to_play, seats, per_episode, calls = (number(c) for c in row[1:6])
        # one model seat x 60 ticks (the default tick cap) x (a call and one retry)
        assert (done, to_play, seats, per_episode) == (0, 100, 1, 120)
        assert calls == 100 * 120
        tokens_in, tokens_out = number(row[6]), number(row[7])
        assert tokens_out == 100 * 120 * 512  # max_tokens, 512 by default, on every call
        cost = (tokens_in * price_in + tokens_out * price_out) / 1e6
        assert number(row[8]) == pytest.approx(cost, abs=0.005)
        total += cost
    assert number(table["total"][-1]) == pytest.approx(total, abs=0.02)
    assert number(table["total"][-4]) == 3 * 100 * 120


SMALL = """
name = "small"
seeds = [3, 4, 5, 6, 7]
variants = ["default", "spring"]
repetitions = 2
reference = "silent"
rules = { maxTicks = 30 }

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "silent"
keeper = { baseline = "silent" }
runners = { baseline = "wallhug" }
"""


def snapshot(root: Path) -> dict[Path, tuple[int, bytes]]:
    return {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in root.rglob("*") if p.is_file()}


def seeds_by_hand(sigma: float, delta: float, alpha: float) -> int:
    """The least n >= 6 (where a sign-flip test can first reach alpha = 0.05) with
    n >= ((t(1 - alpha/2; n-1) + t(0.8; n-1)) sigma / delta)^2."""
    n = 6
    while ((t_quantile(1 - alpha / 2, n - 1) + t_quantile(0.8, n - 1)) * sigma / delta) ** 2 > n:
        n += 1
    return n


def test_a_dry_run_on_a_folder_counts_what_is_done_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offline: list[Any]
) -> None:
    path, out = tmp_path / "small.toml", tmp_path / "out"
    path.write_text(SMALL)
    asyncio.run(run_tournament(load_tournament(path), out))
    before = snapshot(out)
    path.write_text(SMALL.replace("[3, 4, 5, 6, 7]", "[3, 4, 5, 6, 7, 8]"))
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--dry-run", "--detect", "1.5"]) == 0
    text = capsys.readouterr().out
    assert snapshot(out) == before
    assert offline == []
    assert "48 episodes planned" in text
    assert "40 already done, 8 to play" in text
    assert "API keys: none needed" in text
    # --detect from the folder's seed differences, computed here by hand: cell means
    # (repetitions averaged), each seed's balanced mean over its two variants, then
    # d(s) = lantern - silent and its sample standard deviation
    scores: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    for line in (out / "episodes.jsonl").read_text().splitlines():
        ep = json.loads(line)
        scores[(ep["entrant"], ep["seed"], ep["variant"])].append(ep["score"])

    def seed_score(entrant: str, seed: int) -> float:
        cells = [statistics.fmean(scores[(entrant, seed, v)]) for v in ("default", "spring")]
        return statistics.fmean(cells)

    d = [seed_score("lantern", s) - seed_score("silent", s) for s in (3, 4, 5, 6, 7)]
    sigma_d = statistics.stdev(d)
    n = seeds_by_hand(sigma_d, 1.5, 0.05)  # two entrants: one comparison
    assert f"-> {n} seed{'s' if n != 1 else ''}" in text
    assert "Holm over 1 comparison: alpha 0.05 / 1 = 0.05" in text
    assert (
        f"sigma_d = {sigma_d:.3f}: seed differences lantern - silent, both variants "
        "together, from the folder, over 5 seeds"
    ) in text


def test_detect_refuses_below_five_seeds_and_counts_the_configs_comparisons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offline: list[Any]
) -> None:
    path, out = tmp_path / "small.toml", tmp_path / "out"
    # four seeds in the plan: the scripted entrants played in memory give four
    path.write_text(SMALL.replace("[3, 4, 5, 6, 7]", "[3, 4, 5, 6]"))
    assert main(["run", str(path), "--out", str(out), "--dry-run", "--detect", "2"]) == 0
    told = capsys.readouterr().out
    assert "to detect a difference of 2: no pair and no entrant has finished 5 seeds" in told
    assert "->" not in told  # no sample size
    # three entrants: three comparisons, Holm's first step at 0.05 / 3; nothing in the
    # folder, so two scripted entrants are played in memory on the plan's seeds
    third = '\n[[entrants]]\nname = "pilot"\nkeeper = { baseline = "pilot" }\n'
    third += 'runners = { baseline = "wallhug" }\n'
    path.write_text(SMALL.replace("[3, 4, 5, 6, 7]", "[0, 1, 2, 3, 4, 5, 6, 7]") + third)
    assert main(["run", str(path), "--out", str(out), "--dry-run", "--detect", "2"]) == 0
    told = capsys.readouterr().out
    assert "Holm over 3 comparisons: alpha 0.05 / 3 = 0.0167" in told
    assert "silent - lantern" in told or "lantern - silent" in told
    assert "played now in memory, over 8 seeds" in told
    assert not out.exists()
    assert offline == []


def test_a_dry_run_compares_the_bound_with_the_cost_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offline: list[Any]
) -> None:
    config = str(ROOT / "configs/keeper-models.toml")
    out = str(tmp_path / "out")
    capsys.readouterr()
    assert main(["run", config, "--out", out, "--dry-run", "--max-cost", "50"]) == 0
    told = capsys.readouterr().out
    bound = number(rows(told)["total"][-1])
    assert bound > 50
    assert (
        f"max cost $50.00: $0.00 recorded in the folder; the bound of what is left (${bound:,.2f}) passes the cap"
        in told
    )
    assert main(["run", config, "--out", out, "--dry-run", "--max-cost", str(bound + 1)]) == 0
    assert "the cap is not reached" in capsys.readouterr().out
    # narrowed to one entrant and five seeds: a tenth of that entrant's 100 episodes
    assert (
        main(["run", config, "--out", out, "--dry-run", "--entrants", "gpt-4o", "--seeds", "0:5"])
        == 0
    )
    narrowed = capsys.readouterr().out
    assert "10 episodes planned (1 entrant x 5 seeds x 1 variant x 2 repetitions)" in narrowed
    assert number(rows(narrowed)["gpt-4o"][5]) == 10 * 120
    assert not (tmp_path / "out").exists()
    assert offline == []
