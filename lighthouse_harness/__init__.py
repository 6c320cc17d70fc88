"""The harness's games as Inspect AI tasks (the ``inspect`` extra).

After ``pip install 'lighthouse-harness[inspect]'``, Inspect finds the tasks by name
through its ``inspect_ai`` entry point, from any folder::

    inspect eval lighthouse_harness/lighthouse_keeper --model openai/gpt-4o-mini \\
        -T seeds=0:50 -T variant=spring

- :mod:`.tasks`: ``lighthouse_keeper``, ``lighthouse_team``, ``relayroam_player``,
  ``hourloom_player`` and their parameters;
- :mod:`.solver`: one episode per sample, played by the harness's runner with each
  model seat calling the model Inspect resolved;
- :mod:`.scorer`: the game's score, its figures and the fallback rate;
- :mod:`.export`: the episodes' records out of a log, for ``lighthouse replay``.

Only this package imports Inspect (and :mod:`harness.llm.inspect_provider`, which the
harness imports only for a provider of kind ``inspect``); nothing in the harness
imports this package. See docs/inspect.md.
"""
