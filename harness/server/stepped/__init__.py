"""A game played step by step over HTTP: Lighthouse's API, stateless, by signed tokens.

``init`` starts an episode in which the client plays some seats (Lighthouse: any of
``keeper``, ``runner1`` .. ``runner3``) and the role's default baseline plays every
other (LANTERN, WALLHUG), as the runner seats them; each ``action`` answers the seats
waiting with one reply each and runs the episode on until the client's seats wait
again, or it ends. Underneath is the step-by-step env (:mod:`harness.step_env`): the
runner's own episode, its client seats answered as a Python agent's are, so a reply
goes through the one parser, retry-with-hint and fallback (decisions R5, R7):

* a reply that does not parse is sent back once: the next response has the same
  tick, that seat alone waiting, its observation holding ``retryOf``, ``problem`` and
  ``hint``; the client's next ``action`` is the retry (the tick's other seats have
  answered and wait for it);
* a retry that fails too falls back to the role's baseline for that tick, recorded
  as ``fallback_parse`` (the first reply's source is ``python``, a good retry's
  ``python_retry``).

The server needs nothing between requests: the token
(:mod:`harness.server.step_token`) holds the seed, variant, the seats played and
every reply sent, and a request can play the episode again from them (the rules,
baselines and parser are pure, so it is the same episode). It keeps the episodes it
left waiting (:mod:`harness.server.live_episodes`) only to spare that replay.

Refusals of the request itself (a bad token, a body of the wrong shape, a seat the
client does not play or that is not waiting, a reply too long) raise
:class:`~harness.protocol.RequestRefused`, which the server answers with 400.
"""

from __future__ import annotations

from harness.server.stepped.api import (
    INIT_PARAMETERS,
    STATE_KEY,
    SteppedApi,
    observation_json,
    stepped_apis,
)

__all__ = ["INIT_PARAMETERS", "STATE_KEY", "SteppedApi", "observation_json", "stepped_apis"]
