"""The step-by-step environment (:mod:`harness.step_env`) behind the RL libraries' APIs.

:mod:`.parallel_env` is a PettingZoo ``ParallelEnv`` of Lighthouse, :mod:`.gym_env` a
Gymnasium ``Env`` of a one-seat game (Relayroam, Hourloom). They need the ``envs``
extra (``pip install 'lighthouse-harness[envs]'``); nothing else in the harness
imports PettingZoo or Gymnasium. docs/env.md says what their spaces hold.
"""
