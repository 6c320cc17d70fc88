"""What every ``lighthouse`` command's parser shares: help that shows defaults and
examples, one-line errors, the checks of flag values that argparse runs, and the
options several commands take (each defined here once, with one help text).

A bad flag value stops the command before anything runs, with one line naming the
flag and the problem, and exit status 2, whether argparse finds it (a malformed
number, an unknown choice) or the command does (a :class:`~harness.errors.HarnessError`
from :func:`harness.cli.main`). Nothing here imports more than the standard library:
``lighthouse --help`` builds every parser.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from harness.defaults import MAX_TIMEOUT_SECONDS
from harness.text import cut_short

if TYPE_CHECKING:
    from harness.protocol import GameEntry

#: A decimal integer as a flag spells it.
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: Python reads integers of at most 4,300 digits (longer ones raise, and reading one
#: costs the square of its length): a flag's value is measured before it is read.
MAX_DIGITS = 4300


#: How an epilog of examples starts (:func:`examples`): its lines are kept as written.
EXAMPLES = "examples:"


class HelpFormatter(argparse.HelpFormatter):
    """Each option's help ends with its default unless it names one already; the
    examples in an epilog keep their lines, other text is wrapped."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            "default" in text
            or not action.option_strings
            or action.required
            or action.default is None
            or action.default is False  # a switch: off unless given
            or action.default == argparse.SUPPRESS
        ):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, and whose help shows defaults."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        """Print one line (no usage block) and exit with status 2.

        The line reads as the command's own errors do (``lighthouse: error: --flag:
        problem``), and names the help that lists the flags.
        """
        root = self.prog.split()[0]
        message = message.removeprefix("argument ")
        self.exit(2, f"{root}: error: {message} (see: {self.prog} --help)\n")


def examples(*lines: str) -> str:
    """An epilog of example command lines."""
    return f"{EXAMPLES}\n" + "\n".join(f"  {line}" for line in lines)


@dataclass(frozen=True)
class Subcommand:
    """One ``lighthouse`` subcommand: its line in ``lighthouse --help``, the description
    and examples its own ``--help`` shows, what adds its flags, and what it runs.

    Its name is its key in :data:`harness.cli.COMMANDS`, the one list of them.
    """

    help: str
    description: str
    examples: tuple[str, ...]
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]

    def add_to(self, sub: Any, name: str) -> argparse.ArgumentParser:
        """Add this subcommand's parser, flags included, to ``sub`` (argparse's
        subparsers) as ``name``."""
        parser: argparse.ArgumentParser = sub.add_parser(
            name, help=self.help, description=self.description, epilog=examples(*self.examples)
        )
        parser.set_defaults(func=self.run)
        self.add_arguments(parser)
        return parser


def add_game_argument(parser: argparse.ArgumentParser, help: str = "the game") -> None:
    """``--game``: one of the hosted games, Lighthouse unless told."""
    from harness.registry import game_names  # only the parser asked for is built

    parser.add_argument("--game", choices=game_names(), default="lighthouse", help=help)


def add_seed_argument(parser: argparse.ArgumentParser) -> None:
    """``--seed``: required, checked as a config's seeds are (:func:`seed`)."""
    parser.add_argument(
        "--seed", type=seed, required=True, help="the seed: an integer 0..2^53-1, as in configs"
    )


def add_variant_argument(parser: argparse.ArgumentParser) -> None:
    """``--variant``: one of the game's rules variants (checked by :func:`variant_of`)."""
    parser.add_argument(
        "--variant", help="a rules variant, e.g. Lighthouse's default or spring "
        "(default: the game's first)"
    )  # fmt: skip


def variant_of(game: GameEntry, variant: str | None) -> str:
    """The variant ``--variant`` names (the game's first when not given); a ConfigError
    naming the game's variants when it has no such variant."""
    from harness.validation import checked_variant

    return checked_variant(game, variant, "--variant")


def add_folder_argument(parser: argparse.ArgumentParser) -> None:
    """``DIR``: the results folder a command reads or adds to."""
    parser.add_argument("dir", type=Path, metavar="DIR", help="the results folder")


