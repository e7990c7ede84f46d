"""The format index: what routing and integrations know of a format without importing it.

``parsergen build`` writes one ``FormatEntry`` per grammar into ``generated/__init__.py``
(``INDEX``), derived from the compiler's IR; importing that file imports no format module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelPattern:
    """One ``models`` entry: a model-name pattern and the defaults of the models it names."""

    # Case-insensitive text of model names; ``{>=3.5}`` / ``{>=4.5,<6}`` stand for a
    # version number in that range (parsergen.routing).
    pattern: str
    # The variant's thinking default (None: the format's own default applies).
    thinking: bool | None = None

    @property
    def defaults(self) -> dict[str, Any]:
        """The options this entry sets, by parser argument name."""
        return {} if self.thinking is None else {"thinking": self.thinking}


@dataclass(frozen=True)
class FormatEntry:
    """One format's names, model routes, thinking switch and the markers that identify it."""

    name: str
    description: str
    aliases: tuple[str, ...]
    # The model names the format parses, with their defaults (routing.Router).
    models: tuple[ModelPattern, ...]
    # (chat_template_kwargs key, the value that means on, the value that means off; both
    # None: any truthy value means on), in order.
    thinking_switch: tuple[tuple[str, Any, Any], ...]
    thinking_default: bool
    has_tool_calls: bool
    has_reasoning: bool
    # Canonical spellings of the terminals matched by token id, then of the others.
    token_markers: tuple[str, ...]
    text_markers: tuple[str, ...]
    preserve_tokens: tuple[str, ...]
    # Special tokens that start or end a turn (a tie-breaker in detection by tokenizer).
    turn_boundary_tokens: tuple[str, ...]
    # Canonical spellings of the first reasoning start and end markers, if declared.
    reasoning_start: str | None
    reasoning_end: str | None
    # The spec's request_options: (chat_template_kwargs key, default value, ((value,
    # the format that parses it: a bundled name or a spec's path), ...)), in order
    # (parsergen.variant).
    request_options: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    # Values the markers' spellings use, read from a tokenizer at load time: (name,
    # init_kwargs key, vocabulary regex, default) (parsergen.tokenizer_values).
    tokenizer_values: tuple[tuple[str, str | None, str | None, str], ...] = ()


__all__ = ["FormatEntry", "ModelPattern"]
