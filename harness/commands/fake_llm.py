"""``lighthouse fake-llm``: a stand-in model server on 127.0.0.1, for model seats without
a key (see :mod:`harness.testing.fake_llm`)."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from harness.commands.parser import Subcommand, add_port_argument

DEFAULT_PORT = 8002
#: The key variable the printed command needs; any value works against the fake server.
KEY_ENV = "OPENAI_API_KEY"
#: The value the printed command sets it to (a key is hidden wherever it appears, so one
#: that no other text holds).
ANY_KEY = "not-a-real-key"


def _add_arguments(fake: argparse.ArgumentParser) -> None:
    """``fake-llm``'s flags."""
    add_port_argument(fake, DEFAULT_PORT)
    fake.add_argument(
        "--script",
        type=Path,
        metavar="FILE",
        help="a JSON list of replies served in turn (strings as they are, objects as JSON), "
        'or an object of such lists by role: {"keeper": [...], "runner": [...]} '
        "(default: the schema's simplest reply)",
    )


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    """Serve until Ctrl-C (or until ``stop`` is set, for callers in code)."""
    from harness.commands.interrupt import serve_until_interrupted
    from harness.testing.fake_llm import fake_llm_server

    server = fake_llm_server(args.port, args.script)
    server.start()
    base = f"http://127.0.0.1:{server.port}"
    answers = f"the replies of {args.script}" if args.script else "the simplest reply it may"
    lines = [
        f"fake model server at {base}: OpenAI- and Anthropic-compatible; each request gets "
        f"{answers}.",
        f"Give a model seat --base-url {base}/v1 (an anthropic: seat takes --base-url {base}).",
        "Any key works; set one, then play a model keeper against it:",
        f"  export {KEY_ENV}={ANY_KEY}",
        f"  lighthouse play --seed 7 --keeper openai:fake-model --base-url {base}/v1",
        "Ctrl-C stops it.",
    ]
    print("\n".join(lines), flush=True)
    waiting = stop or threading.Event()

    def wait() -> None:
        while not waiting.wait(0.5):  # woken every half second, so Ctrl-C is heard
            pass

    return serve_until_interrupted(wait, server.stop, "fake model server stopped")


COMMAND = Subcommand(
    help="a fake model server on 127.0.0.1 (OpenAI- and Anthropic-compatible): model seats, no key",
    description="Serve a stand-in model on 127.0.0.1, answering OpenAI's "
    "/v1/chat/completions and Anthropic's /v1/messages, until Ctrl-C. Each request gets "
    "the simplest reply its seat's reply schema allows (a silent keeper, a runner or a "
    "player that waits), or the next reply of --script. It prints the --base-url to "
    "give a model seat and a command that plays against it.",
    examples=(
        "lighthouse fake-llm                        # at http://127.0.0.1:8002/v1",
        "lighthouse fake-llm --port 0 --script replies.json",
    ),
    add_arguments=_add_arguments,
    run=run,
)

__all__ = ["ANY_KEY", "COMMAND", "DEFAULT_PORT", "KEY_ENV", "run"]
