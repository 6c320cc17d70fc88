"""The server's front page (``GET /``): the games it serves, their pages and API routes.

uvicorn's start-up line names the bare address, so that address answers with
something a person can use: a link to each game's playable page, and the two routes
of each game's API for programs.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING

from harness.protocol import HttpApi

if TYPE_CHECKING:
    from harness.server.stepped import SteppedApi

#: The API routes of game ``<game>`` are under ``API_ROOT/<game>``.
API_ROOT = "/api/games"

_STYLE = """
body { margin: 2rem auto; max-width: 46rem; padding: 0 1rem; background: #10141c;
  color: #e6e9f0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: #ffd166; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
p { color: #8a93a8; }
li { margin: .6rem 0; }
code { font-size: .9rem; color: #b8c2d8; }
"""


def _game_item(
    name: str, has_page: bool, init_query: str, action_body: str, posts: tuple[str, ...] = ()
) -> str:
    """One game's entry: a link to its page when it has one, then its API's routes:
    ``init`` (``init_query`` follows ``seed=N``), ``action`` (with ``action_body``, as
    HTML) and any further POST routes ``posts``."""
    title = escape(name.capitalize())
    page = (
        f'<a href="{escape(name)}/">{title}</a>: play in the browser'
        if has_page
        else f"{title} (no page)"
    )
    root = f"{API_ROOT}/{escape(name)}"
    more = "".join(f", <code>POST {root}/{route}</code>" for route in posts)
    return (
        f'<li data-game="{escape(name)}">{page}<br>API: <code>GET {root}/init?seed=N'
        f"{init_query}</code>, <code>POST {root}/action</code> with "
        f"<code>{action_body}</code>{more}</li>"
    )


def index_html(apis: Mapping[str, HttpApi], stepped: Mapping[str, SteppedApi] | None = None) -> str:
    """The front page listing ``apis`` (game name -> its API part), in their order, then
    ``stepped`` (the games played step by step)."""
    items = [
        _game_item(
            name,
            step_api.page() is not None,
            "&amp;seats=keeper",
            "{&quot;stateToken&quot;: ..., &quot;action&quot;: {seat: reply}}",
            posts=("record",),
        )
        for name, step_api in (stepped or {}).items()
    ]
    items += [
        _game_item(
            name,
            api.page() is not None,
            "",
            f"{{&quot;{escape(api.state_key)}&quot;: ..., &quot;action&quot;: ...}}",
        )
        for name, api in apis.items()
    ]
    games = "\n".join(items) or "<li>none</li>"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<title>lighthouse serve</title>\n<link rel="icon" href="data:,">\n'
        f"<style>{_STYLE}</style>\n</head>\n<body>\n<h1>Games served here</h1>\n"
        "<p>Each game's page plays it in the browser; programs use its JSON API "
        "(docs/relayroam.md, docs/hourloom.md, docs/serve.md).</p>\n"
        f"<ul>\n{games}\n</ul>\n</body>\n</html>\n"
    )


__all__ = ["index_html"]
