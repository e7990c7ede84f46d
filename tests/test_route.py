"""Routes: a model's format with its variant's defaults, and version-aware patterns.

``parsergen.route(model)`` returns the format, its module and the defaults the matching
``models:`` entries carry (``thinking``); the parsers a route makes apply them and an
explicit argument wins.  A pattern may hold ``{>=3.5,<4}``: a whole version number in
that range, so a newer release of a family routes without a new pattern.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import MappingProxyType

import pytest

import parsergen
from parsergen.compiler import SpecError, compile_spec, plan
from parsergen.routing import Pattern, Route, Router, pattern_errors, version

# ------------------------------------------------------------------ version patterns


@pytest.mark.parametrize(("pattern", "name", "spans"), [
    ("qwen{>=3.5,<4}", "qwen/qwen3.5-9b", [(5, 12)]),
    ("qwen{>=3.5,<4}", "qwen/qwen3.10-9b", [(5, 13)]),  # 3.10 is above 3.5
    ("qwen{>=3.5,<4}", "qwen/qwen3-8b", []),  # 3 is below 3.5: the number is read whole
    ("qwen{>=3.5,<4}", "qwen/qwen4-8b", []),  # the range stops before 4
    ("qwen{>=3.5,<4}", "qwen/qwen3.55", [(5, 13)]),  # never cut to 3.5 inside 3.55
    ("glm-{>=4.5,<6}", "zai-org/glm-5", [(8, 13)]),
    ("glm-{>=4.5,<6}", "zai-org/glm-4.5v", [(8, 15)]),
    ("glm-{>=4.5,<6}", "thudm/glm-4-9b-chat", []),
    ("deepseek-v{>=4.1,<5}", "deepseek-v41", []),  # 41 is no 4.1
    ("deepseek-v{>=4.1,<5}", "deepseek-v4.0", []),  # 4.0 is 4
    ("v{}", "v1-v2", [(0, 2), (3, 5)]),  # {} is any version; every place
])
def test_a_version_placeholder_matches_a_whole_number_in_its_range(
        pattern: str, name: str, spans: list[tuple[int, int]]) -> None:
    assert Pattern(pattern).spans(name) == spans


def test_versions_compare_as_numbers() -> None:
    assert version("3.10") > version("3.9")
    assert version("4.0") == version("4") == (4,)
    assert Pattern("kimi-k{>=2.5,<3}").examples() == ["kimi-k2.5", "kimi-k2.6"]
    assert Pattern("x{>=4}-y{<2}").examples() == ["x4-y1", "x4-y1.1", "x4.1-y1", "x4.1-y1.1",
                                                  "x5-y1", "x5-y1.1"]


@pytest.mark.parametrize(("pattern", "error"), [
    ("qwen{>3.5}", "write at most one '>=N' and one '<N'"),
    ("qwen{>=3.5,>=3.6}", "write at most one '>=N' and one '<N'"),
    ("qwen{>=4,<4}", "is an empty range"),
    ("qwen{>=3.5", "unbalanced"),
    ("{>=1}", "needs some text besides its version"),
])
def test_malformed_version_placeholders(pattern: str, error: str) -> None:
    assert any(error in e for e in pattern_errors(pattern))


def test_well_formed_patterns_have_no_errors() -> None:
    for pattern in ("qwen3-", "qwen{>=3.5,<4}", "glm-{>=4.5}", "v{}", "x{<2}-y{ >=1 }"):
        assert pattern_errors(pattern) == []


def test_a_covering_match_is_more_specific() -> None:
    router = Router({"v4": ["deepseek-v4"], "v41": ["deepseek-v{>=4.1,<5}"]})
    assert router.detect("deepseek-ai/DeepSeek-V4-Flash") == "v4"
    assert router.detect("deepseek-ai/DeepSeek-V4.2-Flash") == "v41"  # covers deepseek-v4
    assert router.detect("deepseek-ai/DeepSeek-V5") is None
    # On the same text, more literal characters win: the literal over the placeholder.
    router = Router({"a": ["deepseek-v{>=4}"], "b": ["deepseek-v4.1"]})
    assert router.detect("DeepSeek-V4.1-Flash") == "b"
    assert router.detect("DeepSeek-V4.2-Flash") == "a"
    assert router.conflicts() == []


def test_two_placeholders_on_the_same_text_conflict() -> None:
    router = Router({"a": ["glm-{>=4.5}"], "b": ["glm-{>=5,<6}"]})
    assert router.detect("GLM-5.1") is None
    assert router.conflicts() == [("glm-{>=4.5}", "a", "glm-{>=5,<6}", "b", "glm-5")]


# ------------------------------------------------------------------ defaults


def test_the_defaults_of_every_deciding_pattern_apply() -> None:
    router = Router({"q": ["qwen3-", parsergen.ModelPattern("-instruct-2507", False)]})
    assert router.route("Qwen/Qwen3-4B-Instruct-2507") == ("q", {"thinking": False})
    assert router.route("Qwen/Qwen3-8B") == ("q", {})
    # One format, one option, two values: ambiguous, and the build says so.
    router = Router({"q": [parsergen.ModelPattern("foo-xy", True),
                           parsergen.ModelPattern("xy-bar", False)]})
    assert router.route("foo-xy-bar") is None
    assert router.route("foo-xy") == ("q", {"thinking": True})
    assert router.conflicts() == [("foo-xy", "q", "xy-bar", "q", "foo-xy-bar")]


def test_route_and_detect_agree() -> None:
    for name in ("Qwen/Qwen3-8B", "Qwen/Qwen3-Coder-30B-A3B-Instruct", "gpt2", "", None):
        found = parsergen.route(name)
        assert parsergen.detect(name) == (found.format if found else None)
    assert parsergen.route() is None


def test_a_route_by_tokenizer_has_no_defaults(get_tokenizer) -> None:
    found = parsergen.route("/models/my-finetune", tokenizer=get_tokenizer("kimi_k2"))
    assert found == Route("kimi_k2") and dict(found.defaults) == {}


def test_a_route_names_its_module_and_entry() -> None:
    found = parsergen.route("moonshotai/Kimi-K2-Instruct")
    assert found is not None
    assert found.module is parsergen.load("kimi_k2")
    assert found.entry is parsergen.entry("kimi_k2")
    assert isinstance(found.defaults, MappingProxyType)  # read-only
    with pytest.raises(TypeError):
        found.defaults["thinking"] = True  # type: ignore[index]


# A Qwen3-Coder / Instruct-2507 answer after a prompt ending in <|im_start|>assistant\n:
# no reasoning marker anywhere: the prompt, when given, or the variant's default says content.
PROMPT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
ANSWER = "Hello! How can I help?"


@pytest.mark.parametrize("model", ["Qwen/Qwen3-Coder-30B-A3B-Instruct",
                                   "Qwen/Qwen3-4B-Instruct-2507",
                                   "moonshotai/Kimi-K2-Instruct"])
def test_a_model_that_never_thinks_answers_in_content(model: str) -> None:
    found = parsergen.route(model)
    assert found is not None and found.defaults["thinking"] is False
    message = found.parse(ANSWER, prompt_text=PROMPT)
    assert (message.reasoning, message.content) == (None, ANSWER)
    # Without a prompt the format alone (thinking on by default) calls it all reasoning;
    # with the prompt, which holds no reasoning marker, the prompt decides: content.
    assert found.module.parse(ANSWER).content is None
    assert found.module.parse(ANSWER, prompt_text=PROMPT).content == ANSWER
    # An explicit argument wins; None is no argument.
    assert found.parse(ANSWER, thinking=True).reasoning == ANSWER
    assert found.parse(ANSWER, thinking=None).content == ANSWER


def test_a_thinking_variant_reasons_until_its_end_marker() -> None:
    found = parsergen.route("Qwen/Qwen3-235B-A22B-Thinking-2507")
    assert found is not None
    message = found.parse("Let me see.\n</think>\n\nIt is 4.")
    assert (message.reasoning, message.content) == ("Let me see.\n", "\n\nIt is 4.")


def test_streaming_parsers_apply_the_defaults() -> None:
    found = parsergen.route("Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert found is not None
    assert found.streaming_parser().thinking is False
    assert found.streaming_parser(thinking=True).thinking is True
    chat = found.chat_parser(tools=None)
    deltas = [chat.feed("Hel"), chat.feed("lo"), chat.finish()]
    assert "".join(d.content or "" for d in deltas if d is not None) == "Hello"
    assert all(d is None or not d.reasoning for d in deltas)


def test_thinking_of_a_request() -> None:
    coder = parsergen.route("Qwen/Qwen3-Coder-30B-A3B-Instruct")
    hybrid = parsergen.route("Qwen/Qwen3-8B")
    assert coder is not None and hybrid is not None
    assert coder.thinking() is False and hybrid.thinking() is True  # variant, format
    assert hybrid.thinking({"enable_thinking": False}) is False  # the request's switch
    assert coder.thinking({"enable_thinking": True}) is True


def test_seed_oss_thinks_unless_its_budget_is_zero() -> None:
    # Seed-OSS's template reads thinking_budget: 0 closes the think block in the prompt
    # (github.com/ByteDance-Seed/seed-oss README, "Thinking Budget"); -1 or unset:
    # unlimited thinking.
    seed = parsergen.route("ByteDance-Seed/Seed-OSS-36B-Instruct")
    assert seed is not None
    assert seed.thinking() is True
    assert seed.thinking({"thinking_budget": 512}) is True
    assert seed.thinking({"thinking_budget": -1}) is True
    assert seed.thinking({"thinking_budget": 0}) is False
    assert seed.thinking({"enable_thinking": False}) is True  # not Seed's switch
    answer = "To determine how much Janet makes, follow these steps."
    assert seed.parse(answer, thinking=seed.thinking({"thinking_budget": 0})).content == answer


# ------------------------------------------------------------------ specs


def _write(tmp_path: Path, name: str, models: str) -> Path:
    path = tmp_path / "grammars" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"name: {name}\n"
        "description: d\n"
        "initial_state: {thinking: REASONING, otherwise: CONTENT}\n"
        "reasoning: {start: [], end: [A]}\n"
        "models:\n"
        + textwrap.indent(models, "  ")
        + f'terminals: {{A: "<{name}>"}}\n'
        "transitions: {REASONING: {A: {to: CONTENT, emit: [REASONING_END]}}}\n",
        encoding="utf-8")
    return path


def _errors(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        compile_spec(path, f"grammars/{path.name}")
    return [str(d) for d in info.value.diagnostics]


def test_a_models_entry_carries_its_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, "alpha", '- alpha-\n- {pattern: "alpha{>=2}-chat", thinking: false}\n')
    fmt = compile_spec(path, "grammars/alpha.yaml")
    assert fmt.models == (parsergen.ModelPattern("alpha-"),
                          parsergen.ModelPattern("alpha{>=2}-chat", thinking=False))
    assert fmt.model_lines == (6, 7)
    specs = [(path, "grammars/alpha.yaml")]
    [index] = [o for o in plan(specs, tmp_path / "generated", index=True)
               if o.path.name == "__init__.py"]
    # Each entry cites its spec line, as other derived values do.
    assert 'ModelPattern("alpha{>=2}-chat", thinking=False),  # models (line 7)' in index.text


@pytest.mark.parametrize(("models", "error"), [
    ("- {pattern: a-, think: false}\n",
     "grammars/alpha.yaml:6:19: $.models[0].think: unknown key 'think' (did you mean "
     "'thinking'?); expected one of: pattern, thinking"),
    ("- {thinking: false}\n", "grammars/alpha.yaml:6:5: $.models[0]: 'pattern' is required"),
    ("- {pattern: a-, thinking: maybe}\n",
     "grammars/alpha.yaml:6:19: $.models[0].thinking: 'maybe' is not of type 'boolean'"),
    ('- "a{>3}"\n', "grammars/alpha.yaml:6:5: $.models[0]: pattern 'a{>3}': version {>3}: "
     "write at most one '>=N' and one '<N', separated by a comma"),
    ('- a-\n- {pattern: A-, thinking: true}\n',
     "grammars/alpha.yaml:7:6: $.models[1].pattern: pattern 'A-' is listed twice (also "
     "entry 0)"),
])
def test_bad_models_entries_name_file_line_and_field(tmp_path: Path, models: str,
                                                      error: str) -> None:
    assert _errors(_write(tmp_path, "alpha", models)) == [error]


def test_conflicting_defaults_are_a_build_error(tmp_path: Path) -> None:
    _write(tmp_path, "alpha", "- {pattern: foo-xy, thinking: true}\n"
                              "- {pattern: xy-bar, thinking: false}\n")
    specs = [(p, f"grammars/{p.name}") for p in sorted((tmp_path / "grammars").glob("*.yaml"))]
    with pytest.raises(SpecError) as info:
        plan(specs, tmp_path / "generated", index=True)
    [message] = [str(d) for d in info.value.diagnostics]
    assert message == ("grammars/alpha.yaml:6:1: $.models: 'foo-xy' (alpha) and 'xy-bar' "
                       "(alpha) both match 'foo-xy-bar' and they give the same option two "
                       "values: add a pattern that decides it")

