"""Memory against a server whose answers never end: peak RSS of ``lighthouse run``.

    python -m benchmarks.endless_body [--ticks 10]

(Run it as a module, like every benchmark here.)

A server in a process of its own (``--serve MODE``) answers every request with a body
that never ends: ``chunked`` streams 64 KiB chunks forever, ``declared`` claims a
Content-Length of 10 GiB and streams toward it, ``gzip`` sends a gzip of 64 MiB of
spaces (a 64 KiB body). Against it, ``lighthouse run`` plays one Lighthouse episode
of ``--ticks`` ticks whose four seats (the keeper and three runners) are all model
seats, with each SDK on each transport, in a fresh child process each
(``--child``), so each ``ru_maxrss`` is that run's own peak. For comparison, the
same run against the same server answering every request with a valid reply
(``good``). Before the body cap, one seat reached 3.1 GiB in 5 s against ``chunked``.

Printed: the run's wall time, the ticks played, the turns that fell back, and the
child's peak RSS. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._llm_server_process import answer, spawn

ROOT = Path(__file__).resolve().parents[1]
KEY_ENV = "ENDLESS_BODY_KEY"
MODES = ["good", "chunked", "declared", "gzip"]
CLIENTS = [("openai", "aiohttp"), ("openai", "httpx"), ("anthropic", "aiohttp"),
           ("anthropic", "httpx")]  # fmt: skip

CONFIG = """\
name = "endless"
seeds = [1]
rules = {{ maxTicks = {ticks} }}

[providers.p]
kind = "{sdk}"
base_url = "{url}"
api_key_env = "{key_env}"
transport = "{transport}"

[[entrants]]
name = "four-models"
keeper = {{ provider = "p", model = "endless", call_timeout_seconds = 20 }}
runners = {{ provider = "p", model = "endless", call_timeout_seconds = 20 }}
"""


def serve(mode: str) -> None:
    """The server process: ``PORT <n>`` on stdout, then answers until stdin closes."""
    from harness.testing.llm_server import Action, Endless, Raw, ScriptedLLMServer

    endless: dict[str, Action] = {
        "chunked": Endless(),
        "declared": Endless(declared=10 << 30),
        "gzip": Raw(gzip.compress(b" " * (64 << 20)), headers={"content-encoding": "gzip"}),
    }
    server = ScriptedLLMServer()

    def handle(path: str, body: dict[str, Any]) -> Action:
        server.requests.clear()
        return answer(path, body) if mode == "good" else endless[mode]

    server.default = handle
    server.start()
    try:
        print(f"PORT {server.port}", flush=True)
        sys.stdin.read()
    finally:
        server.stop()


def child(config: Path, out: Path) -> None:
    """One ``lighthouse run``; prints its figures as one JSON line."""
    from harness.cli import main

    began = time.perf_counter()
    status = main(["run", str(config), "--out", str(out), "--no-report", "--workers", "0"])
    wall = time.perf_counter() - began
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    record = next((out / "records").glob("*.jsonl"))
    ticks = fallbacks = 0
    for line in record.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        if doc["type"] == "tick":
            ticks += 1
            fallbacks += sum(t["source"] == "fallback_api" for t in doc["seats"].values())
    print(json.dumps({"status": status, "wall": wall, "peak_mib": peak_kib / 1024,
                      "ticks": ticks, "fallbacks": fallbacks}))  # fmt: skip


def run_one(mode: str, sdk: str, transport: str, ticks: int, work: Path) -> dict[str, Any]:
    import subprocess

    with spawn(["-m", "benchmarks.endless_body", "--serve", mode], cwd=ROOT) as port:
        url = f"http://127.0.0.1:{port}" + ("/v1" if sdk == "openai" else "")
        folder = work / f"{mode}-{sdk}-{transport}"
        folder.mkdir()
        config = folder / "endless.toml"
        config.write_text(
            CONFIG.format(ticks=ticks, sdk=sdk, url=url, key_env=KEY_ENV, transport=transport)
        )
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.endless_body", "--child", str(config),
             str(folder / "out")],
            cwd=ROOT, env={**os.environ, KEY_ENV: "sk-endless-benchmark-key"},
            capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ticks", type=int, default=10)
    parser.add_argument("--serve", choices=MODES)
    parser.add_argument("--child", nargs=2, type=Path, metavar=("CONFIG", "OUT"))
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if args.child:
        child(*args.child)
        return
    print(f"lighthouse run, 4 model seats, {args.ticks} ticks; the server in its own process")
    print(f"{'server':9} {'sdk':9} {'transport':9} {'wall s':>7} {'ticks':>5} "
          f"{'fell back':>9} {'peak RSS':>9}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            for sdk, transport in CLIENTS:
                f = run_one(mode, sdk, transport, args.ticks, Path(tmp))
                print(f"{mode:9} {sdk:9} {transport:9} {f['wall']:7.2f} {f['ticks']:5d} "
                      f"{f['fallbacks']:9d} {f['peak_mib']:6.0f} MiB", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
