"""The results browser without a browser: a folder still being written, byte-identical
static sites, every game, model entrants with fallbacks, the server and the command."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from harness.browse.episode import episode_page
from harness.browse.folder import read_folder
from harness.browse.index import index_page
from harness.browse.site import write_site
from harness.errors import ConfigError
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from tests.browse.conftest import digest, make_folder, serving
from tests.ctrl_c import FOREGROUND
from tests.in_process import lighthouse


def contents(root: Path) -> dict[str, str]:
    return {name: sha for name, (sha, _, _) in digest(root).items()}


def rows_of(page: str) -> list[dict[str, str]]:
    """Each episode row's data attributes, as the index page holds them."""
    return [
        dict(re.findall(r'data-([a-z]+)="([^"]*)"', attrs))
        for attrs in re.findall(r'<tr class="status-[^"]*"([^>]*)>', page)
    ]


#: the command, with every thread's stack printed on SIGABRT should it ever hang
PYTHON = (sys.executable, "-X", "faulthandler", "-m", "harness.cli")


def get(url: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def being_written(folder200: Path, where: Path) -> tuple[Path, dict[str, Any]]:
    """A copy of the folder as a crash or a running tournament leaves it."""
    folder = where / "live"
    shutil.copytree(folder200, folder)
    episodes = folder / "episodes.jsonl"
    lines = episodes.read_bytes().splitlines(keepends=True)
    kept, unlisted, playing = lines[:-4], lines[-4:-1], json.loads(lines[-1])
    # the episode in play: no results line, its record half written, its last line torn
    record = folder / "records" / f"{playing['episodeId']}.jsonl"
    text = record.read_bytes()
    cut = text[: text.index(b"\n", len(text) // 2) + 40]
    (folder / "records" / f"{playing['episodeId']}.jsonl.partial").write_bytes(cut)
    record.unlink()
    # another just started: its header not even whole
    (folder / "records" / "silent--spring--s99--r0.jsonl.partial").write_bytes(text[:30])
    # and the results lines: a damaged line among them, the last one torn by an append
    damaged = b'{"episodeId": "nothing here"}\n'
    episodes.write_bytes(b"".join(kept[:5]) + damaged + b"".join(kept[5:]) + unlisted[0][:50])
    facts = {
        "finished": len(kept),
        "unlisted": [json.loads(x)["episodeId"] for x in unlisted],
        "playing": playing["episodeId"],
    }
    return folder, facts


def test_a_folder_being_written_is_shown_as_it_is(folder200: Path, tmp_path: Path) -> None:
    folder, facts = being_written(folder200, tmp_path)
    before = digest(folder)
    snapshot = read_folder(folder)
    by_status: dict[str, list[str]] = {}
    for row in snapshot.rows:
        by_status.setdefault(row.status, []).append(row.episode_id)
    assert len(by_status["finished"]) == facts["finished"]
    # records without their results line yet, and the one being played, are in progress
    assert sorted(by_status["in progress"]) == sorted([*facts["unlisted"], facts["playing"]])
    assert snapshot.report.completeness.complete is False
    assert snapshot.report.episodes == facts["finished"]
    assert any(n.startswith("episodes.jsonl:6: skipped") for n in snapshot.notes)
    assert any("silent--spring--s99--r0" in n for n in snapshot.notes)
    page = index_page(snapshot)
    assert 'id="incomplete"' in page
    assert "4 episodes in progress" in page
    assert "(incomplete)" in page
    assert "provisional (dashed)" in page
    listed = rows_of(page)
    assert len(listed) == facts["finished"] + 4
    # the episode being played opens, up to its last whole line, as unfinished
    playing = next(r for r in snapshot.rows if r.episode_id == facts["playing"])
    viewer = episode_page(snapshot, playing)
    assert "unfinished" in viewer
    assert f"{facts['playing']}: in progress" in viewer
    # served, and written as a site: every page answers, nothing crashes
    with serving(folder) as url:
        assert get(url)[0] == 200
        assert get(f"{url}episodes/{facts['playing']}.html")[0] == 200
    written = write_site(folder, tmp_path / "site")
    assert written.pages == len(listed)
    assert digest(folder) == before  # read, never written


def test_the_same_folder_gives_the_same_site_byte_for_byte(folder200: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_site(folder200, one)
    write_site(folder200, two)
    first = contents(one)
    assert len(first) == 201  # the index and a page per episode
    assert contents(two) == first
    # again into the same folder: the same files, and a page no longer wanted goes
    (one / "episodes" / "gone.html").write_text("old")
    write_site(folder200, one)
    assert contents(one) == first


def test_the_site_is_never_written_into_the_folder_or_over_other_files(
    folder200: Path, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="inside the results folder"):
        write_site(folder200, folder200 / "site")
    with pytest.raises(ConfigError, match="inside the results folder"):
        write_site(folder200, folder200)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="a folder with other files in it"):
        write_site(folder200, other)
    with pytest.raises(ConfigError, match=r"no manifest\.json here"):
        write_site(tmp_path / "nothing", tmp_path / "site")


RELAYROAM = """
name = "roam"
game = "relayroam"
seeds = [0, 1, 2]
reference = "greedy"
rules = { chamberCap = 3 }

[[entrants]]
name = "greedy"
player = { baseline = "greedy" }

[[entrants]]
name = "vent-aware"
player = { baseline = "vent-aware-greedy" }
"""


def test_any_registered_game_is_browsed_through_its_parts(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, RELAYROAM, "roam")
    site = tmp_path / "site"
    written = write_site(folder, site)
    assert written.pages == 6
    page = (site / "index.html").read_text()
    assert "score / optimum" in page  # Relayroam's own column
    assert "Relayroam" in (site / "episodes" / "greedy--default--s1--r0.html").read_text()
    assert {r["entrant"] for r in rows_of(page)} == {"greedy", "vent-aware"}


KEY_ENV = "BROWSE_TEST_KEY"
MODEL = """
name = "models"
seeds = [0, 1, 2]
variants = ["default"]
rules = {{ maxTicks = 6 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "model"
keeper = {{ provider = "local", model = "scripted", max_tokens = 64 }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


def mumbles(path: str, body: dict[str, Any]) -> Action:
    # no JSON at all: every turn retries, then falls back to the keeper's baseline
    return Reply("I would rather not say.", input_tokens=300, output_tokens=20)


def test_a_model_entrant_that_falls_back_carries_its_flag(tmp_path: Path) -> None:
    config = tmp_path / "models.toml"
    with ScriptedLLMServer(default=mumbles) as server:
        config.write_text(MODEL.format(url=server.openai_url, key_env=KEY_ENV))
        out = tmp_path / "models"
        asyncio.run(
            run_tournament(
                load_tournament(config), out, environ={KEY_ENV: "sk-browse-0123456789abcdef"}
            )
        )
    snapshot = read_folder(out)
    page = index_page(snapshot)
    assert snapshot.report.fallback_flags == {"model": "all turns fell back"}
    assert '<span class="flag">⚠ all turns fell back</span>' in page
    assert "model ⚠ all turns fell back" in page  # in the plot too
    rows = {r.episode_id: r for r in snapshot.rows}
    model = [r for r in rows.values() if r.entrant == "model"]
    assert model
    assert all(r.fallbacks > 0 and r.tokens > 0 for r in model)
    assert all(r.fallbacks == 0 for r in rows.values() if r.entrant == "lantern")
    assert "Without LLM fallbacks" in page


def test_the_server_serves_the_pages_it_lists_and_nothing_else(folder200: Path) -> None:
    with serving(folder200) as url:
        status, page, headers = get(url)
        assert status == 200
        assert headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert get(f"{url}index.html")[1] == page
        episode = rows_of(page)[0]["episode"]
        status, viewer, _ = get(f"{url}episodes/{episode}.html")
        assert status == 200
        assert episode in viewer
        for path in ("manifest.json", "episodes/../manifest.json", "records/", "episodes/x.html"):
            assert get(url + path)[0] == 404, path
        assert get(f"{url}favicon.ico")[0] == 204


def test_the_command_serves_until_interrupted_and_writes_sites(
    folder200: Path, tmp_path: Path
) -> None:
    proc = subprocess.Popen(
        [*PYTHON, "view", str(folder200), "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        **FOREGROUND,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", first)
        assert found, first
        status, page, _ = get(found[1])
        assert status == 200
        assert len(rows_of(page)) == 200
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(timeout=60) == 0
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # -X faulthandler: every thread's stack
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"not stopped 60 s after Ctrl-C; its threads:\n{err[-8000:]}")
    finally:
        if proc.poll() is None:
            proc.kill()
    done = lighthouse("view", str(folder200), "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    assert "and 200 episode pages" in done.stderr
    for args, said in [
        (["--port", "99999"], "is not a port number 0..65535"),
        (["--out", str(folder200 / "site")], "inside the results folder"),
    ]:
        bad = lighthouse("view", str(folder200), *args)
        assert bad.returncode == 2
        assert said in bad.stderr
        assert "Traceback" not in bad.stderr
    missing = lighthouse("view", str(tmp_path / "nowhere"), "--out", str(tmp_path / "s2"))
    assert missing.returncode == 2
    assert missing.stderr.strip().endswith("no manifest.json here; is it a results folder?")
    assert os.listdir(tmp_path / "site")  # the first site is there


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ({"game": "lighthouse", "config": 5}, None),
        (
            {"game": "lighthouse", "shard": 4, "identities": 3, "prompts": 3,
             "config": {"entrants": [1, "x", {"name": 3}, {"name": "a", "seats": 7}],
                        "reference": 9, "name": ["x"]}},
            None,
        ),
        ({"game": "nope"}, "unknown game 'nope'"),
        ([], "unreadable manifest: not a JSON object"),
    ],
)  # fmt: skip
def test_a_hostile_manifest_is_shown_or_named_never_a_crash(
    folder200: Path, tmp_path: Path, manifest: Any, problem: str | None
) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(folder200, folder)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    if problem is None:
        # without a plan, the episodes there are the whole; every one is listed
        assert len(rows_of(index_page(read_folder(folder)))) == 200
        return
    done = lighthouse("view", str(folder), "--out", str(tmp_path / "site"))
    assert done.returncode == 2
    assert problem in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_damaged_record_loses_its_page_not_the_others(folder200: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(folder200, folder)
    episode = json.loads((folder / "episodes.jsonl").read_text().splitlines()[7])["episodeId"]
    (folder / "records" / f"{episode}.jsonl").write_text('{"type": "header"}\n[[[[\n')
    written = write_site(folder, tmp_path / "site")
    assert written.pages == 199
    assert [s.split(":")[0] for s in written.skipped] == [episode]
    page = (tmp_path / "site" / "index.html").read_text()
    assert f'<a href="episodes/{episode}.html">' not in page
    assert f"{episode}: " in page  # named among the skipped
    with serving(folder) as url:
        status, text, _ = get(f"{url}episodes/{episode}.html")
        assert status == 500
        assert text.startswith(f"cannot show /episodes/{episode}.html: ")
        assert get(url)[0] == 200
