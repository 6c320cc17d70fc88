"""Stepping through an episode in the terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from harness.protocol import RecordLine, View
from harness.text import terminal_safe

HELP = "[Enter] next  [b] back  [number] go to tick  [q] quit"


def step_through(
    view: View,
    lines: Sequence[RecordLine],
    *,
    read: Callable[[str], str] | None = None,
    out: TextIO | None = None,
) -> None:
    """Show the episode frame by frame; interactive when reading from a terminal.

    Without a terminal (or ``read``) every frame is printed once, in order. A frame
    holds the record's text (replies, notes, messages): its control characters are
    shown, never sent to the terminal as they are (:func:`harness.text.terminal_safe`).
    """
    out = out or sys.stdout
    frames = view.view_frames(lines)
    interactive = read is not None or sys.stdin.isatty()
    if not interactive:
        for frame in frames:
            out.write(terminal_safe(frame.text()) + "\n\n")
        return
    ask = read or input
    i = 0
    while True:
        out.write(terminal_safe(frames[i].text()) + "\n")
        label = terminal_safe(frames[i].label, one_line=True)
        try:
            answer = ask(f"{label} ({i}/{len(frames) - 1}) {HELP} > ").strip()
        except EOFError:
            return
        if answer == "q":
            return
        if answer == "b":
            i = max(i - 1, 0)
        elif answer.isdigit():
            i = min(int(answer) + 1, len(frames) - 1)  # tick k is frame k + 1
        elif i == len(frames) - 1:
            return
        else:
            i += 1


__all__ = ["step_through"]
