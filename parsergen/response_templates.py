"""Hugging Face ``response_template``s loaded as formats: compiled, not interpreted.

``parsergen.load`` accepts a template dict, a ``tokenizer_config.json`` (or a model
directory holding one), or a transformers tokenizer with ``.response_template``.  The
template becomes a spec (``compiler/response_template.py``), then goes the way a user's
spec goes (validate, lower, IR, generator, an in-memory module), cached by the sha256 of
the template's canonical JSON: the same template gives the same module object.

Nothing here imports the compiler until a template is compiled.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from .index import FormatEntry
from .specs import SpecError, import_format, is_path

CONFIG_NAME = "tokenizer_config.json"
_FORMATS: dict[str, Any] = {}  # template digest -> IR


def tokenizer_template(tokenizer: object) -> dict[str, Any] | None:
    """A tokenizer's response_template as vLLM 0.33 reads it for its ``hf`` parser
    (``vllm/parser/response_template.py``, ``resolve_response_template``): the
    ``response_template`` attribute if it is a dict, else the one of ``init_kwargs``
    (what ``from_pretrained`` read from tokenizer_config.json); None without one."""
    template = getattr(tokenizer, "response_template", None)
    if not isinstance(template, dict):
        init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
        template = init_kwargs.get("response_template") if isinstance(init_kwargs, dict) else None
    return template if isinstance(template, dict) else None


def is_template(obj: object) -> bool:
    """Whether ``load`` reads ``obj`` as a response_template: a mapping, an object with a
    ``response_template`` (``tokenizer_template``), a path ending in .json, or a
    directory's path (a path object, or text with a separator) holding a
    tokenizer_config.json."""
    if isinstance(obj, dict):
        return True
    if isinstance(obj, (str, os.PathLike)):
        path = Path(obj)
        if path.suffix == ".json":
            return True
        # A directory only where a path is meant: "qwen3" is a format's name, "./qwen3" a path.
        return is_path(obj) and (path / CONFIG_NAME).is_file()
    return tokenizer_template(obj) is not None


def _format_name(hint: str) -> str:
    name = re.sub(r"[^a-z0-9_]+", "_", hint.lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"hf_{name}".rstrip("_")
    return name


def _from_file(path: Path) -> tuple[Any, dict[Any, Any], str, str]:
    """(template, its positions, name hint, display) from a JSON file or a model directory."""
    from parsergen.compiler.diagnostics import Diagnostic, Position
    from parsergen.compiler.diagnostics import SpecError as CompilerSpecError
    from parsergen.compiler.loader import load_yaml

    if path.is_dir():
        path = path / CONFIG_NAME
    hint = path.resolve().parent.name if path.name == CONFIG_NAME else path.stem
    display = os.fspath(path)
    try:
        data, positions, _ = load_yaml(path, display)  # JSON is YAML: a line for every key
    except CompilerSpecError:
        try:
            data, positions = json.loads(path.read_text(encoding="utf-8")), {}
        except (OSError, ValueError) as exc:
            raise CompilerSpecError([Diagnostic(Position(display, 1, 1), "$",
                                                f"not a readable JSON file: {exc}")]) from None
    if isinstance(data, dict) and "response_template" in data:
        key = ("response_template",)
        return (data["response_template"],
                {p[1:]: pos for p, pos in positions.items() if p[:1] == key}, hint, display)
    if isinstance(data, dict) and "fields" in data:  # the template itself
        return data, positions, hint, display
    raise CompilerSpecError([Diagnostic(Position(display, 1, 1), "$",
                                        "holds no response_template")])


def _source(obj: object) -> tuple[Any, dict[Any, Any], str, str]:
    if isinstance(obj, dict):
        return obj, {}, "response_template", "response_template"
    if isinstance(obj, (str, os.PathLike)):
        return _from_file(Path(obj))
    if isinstance(obj, LocalTokenizer):  # its file: errors name their lines
        return _from_file(Path(obj.name_or_path))
    template = tokenizer_template(obj)
    hint = os.path.basename(os.fspath(getattr(obj, "name_or_path", "") or "")) or "tokenizer"
    return template, {}, hint, f"{hint} response_template"


def compile_template(obj: object) -> tuple[str, Any]:
    """The digest and IR of a template (SpecError naming each field that cannot be)."""
    template, origin, hint, display = _source(obj)
    try:
        canonical = json.dumps(template, sort_keys=True, ensure_ascii=False).encode()
    except (TypeError, ValueError) as exc:
        from parsergen.compiler.diagnostics import Diagnostic, Position
        from parsergen.compiler.diagnostics import SpecError as CompilerSpecError

        raise CompilerSpecError([Diagnostic(Position(display, 1, 1), "$",
                                            f"not JSON data: {exc}")]) from None
    name = _format_name(hint)
    digest = hashlib.sha256(name.encode() + b"\0" + canonical).hexdigest()
    fmt = _FORMATS.get(digest)
    if fmt is None:
        from parsergen.compiler.diagnostics import SpecError as CompilerSpecError
        from parsergen.compiler.lower import lower
        from parsergen.compiler.response_template import template_spec
        from parsergen.compiler.to_ir import build_ir
        from parsergen.compiler.validate import validate

        spec, positions = template_spec(template, name, display, origin)
        problems = validate(spec, positions)
        if problems:  # a template the front end let through that the spec language refuses
            from parsergen.compiler.response_template import TemplateDiagnostic

            raise CompilerSpecError([TemplateDiagnostic(
                d.position, d.path, f"in the spec this template compiles to: {d.message}")
                for d in problems])
        fmt = build_ir(lower(spec, positions), display, canonical)
        _FORMATS[digest] = fmt
    return digest, fmt


class LocalTokenizer:
    """What routing reads of a tokenizer, from a model directory's files, without
    transformers: the ``response_template`` and ``chat_template`` of its
    tokenizer_config.json (or chat_template.jinja), and its added tokens as the
    vocabulary (where a format's marker tokens are)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        folder = Path(directory)
        self.name_or_path = os.fspath(directory)
        config = self._read(folder / CONFIG_NAME)
        template = config.get("response_template")
        self.response_template = template if isinstance(template, dict) else None
        chat = config.get("chat_template")
        jinja = folder / "chat_template.jinja"
        if not isinstance(chat, str) and jinja.is_file():
            chat = jinja.read_text(encoding="utf-8", errors="replace")
        self.chat_template = chat if isinstance(chat, str) else None
        added = config.get("added_tokens_decoder")
        self._vocab = {t["content"]: int(i) for i, t in added.items()
                       if isinstance(t, dict) and isinstance(t.get("content"), str)
                       and str(i).isdigit()} if isinstance(added, dict) else {}
        for token in self._read(folder / "tokenizer.json").get("added_tokens") or ():
            if isinstance(token, dict) and isinstance(token.get("content"), str):
                self._vocab.setdefault(token["content"], token.get("id", -1))

    @staticmethod
    def _read(path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get_vocab(self) -> dict[str, int]:
        return dict(self._vocab)


def template_entry(obj: object) -> FormatEntry:
    """The index entry of a template's format (compiled, not imported); SpecError."""
    from parsergen.compiler.generator import format_entry

    return format_entry(compile_template(obj)[1])


def load_template(obj: object) -> ModuleType:
    """The module of a response_template (a dict, a tokenizer_config.json or a model
    directory, or a tokenizer with ``.response_template``); SpecError if it cannot be."""
    digest, fmt = compile_template(obj)
    where = os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else "<response_template>"
    return import_format(digest, fmt, where)


__all__ = ["CONFIG_NAME", "LocalTokenizer", "SpecError", "compile_template", "is_template",
           "load_template", "template_entry", "tokenizer_template"]


def export_template(name: Any) -> dict[str, Any]:
    """The response_template that says bundled format ``name`` (or an alias, or a spec's
    path) for transformers' ``parse_response``; SpecError naming the spec line and the
    reason where the template language cannot say the format."""
    from parsergen import aliases, grammars
    from parsergen.compiler.build import compile_spec
    from parsergen.compiler.export_template import response_template

    if is_path(name):
        path = Path(name)
    else:
        name = aliases().get(str(name), str(name))
        path = Path(grammars.__file__).resolve().parent / f"{name}.yaml"
        if not path.is_file():
            raise KeyError(name)
    return response_template(compile_spec(path))
