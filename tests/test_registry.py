"""Every name in vLLM 0.33's parser registries is a bundled format, an alias, or a
README line saying why not (issue 13 item 1).

The names are vLLM 0.33's ``ToolParserManager`` and ``ReasoningParserManager``
registries as the peer venv (tools/vllm-peer.sh) listed them; where vLLM imports, the
list is checked against the live registries too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parsergen
from parsergen.integrations import TEMPLATE_NAMES

TOOL = ["apertus", "beam", "cohere_command3", "cohere_command4", "deepseek_v3",
        "deepseek_v31", "deepseek_v32", "deepseek_v4", "deepseek_v41", "dots", "ernie45",
        "functiongemma", "gemma4", "gigachat3", "glm45", "glm47", "granite",
        "granite-20b-fc", "granite4", "hermes", "hf", "hunyuan_a13b", "hy_v3", "hy_v4",
        "inkling", "internlm", "jamba", "k2_horizon", "kimi_k2", "kimi_k3", "lfm2", "ling3",
        "llama3_json", "llama4_json", "llama4_pythonic", "longcat", "mimo", "minicpm5",
        "minimax_m2", "minimax_m3", "mistral", "muse", "muse_glimmer", "musespark1x",
        "olmo3", "openai", "phi4_mini_json", "plamo3", "poolside_v1", "pythonic",
        "qwen3_coder", "qwen3_json", "qwen3_xml", "seed_oss", "step3", "step3p5", "step5",
        "xlam"]
REASONING = ["beam", "cohere_command3", "cohere_command4", "deepseek_r1", "deepseek_v3",
             "deepseek_v4", "deepseek_v41", "ernie45", "gemma4", "glm45", "glm47", "granite",
             "granite_thinking_parser", "hf", "holo2", "hunyuan_a13b", "hy_v3", "hy_v4",
             "inkling", "k2_horizon", "kimi_k2", "kimi_k3", "ling3", "mimo", "minicpmv",
             "minimax_m2", "minimax_m2_append_think", "minimax_m3", "mistral", "muse",
             "muse_glimmer", "musespark1x", "nemotron_v3", "olmo3", "openai_gptoss", "plamo3",
             "poolside_v1", "qwen3", "seed_oss", "step3", "step3p5", "step5"]

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _not_shipped() -> set[str]:
    """Names README's "Not shipped" list gives a line each (``- name, name: why``)."""
    section = README.split("Not shipped, one line each:", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for head in re.findall(r"^- (.+?):", section, re.M):
        names.update(n.strip(" `") for n in re.split(r",\s*", re.sub(r"\(.*?\)", "", head)))
    return names


def test_every_vllm_name_is_shipped_or_explained() -> None:
    # hf and beam: parsers built from the served checkpoint's response_template
    # (parsergen_hf, parsergen_beam).
    known = set(parsergen.formats()) | set(parsergen.aliases()) | set(TEMPLATE_NAMES)
    missing = sorted(set(TOOL + REASONING) - known - _not_shipped())
    assert missing == []
    # A README line for a name that ships would be stale.
    assert sorted(_not_shipped() & known) == []


def test_the_list_is_vllms() -> None:
    tools = pytest.importorskip("vllm.tool_parsers")
    reasoning = pytest.importorskip("vllm.reasoning")

    def names(manager: object) -> set[str]:
        return set(getattr(manager, "tool_parsers", {})) | set(
            getattr(manager, "reasoning_parsers", {})) | set(getattr(manager, "lazy_parsers", {}))

    assert names(tools.ToolParserManager) == set(TOOL)
    assert names(reasoning.ReasoningParserManager) == set(REASONING)
