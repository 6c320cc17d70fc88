"""Lighthouse's scripted players: LANTERN, SILENT and PILOT (keepers), WALLHUG and SCOUT
(runners).

Pure functions of one seat's observation, each returning the reply text a model would
give. The registry (:mod:`harness.registry`) wires them to the game; the first of a
role there is an LLM seat's fallback.
"""

from baselines.lighthouse.lantern import lantern
from baselines.lighthouse.pilot import pilot
from baselines.lighthouse.scout import scout
from baselines.lighthouse.silent import silent
from baselines.lighthouse.wallhug import wallhug

__all__ = ["lantern", "pilot", "scout", "silent", "wallhug"]
