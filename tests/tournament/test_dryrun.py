"""``lighthouse run --dry-run``: the plan, its bounds and its power, with nothing called or
written, and the sample-size formula behind ``--detect`` checked by hand."""

from __future__ import annotations

import asyncio
import json
import math
import re
import socket
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.report.power import cells_needed, spread
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
seeds = [3, 4, 5, 6]
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


def test_a_dry_run_on_a_folder_counts_what_is_done_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], offline: list[Any]
) -> None:
    path, out = tmp_path / "small.toml", tmp_path / "out"
    path.write_text(SMALL)
    asyncio.run(run_tournament(load_tournament(path), out))
    before = snapshot(out)
    path.write_text(SMALL.replace("[3, 4, 5, 6]", "[3, 4, 5, 6, 7]"))
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--dry-run", "--detect", "1.5"]) == 0
    text = capsys.readouterr().out
    assert snapshot(out) == before
    assert offline == []
    assert "40 episodes planned" in text
    assert "32 already done, 8 to play" in text
    assert "API keys: none needed" in text
    # --detect from the folder's paired differences, computed here by hand: cell means
    # (repetitions averaged), d(c) = lantern - silent, its sample standard deviation
    scores: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    for line in (out / "episodes.jsonl").read_text().splitlines():
        ep = json.loads(line)
        scores[(ep["entrant"], ep["seed"], ep["variant"])].append(ep["score"])
    cells = sorted({(s, v) for _, s, v in scores})
    d = [sum(scores[("lantern", *c)]) / 2 - sum(scores[("silent", *c)]) / 2 for c in cells]
    sigma_d = statistics.stdev(d)
    z = statistics.NormalDist().inv_cdf(0.975) + statistics.NormalDist().inv_cdf(0.8)
    n = math.ceil((z * sigma_d / 1.5) ** 2)
    assert f"-> {n} cells = {math.ceil(n / 2)} seed(s) at 2 variant(s)" in text
    assert f"sigma_d = {sigma_d:.3f}: paired differences lantern - silent, over 8 cells" in text


def test_cells_needed_by_hand() -> None:
    # ((1.959964 + 0.841621) x 5 / 2)^2 = 49.05 -> 50
    assert cells_needed(5.0, 2.0) == 50
    # ((2.801585) x 1 / 4)^2 = 0.49 -> at least two cells
    assert cells_needed(1.0, 4.0) == 2
    with pytest.raises(ValueError, match="positive"):
        cells_needed(1.0, 0.0)


def test_spread_by_hand() -> None:
    a = {(1, "d"): 10.0, (2, "d"): 14.0, (3, "d"): 12.0}
    b = {(1, "d"): 9.0, (2, "d"): 10.0, (3, "d"): 13.0}
    # d = 1, 4, -1: mean 4/3, sample variance (1/9 + 64/9 + 49/9) / 2 = 19/3
    found = spread({"a": a, "b": b}, None)
    assert found is not None
    assert found.sigma_d == pytest.approx(math.sqrt(19 / 3))
    assert found.cells == 3
    # one entrant alone: sqrt(2) x the sample standard deviation of its cell means (2)
    alone = spread({"a": a}, None)
    assert alone is not None
    assert alone.sigma_d == pytest.approx(math.sqrt(2) * 2.0)
    assert spread({"a": {(1, "d"): 3.0}}, None) is None


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


def test_no_sample_size_from_cells_that_do_not_vary() -> None:
    from harness.report.power import Spread, describe

    told = describe(1.0, Spread(0.0, "sqrt(2) x the spread of greedy's cell means", 20), 1)
    assert len(told) == 1
    assert "do not vary" in told[0]
    assert "cells =" not in told[0]
