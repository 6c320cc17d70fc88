"""The wire between the harness and a Python agent's worker process.

On a worker's socket, each message is a frame: a 4-byte big-endian length, then the
bytes. The harness sends pickles (a :class:`Hello`, then one
:class:`~harness.agents.call.AgentInput` per call); the worker answers in JSON, UTF-8
(a :class:`WorkerReady`, then one :class:`~harness.agents.call.AgentAnswer` per
call), which the harness reads as untrusted text. A fork server's socket carries
one datagram per message: a fork request with the new worker's socket attached, a
status request, and their JSON answers.

The module is kept light: a worker imports it before the agent.
"""

from __future__ import annotations

import json
import socket
import struct
from dataclasses import dataclass

from harness.agents.call import AgentAnswer
from harness.models import StrictModel

#: A frame's header: the length of its bytes.
HEADER = struct.Struct(">I")
#: The largest answer a worker sends (16 MiB of JSON); a larger one is sent as the
#: agent's error instead, and the harness refuses any frame past it.
MAX_ANSWER_BYTES = 16 * 1024 * 1024

#: A worker's program, as the harness starts it: SIGINT ignored first, then the
#: harness's import path.
BOOT = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "import json, sys; sys.path[:] = json.loads(sys.argv[3])\n"
    "from harness.agents.worker import main; main(int(sys.argv[1]), int(sys.argv[2]))\n"
)
#: A fork server's program (Linux), likewise.
FORK_SERVER = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "import json, sys; sys.path[:] = json.loads(sys.argv[3])\n"
    "from harness.agents.fork_server import serve_forks\n"
    "serve_forks(int(sys.argv[1]), int(sys.argv[2]), sys.argv[4])\n"
)
#: The largest datagram on a fork server's socket.
DATAGRAM_BYTES = 4096


@dataclass(frozen=True)
class Hello:
    """The harness's first message: the agent to load, and a sample input.

    ``sample`` is an input pickled: loading it imports the game's types now, so the
    first call's time is the agent's alone.
    """

    target: str
    search: tuple[str, ...]
    sample: bytes


class WorkerReady(StrictModel):
    """The worker's first message: ready to call the agent, or why it cannot."""

    error: str | None = None


def read_frame(sock: socket.socket) -> bytes | None:
    """The next frame, or None at the end of the stream."""
    header = _read_exactly(sock, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    return _read_exactly(sock, size)


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray(size)
    view, got = memoryview(data), 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return bytes(data)


def encode(message: StrictModel) -> bytes:
    """A message as a frame's bytes: JSON in UTF-8 (a lone surrogate passed through)."""
    text = json.dumps(message.model_dump(exclude_none=True), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def write_frame(sock: socket.socket, message: StrictModel) -> None:
    """Send ``message`` as one frame; an answer past :data:`MAX_ANSWER_BYTES` is sent
    as the agent's error instead."""
    payload = encode(message)
    if len(payload) > MAX_ANSWER_BYTES:
        payload = encode(
            AgentAnswer(
                error=f"the agent's answer takes {len(payload):,} bytes; an answer may "
                f"take at most {MAX_ANSWER_BYTES:,} (16 MiB)"
            )
        )
    sock.sendall(HEADER.pack(len(payload)) + payload)


__all__ = [
    "BOOT",
    "DATAGRAM_BYTES",
    "FORK_SERVER",
    "HEADER",
    "MAX_ANSWER_BYTES",
    "Hello",
    "WorkerReady",
    "encode",
    "read_frame",
    "write_frame",
]
