"""What Inspect loads through the ``inspect_ai`` entry point: the tasks, registered."""

from lighthouse_harness.tasks import (
    hourloom_player,
    lighthouse_keeper,
    lighthouse_team,
    relayroam_player,
)

__all__ = ["hourloom_player", "lighthouse_keeper", "lighthouse_team", "relayroam_player"]
