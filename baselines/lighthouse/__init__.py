"""Lighthouse's scripted players: LANTERN and SILENT (keepers), WALLHUG (runner).

Pure functions of one seat's observation, each returning the reply text a model would
give. The registry (:mod:`harness.registry`) wires them to the game; the first of a
role there is an LLM seat's fallback.
"""

from baselines.lighthouse.lantern import lantern
from baselines.lighthouse.silent import silent
from baselines.lighthouse.wallhug import wallhug

__all__ = ["lantern", "silent", "wallhug"]
