"""The solver: one whole episode played by the harness's runner, its model seats on Inspect.

Each model seat is the harness's own LLM seat (its prompts, per-tick deadline, retry
with a hint, tagged fallback and call records) whose provider is the model Inspect
resolved for the seat's role (``--model-role keeper=...``, else ``--model``), so
Inspect's generate config, connection limit, retries and cache apply and every call
is in the sample's transcript. After each tick an info event names each seat's
decision and where it came from; the whole record goes to the sample's store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from harness import defaults
from harness.api import Env
from harness.llm.inspect_provider import InspectProvider
from harness.llm.options import PromptFiles, ProviderOptions
from harness.llm.shapes import StructuredOutput
from harness.registry import get_game
from harness.seat_spec import BaselineSeatConfig, LLMSeatConfig
from lighthouse_harness.record import RECORD_KEY, record_text

#: A seat group's player: ``"model"`` (the model of the group's role), or a baseline name.
MODEL = "model"


@solver
def play_episode(
    game: str,
    seats: Mapping[str, str],
    *,
    rules: Mapping[str, Any] | None = None,
    prompts: str | None = None,
    structured_output: bool | StructuredOutput = False,
    call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
) -> Solver:
    """Play the sample's episode (its metadata's ``seed`` and ``variant``) of ``game``.

    ``seats`` maps each seat group (``keeper``, ``runners``, ``player``) to
    :data:`MODEL` or a baseline of its role; ``prompts`` is a folder with the
    roles' prompt files (default: the harness's); ``structured_output`` and
    ``call_timeout`` are the model seats' settings of the same names.
    """
    groups = dict(seats)
    folder = Path(prompts) if prompts is not None else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        seed, variant = int(state.metadata["seed"]), str(state.metadata["variant"])
        env = Env(get_game(game), variant=variant, rules=rules)
        roles = env.seat_groups()
        specs: dict[str, LLMSeatConfig | BaselineSeatConfig] = {}
        providers: dict[str, ProviderOptions] = {}
        clients: dict[str, InspectProvider] = {}
        for key, player in groups.items():
            role = roles[key]
            if player != MODEL:
                specs[key] = BaselineSeatConfig(baseline=player)
                continue
            model = get_model(role=role)
            name = f"inspect-{role}"
            # Inspect's --max-connections bounds the calls in flight, not the harness
            providers[name] = ProviderOptions(kind="inspect", max_in_flight=None)
            # Inspect's --max-tokens, --temperature and --seed apply, not the seat's own
            clients[name] = InspectProvider(model, send_sampling=False)
            specs[key] = _model_seat(name, model, role, folder, structured_output, call_timeout)
        epoch = f"-e{state.epoch}" if state.epoch > 1 else ""
        result = await env.aplay(
            seed,
            seats=specs,
            providers=providers,
            clients=clients,
            preflight=False,  # each sample would pay it; the first call finds the shape
            episode_id=f"{game}-{variant}-seed{seed}{epoch}",
            on_tick=_show_tick,
            on_warning=_note,
            on_info=_note,
        )
        state.store.set(RECORD_KEY, record_text(result.lines))
        state.output = ModelOutput.from_content(model=game, content=result.summary)
        state.completed = True
        return state

    return solve


def _model_seat(
    provider: str,
    model: Model,
    role: str,
    prompts: Path | None,
    structured_output: bool | StructuredOutput,
    call_timeout: float,
) -> LLMSeatConfig:
    return LLMSeatConfig(
        provider=provider,
        model=str(model),
        prompts=PromptFiles.in_folder(prompts, role) if prompts is not None else None,
        structured_output=structured_output,
        call_timeout_seconds=call_timeout,
    )


def _show_tick(line: Any) -> None:
    """One info event per tick: each seat's decision and where it came from."""
    turns: Sequence[tuple[str, Any]] = list(line.seats.items())
    transcript().info(
        {
            "tick": line.tick,
            "seats": {
                seat: {
                    "source": turn.source,
                    "decision": turn.decision.model_dump(mode="json", by_alias=True),
                }
                for seat, turn in turns
            },
        },
        source="lighthouse_harness",
    )


def _note(message: str) -> None:
    transcript().info(message, source="lighthouse_harness")


__all__ = ["MODEL", "play_episode"]
