"""A preflight look at a local server's chat template: is it the model's own?

A base model, or a GGUF without its template, is served with a template that is not
the model's (llama.cpp falls back to a generic one): the model then sees the prompt as
text to continue, and copies the example reply it shows (the report's faithfulness
section measures that). Before a run, a provider with a ``base_url`` is asked what it
can tell, and a line of warning says what to serve instead. Nothing here ever fails a
run: a server that does not answer, answers an error, or answers something odd gives
no warning at all.

What is read (``GET <server>/props``, llama.cpp's ``llama-server``; the ``/v1`` of the
base URL is dropped): ``chat_template``, the template in use, and ``model_path``, the
model file. It warns when the server reports no template (absent or blank), and when
the model file names a family whose own template has a mark that the template in use
lacks (a Gemma GGUF served with a Llama-2 ``[INST]`` template, say: a fallback).
vLLM and other servers publish no template: vLLM refuses a chat request for a model
without one, which the preflight's call reports with its message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import httpx2

from harness.errors import BadResponseError
from harness.json_reply import wire_loads
from harness.llm.bodies import BoundedClient

#: How long the look may take, in seconds: a server that is slower says nothing.
TIMEOUT_S = 3.0
#: JSON tokens read of /props at most (its template is one string; the rest is small).
MAX_TOKENS = 50_000

#: Model families by a word of their file name, and a mark their own template holds.
FAMILY_MARKS: Mapping[str, str] = {
    "gemma": "<start_of_turn>",
    "qwen": "<|im_start|>",
    "llama-3": "<|start_header_id|>",
    "llama3": "<|start_header_id|>",
    "phi-3": "<|user|>",
    "phi3": "<|user|>",
}

#: What to serve instead, at the end of every warning.
ADVICE = (
    "serve an instruct (chat) model with its own chat template: a GGUF that carries "
    "one (the -it / -instruct files), or give llama-server one with --jinja "
    "--chat-template-file FILE (or --chat-template NAME); vLLM: --chat-template FILE"
)


def props_url(base_url: str) -> str:
    """Where llama-server answers ``/props`` for an OpenAI ``base_url`` (``.../v1``)."""
    root = base_url.rstrip("/")
    root = root.removesuffix("/v1")
    return f"{root}/props"


def template_problem(props: object) -> str | None:
    """What is wrong with the chat template ``/props`` describes, or None."""
    if not isinstance(props, dict):
        return None
    template = props.get("chat_template")
    if template is None or (isinstance(template, str) and not template.strip()):
        return "the server reports no chat template of its own"
    if not isinstance(template, str):
        return None
    path = props.get("model_path")
    name = re.split(r"[\\/]", path)[-1].lower() if isinstance(path, str) else ""
    for family, mark in FAMILY_MARKS.items():
        if family in name and mark not in template:
            return (
                f"the chat template is not {family}'s own (it lacks {mark}): a fallback, "
                "as a base model or a GGUF without its template gets"
            )
    return None


async def template_warning(name: str, base_url: str, timeout_s: float = TIMEOUT_S) -> str | None:
    """One line of warning about the server at ``base_url`` (named ``name``), or None."""
    try:
        async with BoundedClient(timeout=timeout_s, follow_redirects=False) as client:
            response = await client.get(props_url(base_url))
            if response.status_code != 200:
                return None
            text = response.text
    except (httpx2.HTTPError, BadResponseError, OSError, UnicodeError, ValueError):
        return None
    try:
        props = wire_loads(text, max_depth=16, max_tokens=MAX_TOKENS)
    except (ValueError, RecursionError):
        return None
    problem = template_problem(props)
    if problem is None:
        return None
    return f"preflight {name}: {problem}; replies will likely copy the prompt. To fix: {ADVICE}"


__all__ = [
    "ADVICE",
    "FAMILY_MARKS",
    "MAX_TOKENS",
    "TIMEOUT_S",
    "props_url",
    "template_problem",
    "template_warning",
]
