"""A checkpoint's response_template routed like a format (issue 37, item 4).

``parsergen.route()`` (and ``detect``) fall back to the tokenizer's Hugging Face
``response_template`` when no format claims the model, by name or by its markers; a
format that claims it wins, and ``parsergen detect`` says which rule decided.  Where a
message is compared, the expectation is transformers' ``parse_response`` on the same
template and text, run here.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import parsergen
from parsergen.compiler import cli
from parsergen.generated import INDEX
from parsergen.routing import TEMPLATE, detect_by_tokenizer
from support.hf_templates import LOOKAHEAD_ELSEWHERE, smollm

# Markers SmolLM3's template writes, as a tokenizer holds them: qwen3, mimo, hermes, ...
# write them too, so they decide for no one format.
SHARED = {"<think>": 1, "</think>": 2, "<tool_call>": 3, "</tool_call>": 4}
# Kimi K2's marker tokens: they decide for kimi_k2.
KIMI = {"<|tool_calls_section_begin|>": 1, "<|tool_calls_section_end|>": 2,
        "<|tool_call_begin|>": 3, "<|tool_call_argument_begin|>": 4, "<|tool_call_end|>": 5,
        "<think>": 6, "</think>": 7}
TEXT = ('<think>\nLet me think.\n</think>\n\n<tool_call>\n{"name": "get_weather", '
        '"arguments": {"city": "Paris", "days": 2}}\n</tool_call>\n<|im_end|>')


def _tokenizer(vocab: dict[str, int], template: Any = smollm, name: str = "org/SmolLM3-3B",
               **more: Any) -> SimpleNamespace:
    return SimpleNamespace(response_template=template, name_or_path=name,
                           get_vocab=lambda: dict(vocab), **more)


def test_no_format_claims_the_model_so_its_template_does() -> None:
    tokenizer = _tokenizer(SHARED)
    found = parsergen.route("/models/my-finetune", tokenizer=tokenizer)
    assert found is not None and found.template is tokenizer and found.spec is None
    assert found.format == "smollm3_3b"  # the checkpoint's name
    assert found.module is parsergen.load(tokenizer)  # one compile per template content
    assert parsergen.route("/models/other", tokenizer=tokenizer).module is found.module
    assert found.entry.name == "smollm3_3b"
    assert parsergen.detect("/models/my-finetune", tokenizer=tokenizer) == "smollm3_3b"
    assert parsergen.detect(tokenizer=tokenizer) == "smollm3_3b"  # no name at all
    assert detect_by_tokenizer(
        [e for e in INDEX if e.models], tokenizer) == TEMPLATE


def test_the_template_route_parses_as_transformers_does() -> None:
    chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")
    found = parsergen.route("/models/my-finetune", tokenizer=_tokenizer(SHARED))
    message = found.parse(TEXT)
    expected = chat_parsing.parse_response(TEXT, smollm, prefix="")
    assert message.content is None
    calls = [{"type": "function", "function": {"name": c.name, "arguments": json.loads(
        c.arguments)}} for c in message.tool_calls]
    assert {"role": "assistant", "thinking": message.reasoning, "tool_calls": calls} \
        == expected


def test_a_template_read_from_init_kwargs_as_vllm_reads_it() -> None:
    # transformers keeps tokenizer_config.json's keys in init_kwargs; vLLM's hf parser
    # reads the template there when the attribute is not set.
    tokenizer = SimpleNamespace(init_kwargs={"response_template": smollm},
                                name_or_path="/ckpt/SmolLM3-3B", get_vocab=dict)
    found = parsergen.route(tokenizer=tokenizer)
    assert found is not None and found.format == "smollm3_3b"
    assert found.parse("<think>a</think>b").reasoning == "a"


def test_a_format_that_claims_the_model_wins_over_its_template() -> None:
    # By name: Qwen3's patterns claim it, whatever the tokenizer carries.
    found = parsergen.route("Qwen/Qwen3-8B", tokenizer=_tokenizer(SHARED))
    assert (found.format, found.template) == ("qwen3_json", None)
    assert found.reason.endswith("the tokenizer's response_template is not used: "
                                 "a format claims the model")
    # By markers: Kimi K2's tokens name one format.
    found = parsergen.route("/models/my-finetune", tokenizer=_tokenizer(KIMI))
    assert (found.format, found.template) == ("kimi_k2", None)
    assert "hold kimi_k2's markers" in found.reason
    # Without a template, nothing changes: the shared markers still decide nothing.
    assert parsergen.route("/models/x", tokenizer=SimpleNamespace(get_vocab=lambda: SHARED)) \
        is None


def test_a_template_that_does_not_compile_routes_nowhere_and_says_why() -> None:
    with pytest.warns(parsergen.SpecWarning, match="lookahead"):
        found = parsergen.route("/models/x", tokenizer=_tokenizer(SHARED, LOOKAHEAD_ELSEWHERE))
    assert found is None


def test_describe_says_which_rule_decided() -> None:
    found = parsergen.route("/models/my-finetune", tokenizer=_tokenizer(SHARED))
    assert found.describe() == (
        "smollm3_3b (the checkpoint's response_template)\n"
        "why: no models pattern decides '/models/my-finetune', nor do the tokenizer's "
        "markers: the checkpoint's response_template")


def _model_dir(root: Path, name: str, template: Any, **config: Any) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"response_template": template, **config}, indent=2), encoding="utf-8")
    return folder


def test_cli_detect_reads_a_model_directorys_template(tmp_path: Path, capsys) -> None:
    folder = _model_dir(tmp_path, "SmolLM3-finetune", smollm)
    assert cli.main(["detect", str(folder)]) == 0
    out = capsys.readouterr()
    assert out.err == "" and out.out == (
        "smollm3_finetune (the checkpoint's response_template)\n"
        f"why: no models pattern decides {str(folder)!r}, nor do the tokenizer's markers: "
        "the checkpoint's response_template\n")


def test_cli_detect_a_claimed_model_directory(tmp_path: Path, capsys) -> None:
    # The directory's name is Qwen3-Coder's: the bundled format wins over the template.
    folder = _model_dir(tmp_path, "Qwen3-Coder-30B-A3B-Instruct", smollm)
    assert cli.main(["detect", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("qwen3\nthinking: false (model)\n")
    assert out.endswith("matches qwen3's models pattern 'qwen3-coder'; the tokenizer's "
                        "response_template is not used: a format claims the model\n")
    # Kimi K2's added tokens decide for kimi_k2 in a directory no pattern names.
    added = {str(i): {"content": t, "special": True} for t, i in KIMI.items()}
    folder = _model_dir(tmp_path, "my-finetune", smollm, added_tokens_decoder=added)
    assert cli.main(["detect", str(folder)]) == 0
    assert capsys.readouterr().out.startswith("kimi_k2\n")


def test_cli_detect_a_template_that_does_not_compile(tmp_path: Path, capsys) -> None:
    folder = _model_dir(tmp_path, "nemotron-finetune", LOOKAHEAD_ELSEWHERE)
    assert cli.main(["detect", str(folder)]) == 1
    err = capsys.readouterr().err
    config = folder / "tokenizer_config.json"
    line = next(i for i, s in enumerate(config.read_text().splitlines(), 1) if "(?=" in s)
    assert f"{config}:{line}:" in err and "lookahead" in err
    assert err.endswith(f"no format for {str(folder)!r}\n")


def test_the_integrations_module_of_a_served_tokenizer() -> None:
    """What parsergen_hf serves (vLLM and SGLang plugins): the module of the tokenizer's
    template, once per template; a clear error without one."""
    from parsergen import integrations

    tokenizer = _tokenizer(SHARED)
    module = integrations.template_module(tokenizer)
    assert module is parsergen.load(tokenizer) and integrations.template_module(tokenizer) is module
    assert integrations.entry(module).reasoning_end == "</think>"
    with pytest.raises(TypeError, match="parsergen_hf requires `response_template`"):
        integrations.template_module(SimpleNamespace(get_vocab=dict))
    with pytest.raises(parsergen.SpecError, match="lookahead"):
        integrations.template_module(_tokenizer(SHARED, LOOKAHEAD_ELSEWHERE))
    assert integrations.TEMPLATE_NAMES == ("hf", "beam")
