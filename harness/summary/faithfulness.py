"""The counts behind a seat's faithfulness, and one seat's as a results line counts them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harness.llm.examples import PromptExamples
from harness.records import LENGTH_STOP_REASONS
from harness.summary.line import Faithfulness


@dataclass
class FaithfulnessCounts:
    """The counts behind :class:`Faithfulness` that add up over seats and episodes: own
    turns, the replies among them that copy a prompt example, answered calls, those the
    length limit cut, and the answered calls by recorded stop reason. One seat's over an
    episode as :func:`summarize` counts them, or a seat group's over a report's results
    lines (harness/report/faithfulness.py)."""

    own_turns: int = 0
    copies: int = 0
    answered: int = 0
    length_cut: int = 0
    stop_reasons: Counter[str] = field(default_factory=Counter)


@dataclass(kw_only=True)
class FaithTally(FaithfulnessCounts):
    """One seat's :class:`Faithfulness` as :func:`summarize` counts it."""

    examples: PromptExamples | None
    replies: set[str] = field(default_factory=set)

    def count_own(self, raw: str, raw_sha256: str) -> None:
        """One turn the seat's own reply decided."""
        self.own_turns += 1
        self.replies.add(raw_sha256)
        if self.examples is not None and self.examples.copied_by(raw):
            self.copies += 1

    def count_answer(self, stop: object) -> None:
        """One answered call, with its recorded stop reason (absent: not known)."""
        self.answered += 1
        if isinstance(stop, str):
            self.stop_reasons[stop] += 1
            self.length_cut += stop in LENGTH_STOP_REASONS

    def figures(self) -> Faithfulness:
        return Faithfulness(
            own_turns=self.own_turns,
            distinct=len(self.replies),
            copies=self.copies if self.examples is not None else None,
            answered=self.answered,
            length_cut=self.length_cut,
            stop_reasons=dict(sorted(self.stop_reasons.items())),
        )
