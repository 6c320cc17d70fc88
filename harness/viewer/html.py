"""A self-contained HTML viewer of one episode: no network, no external assets.

The page (``page.html``) is game-agnostic: a tick slider, play and pause, stepping by
keyboard (arrows, Home and End, space), the radio, and each seat's card: its raw reply,
notes and source, and the prompt it was sent, made again from the record
(:mod:`harness.viewer.prompts`). The board drawing comes from the game's view part
(:meth:`~harness.protocol.View.viewer_script`), and so do the frames; the view never sees a
seat, only record lines. A game's script may also define ``seatColour(seat)``, the
colour of a seat's card.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from harness.errors import ConfigError
from harness.models import JsonObject
from harness.protocol import RecordLine, View, header_of
from harness.protocol.view import frame_docs
from harness.records import EndLine, agent_label
from harness.registry import get_game
from harness.text import script_json
from harness.viewer.prompts import EpisodePrompts, sent_prompts

PAGE = Path(__file__).with_name("page.html")


#: The page's blanks, each filled once (in one pass, so that text put in one blank, an
#: episode id holding ``__EPISODE__`` say, is never taken for another).
_BLANK = re.compile(r"__(TITLE|BOARD_STYLE|BOARD_SCRIPT|EPISODE)__")


def render_html(view: View, lines: Sequence[RecordLine]) -> str:
    """The viewer page of an episode's record lines, drawn by its game's ``view``."""
    header, end = header_of(lines), lines[-1]
    summary = view.render_results(end.results) if isinstance(end, EndLine) else "unfinished"
    seats = ", ".join(
        f"{s.name or s.seat}: {agent_label(s.agent.kind, s.agent.name)}" for s in header.seats
    )
    episode: JsonObject = {
        "episodeId": header.episode_id,
        "summary": f"{summary} | {seats}",
        "seats": [
            {
                "seat": s.seat,
                "role": s.role,
                "name": s.name or s.seat,
                "agent": agent_label(s.agent.kind, s.agent.name),
                "kind": s.agent.kind,
            }
            for s in header.seats
        ],
        "frames": [*frame_docs(view.view_frames(lines))],
        "prompts": _prompts(header.game, lines),
    }
    script = view.viewer_script()
    style = _board_style(script)
    title = html.escape(f"{header.game.capitalize()} - {header.episode_id}")
    blanks = {
        "TITLE": title,
        "BOARD_STYLE": style,
        # the game's own script: only "</" could end the element early
        "BOARD_SCRIPT": script.replace("</", "<\\/"),
        # the record's text: no string in it may end the element or comment it out
        "EPISODE": script_json(episode),
    }
    return _BLANK.sub(lambda found: blanks[found.group(1)], PAGE.read_text(encoding="utf-8"))


def _prompts(game: str, lines: Sequence[RecordLine]) -> JsonObject:
    try:
        entry = get_game(game)
    except ConfigError:  # a game this harness does not host: its prompts cannot be made
        return EpisodePrompts(notes=[f"prompts not shown: no game {game!r} here"]).to_json()
    return sent_prompts(entry, lines).to_json()


def _board_style(script: str) -> str:
    # A game's script may carry its CSS as `window.boardStyle = \`...\``.
    marker = "window.boardStyle = `"
    start = script.find(marker)
    if start < 0:
        return ""
    start += len(marker)
    return script[start : script.find("`", start)]


def write_html(view: View, lines: Sequence[RecordLine], path: Path) -> None:
    """Write the viewer page of an episode to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(view, lines), encoding="utf-8")


__all__ = ["render_html", "write_html"]
