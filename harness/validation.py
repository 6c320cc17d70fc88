"""Turning pydantic's validation errors into one clear line per problem."""

from __future__ import annotations

from collections.abc import Collection

from pydantic import ValidationError


def format_validation_error(
    exc: ValidationError, source: str, *, hidden: Collection[str] = ()
) -> str:
    """One line per problem, ``source: field.path: message``.

    Path segments that are pydantic's own (``tagged-union[...]``, ``function-after[...]``)
    or named in ``hidden`` (union tags, wrapper fields the file does not spell) are
    left out, so the path reads as the file is written. Duplicate lines are dropped.
    """
    lines: list[str] = []
    for err in exc.errors():
        parts = [
            str(part)
            for part in err["loc"]
            if not (isinstance(part, str) and ("[" in part or part in hidden))
        ]
        where = ".".join(parts)
        message = err["msg"].removeprefix("Value error, ")
        line = f"{source}: {where}: {message}" if where else f"{source}: {message}"
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)


__all__ = ["format_validation_error"]
