"""Adapters that plug parsergen's parsers into servers and data engines.

``formats()`` names every format an integration offers: the bundled ones, their
aliases, and the user's own specs listed in ``PARSERGEN_SPECS`` (YAML paths joined by
``os.pathsep``), compiled in memory at first use.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from functools import lru_cache
from types import ModuleType
from typing import Any

import parsergen
import parsergen.specs
from parsergen.index import FormatEntry
from parsergen.response_templates import tokenizer_template
from parsergen.specs import SPECS_VARIABLE

# The names of parsers built from the served tokenizer's Hugging Face response_template
# (``parsergen_hf``, ``parsergen_beam``): vLLM 0.33's names for its template parsers.
TEMPLATE_NAMES = ("hf", "beam")


def compile_module(path: str | os.PathLike[str]) -> ModuleType:
    """A user's spec compiled in memory and imported as a module (``parsergen.load``)."""
    return parsergen.specs.load_path(path)


def entry(module: ModuleType) -> FormatEntry:
    """The index entry of a module an integration serves, bundled or the user's own (a
    user's format may share a bundled format's name, so FORMAT alone does not say)."""
    found = parsergen.specs.module_entry(module)
    return found if found is not None else parsergen.entry(module.FORMAT)


def template_kwargs(request: Any) -> dict[str, Any]:
    """A request's chat template kwargs as vLLM renders the prompt with them: its
    ``chat_template_kwargs``, its ``reasoning_effort`` field over them when set (vLLM
    0.33's ``build_chat_params``; a parser the server builds gets them so merged)."""
    kwargs = dict(getattr(request, "chat_template_kwargs", None) or {})
    effort = getattr(request, "reasoning_effort", None)
    if effort not in (None, "auto"):
        kwargs["reasoning_effort"] = effort
    return kwargs


def tokenized(module: ModuleType, tokenizer: Any) -> ModuleType:
    """``module``, or, where its spec's markers use ``tokenizer_values``, the module whose
    markers are spelt as ``tokenizer`` gives them (``parsergen.load(..., tokenizer=)``)."""
    if tokenizer is None or not entry(module).tokenizer_values:
        return module
    own = parsergen.specs.module_entry(module) is not None  # a user's spec: by its path
    return parsergen.load(module.__file__ if own else module.FORMAT, tokenizer=tokenizer)


@lru_cache(maxsize=None)
def user_modules(specs: str | None = None) -> dict[str, ModuleType]:
    """Formats from the user's specs (``PARSERGEN_SPECS`` unless given): name -> module.

    A spec that does not compile is skipped with a warning naming its errors, so one
    broken file does not take a server's other parsers down."""
    paths = os.environ.get(SPECS_VARIABLE, "") if specs is None else specs
    out: dict[str, ModuleType] = {}
    for path in filter(None, paths.split(os.pathsep)):
        try:
            module = compile_module(path)
        except Exception as exc:  # SpecError above all: reported, never fatal
            warnings.warn(f"{SPECS_VARIABLE}: {path} was not registered: {exc}", stacklevel=2)
            continue
        out[module.FORMAT] = module
        for alias in entry(module).aliases:
            out[alias] = module
    return out


def formats() -> dict[str, ModuleType]:
    """Every format an integration registers, by name (aliases included)."""
    out = {name: parsergen.load(name) for name in parsergen.formats()}
    out.update((alias, parsergen.load(target)) for alias, target in parsergen.aliases().items())
    out.update(user_modules())
    return out


# Template modules by the id of the template dict they came from (a served tokenizer
# keeps one dict): each request's parsers skip hashing the template again.
_TEMPLATE_MODULES: dict[int, tuple[dict[str, Any], ModuleType]] = {}


def template_module(tokenizer: Any, name: str = "parsergen_hf") -> ModuleType:
    """The module compiled from the served tokenizer's Hugging Face response_template
    (read as vLLM's ``hf`` parser reads it: ``response_templates.tokenizer_template``).

    TypeError without one (``name`` is the parser asked for, as the server knows it),
    SpecError naming each field the compiler refuses."""
    template = tokenizer_template(tokenizer)
    if template is None:
        raise TypeError(f"{name} requires `response_template` metadata in the tokenizer "
                        "configuration (tokenizer_config.json)")
    known = _TEMPLATE_MODULES.get(id(template))
    if known is not None and known[0] is template:
        return known[1]
    module = parsergen.load(tokenizer)
    _TEMPLATE_MODULES[id(template)] = (template, module)
    return module


def thinking(module: ModuleType, chat_template_kwargs: Mapping[str, Any] | None) -> bool | None:
    """Thinking on or off for ``module``'s format from a request's chat_template_kwargs."""
    return parsergen.switch_thinking(entry(module).thinking_switch, chat_template_kwargs)


def variant(module: ModuleType, chat_template_kwargs: Mapping[str, Any] | None) -> ModuleType:
    """The module of the variant a request's chat_template_kwargs choose for ``module``'s
    format (its ``request_options``: ``parsergen.variant``); ``module`` itself without
    any.  ValueError for a value the format does not list."""
    own = entry(module)
    if not own.request_options:
        return module
    name = parsergen.choose_variant(
        lambda n: own if n == own.name else parsergen.entry(n), own.name, chat_template_kwargs)
    return module if name == own.name else parsergen.load(name)


__all__ = ["SPECS_VARIABLE", "TEMPLATE_NAMES", "compile_module", "entry", "formats",
           "template_kwargs", "template_module", "thinking", "tokenized", "user_modules",
           "variant"]
