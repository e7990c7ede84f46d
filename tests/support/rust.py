"""The generated Rust reasoning parsers beside the Python modules: one split each.

A reasoning parser's split of a completion is (reasoning, content).  The Python module's
is what parsergen's vLLM reasoning parser gives (``parsergen/integrations/vllm.py``): a
``ChatParser`` with ``tool_choice="none"`` fed the deltas as text (vLLM's Rust parsers
see no ids), its reasoning until reasoning is over, then the model's text from
``content_offset`` on, as it came; a completion whose reasoning never ends and that has
no content gives the message's content (tool markup read meanwhile, or None).  The Rust
parser's is its pushes and ``finish()`` summed.  Shared by tests/test_rust.py and the
benchmarks.
"""

from __future__ import annotations

import importlib
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "rust" / "site"

Split = tuple[str | None, str | None]


def binding(site: Path = SITE) -> ModuleType:
    """The built binding (tools/build_rust.py), imported from ``site``."""
    if str(site) not in sys.path:
        sys.path.insert(0, str(site))
    return importlib.import_module("parsergen_rust")


def python_split(module: Any, deltas: list[str], *, tokenizer: Any = None,
                 prompt_token_ids: list[int] | None = None, thinking: bool | None = None,
                 cut_at_end: bool = False) -> Split:
    """The Python module's split of ``deltas`` (``cut_at_end``: fed one character at a
    time, so reasoning stops exactly where it ends, whatever the deltas)."""
    return python_stage(module, deltas, tokenizer=tokenizer, prompt_token_ids=prompt_token_ids,
                        thinking=thinking, cut_at_end=cut_at_end)[0]


def python_stage(module: Any, deltas: list[str], *, tokenizer: Any = None,
                 prompt_token_ids: list[int] | None = None, thinking: bool | None = None,
                 cut_at_end: bool = False) -> tuple[Split, bool]:
    """``python_split``, and whether that split depends on where the deltas are cut:
    the delta in which reasoning is over reports reasoning although the content handed
    on starts at or before it (reasoning that reopens after content within one delta:
    some text is reported twice), or the completion starts past its reasoning and its
    first delta is read for reasoning before the text is handed on."""
    text = "".join(deltas)
    chat = module.ChatParser(tokenizer, thinking=thinking, tool_choice="none")
    chat.initialize(list(prompt_token_ids or ()))
    reasoning: list[str] = []
    content: list[str] = []
    at = 0
    for delta in (list(text) if cut_at_end else deltas):
        got = chat.feed(delta)
        if got is not None:
            reasoning.append(got.reasoning or "")
            content.append(got.content or "")
        if chat.reasoning_ended:
            start = chat.content_offset or 0
            twice = got is not None and bool(got.reasoning) and start <= at
            first = at == 0 and chat.events.starts_past_reasoning and len(delta) > 1
            return ("".join(reasoning) or None, text[start:] or None), twice or first
        at += len(delta)
    last = chat.finish()
    if last is not None:
        reasoning.append(last.reasoning or "")
        content.append(last.content or "")
    if chat.reasoning_ended:
        return ("".join(reasoning) or None, text[chat.content_offset or 0:] or None), False
    return ("".join(reasoning) or None, "".join(content) or None), False


@lru_cache(maxsize=None)
def _rust_tokenizer(tokenizer: Any) -> Any:
    return binding().Tokenizer(tokenizer)


def rust_tokenizer(tokenizer: Any) -> Any:
    """The binding's tokenizer for a transformers one (made once), or None."""
    return None if tokenizer is None else _rust_tokenizer(tokenizer)


def rust_split(name: str, deltas: list[str], *, tokenizer: Any = None,
               prompt_token_ids: list[int] | None = None, thinking: bool | None = None) -> Split:
    """The generated Rust parser's split of ``deltas``, one push each."""
    parser = binding().ReasoningParser(name, rust_tokenizer(tokenizer), thinking)
    parser.initialize(list(prompt_token_ids or ()))
    reasoning: list[str] = []
    content: list[str] = []
    for delta in [*deltas, None]:
        got = parser.push(delta) if delta is not None else parser.finish()
        reasoning.append(got[0] or "")
        content.append(got[1] or "")
    return "".join(reasoning) or None, "".join(content) or None
