"""An installed harness finds its default prompts: the wheel, installed outside the repository.

The wheel is built from a copy of the sources, installed (not editable) into a fresh
virtualenv in a temporary folder, and its ``lighthouse`` plays an LLM keeper against
the scripted server from another temporary folder. No network: the build uses this
interpreter's setuptools (``--no-build-isolation``) and the virtualenv sees this
interpreter's packages for the dependencies (``--no-deps``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness.testing.llm_server import Reply, ScriptedLLMServer

ROOT = Path(__file__).resolve().parents[1]
KEY_ENV = "WHEEL_TEST_KEY"
#: What goes into the wheel (and nothing from the working tree besides).
SOURCES = (
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "harness",
    "baselines",
    "prompts",
    "lighthouse_harness",
)


def build_problem() -> str | None:
    """Why this interpreter cannot build the wheel offline, or None when it can."""
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed"
    major, minor = (int(p) for p in importlib.metadata.version("setuptools").split(".")[:2])
    if (major, minor) < (77, 0):
        return "setuptools >= 77 is needed (the SPDX license field) to build without isolation"
    return None


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, f"{args}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_an_installed_wheel_plays_an_llm_seat_with_its_default_prompts(tmp_path: Path) -> None:
    problem = build_problem()
    if problem is not None:
        pytest.skip(f"cannot build the wheel here: {problem}")
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy(ROOT / name, source / name)
    dist = tmp_path / "dist"
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input")
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, source, cwd=tmp_path)
    (wheel,) = dist.glob("lighthouse_harness-*.whl")
    with zipfile.ZipFile(wheel) as built:
        names = built.namelist()
        (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
        # the license ships, and the metadata names it as an SPDX expression
        (metadata,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        assert "License-Expression: MIT" in built.read(metadata).decode().splitlines()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
        # the default viewer's board script ships beside the protocol that reads it
        assert "harness/protocol/screen.js" in names
        # the Inspect tasks ship, registered for Inspect (used with the inspect extra)
        assert "lighthouse_harness/tasks.py" in names
        assert "[inspect_ai]\nlighthouse_harness = lighthouse_harness._registry" in (
            built.read(entry_points).decode()
        )

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # The dependencies are this interpreter's: its site folders, after the venv's own.
    purelib = run(
        python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path
    )
    (Path(purelib.strip()) / "test-dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    run(*pip, "--python", python, "install", "--no-deps", "-q", wheel, cwd=tmp_path)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env[KEY_ENV] = "sk-wheel-test-0123456789"
    where = run(
        python, "-c", "import harness, prompts; print(harness.__file__); print(prompts.__file__)",
        cwd=elsewhere, env=env,
    )  # fmt: skip
    for path in where.split():
        assert Path(path).is_relative_to(venv), f"{path} is not the installed copy"

    record = elsewhere / "ep.jsonl"
    with ScriptedLLMServer(default=lambda path, body: Reply('{"transmit": false}')) as server:
        out = run(
            venv / "bin" / "lighthouse", "play", "--seed", "7", "--keeper", "openai:m",
            "--base-url", server.openai_url, "--api-key-env", KEY_ENV,
            "--record", record, "--quiet", cwd=elsewhere, env=env,
        )  # fmt: skip
    assert "keeper openai:m" in out
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    details = lines[0]["seats"][0]["agent"]["details"]
    shipped = (ROOT / "prompts" / "lighthouse" / "keeper.system.md").read_bytes()
    assert details["systemPromptSha256"] == hashlib.sha256(shipped).hexdigest()
    assert {t["seats"]["keeper"]["source"] for t in lines if t["type"] == "tick"} == {"llm"}
    # the system prompt the server received is the shipped one
    system = server.requests[-1].body["messages"][0]["content"]
    assert system == shipped.decode("utf-8")
    # the results browser's page ships too
    (elsewhere / "tiny.toml").write_text(
        'name = "tiny"\nseeds = [1, 2]\n[[entrants]]\nname = "lantern"\n'
        'keeper = { baseline = "lantern" }\nrunners = { baseline = "wallhug" }\n'
    )
    lighthouse = venv / "bin" / "lighthouse"
    run(lighthouse, "run", "tiny.toml", "--out", "tiny", "--no-report", cwd=elsewhere, env=env)
    run(lighthouse, "view", "tiny", "--out", "site", cwd=elsewhere, env=env)
    assert "lantern--default--s2--r0" in (elsewhere / "site" / "index.html").read_text()
