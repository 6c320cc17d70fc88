"""Faithfulness: whether an entrant's model seats played for themselves, per seat group.

A model that copies the prompt's example reply, or gives the same reply tick after
tick, can score and never fall back; the fallback share alone cannot tell it from a
model that plays. Per entrant and seat group, over the groups' seats that made model
calls, this section gives, beside the fallback share:

- **distinct**: distinct replies over the group's own turns (the turns no baseline
  answered for). Replies are told apart by their sha256 within each seat's episode,
  and the counts summed over seats and episodes: a seat that says one thing for a
  whole episode has one distinct reply however long the episode;
- **copies**: the share of those turns whose reply copies an example reply the seat's
  prompts show (:mod:`harness.llm.examples` says what a copy is); a group *parrots*
  when more than :data:`PARROT_SHARE` of its own turns copy one, and the report marks
  it;
- **cut by length**: the share of answered calls whose stop reason says the length
  limit cut the reply (:data:`harness.records.LENGTH_STOP_REASONS`), over the calls
  whose stop reason is recorded;
- **stop reasons**: every answered call by its stop reason, ``unknown`` for the calls
  whose record does not say (cached answers, records written before stop reasons were).

Every figure comes from the results lines' :class:`~harness.summary.Faithfulness`,
which a results line derives from its record; lines written before carry none, and
their turns count as *not measured* (a report says how many). Counts only: the same
lines give the same figures in any order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field

from harness.models import StrictModel
from harness.protocol import SeatGroup
from harness.report.markdown import markdown_table
from harness.summary import EpisodeSummary, Faithfulness, FaithfulnessCounts

#: A seat group parrots when more than this share of its own turns copy a prompt example.
PARROT_SHARE = 0.5
#: The mark a parroting seat group carries in every view of the report.
PARROT_MARK = "parrots"
#: The key of the calls whose stop reason no record says.
UNKNOWN_STOP = "unknown"


class FaithfulnessRow(StrictModel):
    """One entrant's seat group: how its model seats played for themselves."""

    entrant: str
    group: str = Field(description="The seat group (keeper, runners, player...).")
    turns: int = Field(description="Turns of the group's seats that made model calls.")
    fallback_share: float | None = Field(
        description="The share of those turns that fell back to the seat's baseline."
    )
    own_turns: int = Field(
        description="Of those turns, the seats' own, on the results lines that measure them."
    )
    unmeasured: int = Field(
        description="Turns on results lines written before faithfulness was counted: in "
        "turns and fallbackShare, not in the figures below."
    )
    distinct_share: float | None = Field(
        description="Distinct replies per own turn (distinct within each seat's episode)."
    )
    copy_share: float | None = Field(
        description="The share of own turns whose reply copies an example reply of the "
        "prompt (harness/llm/examples.py); null when no record kept its prompts."
    )
    length_cut_share: float | None = Field(
        description="The share of answered calls with a recorded stop reason that the "
        "length limit cut; null when none has one."
    )
    answered: int = Field(description="Calls answered (no failure).")
    stop_reasons: dict[str, int] = Field(
        description="Answered calls by stop reason; 'unknown' where the record does not say."
    )
    parrots: bool = Field(
        description=f"More than {PARROT_SHARE:.0%} of the own turns copy a prompt example."
    )


@dataclass
class _GroupTally(FaithfulnessCounts):
    """A seat group's counts, its seats' own summed over their results lines, with the
    turns and fallbacks of every seat of it that made model calls."""

    turns: int = 0
    fallbacks: int = 0
    unmeasured: int = 0
    """Turns on results lines that carry no faithfulness figures."""
    distinct: int = 0
    copy_turns: int = 0
    """The own turns of the seats whose records kept their prompts: the copies' whole."""

    def add(self, faith: Faithfulness) -> None:
        """Fold in one seat's figures over an episode."""
        self.own_turns += faith.own_turns
        self.distinct += faith.distinct
        if faith.copies is not None:
            self.copies += faith.copies
            self.copy_turns += faith.own_turns
        self.answered += faith.answered
        self.length_cut += faith.length_cut
        self.stop_reasons.update(faith.stop_reasons)

    def row(self, entrant: str, group: str) -> FaithfulnessRow:
        known = sum(self.stop_reasons.values())
        stops = dict(sorted(self.stop_reasons.items()))
        if self.answered > known:
            stops[UNKNOWN_STOP] = stops.get(UNKNOWN_STOP, 0) + self.answered - known
        copy_share = _share(self.copies, self.copy_turns)
        return FaithfulnessRow(
            entrant=entrant,
            group=group,
            turns=self.turns,
            fallback_share=_share(self.fallbacks, self.turns),
            own_turns=self.own_turns,
            unmeasured=self.unmeasured,
            distinct_share=_share(self.distinct, self.own_turns),
            copy_share=copy_share,
            length_cut_share=_share(self.length_cut, known),
            answered=self.answered,
            stop_reasons=stops,
            parrots=copy_share is not None and copy_share > PARROT_SHARE,
        )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class FaithfulnessTally:
    """The faithfulness figures of a report, folded one results line at a time."""

    def __init__(self, groups: Sequence[SeatGroup]) -> None:
        self._groups = [(g.key, g.seats) for g in groups]
        self._tallies: dict[tuple[str, str], _GroupTally] = {}

    def add(self, ep: EpisodeSummary) -> None:
        """Fold in one results line's model seats."""
        for key, seats in self._groups:
            for seat_id in seats:
                seat = ep.seats.get(seat_id)
                if seat is None or not seat.calls:
                    continue
                tally = self._tallies.setdefault((ep.entrant, key), _GroupTally())
                tally.turns += seat.turns
                tally.fallbacks += sum(seat.fallbacks.values())
                faith = seat.faithfulness
                if faith is None:
                    tally.unmeasured += seat.turns
                    continue
                tally.add(faith)

    def rows(self, order: Sequence[str]) -> list[FaithfulnessRow]:
        """A row per entrant (in ``order``) and seat group (in the game's order) whose
        results lines measure faithfulness; none when no line does (older folders)."""
        if not any(t.own_turns or t.answered for t in self._tallies.values()):
            return []
        rank = {name: i for i, name in enumerate(order)}
        groups = [key for key, _ in self._groups]
        keys = sorted(
            self._tallies,
            key=lambda k: (rank.get(k[0], len(rank)), k[0], groups.index(k[1])),
        )
        return [self._tallies[k].row(*k) for k in keys]


