"""Hourloom: a descent through chambers in which every finished lap returns as an echo.

The pure rules core: chamber sizes (:mod:`.difficulty`), the SplitMix64 stream
(:mod:`.rng`), the state and its JSON (:mod:`.state`, :mod:`.validate`), one lap turn
(:mod:`.turn`), the one transition ``step`` (:mod:`.rules`), what a player sees
(:mod:`.observe`) and the chamber generator built around a plan (:mod:`.generator`).
Nothing here does I/O, reads a clock or keeps global state.
"""
