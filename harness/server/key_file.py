"""The key ``lighthouse serve`` signs game states with, kept in a file across restarts.

A signed state (Relayroam's token) is valid only under the key that signed it, so a
server that made a new key at every start would break every game in play when it
restarts. The key is made once, written as hex to a file only its owner may read
(mode 0600, in a folder of mode 0700), and read back at every later start. The
default place is the user's state folder (``~/.local/state/lighthouse/`` on Linux,
as :mod:`platformdirs` finds it on each system); ``--key-file`` names another, and a
game's own variable (``RELAYROAM_TOKEN_KEY``) takes precedence over both. No message
ever shows the key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.errors import ConfigError
from harness.signed import hex_key

#: The file's name in the state folder.
KEY_FILE_NAME = "serve-signing.key"
#: A new key's size: 32 random bytes, written as 64 hex digits.
KEY_BYTES = 32
#: A key file is one short line; anything longer is not one.
MAX_KEY_FILE_BYTES = 1024


def default_key_file() -> Path:
    """Where the key is kept unless ``--key-file`` says otherwise."""
    import platformdirs  # only serve needs it

    return platformdirs.user_state_path("lighthouse") / KEY_FILE_NAME


@dataclass(frozen=True)
class KeptKey:
    """A signing key and the file it is kept in; ``created`` when this start made it."""

    key: bytes
    path: Path
    created: bool


def kept_key(path: Path) -> KeptKey:
    """The key kept in ``path``, made (once, owner-only) when the file does not exist.

    Raises :class:`ConfigError` when the file cannot be made or read, is readable by
    others, or does not hold a key; the message never holds the key.
    """
    try:
        return KeptKey(_read(path), path, created=False)
    except FileNotFoundError:
        pass
    try:
        created = _create(path)
    except OSError as exc:
        raise ConfigError(
            f"--key-file: cannot make {path} ({exc.strerror or exc}); name a writable place "
            "with --key-file, or set RELAYROAM_TOKEN_KEY"
        ) from None
    try:
        return KeptKey(_read(path), path, created=created)
    except FileNotFoundError:  # removed between the two steps
        raise ConfigError(f"--key-file: {path} vanished as it was made") from None


def _create(path: Path) -> bool:
    """Write a new key to ``path`` unless another process has just done so; True if
    this one did.

    The key is written to a private temporary file beside ``path`` and linked into
    place: the file appears whole or not at all, and of two servers starting at once
    one makes the key and both use it.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(secrets.token_hex(KEY_BYTES) + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _read(path: Path) -> bytes:
    """The key in ``path``; FileNotFoundError when there is no such file."""
    try:
        with path.open("rb") as file:
            info = os.fstat(file.fileno())
            data = file.read(MAX_KEY_FILE_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ConfigError(f"--key-file: cannot read {path} ({exc.strerror or exc})") from None
    if os.name == "posix" and info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise ConfigError(
            f"--key-file: {path} can be read by others (mode {mode:04o}); a signing key must "
            f"be its owner's alone: chmod 600 {path}"
        )
    # a file far longer than a key is no key, whatever it holds: not decoded at all
    text = "" if len(data) > MAX_KEY_FILE_BYTES else data.decode("ascii", "replace").strip()
    remedy = "; remove it to have a new one made (games in play then have to start again)"
    return hex_key(text, f"--key-file: {path}", remedy)


__all__ = ["KEY_FILE_NAME", "KeptKey", "default_key_file", "kept_key"]
