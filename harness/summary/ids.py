"""The names an episode goes by: its id, and the identity of the entrant that played it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.validation import seed_problem


def episode_id(entrant: str, variant: str, seed: int, repetition: int) -> str:
    """``<entrant>--<variant>--s<seed>--r<repetition>``: an episode's id, stable across reruns."""
    return f"{entrant}--{variant}--s{seed}--r{repetition}"


def split_episode_id(episode: str, variant: str | None, seed: int | None) -> tuple[str, int] | None:
    """The (entrant, repetition) of an episode id whose variant and seed are known, or None."""
    if variant is None or seed is None or seed_problem(seed) is not None:
        return None
    head, _, repetition = episode.rpartition("--r")
    middle = f"--{variant}--s{seed}"
    entrant = head.removesuffix(middle)
    plain = repetition.isdecimal() and repetition.isascii() and len(repetition) < 10
    if not plain or entrant == head or not entrant or str(int(repetition)) != repetition:
        return None
    return entrant, int(repetition)


#: The key of a record's agent details that holds the entrant's identity (a tournament
#: puts it in every seat's details; see harness/tournament/identity.py).
IDENTITY_DETAIL = "entrantIdentity"


def record_identity(details: Sequence[Mapping[str, str]]) -> str | None:
    """The entrant identity a record's seats carry (every seat the same), or None."""
    found = {d.get(IDENTITY_DETAIL) for d in details}
    if len(found) != 1:
        return None
    (value,) = found
    return value
