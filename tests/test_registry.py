"""Every name in vLLM 0.33's parser registries loads with ``parsergen.load(NAME)`` or
has a README line saying why not (issue 13 item 1, issue 38 item 3).

The names are vLLM 0.33's ``ToolParserManager`` and ``ReasoningParserManager``
registries as the peer venv (tools/vllm-peer.sh) listed them, 66 names; where vLLM
imports, the list is checked against the live registries too.  ``hf`` and ``beam`` are
no fixed format: they load from the served checkpoint's ``response_template``
(``parsergen.load(template)``), which is what is checked for them.  Run it in the peer
venv (``/tmp/vllm-peer/bin/python -m pytest tests/test_registry.py``, after
tools/check_vllm.sh installed this checkout there) for the live-registry check.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parsergen
from parsergen.integrations import TEMPLATE_NAMES
from support.hf_templates import TRL_qwen3

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


def _loads(name: str) -> bool:
    """Whether ``parsergen.load`` gives ``name``'s parser module (hf and beam: from a
    checkpoint's response_template, here TRL's Qwen3 one)."""
    try:
        module = parsergen.load(TRL_qwen3 if name in TEMPLATE_NAMES else name)
    except KeyError:
        return False
    return hasattr(module, "ChatParser")


def _unexplained(names: list[str], not_shipped: set[str]) -> tuple[list[str], list[str]]:
    """(names that neither load nor have a README line, README lines for names that
    load)."""
    loading = {name for name in names if _loads(name)}
    return (sorted(set(names) - loading - not_shipped),
            sorted(name for name in not_shipped if _loads(name)))


def test_the_registries_have_66_names() -> None:
    assert len(set(TOOL) | set(REASONING)) == 66


def test_every_vllm_name_loads_or_is_explained() -> None:
    missing, stale = _unexplained(TOOL + REASONING, _not_shipped())
    assert missing == []  # neither loads nor has a README line
    assert stale == []  # a README line for a name that loads


def test_a_name_that_neither_loads_nor_is_explained_fails() -> None:
    """The check above is no formality: a name vLLM adds, or a README line dropped while
    the name still does not load, is reported; a line for a loading name is stale."""
    not_shipped = _not_shipped()
    assert _unexplained(["qwen3", "no_such_parser"], not_shipped) == (["no_such_parser"], [])
    assert _unexplained(["qwen3", "minimax_m2_append_think"],
                        not_shipped - {"minimax_m2_append_think"}) == (["minimax_m2_append_think"], [])
    assert _unexplained(["qwen3"], not_shipped | {"qwen3"}) == ([], ["qwen3"])


def test_the_list_is_vllms() -> None:
    tools = pytest.importorskip("vllm.tool_parsers")
    reasoning = pytest.importorskip("vllm.reasoning")

    def names(manager: object) -> set[str]:
        # (Without parsergen's own: where parsergen is installed beside vLLM, its plugin
        # registers parsergen_<format> in the same registries.)
        found = set(getattr(manager, "tool_parsers", {})) | set(
            getattr(manager, "reasoning_parsers", {})) | set(getattr(manager, "lazy_parsers", {}))
        return {name for name in found if not name.startswith("parsergen_")}

    assert names(tools.ToolParserManager) == set(TOOL)
    assert names(reasoning.ReasoningParserManager) == set(REASONING)
