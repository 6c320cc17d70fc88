"""The example replies a prompt shows, and whether a reply copies one.

A prompt shows its reply as JSON objects on one line each, such as Lighthouse's
``{"transmit": true, "message": "Sprocket N; Gizmo E; Ratchet hold", "notes": "..."}``.
The examples are read from the prompt templates themselves (a seat's system and
observation templates, as a record's header keeps them), never from a hand-kept copy,
so an edited prompt has its own examples.

**A copy.** A reply *copies an example* when some key of it holds, as its whole value,
the text an example of the prompt gives that key: the keeper's message
``Sprocket N; Gizmo E; Ratchet hold``, or a note ``...``. A bare word (letters, digits
and underscores only: ``N``, ``WAIT``, ``MOVE``, ``up``) never counts, because an
example that names one of a closed set of choices shows a legal answer that any player
may give; a text is what a model playing for itself would write in its own words. A
reply equal to an example that holds any text is therefore always a copy.

Both scans take time linear in the text: the patterns have no nested repetition and
every match is bounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from harness.json_reply import decode_json_object
from harness.models import JsonObject

#: One example object: braces on one line with no braces inside.
_OBJECT = re.compile(r"\{[^{}\n]{1,2000}\}")
#: A ``"key": "text"`` pair inside an example (no escapes: prompts write plain text).
_PAIR = re.compile(r'"([^"\\\n]{1,64})"\s*:\s*"([^"\\\n]{0,400})"')
#: A value that names a choice rather than a text: never a copy.
_BARE_WORD = re.compile(r"\w*")


@dataclass(frozen=True)
class PromptExamples:
    """The texts a prompt's example replies give, by key (see the module's docstring)."""

    texts: frozenset[tuple[str, str]] = frozenset()
    """(key, text) of every example pair whose text is not a bare word."""

    @classmethod
    def of(cls, templates: Iterable[str]) -> PromptExamples:
        """The examples shown in ``templates`` (a seat's system and observation prompts)."""
        found: set[tuple[str, str]] = set()
        for template in templates:
            for shown in _OBJECT.finditer(template):
                for key, text in _PAIR.findall(shown.group()):
                    if not _BARE_WORD.fullmatch(text):
                        found.add((key, text))
        return cls(frozenset(found))

    def copied_by(self, reply: str) -> bool:
        """Whether ``reply`` (a model's reply text) copies one of the examples."""
        if not self.texts:
            return False
        parsed = decode_json_object(reply, expect="a JSON object")
        if not isinstance(parsed, dict):
            return False
        return any(
            isinstance(value, str) and (key, value) in self.texts for key, value in parsed.items()
        )


def example_replies(template: str) -> list[JsonObject]:
    """The example replies of ``template`` that are whole JSON objects, in order."""
    out: list[JsonObject] = []
    for shown in _OBJECT.finditer(template):
        try:
            value = json.loads(shown.group())
        except ValueError:  # {"transmit": true or false, ...} and the like: not JSON
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


__all__ = ["PromptExamples", "example_replies"]
