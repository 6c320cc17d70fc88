"""Scripted baselines: LANTERN (keeper) and WALLHUG (runner)."""
