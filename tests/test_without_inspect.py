"""The harness without the ``inspect`` extra: it runs, and ``kind = "inspect"`` says what
to install.

The check runs in a Python whose packages are this one's minus Inspect AI (a folder
of links to every installed package but ``inspect_ai``), so it holds whether or not
the extra is installed here.
"""

from __future__ import annotations

import json
import site
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL = "pip install 'lighthouse-harness[inspect]'"

CONFIG = """
name = "needs-inspect"
seeds = [0]
rules = { maxTicks = 3 }

[providers.insp]
kind = "inspect"

[[entrants]]
name = "model"
keeper = { provider = "insp", model = "openai/gpt-4o-mini" }
runners = { baseline = "wallhug" }
"""

CHILD = """
import contextlib, importlib.util, io, json, sys
sys.path[:0] = [{root!r}, {packages!r}]
from harness.cli import main
import harness
from harness.errors import ConfigError
out = {{"inspect": importlib.util.find_spec("inspect_ai") is not None}}
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    out["run"] = main(["run", {config!r}, "--out", {results!r}])
out["run_error"] = err.getvalue()
out["score"] = harness.play("lighthouse", 3).scores[0]
try:
    harness.play("lighthouse", 3, keeper={{"provider": "insp", "model": "openai/gpt-4o-mini"}},
                 providers={{"insp": {{"kind": "inspect"}}}})
except ConfigError as exc:
    out["api_error"] = str(exc)
out["modules"] = sorted(m for m in sys.modules if m.split(".")[0] in ("inspect_ai", "lighthouse_harness"))
print(json.dumps(out))
"""


def _packages_without_inspect(folder: Path) -> Path:
    """A folder linking every installed package but Inspect AI's (and no .pth files)."""
    folder.mkdir()
    for packages in site.getsitepackages():
        for entry in Path(packages).iterdir():
            if entry.name.startswith("inspect_ai") or entry.suffix == ".pth":
                continue
            link = folder / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return folder


def test_without_inspect_the_harness_runs_and_kind_inspect_names_the_extra(
    tmp_path: Path,
) -> None:
    config = tmp_path / "needs-inspect.toml"
    config.write_text(CONFIG)
    code = CHILD.format(
        root=str(ROOT),
        packages=str(_packages_without_inspect(tmp_path / "packages")),
        config=str(config),
        results=str(tmp_path / "results"),
    )
    # -S: no site-packages but the folder the child puts on its path
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["inspect"] is False
    assert out["run"] == 2
    assert (
        "kind 'inspect' calls models through Inspect AI, which is not installed"
        in (out["run_error"])
    )
    assert INSTALL in out["run_error"]
    assert len(out["run_error"].strip().splitlines()) == 1
    assert INSTALL in out["api_error"]
    assert not (tmp_path / "results").exists()
    assert out["score"] > 0  # a baseline episode plays as ever
    assert out["modules"] == []
