"""How the shared machinery knows a game: five small parts and a registry entry.

A game is a sibling package under ``harness/games/`` that implements the parts, each
a :class:`typing.Protocol` short enough to read at once:

- :class:`Rules` (:mod:`.rules`): what the runner and replay need to advance a state;
- :class:`SeatIO` (:mod:`.seat_io`): what a seat needs to talk to a model;
- :class:`RecordCodec` (:mod:`.codec`): the game's record models, both ways;
- :class:`View` (:mod:`.view`): terminal text and the HTML viewer's frames and script;
- :class:`Report` (:mod:`.report`): per-episode figures and report columns;
- optionally :class:`HttpApi` (:mod:`.api`): a stateless JSON API over HTTP.

A :class:`GameEntry` (:mod:`.entry`) bundles one game's parts with its metadata and its
bots (``baselines/<game>/``); :mod:`harness.registry` holds one per game. Each consumer
takes only the part it uses, so the runner never sees the view and the view never sees
a seat; nothing in the shared machinery imports a game.
"""

from harness.protocol.api import HttpApi, RequestRefused
from harness.protocol.codec import DumpedDecisions, RecordCodec
from harness.protocol.entry import GameEntry, SeatGroup
from harness.protocol.report import Column, Report
from harness.protocol.rules import ChamberStates, DumpedResolve, Rules, SeatSpec
from harness.protocol.seat_io import Baseline, DecidedBaseline, FailureKind, ParseFailure, SeatIO
from harness.protocol.view import View

__all__ = [
    "Baseline",
    "ChamberStates",
    "Column",
    "DecidedBaseline",
    "DumpedDecisions",
    "DumpedResolve",
    "FailureKind",
    "GameEntry",
    "HttpApi",
    "ParseFailure",
    "RecordCodec",
    "Report",
    "RequestRefused",
    "Rules",
    "SeatGroup",
    "SeatIO",
    "SeatSpec",
    "View",
]