def add_folders_argument(parser: argparse.ArgumentParser, help: str) -> None:
    """``DIR...``: the results folders a command joins."""
    parser.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help=help)


def add_format_argument(parser: argparse.ArgumentParser, what: str, *others: str) -> None:
    """``--format``: Markdown unless told, or one of ``others`` (``what`` is printed)."""
    parser.add_argument(
        "--format", choices=("md", *others), default="md", help=f"the {what}'s format"
    )


def add_address_arguments(parser: argparse.ArgumentParser, default_port: int) -> None:
    """``--host`` and ``--port``: the address a command serves on, this machine's own
    unless told."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (0.0.0.0: every one)"
    )
    add_port_argument(parser, default_port)


def add_port_argument(parser: argparse.ArgumentParser, default: int) -> None:
    """``--port``: the port a command serves on (:func:`port`)."""
    parser.add_argument("--port", type=port, default=default, help="the port (0: any free one)")


def port(text: str) -> int:
    """A port number 0..65535 (0: the system picks a free one)."""
    # digits only, and few of them: int() of a 5,000-digit string is refused with a traceback
    if not (text.isascii() and text.isdigit() and len(text) <= 5) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a port number 0..65535")
    return int(text)


def _shown(text: str) -> str:
    return repr(cut_short(text, 40))


def integer(text: str) -> int:
    """A decimal integer; anything else is refused as the flag's value."""
    digits = text.strip()
    if not _INTEGER.fullmatch(digits):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number")
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"a {len(digits):,}-digit number is out of range")
    return int(digits)


def seed(text: str) -> int:
    """A seed, checked as a config's seeds are (:func:`harness.validation.seed_problem`)."""
    from harness.validation import MAX_SEED, seed_problem

    try:
        value = integer(text)
    except argparse.ArgumentTypeError:
        got = (
            f"a {len(text.strip()):,}-digit number"
            if _INTEGER.fullmatch(text.strip())
            else _shown(text)
        )
        raise argparse.ArgumentTypeError(
            f"seed must be an integer 0..{MAX_SEED}, got {got}"
        ) from None
    problem = seed_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def _float(text: str) -> float:
    """``text`` as a number; NaN, which no bound admits, where it is none."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def at_least(low: int, most: int | None = None) -> Callable[[str], int]:
    """A whole number ``>= low`` (and ``<= most`` when given), e.g. ``--concurrency``
    (at least 1)."""

    def parse(text: str) -> int:
        value = integer(text)
        if most is not None and not low <= value <= most:
            raise argparse.ArgumentTypeError(f"must be a whole number {low}..{most}, got {value}")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {low}, got {value}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its own messages
    return parse


def number(low: float, high: float) -> Callable[[str], float]:
    """A finite number from ``low`` to ``high``, e.g. ``--temperature`` (0..2)."""

    def parse(text: str) -> float:
        value = _float(text)
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number {low:g}..{high:g}")
        return value

    parse.__name__ = "number"
    return parse


def seconds(*, zero: bool = False, maximum: float = MAX_TIMEOUT_SECONDS) -> Callable[[str], float]:
    """A finite number of seconds, over 0 (or from 0 with ``zero``), at most ``maximum``
    (a day unless told: :data:`~harness.defaults.MAX_TIMEOUT_SECONDS`)."""

    def parse(text: str) -> float:
        value = _float(text)
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero) or value > maximum:
            bound = "0 or more" if zero else "over 0"
            raise argparse.ArgumentTypeError(
                f"{_shown(text)} is not a number of seconds {bound} and at most {maximum:,.0f}"
            )
        return value

    parse.__name__ = "seconds"
    return parse


__all__ = [
    "HelpFormatter",
    "Parser",
    "Subcommand",
    "add_address_arguments",
    "add_folder_argument",
    "add_folders_argument",
    "add_format_argument",
    "add_game_argument",
    "add_port_argument",
    "add_seed_argument",
    "add_variant_argument",
    "at_least",
    "examples",
    "integer",
    "number",
    "port",
    "seconds",
    "seed",
    "variant_of",
]
