"""How the shared machinery knows a game: five small parts and a registry entry.

A game is a sibling package under ``harness/games/`` that implements the parts, each
a small base class over the game's own types (its config, state, observation and
decision) whose abstract methods are what a game must write:

- :class:`Rules` (:mod:`.rules`): what the runner and replay need to advance a state;
  a one-seat game takes :class:`SoloRules` (:mod:`.solo`), which writes most of it;
- :class:`SeatIO` (:mod:`.seat_io`): what a seat needs to talk to a model;
- :class:`RecordCodec` (:mod:`.codec`): the game's record models, both ways;
- :class:`View` (:mod:`.view`): terminal text and the HTML viewer's frames and script;
- :class:`Report` (:mod:`.report`): per-episode figures and report columns.

Its config and results keep the conventions of :mod:`.conventions` (a timeout, a play
budget, one tick cap; scores and a reason), checked when they are defined. An optional
capability is an optional part of the entry: :class:`HttpApi` (:mod:`.api`), a
stateless JSON API over HTTP, and :class:`ChamberStates`.

A :class:`GameEntry` (:mod:`.entry`) bundles one game's parts with its metadata and its
bots (``baselines/<game>/``); :mod:`harness.registry` holds one per game. Each consumer
takes only the part it uses, so the runner never sees the view and the view never sees
a seat; nothing in the shared machinery imports a game. docs/games.md walks through
adding one.
"""

from harness.protocol.api import HttpApi, RequestRefused
from harness.protocol.codec import (
    AnyEnd,
    AnyHeader,
    AnyTick,
    JsonAction,
    RecordCodec,
    RecordLine,
    SeedBoard,
    SeedBoardCodec,
    expect,
    header_of,
    ticks_of,
)
from harness.protocol.conventions import (
    DEFAULT_EPISODE_TIMEOUT,
    EpisodeTimeout,
    GameConfig,
    GameResults,
)
from harness.protocol.entry import GameEntry, SeatGroup
from harness.protocol.report import Column, Report
from harness.protocol.rules import ChamberStates, Rules, SeatSpec
from harness.protocol.seat_io import (
    Baseline,
    DecidedBaseline,
    FailureKind,
    JsonActionSeatIO,
    ParseFailure,
    SeatIO,
)
from harness.protocol.solo import SoloEpisode, SoloRules, end_cause
from harness.protocol.text_view import TextFrame, TextView
from harness.protocol.view import Frame, FrameSeat, View

__all__ = [
    "DEFAULT_EPISODE_TIMEOUT",
    "AnyEnd",
    "AnyHeader",
    "AnyTick",
    "Baseline",
    "ChamberStates",
    "Column",
    "DecidedBaseline",
    "EpisodeTimeout",
    "FailureKind",
    "Frame",
    "FrameSeat",
    "GameConfig",
    "GameEntry",
    "GameResults",
    "HttpApi",
    "JsonAction",
    "JsonActionSeatIO",
    "ParseFailure",
    "RecordCodec",
    "RecordLine",
    "Report",
    "RequestRefused",
    "Rules",
    "SeatGroup",
    "SeatIO",
    "SeatSpec",
    "SeedBoard",
    "SeedBoardCodec",
    "SoloEpisode",
    "SoloRules",
    "TextFrame",
    "TextView",
    "View",
    "end_cause",
    "expect",
    "header_of",
    "ticks_of",
]
