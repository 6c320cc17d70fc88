"""Measurements of the harness (run as scripts; figures, not assertions)."""
