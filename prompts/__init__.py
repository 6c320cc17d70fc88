"""The prompt files an LLM seat uses unless told otherwise: ``<game>/<role>.*.md``.

This folder is a package only so that its files ship inside the wheel (they are its
package data); :func:`harness.llm.prompts.default_prompt_files` finds them with
:mod:`importlib.resources`, in a source checkout and in an installed package alike.
Copy a game's folder, edit the copy, and point a seat at it (``--prompts DIR``).
"""
