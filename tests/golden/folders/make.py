"""Make the results folders under tests/golden/folders/: how the ones kept there were made.

    python -m tests.golden.folders.make SCRATCH

The folders kept were written by harness 0.1.0 at commit 97d07c4, before manifests
and reports had models, and are never made again: they are what a folder written by
an earlier harness holds, and the reports of tests/golden/reports/ are what reading
them must keep giving (tests/results/test_old_folders.py). This script says how they
were made (it plays every config into SCRATCH/full/, copies the files a report and
the browser read into SCRATCH/kept/ and packs each as SCRATCH/NAME.tar.gz); run now, it writes folders of the current
version, which is no substitute.

Kept per folder: manifest.json, episodes.jsonl, any ceiling-*.json and superseded/;
the records too, except smoke's (300 records, 23 MB: its browser is checked without
episode pages). The oldest form, a folder from before identities whose records
predate prompts, is made from ``models`` where it is used
(:func:`tests.older_records.folder_before_identities`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.testing.llm_server import Action, Raw, Reply, ScriptedLLMServer
from tests.golden.folders import pack

ROOT = Path(__file__).resolve().parents[3]
KEY_ENV = "GOLDEN_FOLDERS_KEY"
ENVIRON = {**os.environ, KEY_ENV: "sk-golden-folders-0123456789"}
TICK = re.compile(r"Tick (\d+) of")

SMALL = """
name = "small"
seeds = [3, 4]
variants = ["default", "spring"]
repetitions = 1
reference = "silent"
rules = {{ maxTicks = 8 }}
{extra}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "silent"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
{more}
"""

GROWN_MORE = """
[[entrants]]
name = "pilot"
keeper = { baseline = "pilot" }
runners = { baseline = "wallhug" }
"""

#: the grown config: a seed more, silent's keeper changed (its episodes superseded),
#: pilot gone (its episodes set aside), lantern-b the same spec as lantern
GROWN = """
name = "small"
seeds = [3, 4, 5]
variants = ["default", "spring"]
repetitions = 1
reference = "silent"
rules = { maxTicks = 8 }

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "silent"
keeper = { baseline = "pilot" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "lantern-b"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }
"""

MODELS = """
name = "models"
seeds = [0, 1, 2]
variants = ["default"]
repetitions = 1
reference = "lantern"
concurrency = 2
rules = {{ maxTicks = 8 }}
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

# structured_output = false: the folders were made when that was the default at a base_url

[[entrants]]
name = "model"
keeper = {{ provider = "local", model = "scripted", max_tokens = 64, structured_output = false }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "junk"
keeper = {{ provider = "local", model = "scripted", max_tokens = 64, temperature = 0.5, structured_output = false }}
runners = {{ baseline = "wallhug" }}
"""


def answer(path: str, body: dict[str, Any]) -> Action:
    """Replies that depend only on the request: the tick, whether it is a retry, and
    which entrant asks (``junk`` never answers usably: every turn falls back)."""
    text = json.dumps(body)
    found = TICK.search(text)
    tick = int(found.group(1)) if found else 0
    retry = len(body.get("messages", [])) > 2
    if body.get("temperature") == 0.5:
        return Reply("I would rather not say.")
    if tick == 1:  # prose around JSON, fixed on the retry: a rescued retry
        return Reply('{"transmit": false}' if retry else 'Sure: {"transmit": false}')
    if tick == 3:  # the wrong type twice: a fallback
        return Reply('{"transmit": "yes"}')
    if tick == 5:  # a body that is not JSON: a fallback of the API kind
        return Raw(b"\xff\xfe not json")
    if tick % 2 == 0:
        return Reply(
            '{"transmit": true, "message": "Sprocket N; Gizmo N; Ratchet W"}',
            input_tokens=700,
            output_tokens=30,
        )
    return Reply('{"transmit": false}', input_tokens=650, output_tokens=8)


def lighthouse(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=ROOT,
        env=ENVIRON,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"lighthouse {' '.join(args)}: {done.stderr}")


def _config(where: Path, name: str, text: str) -> str:
    path = where / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def play(full: Path) -> None:
    """Every folder, written by the harness installed now."""
    lighthouse("run", "configs/smoke.toml", "--out", str(full / "smoke"), "--no-report")
    small = _config(full, "small", SMALL.format(extra="", more=""))
    for i in (1, 2):
        lighthouse("run", small, "--shard", f"{i}/2", "--out", str(full / f"shard-{i}"),
                   "--no-report")  # fmt: skip
    lighthouse("merge", str(full / "shard-1"), str(full / "shard-2"), "--out",
               str(full / "merged"))  # fmt: skip
    lighthouse("merge", str(full / "shard-1"), "--out", str(full / "half"))
    first = _config(full, "grow-1", SMALL.format(extra="", more=GROWN_MORE))
    lighthouse("run", first, "--out", str(full / "grown"), "--no-report")
    lighthouse("run", _config(full, "grow-2", GROWN), "--out", str(full / "grown"),
               "--limit", "3", "--no-report")  # fmt: skip
    with ScriptedLLMServer(default=answer) as server:
        for name, extra in (("models", ""), ("capped", "max_cost = 30.0")):
            text = MODELS.format(url=server.openai_url, key_env=KEY_ENV, extra=extra)
            lighthouse("run", _config(full, name, text), "--out", str(full / name), "--no-report")
    # a hidden ceiling, played for a report and kept in the folder
    lighthouse("report", str(full / "models"), "--ceiling", "pilot")


#: The folders kept, and whether their records are (the others' are too many to keep:
#: their browser is checked without episode pages).
KEPT = {"smoke": False, "shard-1": False, "half": False, "merged": False, "grown": False,
        "models": True, "capped": True}  # fmt: skip


def keep(full: Path, kept: Path) -> None:
    """The files a report and the browser read, per folder kept (superseded/ whole: its
    records say which of its lines count)."""
    for name, records in KEPT.items():
        folder, target = full / name, kept / name
        target.mkdir(parents=True)
        for path in folder.iterdir():
            if path.name in ("manifest.json", "episodes.jsonl") or (
                path.name.startswith("ceiling-") and path.suffix == ".json"
            ):
                shutil.copyfile(path, target / path.name)
            elif path.name == "superseded" or (path.name == "records" and records):
                shutil.copytree(path, target / path.name)


def pack_all(kept: Path, into: Path) -> None:
    """Each kept folder as ``into/NAME.tar.gz``."""
    for name in KEPT:
        pack(kept / name, into / f"{name}.tar.gz")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    scratch = Path(args[0])
    (scratch / "full").mkdir(parents=True)
    play(scratch / "full")
    keep(scratch / "full", scratch / "kept")
    pack_all(scratch / "kept", scratch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
