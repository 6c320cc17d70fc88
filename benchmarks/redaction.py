"""The one redaction's cost: a 1 MiB message scrubbed of one registered key.

    python -m benchmarks.redaction [--repeat 5]

(Run it as a module, like every benchmark here.)

One 164-character key of letters, digits, dashes and underscores; three messages of
1 MiB: random printable text, English-like prose (many separators, so the second,
separator-free pass has the most to do), and the prose with the key in it spread out
with spaces, reversed and in hexadecimal. Printed: the best of ``--repeat`` runs of
each, in milliseconds. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import random
import string
import time

from harness.llm.secrets import REDACTED, Redactor

SIZE = 1 << 20


def messages(key: str) -> dict[str, str]:
    rng = random.Random(1)
    printable = string.ascii_letters + string.digits + string.punctuation + " "
    prose = ("the server said no, politely; try again later. " * (SIZE // 48 + 1))[:SIZE]
    echoes = f" {' '.join(key)} {key[::-1]} {key.encode().hex()} "
    half = (SIZE - len(echoes)) // 2
    return {
        "random printable text": "".join(rng.choice(printable) for _ in range(SIZE)),
        "prose": prose,
        "prose with the key in it, spread, reversed, hex": prose[:half] + echoes + prose[:half],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    key = "".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(164))
    redact = Redactor([key])
    for name, text in messages(key).items():
        best = float("inf")
        for _ in range(args.repeat):
            began = time.perf_counter()
            out = redact(text)
            best = min(best, time.perf_counter() - began)
        print(f"{name:48} {best * 1000:7.1f} ms  ({out.count(REDACTED)} hidden)")


if __name__ == "__main__":
    main()