def parrots_text(row: FaithfulnessRow) -> str:
    """The copy share as every view shows it, marked when the group parrots."""
    if row.copy_share is None:
        return "-"
    shown = f"{100 * row.copy_share:.1f}%"
    return f"{shown} ⚠ {PARROT_MARK}" if row.parrots else shown


def stops_text(row: FaithfulnessRow) -> str:
    """The stop reasons as ``stop 40, length 2``."""
    return ", ".join(f"{reason} {count}" for reason, count in row.stop_reasons.items()) or "-"


#: What the section's figures mean, under its table in every view.
FAITHFULNESS_NOTE = (
    "Over each seat group's seats that made model calls. Fallback: the share of their "
    "turns the baseline answered. Distinct: distinct replies per own turn (told apart "
    "within each seat's episode). Copies: the share of own turns whose reply repeats, "
    "for some key, the text an example reply of the seat's prompt gives it (a bare word "
    f"such as a move never counts); more than {PARROT_SHARE:.0%} is marked "
    f"'{PARROT_MARK}': those turns are the prompt's, not the model's. Cut by length: the "
    "share of answered calls whose stop reason says the length limit cut the reply. Stop "
    "reasons: every answered call's, 'unknown' where the record does not say."
)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


#: The section's table heads, for every view.
FAITHFULNESS_HEADS = (
    "entrant", "seat group", "turns", "fallback", "own turns", "distinct",
    "copies of a prompt example", "cut by length", "stop reasons",
)  # fmt: skip


def faithfulness_cells(row: FaithfulnessRow) -> list[str]:
    """A row's cells under :data:`FAITHFULNESS_HEADS`, as text."""
    return [
        row.entrant, row.group, f"{row.turns:,}", _percent(row.fallback_share),
        f"{row.own_turns:,}", _percent(row.distinct_share), parrots_text(row),
        _percent(row.length_cut_share), stops_text(row),
    ]  # fmt: skip


def faithfulness_markdown(rows: Sequence[FaithfulnessRow]) -> list[str]:
    """The Markdown section (no lines without rows)."""
    if not rows:
        return []
    table = markdown_table(FAITHFULNESS_HEADS, [faithfulness_cells(r) for r in rows])
    out = ["", "## Faithfulness", "", table, "", f"*{FAITHFULNESS_NOTE}*"]
    parrots = [f"{r.entrant} ({r.group})" for r in rows if r.parrots]
    if parrots:
        out += [
            "",
            f"⚠ Parroting: {', '.join(parrots)}. Serve an instruct model with its own chat "
            "template, or check the prompt (docs/llm.md, Faithfulness).",
        ]
    unmeasured = unmeasured_text(rows)
    return out + (["", unmeasured] if unmeasured else [])


def faithfulness_csv_header(groups: Sequence[str]) -> list[str]:
    """The CSV's faithfulness columns, per seat group (after every other column)."""
    parts = ("distinct_share", "copy_share", "length_cut_share", "stop_reasons", "parrots")
    return [f"faithfulness_{g}_{part}" for g in groups for part in parts]


def faithfulness_csv_cells(
    rows: Sequence[FaithfulnessRow], entrant: str, groups: Sequence[str]
) -> list[object]:
    """One entrant's cells under :func:`faithfulness_csv_header` (empty where unmeasured)."""
    mine = {r.group: r for r in rows if r.entrant == entrant}
    out: list[object] = []
    for group in groups:
        row = mine.get(group)
        if row is None:
            out += [""] * 5
            continue
        out += [
            *("" if v is None else v for v in (row.distinct_share, row.copy_share,
                                               row.length_cut_share)),
            ";".join(f"{k}={v}" for k, v in row.stop_reasons.items()),
            "true" if row.parrots else "false",
        ]  # fmt: skip
    return out


def unmeasured_text(rows: Sequence[FaithfulnessRow]) -> str | None:
    """The line that says how many turns older results lines left unmeasured, if any."""
    left = sum(r.unmeasured for r in rows)
    if not left:
        return None
    return (
        f"{left:,} model turn(s) are on results lines written before faithfulness was "
        "counted: they are in the turns and the fallback share only."
    )


__all__ = [
    "FAITHFULNESS_HEADS",
    "FAITHFULNESS_NOTE",
    "PARROT_MARK",
    "PARROT_SHARE",
    "UNKNOWN_STOP",
    "FaithfulnessRow",
    "FaithfulnessTally",
    "faithfulness_cells",
    "faithfulness_csv_cells",
    "faithfulness_csv_header",
    "faithfulness_markdown",
    "parrots_text",
    "stops_text",
    "unmeasured_text",
]
