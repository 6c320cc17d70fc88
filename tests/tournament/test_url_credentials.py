"""Credentials in a provider's ``base_url`` (``user:password@``, a key in the query
string) reach no file, printed line, report or page: the results folder, the command's
output, the report and the browser's static site name the server without them.

The secrets are shorter than the redaction's window on purpose: a short query value is
not registered with the redaction (it would hide too much), so only a URL redacted
before it is written keeps it out.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.llm.options import ProviderOptions
from harness.testing.fake_llm import fake_llm_server
from harness.testing.llm_server import ScriptedLLMServer
from harness.tournament.config import TournamentConfig
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse

PASSWORD = "s3cret"
QUERY_KEY = "s3cret2"
KEY_ENV = "URL_CREDENTIALS_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-ZQ7x1K9pW3mR5tY8vB2n"}

CONFIG = """
name = "credentials"
seeds = [1]
variants = ["default"]
concurrency = 1
rules = {{ maxTicks = 3 }}

[providers.local]
kind = "openai"
base_url = {urls}
api_key_env = "{key_env}"
transport = "httpx"

[[entrants]]
name = "team"
keeper = {{ provider = "local", model = "small", structured_output = false }}
runners = {{ provider = "local", model = "small", structured_output = false }}

[[entrants]]
name = "bots"
keeper = "lantern"
runners = "wallhug"
"""


def with_credentials(server: ScriptedLLMServer) -> str:
    """The server's URL with a user and password, and a key in the query string."""
    url = server.openai_url.replace("http://", f"http://user:{PASSWORD}@")
    return f"{url}?api_key={QUERY_KEY}"


def write_config(tmp_path: Path, urls: str) -> Path:
    path = tmp_path / "credentials.toml"
    path.write_text(CONFIG.format(urls=urls, key_env=KEY_ENV), encoding="utf-8")
    return path


def assert_no_secret(text: str, where: str) -> None:
    assert PASSWORD not in text, f"the URL's password is in {where}"
    assert QUERY_KEY not in text, f"the URL's query key is in {where}"


def assert_no_secret_under(root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        assert_no_secret(path.read_bytes().decode("utf-8", "replace"), str(path))


def test_credentials_in_a_base_url_reach_no_file_output_report_or_page(tmp_path: Path) -> None:
    with fake_llm_server() as server:
        server.keep_requests = True
        config = write_config(tmp_path, json.dumps(with_credentials(server)))
        out = tmp_path / "out"
        env = {**os.environ, **ENVIRON}
        ran = lighthouse("run", config, "--out", out, "--workers", "0", env=env)
        assert ran.returncode == 0, ran.stderr
        assert server.requests, "the model seats never reached the server"
        # resumed: nothing left to play, and the same folder
        again = lighthouse("run", config, "--out", out, "--workers", "0", env=env)
        assert again.returncode == 0, again.stderr
        assert "0 episodes played" in again.stderr + again.stdout
    report = lighthouse("report", out, "--format", "json")
    markdown = lighthouse("report", out, "--plot", tmp_path / "plot.svg")
    site = lighthouse("view", out, "--out", tmp_path / "site")
    for done in (report, markdown, site):
        assert done.returncode == 0, done.stderr
    for name, done in {"run": ran, "resume": again, "report": report, "report md": markdown,
                       "view": site}.items():  # fmt: skip
        assert_no_secret(done.stdout, f"{name}'s stdout")
        assert_no_secret(done.stderr, f"{name}'s stderr")
    assert_no_secret_under(out)
    assert_no_secret_under(tmp_path / "site")
    assert_no_secret((tmp_path / "plot.svg").read_text("utf-8"), "the plot")
    # the server is still named, by its host, port and path
    manifest = ResultsFolder(out).manifest()
    assert manifest.config is not None
    named = json.dumps(manifest.config["providers"])
    assert server.openai_url in named
    assert len(ResultsFolder(out).summaries()) == 2


def test_a_fleet_of_urls_with_credentials_is_named_without_them(tmp_path: Path) -> None:
    with fake_llm_server() as server, fake_llm_server() as replica:
        server.keep_requests = replica.keep_requests = True
        server.props = {"model_path": "small.gguf"}  # no chat template: a warning
        userinfo_only = with_credentials(server).partition("?")[0]
        config = write_config(tmp_path, json.dumps([userinfo_only, with_credentials(replica)]))
        out = tmp_path / "out"
        ran = lighthouse("run", config, "--out", out, "--workers", "0",
                         env={**os.environ, **ENVIRON})  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        assert server.requests
        assert replica.requests
    # the server behind the URL without a query answered /props: its warning names it
    assert f"at {server.openai_url}: the server reports no chat template" in ran.stderr
    report = lighthouse("report", out)
    assert report.returncode == 0, report.stderr
    for where, text in (("stdout", ran.stdout + report.stdout), ("stderr", ran.stderr)):
        assert_no_secret(text, where)
    assert_no_secret_under(out)


def as_written_before(self: TournamentConfig) -> str:
    """The config as a harness wrote it before base URLs were written without credentials."""
    return json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True)


