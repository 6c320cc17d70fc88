"""Which ``Host`` headers a server answers: the address it binds, never another site's name.

A page of another site can make the browser send requests to a server on this machine
by having its own name resolve to 127.0.0.1 (DNS rebinding); the browser then thinks
the answers are that site's, and lets the page read them. What gives it away is the
``Host`` header, which names the other site. So both servers (``lighthouse view`` and
``lighthouse serve``) answer only requests whose ``Host`` names the address they bind:

- bound to an address (``127.0.0.1``, ``192.168.1.5``, ``::1``): that address, and
  ``localhost`` when it is a loopback address;
- bound to a name (``localhost``, ``myhost.lan``): the name and every address it
  resolved to when the server started;
- bound to every address (``0.0.0.0``, ``::``): any address literal, ``localhost`` and
  this machine's host name.

The port is not compared: a tunnel or a proxy (``ssh -L 9000:127.0.0.1:8001``) may
reach the server on another port, and a rebound name always brings the same one. A
request without a ``Host`` header (HTTP/1.0; a browser always sends one) is answered.
Anything else is refused with HTTP 421 and a one-line reason.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

#: The status a refused ``Host`` gets: 421 Misdirected Request.
MISDIRECTED = 421
#: Bound to one of these, a server listens on every address.
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
#: A header longer than this is no host name (DNS names are at most 253 characters).
_MAX_HOST = 300


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _host_of(header: str) -> str | None:
    """The host part of a ``Host`` header, lower-cased, without port or brackets; None
    when it is not ``host``, ``host:port`` or ``[v6]:port``."""
    text = header.strip().lower()
    if not text or len(text) > _MAX_HOST or not text.isascii():
        return None
    if text.startswith("["):
        end = text.find("]")
        rest = text[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        inner = text[1:end]
        return inner if _address(inner) is not None and ":" in inner else None
    name, colon, port = text.partition(":")
    if colon and not port.isdigit():
        return None
    if not name or any(c in name for c in "/\\@?#% \t"):
        return None
    return name.removesuffix(".")


@dataclass(frozen=True)
class AllowedHosts:
    """The ``Host`` headers a server bound to ``bound`` answers (see the module)."""

    bound: str
    """The address or name the server binds, as given (for messages)."""
    names: frozenset[str]
    """Host names and address literals answered, lower-cased."""
    any_address: bool = False
    """Bound to every address: any address literal is answered too."""

    def refusal(self, header: str | None) -> str | None:
        """Why a request with this ``Host`` header is refused (one line), or None."""
        if header is None:
            return None
        host = _host_of(header)
        if host is not None and (
            host in self.names or (self.any_address and _address(host) is not None)
        ):
            return None
        shown = header if len(header) <= 60 and header.isprintable() else repr(header[:60])
        return (
            f"this server answers requests for {self.bound}, and this one is for {shown}; "
            f"open it by its address (a page of another site may not read it)"
        )


def allowed_hosts(bound: str) -> AllowedHosts:
    """The :class:`AllowedHosts` of a server bound to ``bound`` (a ``--host`` value)."""
    host = bound.strip().strip("[]").lower()
    if host in WILDCARDS:
        names = {"localhost", socket.gethostname().lower()}
        return AllowedHosts(bound, frozenset(names), any_address=True)
    names = {host}
    address = _address(host)
    if address is None:
        try:  # a name: the addresses it resolves to are it too
            found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            found = []
        names |= {str(info[4][0]).lower() for info in found}
        address = next((a for a in map(_address, names) if a is not None), None)
    if address is not None and address.is_loopback:
        names.add("localhost")
    return AllowedHosts(bound, frozenset(names))


__all__ = ["MISDIRECTED", "WILDCARDS", "AllowedHosts", "allowed_hosts"]
