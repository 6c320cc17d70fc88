"""API keys: read from the environment, checked before any call, registered for redaction.

A key goes into an HTTP header, so it must be printable ASCII without whitespace.
Anything else fails in the HTTP layer with an error that depends on the SDK and the
transport (a raw traceback, or a connection error on every call that turns an
episode into fallbacks); a stray carriage return from a Windows file is the common
case. So a key is checked once, when it is read, and a bad one stops the command
with a one-line error that names the variable and the problem, never the key.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from harness.errors import ErrorKind, FatalProviderError
from harness.llm.fleet import endpoint_label
from harness.llm.secrets import register_secret
from harness.text import terminal_safe

if TYPE_CHECKING:  # options import the providers, which import this module
    from harness.llm.options import ProviderOptions

_NAMES = {"\r": "a carriage return", "\n": "a line feed", "\t": "a tab", " ": "a space"}


def key_problem(key: str) -> str | None:
    """What makes ``key`` unusable in an HTTP header, without quoting it; None if fine."""
    if not key:
        return "it is empty"
    for position, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        code = f"U+{ord(char):04X}"
        if char in _NAMES:
            what = f"{_NAMES[char]} ({code})"
        elif char.isspace():
            what = f"a whitespace character ({code})"
        elif ord(char) < 0x80:
            what = f"a control character ({code})"
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # how os.environ keeps a byte it cannot decode
            what = f"a byte that is not UTF-8 (0x{ord(char) - 0xDC00:02X})"
        else:
            what = f"a non-ASCII character ({code})"
        return (
            f"character {position} of {len(key)} is {what}; a key is printable ASCII without spaces"
        )
    return None


def check_api_key(key: str, provider: str, source: str = "the API key") -> str:
    """``key`` if usable (and from now on redacted everywhere); else FatalProviderError.

    The error's kind is ``missing_key`` for an empty key and ``bad_key`` otherwise;
    its message names ``source`` (e.g. the environment variable), never the key.
    """
    problem = key_problem(key)
    if problem is not None:
        kind: ErrorKind = "missing_key" if not key else "bad_key"
        raise FatalProviderError(kind, f"{provider}: {source} is not usable: {problem}")
    register_secret(key)
    return key


def read_api_key(options: ProviderOptions, environ: Mapping[str, str] | None = None) -> str:
    """The provider's key from its environment variable, checked; "" for keyless kinds."""
    environ = os.environ if environ is None else environ
    name = options.key_env
    if name is None:
        return ""
    if name not in environ or not environ[name]:
        raise FatalProviderError(
            "missing_key",
            f"{options.kind}: the environment variable {name} is not set{_local(options)}",
        )
    return check_api_key(environ[name], options.kind, f"the environment variable {name}")


#: The hosts of a server on this machine, whose key is whatever it was started with.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _local(options: ProviderOptions) -> str:
    """What to add to "is not set" for a provider on this machine (which takes any key)."""
    if not options.base_urls:
        return ""
    base = endpoint_label(options.base_urls[0])
    try:
        host = urlsplit(base).hostname
    except ValueError:
        return ""
    if host not in LOCAL_HOSTS:
        return ""
    name = options.key_env
    return (
        f" (the server at {terminal_safe(base[:200])} is on this machine: any value works, "
        f"e.g. export {name}=not-a-real-key)"
    )


def check_keys(
    providers: Iterable[ProviderOptions],
    environ: Mapping[str, str] | None = None,
    *,
    require: bool = True,
) -> None:
    """Read and check every provider's key now, before anything is written or sent.

    Every problem is found before any is reported: one :class:`FatalProviderError`
    names every variable that is not set and every key that is not usable (kind
    ``missing_key`` when any is missing, else ``bad_key``), never a key itself. With
    ``require=False`` a variable that is not set passes (its key may not be needed,
    e.g. on a resume with nothing left to play); one that is set must hold a usable key.
    """
    environ = os.environ if environ is None else environ
    missing: dict[str, str] = {}
    unusable: list[str] = []
    local: dict[str, str] = {}
    for options in providers:
        name = options.key_env
        if name is None or name in missing or (not require and name not in environ):
            continue
        if not environ.get(name):
            missing[name] = options.kind
            local[name] = _local(options)
            continue
        try:
            check_api_key(environ[name], options.kind, f"the environment variable {name}")
        except FatalProviderError as exc:
            if str(exc) not in unusable:
                unusable.append(str(exc))
    if not missing and not unusable:
        return
    problems = list(unusable)
    if len(missing) == 1:
        ((name, kind),) = missing.items()
        problems.insert(0, f"{kind}: the environment variable {name} is not set{local[name]}")
    elif missing:
        listed = ", ".join(f"{name} ({kind}){local[name]}" for name, kind in missing.items())
        problems.insert(0, f"the environment variables {listed} are not set")
    raise FatalProviderError("missing_key" if missing else "bad_key", "; ".join(problems))


__all__ = ["check_api_key", "check_keys", "key_problem", "read_api_key"]
