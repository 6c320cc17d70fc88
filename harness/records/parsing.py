"""Record lines read: one line decoded as strict JSON or validated by a game's models,
with a :class:`~harness.errors.RecordError` that names where it failed."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from harness.errors import RecordError
from harness.json_reply import StrictJsonError, strict_loads


def validate_line(adapter: TypeAdapter[Any], data: bytes, where: str, number: int) -> Any:
    """One record line (raw bytes) parsed with a game's line adapter.

    Raises :class:`RecordError` (its ``line`` set to ``number``) starting with ``where``
    (``path:line``) for a line that is not UTF-8, not JSON (cut short, say) or does not
    match the game's record models.
    """
    try:
        # pydantic's JSON parser is linear, and refuses nesting past 200 levels and
        # numbers out of range with a validation error like any other.
        return adapter.validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise RecordError(_invalid_json(where, first["msg"]), line=number) from None
        place = ".".join(str(p) for p in first["loc"])
        raise RecordError(f"{where}: {place}: {first['msg']}", line=number) from None


def decode_line(line: bytes | str, where: str, number: int | None = None) -> Any:
    """One record line decoded as strict JSON (:func:`~harness.json_reply.strict_loads`).

    ``where`` (``path:line``) starts the message of the :class:`RecordError` raised for
    a line that is not UTF-8 or not strict JSON, too deep or cut short; ``number`` is
    the error's ``line``.
    """
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{where}: not UTF-8 (byte {exc.start + 1} of the line)", line=number
        ) from None
    try:
        # Record lines are the harness's own, read offline or on resume: no cap on
        # their size (a tick line holds every seat's turn), only on their depth.
        return strict_loads(text, max_tokens=None)
    except StrictJsonError as exc:
        cut = _CUT if exc.at_end else ""
        raise RecordError(f"{where}: not a JSON line: {exc.reason}{cut}", line=number) from None


def _invalid_json(where: str, message: str) -> str:
    # pydantic says "Invalid JSON: <why> at line 1 column N": the line is the record's
    # line, named by ``where``; the column within a long line helps nobody.
    reason = message.removeprefix("Invalid JSON: ").split(" at line ", 1)[0]
    cut = _CUT if reason.startswith("EOF") else ""
    return f"{where}: not a JSON line: {reason}{cut}"


_CUT = "; the line stops inside a value (cut short?)"
