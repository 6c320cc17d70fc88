"""Commands that call no model import no SDK (nor Inspect AI), and help imports no game:
counted in sys.modules, never timed (benchmarks/cli_startup.py measures the time)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Inspect AI too: only a provider of kind inspect (and the Inspect tasks) import it.
SDKS = ("openai", "anthropic", "inspect_ai")
#: What the list of commands and a command's help need not load: the games (through
#: the registry), pydantic, the HTTP server.
HEAVY = ("harness.registry", "pydantic", "uvicorn", "starlette", *SDKS)

# Runs the command in a fresh interpreter and prints which SDKs it imported.
CHILD = """
import contextlib, io, json, sys
from harness.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main({argv!r})
print(json.dumps(sorted(m for m in {sdks!r} if m in sys.modules)))
"""


def _imported(argv: list[str], modules: tuple[str, ...] = SDKS) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(argv=argv, sdks=modules)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["run", "--help"], ["board", "--seed", "3"], ["play", "--seed", "3", "--quiet"]],
)
def test_a_command_without_model_seats_imports_no_sdk(argv: list[str]) -> None:
    assert _imported(argv) == []


def test_the_python_api_imports_no_sdk_and_no_inspect() -> None:
    code = (
        "import sys, harness; env = harness.make('lighthouse'); env.play(3); "
        "harness.make('relayroam').play(1); "
        f"print(sorted(m for m in {SDKS!r} + ('lighthouse_harness',) if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


def test_building_a_model_provider_imports_its_sdk() -> None:
    # the counterpart: the check above sees an SDK when one is imported
    code = (
        "import sys; from harness.llm.factory import make_provider; "
        "from harness.llm.options import ProviderOptions; "
        "make_provider(ProviderOptions(kind='openai', api_key_env='K'), {'K': 'sk-x'}); "
        f"print(sorted(m for m in {SDKS!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "['openai']", done.stderr


@pytest.mark.parametrize(
    "argv", [["--help"], ["run", "--help"], ["merge", "--help"], ["--version"]]
)
def test_help_loads_no_game_no_pydantic_and_no_server(argv: list[str]) -> None:
    assert _imported(argv, HEAVY) == []


def test_serve_help_loads_no_server() -> None:
    assert _imported(["serve", "--help"], HEAVY) == []


def test_board_loads_its_game_and_nothing_it_does_not_use() -> None:
    # the counterpart of the checks above: board does load the registry and pydantic
    assert _imported(["board", "--seed", "3"], HEAVY) == ["harness.registry", "pydantic"]
