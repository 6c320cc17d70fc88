"""Seating: a run's seats from their specs to their close, the same for every caller.

:mod:`~harness.seating.build` turns seat specs into seats (the one seat builder),
:mod:`~harness.seating.lifecycle` holds them for a run (keys, cache, clients,
preflight, each episode's scope, the close), and :mod:`~harness.seating.timeout`
fits an episode's timeout to its model seats.
"""

from harness.seating.build import (
    SeatLike,
    build_seat,
    build_seats,
    llm_providers,
    prompt_files,
    seats_of_groups,
)
from harness.seating.lifecycle import Seating, SeatSpecs, check_seat_keys, scripted_seats
from harness.seating.timeout import fitted_config, fitted_timeout

__all__ = [
    "SeatLike",
    "SeatSpecs",
    "Seating",
    "build_seat",
    "build_seats",
    "check_seat_keys",
    "fitted_config",
    "fitted_timeout",
    "llm_providers",
    "prompt_files",
    "scripted_seats",
    "seats_of_groups",
]