@pytest.mark.parametrize("fleet", [False, True])
def test_a_folder_that_kept_a_url_with_credentials_resumes_playing_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fleet: bool
) -> None:
    with fake_llm_server() as server, fake_llm_server() as replica:
        server.keep_requests = replica.keep_requests = True
        url = with_credentials(server)
        urls = [url, with_credentials(replica)] if fleet else url
        config = write_config(tmp_path, json.dumps(urls))
        out = tmp_path / "out"
        env = {**os.environ, **ENVIRON}
        with monkeypatch.context() as patched:
            patched.setattr(TournamentConfig, "canonical_json", as_written_before)
            first = lighthouse("run", config, "--out", out, "--workers", "0", env=env)
        assert first.returncode == 0, first.stderr
        assert PASSWORD in (out / "manifest.json").read_text("utf-8")  # as it was written
        before = len(server.requests) + len(replica.requests)
        again = lighthouse("run", config, "--out", out, "--workers", "0", env=env)
        assert again.returncode == 0, again.stderr
        asked = len(server.requests) + len(replica.requests)
        assert asked == before, "finished episodes were played again"
    assert "2 finished episode(s) reused" in again.stderr
    assert "0 episodes played, 2 already done" in again.stderr
    assert not (out / "superseded").exists()
    assert_no_secret((out / "manifest.json").read_text("utf-8"), "the manifest rewritten")


def test_a_fleet_whose_urls_differ_only_by_credentials_is_refused(tmp_path: Path) -> None:
    # the manifest names both by one URL: it could not be read back as a config
    url = "http://user:pw-0123456789@127.0.0.1:9/v1"
    config = write_config(tmp_path, json.dumps([url, f"{url}?api_key={QUERY_KEY}"]))
    done = lighthouse("run", config, "--out", tmp_path / "out", env={**os.environ, **ENVIRON})
    assert done.returncode == 2
    assert "a URL is listed twice (credentials and query aside)" in done.stderr
    assert_no_secret(done.stderr, "the refusal")
    assert not (tmp_path / "out").exists()


def test_credentials_in_a_url_with_the_aiohttp_transport_are_refused_before_any_call(
    tmp_path: Path,
) -> None:
    # aiohttp will not send a URL's user:password beside the key's Authorization header:
    # the first call raised; the config says so instead, and names no secret
    with fake_llm_server() as server:
        server.keep_requests = True
        text = CONFIG.format(urls=json.dumps(with_credentials(server)), key_env=KEY_ENV)
        path = tmp_path / "credentials.toml"
        path.write_text(text.replace('"httpx"', '"aiohttp"'), encoding="utf-8")
        done = lighthouse("run", path, "--out", tmp_path / "out", env={**os.environ, **ENVIRON})
        assert done.returncode == 2, done.stderr
        assert 'a URL with credentials (user:password@) needs transport = "httpx"' in done.stderr
        assert "Traceback" not in done.stderr
        assert_no_secret(done.stderr, "the refusal")
        assert server.requests == []
    assert not (tmp_path / "out").exists()
    # the query's key alone is not a credential of the URL: aiohttp sends it as it is
    query_only = server.openai_url + f"?api_key={QUERY_KEY}"
    options = ProviderOptions.model_validate(
        {"kind": "openai", "base_url": query_only, "transport": "aiohttp"}
    )
    assert options.base_urls == (query_only,)
