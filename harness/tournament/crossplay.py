"""Cross-play designs: every member of each seat group with every member of the others.

A config's ``[crossplay]`` section names, per seat group of the game, who may play it::

    [crossplay.keeper]
    silent = "silent"
    pilot = { baseline = "pilot" }
    gpt = { provider = "openai", model = "gpt-4o-mini" }

    [crossplay.runners]
    wallhug = "wallhug"
    scout = "scout"
    mixed = ["scout", "wallhug", "wallhug"]

and the tournament plays their full product on the same seeds: one entrant per
combination, named by its members joined with ``+`` in the game's seat-group order
(``pilot+scout``). The entrants are ordinary entrants (appended to any
``[[entrants]]`` of the config, in row-major order): they have identities, resume and
grow like any other, so a keeper added later plays only its row.

The section stays in the config as run, so a report can lay the entrants out as a
matrix (:mod:`harness.report.crossplay`).
"""

from __future__ import annotations

import itertools
from typing import Any, TypedDict

from pydantic import field_validator, model_validator

from harness.tournament.names import PLAIN_NAME, PLAIN_RULE
from harness.tournament.seat_text import SeatSpecs, specs_of_text
from harness.validation import StrictModel, short_repr

#: A member's name: a plain name, without the ``+`` that joins members.
MEMBER_NAME = PLAIN_NAME
#: What joins the members' names into an entrant's.
JOIN = "+"
#: The most entrants one design may make (a tournament is planned in memory).
MAX_CROSSPLAY_ENTRANTS = 10_000


class EntrantTable(TypedDict):
    """An ``[[entrants]]`` table as a crossplay design makes it: a name and its seats."""

    name: str
    seats: dict[str, SeatSpecs]


class CrossplayConfig(StrictModel):
    """A cross-play design: per seat group, its members by name (each a group's specs)."""

    groups: dict[str, dict[str, SeatSpecs]]

    @model_validator(mode="before")
    @classmethod
    def _collect_groups(cls, data: Any) -> Any:
        # In TOML the groups are keys of the section, as seat groups are of an entrant.
        if not isinstance(data, dict) or "groups" in data:
            return data
        return {
            "groups": {
                key: {name: specs_of_text(spec) for name, spec in members.items()}
                if isinstance(members, dict)
                else members
                for key, members in data.items()
            }
        }

    @field_validator("groups")
    @classmethod
    def _members_named(
        cls, value: dict[str, dict[str, SeatSpecs]]
    ) -> dict[str, dict[str, SeatSpecs]]:
        if not value:
            raise ValueError("name the members of each seat group, e.g. [crossplay.keeper]")
        size = 1
        for key, members in value.items():
            if not members:
                raise ValueError(f"{key}: give at least one member")
            for name in members:
                if not MEMBER_NAME.fullmatch(name):
                    raise ValueError(f"{key}.{short_repr(name)}: a member's name is {PLAIN_RULE}")
            size *= len(members)
        if size > MAX_CROSSPLAY_ENTRANTS:
            raise ValueError(
                f"the design makes {size:,} entrants; at most {MAX_CROSSPLAY_ENTRANTS:,}"
            )
        return value

    def combinations(self, order: list[str]) -> list[tuple[str, dict[str, str]]]:
        """Every entrant of the design: its name and each seat group's member, the first
        group varying slowest (``order``: the game's seat-group keys)."""
        keys = [key for key in order if key in self.groups]
        out = []
        for names in itertools.product(*(list(self.groups[key]) for key in keys)):
            out.append((JOIN.join(names), dict(zip(keys, names, strict=True))))
        return out

    def entrants(self, order: list[str]) -> list[EntrantTable]:
        """Every entrant of the design as an ``[[entrants]]`` table would give it."""
        return [
            {"name": name, "seats": {key: self.groups[key][member] for key, member in who.items()}}
            for name, who in self.combinations(order)
        ]


def member_of(name: str, design: CrossplayConfig, order: list[str]) -> dict[str, str] | None:
    """The members an entrant ``name`` of ``design`` stands for; None for another entrant."""
    for made, who in design.combinations(order):
        if made == name:
            return who
    return None


__all__ = ["JOIN", "MEMBER_NAME", "CrossplayConfig", "member_of"]
