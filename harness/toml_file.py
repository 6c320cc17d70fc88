"""Reading a TOML file of untrusted text: linear time, bounded depth, one kind of error.

``tomllib`` recurses once per level of nested arrays and inline tables (a few thousand
levels raise :class:`RecursionError`), takes time quadratic in the number of parts of
a dotted key, and raises a bare :class:`ValueError` for an integer of more than 4300
digits. :func:`read_toml` scans the text first (:func:`harness.scan.toml_shape`) and
refuses more than :data:`MAX_TOML_DEPTH` levels, then parses it, and refuses integers
outside TOML's 64-bit range; every failure is a :class:`ConfigError` naming the file.
A file that is not a regular file (a FIFO, a device), or is larger than
:data:`MAX_TOML_BYTES`, is refused unread.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, RecordError
from harness.files import read_regular
from harness.scan import line_of, toml_shape
from harness.text import cut_short

#: Arrays and inline tables nested deeper than this, or dotted keys with more parts,
#: are refused before ``tomllib`` sees the text.
MAX_TOML_DEPTH = 32
#: The largest TOML file read (64 MiB): a config listing a million 16-digit seeds is 18 MiB.
MAX_TOML_BYTES = 64 << 20
#: TOML integers are 64-bit signed; anything outside is an error by the specification.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def read_toml(path: Path) -> dict[str, Any]:
    """The table that the TOML file at ``path`` holds; :class:`ConfigError` otherwise."""
    source = str(path)
    try:
        # a regular file (a FIFO would block the read, a device never end it), bounded
        data = read_regular(path, limit=MAX_TOML_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"{source}: cannot read: No such file or directory") from None
    except RecordError as exc:
        raise ConfigError(str(exc).replace(": not read:", ": cannot read:", 1)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{source}:{line}: not UTF-8 text") from None
    return loads_toml(text, source)


def loads_toml(text: str, source: str) -> dict[str, Any]:
    """The table that TOML ``text`` holds; :class:`ConfigError` starting ``source``."""
    shape = toml_shape(text, max_depth=MAX_TOML_DEPTH)
    if shape.depth > MAX_TOML_DEPTH:
        line = line_of(text, max(shape.stopped_at - 1, 0))
        raise ConfigError(
            f"{source}:{line}: nested too deeply: arrays, inline tables and dotted keys "
            f"may go at most {MAX_TOML_DEPTH} levels deep"
        )
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:  # unreachable past the scan, unless the stack is nearly full
        raise ConfigError(f"{source}: not valid TOML: nested too deeply") from None
    except ValueError:  # int() refusing a decimal integer of more than 4300 digits
        raise ConfigError(
            f"{source}: not valid TOML: an integer is outside TOML's 64-bit range"
        ) from None
    where = _out_of_range(table)
    if where is not None:
        raise ConfigError(f"{source}: {where}: integer outside TOML's 64-bit range")
    return table


def _out_of_range(table: dict[str, Any]) -> str | None:
    """The key path of an integer outside 64 bits, or None.

    Decimal integers are bounded by ``int()``'s digit limit, but hex, octal and binary
    ones are not. Paths are kept as tuples and joined only for the message, so a long
    key is never copied once per value under it.
    """
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), table)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, key), v) for key, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
        elif type(value) is int and not INT64_MIN <= value <= INT64_MAX:
            return cut_short(".".join(str(part) for part in path), 80)
    return None


__all__ = ["INT64_MAX", "INT64_MIN", "MAX_TOML_BYTES", "MAX_TOML_DEPTH", "loads_toml", "read_toml"]
