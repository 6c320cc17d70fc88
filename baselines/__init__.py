"""Scripted players, one folder per game: pure functions of a seat's observation.

A game never imports its bots: the registry (:mod:`harness.registry`) wires them in.
"""
