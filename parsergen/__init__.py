"""parsergen: model-output parsers generated from YAML format specs.

``parsergen.formats()`` lists the bundled formats and ``parsergen.load(name)``
returns a format's generated module (``StreamingParser``, ``FORMAT``, ``SPEC``);
``parsergen.load("path/to/spec.yaml")`` compiles a user's spec in memory (``specs``);
``parsergen.entry(name)`` its index entry (names, model routes, thinking switch,
markers), read without importing the module; ``parsergen.variant(name, kwargs)`` the
format a request's settings choose; ``parsergen.route(model)`` the format of
a model with its variant's defaults (``Route.parse``, ``Route.chat_parser`` apply them).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

from . import native

native.choose()  # (before anything imports the runtime: compiled or pure Python)

from .index import FormatEntry, ModelPattern  # noqa: E402
from .routing import Route, route  # noqa: E402
from .specs import SpecError, SpecWarning, is_path, load_path, spec_entry  # noqa: E402
from .specs import by_name as _user_spec  # noqa: E402
from .response_templates import is_template, load_template  # noqa: E402
from .tokenizer_values import read_values  # noqa: E402
from .response_templates import export_template as export_response_template  # noqa: E402

__version__ = "0.1.0"


def formats() -> list[str]:
    """Names of the bundled formats, sorted."""
    from parsergen.generated import FORMATS

    return list(FORMATS)


def aliases() -> dict[str, str]:
    """Other names of formats (alias -> format)."""
    from parsergen.generated import ALIASES

    return dict(ALIASES)


def load(name: Any, *, tokenizer: Any = None) -> ModuleType:
    """The generated module of format ``name`` (or an alias), or of the spec at a path.

    ``tokenizer``: the served checkpoint's, for a spec whose markers use
    ``tokenizer_values`` (``<think${suffix}>``): the spec compiled with the values the
    tokenizer gives (once per tokenizer); the bundled module where they are the defaults.

    A path (a path object, or text ending in .yaml/.yml or holding a separator) is
    compiled in memory and cached by content (``parsergen.specs``); SpecError (every
    problem as ``FILE:LINE:COL: $.path: message``) if it cannot be.  A name that no
    bundled format has may be a ``PARSERGEN_SPECS`` spec's; else KeyError.

    ``name`` is a format name or a path (``str | os.PathLike[str]``), or a Hugging Face
    ``response_template``, which compiles the same way
    (``parsergen.response_templates``): the template dict, a ``tokenizer_config.json``
    (a .json path) or a model directory holding one, or a tokenizer that has
    ``.response_template``.
    """
    if is_template(name):
        return load_template(name)
    if tokenizer is not None:
        return _load_for(name, tokenizer)
    if is_path(name):
        return load_path(name)
    name = os.fspath(name)  # (a name: a path object is a path)
    name = aliases().get(name, name)
    if name not in formats():
        path = _user_spec(name)
        if path is None:
            raise KeyError(name)
        return load_path(path)
    return importlib.import_module(f"parsergen.generated.{name}")


# Modules of specs with tokenizer values: by the values (compiled once per spelling), and
# by (format or path, id of the tokenizer) for the last few tokenizers seen, each kept so
# its id is not reused while it is a key (a server has one or a few; a process that makes
# many keeps only the last _TOKENIZERS_KEPT alive).
_TOKENIZERS_KEPT = 16
_BY_TOKENIZER: dict[tuple[str, int], tuple[Any, ModuleType]] = {}
_BY_VALUES: dict[tuple[str, tuple[tuple[str, str], ...]], ModuleType] = {}


def _load_for(name: Any, tokenizer: Any) -> ModuleType:
    """``load(name)``, its markers spelt with the values ``tokenizer`` gives."""
    key = (os.fspath(name), id(tokenizer))
    known = _BY_TOKENIZER.get(key)
    if known is not None and known[0] is tokenizer:
        return known[1]
    module = load(name)
    declarations = entry(name).tokenizer_values
    if declarations:
        values = read_values(declarations, tokenizer)
        if values != {n: default for n, _, _, default in declarations}:
            spelt_key = (key[0], tuple(sorted(values.items())))
            spelt = _BY_VALUES.get(spelt_key)
            if spelt is None:
                path = name if is_path(name) else _spec_path(module)
                spelt = _BY_VALUES[spelt_key] = load_path(path, values=values)
            module = spelt
    if len(_BY_TOKENIZER) >= _TOKENIZERS_KEPT:
        del _BY_TOKENIZER[next(iter(_BY_TOKENIZER))]  # (the oldest)
    _BY_TOKENIZER[key] = (tokenizer, module)
    return module


def _spec_path(module: ModuleType) -> str:
    """The spec a format's module was compiled from: a user's path, or the bundled grammar."""
    if module.__name__.startswith("parsergen.generated."):
        from .compiler.loader import bundled_grammars

        return os.fspath(bundled_grammars() / f"{module.FORMAT}.yaml")
    path = module.__file__
    assert path is not None  # (specs.import_format gives a user's module its spec's path)
    return path


def entry(name: str | os.PathLike[str]) -> FormatEntry:
    """The index entry of format ``name`` (or an alias, or a spec's path, as ``load``);
    imports no format module."""
    from parsergen.generated import INDEX

    if is_path(name):
        return spec_entry(name)
    name = os.fspath(name)
    name = aliases().get(name, name)
    for found in INDEX:
        if found.name == name:
            return found
    path = _user_spec(name)
    if path is None:
        raise KeyError(name)
    return spec_entry(path)


def thinking(name: str, chat_template_kwargs: Mapping[str, Any] | None) -> bool | None:
    """Whether a request's ``chat_template_kwargs`` turn thinking on for format ``name``.

    Reads the keys the spec declares in ``thinking_switch`` (the first one the request
    sets wins); None when the request sets none of them, or the format has no switch,
    so the parser keeps its default.
    """
    return switch_thinking(entry(name).thinking_switch, chat_template_kwargs)


def switch_thinking(switch: Iterable[tuple[str, Any, Any]],
                    chat_template_kwargs: Mapping[str, Any] | None) -> bool | None:
    """``thinking`` for any switch (``FormatEntry.thinking_switch``): read from the kwargs."""
    kwargs = chat_template_kwargs or {}
    for key, on, off in switch:
        value = kwargs.get(key)
        if off is not None:
            # An empty value is no choice (Hunyuan's parsers read `value or default`).
            if value:
                return value != off
        elif value is not None:
            return bool(value) if on is None else value == on
    return None


def variant(name: str | os.PathLike[str],
            chat_template_kwargs: Mapping[str, Any] | None) -> str:
    """The format that parses a request of format ``name``, by its ``request_options``.

    Each option's key is read from the request's ``chat_template_kwargs`` (the option's
    default where the request does not set it); its value names the variant (a format's
    name, or a user's spec's path: what ``load`` takes).  ``name`` itself when it has no
    options.  ValueError for a value no option lists, as the chat template refuses it.
    """
    return choose_variant(entry, os.fspath(name), chat_template_kwargs)


def choose_variant(entry_of: Callable[[str], FormatEntry], name: str,
                   chat_template_kwargs: Mapping[str, Any] | None) -> str:
    """``variant`` over any index (``entry_of``: a format's entry by name or path)."""
    kwargs = chat_template_kwargs or {}
    seen = {name}
    current = entry_of(name)
    for _ in range(len(seen) + 64):  # (validation makes every variant settle at once)
        for key, default, choices in current.request_options:
            value = kwargs.get(key)
            value = default if value is None else value
            table = dict(choices)
            if not isinstance(value, str) or value not in table:
                raise ValueError(f"{key}={value!r} is not a value format {current.name!r} "
                                 f"parses; its values: {', '.join(table)}")
            target = table[value]
            if target == name:
                continue
            chosen = entry_of(target)
            if chosen.name != current.name:  # another variant: its options decide again
                name, current = target, chosen
                break
        else:
            return name
        if name in seen:
            break
        seen.add(name)
    raise ValueError(f"the request_options of {name!r} do not settle on one format")


def detect(model_name: str | None = None, *, tokenizer: object = None,
           specs: Iterable[str | os.PathLike[str]] = ()) -> str | None:
    """The format that parses a model's reasoning and tool calls, or None: the format of
    ``route(model_name, tokenizer=tokenizer, specs=specs)`` (see ``parsergen.route``)."""
    found = route(model_name, tokenizer=tokenizer, specs=specs)
    return found.format if found is not None else None


def structural_tag(name: str, tools: Any, *, tool_choice: Any = "auto") -> dict[str, Any] | None:
    """An xgrammar structural tag for format ``name``'s calls of ``tools`` (plain data).

    ``tool_choice``: ``"auto"``, ``"required"``, a tool's name or ``{"type": "function",
    "function": {"name": ...}}``.  None when the format's arguments syntax cannot be
    expressed to xgrammar (see ``parsergen.runtime.structural``).
    """
    return load(name).structural_tag(tools, tool_choice=tool_choice)


def which_build() -> str:
    """Which build runs, in a line: the compiled runtime and formats (mypyc), or pure
    Python and why (``parsergen --version``)."""
    return native.describe()


__all__ = ["FormatEntry", "ModelPattern", "Route", "SpecError", "SpecWarning", "aliases", "detect",
           "entry", "export_response_template", "formats", "load", "route", "structural_tag", "switch_thinking", "thinking",
           "variant", "which_build"]
