"""Tournament configs: a valid one loads; each malformed one gives one clear error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ConfigError
from harness.games.lighthouse.config import LighthouseConfig
from harness.registry import get_game
from harness.tournament.config import LLMSeatConfig, TournamentConfig, load_tournament
from harness.tournament.run import plan_episodes

BASELINES = {"keeper": ("lantern", "silent"), "runner": ("wallhug",)}
ROOT = Path(__file__).resolve().parents[2]

VALID = """
name = "t"
seeds = { start = 0, stop = 3 }
variants = ["default", "spring"]
reference = "lantern"

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "LOCAL_KEY"
requests_per_period = 10
period_seconds = 1
prices = { m = { input_per_mtok = 1.0, output_per_mtok = 2.0 } }

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "model"
keeper = { provider = "local", model = "m", temperature = 0.5, prompts = { system = "p/k.md", observation = "p/o.md", retry_hint = "p/r.md" } }
runners = [{ baseline = "wallhug" }, { provider = "local", model = "m" }, { baseline = "wallhug" }]
"""


def write(tmp_path: Path, text: str) -> Path:
    prompts = tmp_path / "p"
    prompts.mkdir(exist_ok=True)
    for name in ("k.md", "o.md", "r.md"):
        (prompts / name).write_text("You are the KEEPER. $observation $problem")
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def load(path: Path) -> TournamentConfig:
    return load_tournament(path)


def test_a_valid_config_loads_and_resolves(tmp_path: Path) -> None:
    config = load(write(tmp_path, VALID))
    assert config.seed_list() == [0, 1, 2]
    assert config.variants == ["default", "spring"]
    model = config.entrants[1]
    keeper = model.seats["keeper"]
    assert isinstance(keeper, LLMSeatConfig)
    assert keeper.prompts is not None
    assert keeper.prompts.system == (tmp_path / "p" / "k.md").resolve()
    options = config.seat_options(keeper)
    assert options.provider.base_url == "http://127.0.0.1:9/v1"
    assert options.provider.requests_per_period == 10
    assert options.temperature == 0.5
    seats = model.seat_specs(get_game("lighthouse"))
    assert [role for role, _ in seats.values()] == ["keeper", "runner", "runner", "runner"]
    assert isinstance(seats["runner2"][1], LLMSeatConfig)
    assert not isinstance(seats["runner1"][1], LLMSeatConfig)
    spring = config.game_config("spring")
    assert isinstance(spring, LighthouseConfig)
    assert spring.tide_period == 5
    assert config.game_config("default").episode_timeout_seconds == 900


#: The example configs under configs/, as docs/tournaments.md and the README list them.
SHIPPED = [
    "crossplay",
    "hourloom-smoke",
    "keeper-models",
    "local-server",
    "prompt-vs-lantern",
    "relayroam-smoke",
    "smoke",
]


def test_the_shipped_configs_load() -> None:
    paths = sorted((ROOT / "configs").glob("*.toml"))
    assert [path.stem for path in paths] == SHIPPED
    for path in paths:
        config = load(path)
        assert config.name == path.stem
        game = get_game(config.game)
        assert plan_episodes(config)
        for variant in config.variant_list():
            rules = config.game_config(variant)
            game_default: Any = game.rules.make_config(variant, {}, None)
            default = game_default.episode_timeout_seconds
            assert rules.episode_timeout_seconds == (config.episode_timeout_seconds or default)
        assert config.reference in {entrant.name for entrant in config.entrants}
        for entrant in config.entrants:
            specs = entrant.seat_specs(game)
            assert set(specs) == {seat for group in game.seat_groups for seat in group.seats}
            for _, spec in specs.values():
                if isinstance(spec, LLMSeatConfig):
                    options = config.seat_options(spec)
                    assert (options.provider.kind, options.model) == (
                        config.providers[spec.provider].kind,
                        spec.model,
                    )


def test_the_hash_changes_with_the_config(tmp_path: Path) -> None:
    a = load(write(tmp_path, VALID)).config_hash()
    b = load(write(tmp_path, VALID.replace("stop = 3", "stop = 4"))).config_hash()
    assert a != b
    assert a == load(write(tmp_path, VALID)).config_hash()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("name = \"t\"", "name = \"t\"\ncolour = \"red\""), "t.toml: colour: Extra inputs are not permitted"),
        (('variants = ["default", "spring"]', 'variants = "default"'), "t.toml: variants: Input should be a valid list"),
        (("seeds = { start = 0, stop = 3 }", "seeds = { start = 5, stop = 3 }"), "t.toml: seeds: stop (3) must be greater than start (5)"),
        (("seeds = { start = 0, stop = 3 }", "seeds = [1, 1]"), "seeds must be distinct"),
        (("seeds = { start = 0, stop = 3 }", "seeds = [-1]"), "t.toml: seeds: seed must be an integer 0..9007199254740991, got -1 (number 1 in the list)"),
        (("seeds = { start = 0, stop = 3 }", f"seeds = [1, {'9' * 200}]"), "t.toml: seeds.1: integer outside TOML's 64-bit range"),
        (("seeds = { start = 0, stop = 3 }", f"seeds = {{ start = {'9' * 200}, stop = 3 }}"), "t.toml: seeds.start: integer outside TOML's 64-bit range"),
        (("seeds = { start = 0, stop = 3 }", f"seeds = [1, {10**18}]"), "t.toml: seeds: seed must be an integer 0..9007199254740991, got 1000000000000000000 (number 2 in the list)"),
        (("seeds = { start = 0, stop = 3 }", f"seeds = {{ start = {10**18}, stop = 3 }}"), "t.toml: seeds.start: start must be an integer 0..9007199254740991, got 1000000000000000000"),
        (("seeds = { start = 0, stop = 3 }", "seeds = { start = 0, stop = 9007199254740993 }"), "t.toml: seeds.stop: stop must be an integer 1..9007199254740992 (it is excluded), got 9007199254740993"),
        (("seeds = { start = 0, stop = 3 }", "seeds = { start = 0, stop = 1000001 }"), "t.toml: seeds: a range holds at most 1,000,000 seeds"),
        (("seeds = { start = 0, stop = 3 }", f"seeds = [{'9' * 5000}]"), "t.toml: not valid TOML: an integer is outside TOML's 64-bit range"),
        (('name = "t"', 'name = "../x"'), "t.toml: name: '../x' must be a plain name"),
        (('name = "t"', 'name = "/tmp/x"'), "t.toml: name: '/tmp/x' must be a plain name"),
        (('name = "t"', 'name = "a\\u0000b"'), "t.toml: name: 'a\\x00b' must be a plain name"),
        (('name = "t"', f'name = "{"n" * 256}"'), "must be a plain name, 1-64 letters"),
        (('name = "model"', 'name = "LANTERN"'), "entrants: 'lantern' and 'LANTERN' differ only in case"),
        (('provider = "local", model = "m", temperature', 'provider = "remote", model = "m", temperature'), "entrant 'model', keeper.provider: there is no [providers.remote] table (this config has: local); add one for this model seat, with kind = \"openai\" or \"anthropic\""),
        (('system = "p/k.md"', 'system = "p/missing.md"'), "t.toml: entrant 'model', keeper.prompts.system: no such file"),
        (('keeper = { baseline = "lantern" }', 'keeper = { baseline = "wallhug" }'), "t.toml: entrant 'lantern', keeper.baseline: 'wallhug' is not a keeper baseline"),
        (('reference = "lantern"', 'reference = "nobody"'), "reference: 'nobody' is not an entrant"),
        (('kind = "openai"', 'kind = "gemini"'), "t.toml: providers.local.kind"),
        (('temperature = 0.5', 'temperature = "warm"'), "t.toml: entrant 'model', keeper.temperature: Input should be a valid number"),
        (('name = "model"', 'name = "lantern"'), "duplicate names ['lantern']"),
        (('name = "model"', 'name = "my model"'), "t.toml: [[entrants]] number 2, name: 'my model' must be"),
        (("name = \"t\"", "name = \"t\" = 2"), "t.toml: not valid TOML"),
        (('name = "t"', 'name = "t"\ngame = "chess"'), "t.toml: game: unknown game 'chess'"),
        (('runners = { baseline = "wallhug" }', 'runnerz = { baseline = "wallhug" }'), "t.toml: entrant 'lantern', runnerz: not a seat of lighthouse"),
        (('runners = [{ baseline = "wallhug" }, { provider = "local", model = "m" }, { baseline = "wallhug" }]', 'runners = [{ baseline = "wallhug" }]'), "t.toml: entrant 'model', runners: give one spec for all, or exactly 3; got 1"),
        (('variants = ["default", "spring"]', 'variants = ["neap"]'), "variants: 'neap' is not one of"),
    ],
)  # fmt: skip
def test_malformed_configs_give_one_clear_error(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load(path)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('keeper = { baseline = "lantern" }', 'keeper = 7'),
         "t.toml: entrant 'lantern', keeper: a seat is a table: { baseline = \"NAME\" }, "
         "{ provider = \"NAME\", model = \"MODEL\" }, { python = \"MODULE:CALLABLE\" } "
         "or { human = \"NAME\" }; got 7"),
        (('keeper = { baseline = "lantern" }', "keeper = [1]"), "t.toml: entrant 'lantern', keeper.0: a seat is a table"),
        (('prompts = { system = "p/k.md", observation = "p/o.md", retry_hint = "p/r.md" }', "prompts = 3"),
         "t.toml: entrant 'model', keeper.prompts: should be a table (key = value, ...), got 3"),
        (('name = "lantern"\n', ""), "t.toml: [[entrants]] number 1, name: Field required"),
    ],
)  # fmt: skip
def test_config_errors_name_entrants_and_never_a_class(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    old, new = change
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load(path)
    text = str(info.value)
    assert message in text
    assert "Config" not in text  # no LLMSeatConfig, EntrantConfig, PromptFiles ...
    assert "entrants.0" not in text
    assert "entrants.1" not in text


def test_a_missing_provider_table_says_how_to_add_it(tmp_path: Path) -> None:
    text = VALID.replace("[providers.local]", "[providers.elsewhere]")
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text))
    assert str(info.value).endswith(
        "t.toml: entrant 'model', keeper.provider: there is no [providers.local] table "
        '(this config has: elsewhere); add one for this model seat, with kind = "openai" or '
        '"anthropic" (and base_url for another OpenAI-compatible server): see '
        "docs/tournaments.md"
    )


def test_a_bad_config_starts_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, VALID.replace('reference = "lantern"', 'reference = "x"'))
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", str(path), "--out", str(out)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("lighthouse: error:") == 1
    assert "reference: 'x' is not an entrant" in proc.stderr
    assert not out.exists()


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml: cannot read"):
        load(tmp_path / "nope.toml")
