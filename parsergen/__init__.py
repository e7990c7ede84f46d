"""parsergen: model-output parsers generated from YAML format specs.

``parsergen.formats()`` lists the bundled formats and ``parsergen.load(name)``
returns a format's generated module (``StreamingParser``, ``FORMAT``, ``SPEC``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

__version__ = "0.1.0"


def formats() -> list[str]:
    """Names of the bundled formats, sorted."""
    from parsergen.generated import FORMATS

    return list(FORMATS)


def aliases() -> dict[str, str]:
    """Other names of formats (alias -> format)."""
    from parsergen.generated import ALIASES

    return dict(ALIASES)


def load(name: str) -> ModuleType:
    """The generated module of format ``name`` (or an alias); KeyError if there is none."""
    name = aliases().get(name, name)
    if name not in formats():
        raise KeyError(name)
    return importlib.import_module(f"parsergen.generated.{name}")


def thinking(name: str, chat_template_kwargs: Mapping[str, Any] | None) -> bool | None:
    """Whether a request's ``chat_template_kwargs`` turn thinking on for format ``name``.

    Reads the keys the spec declares in ``thinking_switch`` (the first one the request
    sets wins); None when the request sets none of them, or the format has no switch,
    so the parser keeps its default.
    """
    return switch_thinking(load(name).SPEC, chat_template_kwargs)


def switch_thinking(spec: Mapping[str, Any],
                    chat_template_kwargs: Mapping[str, Any] | None) -> bool | None:
    """``thinking`` for any spec (a user's own too): its switch read from the kwargs."""
    kwargs = chat_template_kwargs or {}
    for entry in spec.get("thinking_switch", ()):
        key, on = (entry, None) if isinstance(entry, str) else (entry["key"], entry["on"])
        value = kwargs.get(key)
        if value is not None:
            return bool(value) if on is None else value == on
    return None


def detect(model_name: str | None = None, *, tokenizer: object = None) -> str | None:
    """The format that parses a model's reasoning and tool calls, or None.

    By name first (the most specific ``models`` pattern of any spec wins; a name two
    formats claim equally is not guessed), else by the tokenizer's marker tokens and
    chat template.
    """
    from .routing import Router, detect_by_tokenizer

    specs = {name: load(name).SPEC for name in formats()}
    if model_name:
        found = Router({n: s.get("models", ()) for n, s in specs.items()}).detect(model_name)
        if found is not None:
            return found
    if tokenizer is not None:
        full = {n: s for n, s in specs.items() if s.get("models")}  # not reasoning-only parts
        return detect_by_tokenizer(full, tokenizer)
    return None


def structural_tag(name: str, tools: Any, *, tool_choice: Any = "auto") -> dict[str, Any] | None:
    """An xgrammar structural tag for format ``name``'s calls of ``tools`` (plain data).

    ``tool_choice``: ``"auto"``, ``"required"``, a tool's name or ``{"type": "function",
    "function": {"name": ...}}``.  None when the format's arguments syntax cannot be
    expressed to xgrammar (see ``parsergen.runtime.structural``).
    """
    from .runtime.structural import structural_tag as build

    module = load(name)
    return build(module.RENDERER, module.ChatParser.ARGUMENTS, tools, tool_choice=tool_choice)


__all__ = ["aliases", "detect", "formats", "load", "structural_tag", "switch_thinking",
           "thinking"]
