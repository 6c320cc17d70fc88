"""Test fixtures that ship with the harness: a scripted LLM server for offline runs."""
