"""Tournaments: many episodes per entrant on the same seeds, crash-safe, resumable."""
