"""Markers spelt with values the served tokenizer gives (``tokenizer_values``), and a
thinking switch by the value that turns thinking off (issue 38: hy_v3).

Expected messages for the suffixed HY 3 checkpoint are vLLM 0.33's: its legacy hy_v3
reasoning and tool parsers run in the peer venv on the same text with
``support.tokenizers.hy_v3_suffixed`` (the capture is in the test's comment).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

import parsergen
from parsergen import integrations
from parsergen.runtime import accumulate
from parsergen.specs import SpecError
from support import tokenizers as toks

# As tools/golden_corpus.py's TOOLS (the peer capture's request): days is an integer.
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "get_weather tool",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "days": {"type": "integer"}}}}}]

S = ":a1b2c3d4"
SUFFIXED = (f"<think{S}>Need the weather.</think{S}>Checking.<tool_calls{S}>\n<tool_call{S}>"
            f"get_weather<tool_sep{S}>\n<arg_key{S}>city</arg_key{S}>\n<arg_value{S}>Beijing"
            f"</arg_value{S}>\n<arg_key{S}>days</arg_key{S}>\n<arg_value{S}>3</arg_value{S}>\n"
            f"</tool_call{S}>\n</tool_calls{S}>")


def _message(module, text: str, tokenizer, thinking: bool) -> dict:
    ids = tokenizer.encode(text, add_special_tokens=False)
    got = module.parse(text, tools=TOOLS, tokenizer=tokenizer, token_ids=ids, thinking=thinking)
    return {"reasoning": got.reasoning, "content": got.content,
            "calls": [[c.name, json.loads(c.arguments)] for c in got.tool_calls]}


# vLLM 0.33, hy_v3 reasoning parser (chat_template_kwargs reasoning_effort) then its
# hy_v3 tool parser on the content, tokenizer hy_v3_suffixed:
#   high:     reasoning "Need the weather.", content "Checking.", get_weather {city, days: 3}
#   no_think: reasoning null, content "<think:a1b2c3d4>Need the weather.</think:a1b2c3d4>Checking.",
#             the same call
@pytest.mark.parametrize("effort, reasoning, content", [
    ("high", "Need the weather.", "Checking."),
    ("no_think", None, f"<think{S}>Need the weather.</think{S}>Checking."),
])
def test_hy_v3_reads_the_checkpoints_suffix(effort: str, reasoning, content) -> None:
    tokenizer = toks.hy_v3_suffixed()
    module = parsergen.load("hy_v3", tokenizer=tokenizer)
    thinking = parsergen.thinking("hy_v3", {"reasoning_effort": effort})
    assert _message(module, SUFFIXED, tokenizer, thinking) == {
        "reasoning": reasoning, "content": content,
        "calls": [["get_weather", {"city": "Beijing", "days": 3}]]}
    # Streamed a token at a time, the same message.
    chat = module.ChatParser(tokenizer, tools=TOOLS, thinking=thinking)
    ids = tokenizer.encode(SUFFIXED, add_special_tokens=False)
    deltas = [chat.feed(tokenizer.decode([tid]), [tid]) for tid in ids] + [chat.finish()]
    streamed = accumulate(deltas)
    assert (streamed.reasoning, streamed.content) == (reasoning, content)
    assert [(c.name, json.loads(c.arguments)) for c in streamed.tool_calls] == \
        [("get_weather", {"city": "Beijing", "days": 3})]


def test_a_route_parses_with_the_tokenizers_markers() -> None:
    tokenizer = toks.hy_v3_suffixed()
    route = parsergen.route("tencent/Hy3-preview")
    assert route is not None
    ids = tokenizer.encode(SUFFIXED, add_special_tokens=False)
    got = route.parse(SUFFIXED, tools=TOOLS, tokenizer=tokenizer, token_ids=ids,
                      thinking=route.thinking({"reasoning_effort": "high"}))
    assert (got.reasoning, got.content, got.tool_calls[0].name) == \
        ("Need the weather.", "Checking.", "get_weather")
    chat = route.chat_parser(tokenizer, tools=TOOLS)
    assert type(chat).__module__ == parsergen.load("hy_v3", tokenizer=tokenizer).__name__
    assert type(route.chat_parser(None)).__module__ == "parsergen.generated.hy_v3"


def test_without_the_suffix_the_markers_are_text() -> None:
    # The bundled module has the defaults' spellings: the suffixed markers are not its.
    got = parsergen.load("hy_v3").parse(SUFFIXED, tools=TOOLS)
    assert got.tool_calls == () and got.content == SUFFIXED


def test_a_tokenizer_with_the_defaults_gets_the_bundled_module() -> None:
    bundled = parsergen.load("hy_v3")
    assert parsergen.load("hy_v3", tokenizer=toks.hy_v3()) is bundled
    suffixed = parsergen.load("hy_v3", tokenizer=toks.hy_v3_suffixed())
    assert suffixed is not bundled
    assert parsergen.load("hy_v3", tokenizer=toks.hy_v3_suffixed()) is suffixed  # cached
    assert suffixed.SPEC["terminals"]["THINK_START"]["text"] == f"<think{S}>"
    assert integrations.tokenized(bundled, toks.hy_v3_suffixed()) is suffixed
    assert integrations.tokenized(bundled, None) is bundled
    assert parsergen.entry("hy_v3").tokenizer_values == (("suffix", "token_suffix", None, ""),)


SPEC = """\
name: my_suffixed
description: markers with a vocabulary-detected suffix
tokenizer_values:
  tag: {vocabulary: "<(?:call|end)(:[^\\\\s>]+)?>", default: ""}
terminals:
  CALL: {text: "<call${tag}>", token_id: true}
  END: {text: "<end${tag}>", token_id: true}
transitions:
  CONTENT: {CALL: {to: TOOL_NAME, emit: [TOOL_CALL_START]}}
  TOOL_NAME: {END: {to: TOOL_ARGS}}
  TOOL_ARGS: {END: {to: CONTENT, emit: [TOOL_CALL_END]}}
render: {call: "${CALL}${name}${END}${arguments}${END}"}
"""


def test_a_value_found_in_the_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "my_suffixed.yaml"
    path.write_text(SPEC)
    vocab = {"a": 0, "<call:x9>": 1, "<end:x9>": 2}
    tokenizer = SimpleNamespace(get_vocab=lambda: vocab, init_kwargs={})
    module = parsergen.load(path, tokenizer=tokenizer)
    got = module.parse('hi<call:x9>f<end:x9>{"a": 1}<end:x9>')
    assert (got.content, got.tool_calls[0].name, got.tool_calls[0].arguments) == \
        ("hi", "f", '{"a": 1}')
    plain = parsergen.load(path)  # no tokenizer: the default, ""
    assert plain.parse('<call>f<end>{}<end>').tool_calls[0].name == "f"
    nothing = SimpleNamespace(get_vocab=lambda: {"a": 0}, init_kwargs={})
    assert parsergen.load(path, tokenizer=nothing) is plain


@pytest.mark.parametrize("declaration, uses, where, message", [
    ('{init_kwarg: k, default: ""}', "<call${tga}>", "$.terminals.CALL.text",
     "${tga} names no tokenizer value (tokenizer_values declares: tag)"),
    ('{vocabulary: "<call(", default: ""}', "<call${tag}>", "$.tokenizer_values.tag.vocabulary",
     "not a regular expression"),
    ('{vocabulary: "<call>", default: ""}', "<call${tag}>", "$.tokenizer_values.tag.vocabulary",
     "needs a group"),
    ('{init_kwarg: k}', "<call${tag}>", "$.tokenizer_values.tag", "default"),
    ('{default: ""}', "<call${tag}>", "$.tokenizer_values.tag", "init_kwarg"),
])
def test_a_bad_declaration_names_file_line_and_field(tmp_path: Path, declaration: str, uses: str,
                                                     where: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace('{vocabulary: "<(?:call|end)(:[^\\\\s>]+)?>", default: ""}',
                                 declaration).replace('"<call${tag}>"', f'"{uses}"'))
    with pytest.raises(SpecError) as err:
        parsergen.load(path)
    lines = [line for line in str(err.value).splitlines() if where in line]
    assert lines and message in lines[0], str(err.value)
    assert lines[0].startswith(f"{path}:4:") or lines[0].startswith(f"{path}:6:"), lines[0]


def test_a_value_named_as_a_render_field_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("${tag}", "${name}").replace("  tag:", "  name:"))
    with pytest.raises(SpecError, match=r"bad.yaml:4:\d+: \$.tokenizer_values.name: 'name' is a "
                                        "render field"):
        parsergen.load(path)


@pytest.mark.parametrize("kwargs, expected", [
    ({}, None),  # the format's default (hy_v3: no reasoning)
    ({"reasoning_effort": "no_think"}, False),
    ({"reasoning_effort": "high"}, True),
    ({"reasoning_effort": "none"}, True),  # only no_think is off (vLLM's hy_v3 parser)
    ({"reasoning_effort": ""}, None),  # empty: not set (vLLM reads `value or "no_think"`)
])
def test_a_switch_by_the_value_that_turns_thinking_off(kwargs: dict, expected) -> None:
    assert parsergen.entry("hy_v3").thinking_switch == (("reasoning_effort", None, "no_think"),)
    assert parsergen.thinking("hy_v3", kwargs) is expected
    route = parsergen.route("tencent/Hy3-preview")
    assert route is not None and route.format == "hy_v3"
    assert route.thinking(kwargs) is (False if expected is None else expected)


def test_the_request_field_reaches_the_switch_as_vllm_merges_it() -> None:
    # vLLM 0.33's build_chat_params puts the request's reasoning_effort into the
    # template kwargs, over chat_template_kwargs' own.
    request = SimpleNamespace(chat_template_kwargs={"reasoning_effort": "no_think"},
                              reasoning_effort="high")
    assert integrations.template_kwargs(request) == {"reasoning_effort": "high"}
    unset = SimpleNamespace(chat_template_kwargs=None, reasoning_effort=None)
    assert integrations.template_kwargs(unset) == {}
    assert parsergen.thinking("hy_v3", integrations.template_kwargs(request)) is True


def _hy4_vocab(suffix: str) -> SimpleNamespace:
    """vLLM's hy_v4 tests' FakeTokenizer: the structural tags only, no init_kwargs."""
    tags = ["think", "tool_calls", "tool_call", "arg_key", "arg_value"]
    names = [f"<{t}{suffix}>" for t in tags] + [f"</{t}{suffix}>" for t in tags]
    vocab = {tag: i for i, tag in enumerate(names)}
    return SimpleNamespace(get_vocab=lambda: vocab, init_kwargs={})


def _hy4_call(suffix: str, name: str, args: list[tuple[str, str]]) -> str:
    body = "".join(f"<arg_key{suffix}>{k}</arg_key{suffix}><arg_value{suffix}>{v}"
                   f"</arg_value{suffix}>" for k, v in args)
    return f"<tool_calls{suffix}><tool_call{suffix}>{name}{body}</tool_call{suffix}></tool_calls{suffix}>"


# vLLM's tests/tool_parsers/test_hy_v4_tool_parser.py: test_values_typed_from_schema
# (suffix ":opensource") and test_regex_metacharacters_in_suffix (":a+b(c"), with what
# they assert.
@pytest.mark.parametrize("suffix, text, content, calls", [
    (":opensource", "sure!" + _hy4_call(":opensource", "get_weather",
                                         [("city", "Beijing"), ("days", "3")]),
     "sure!", [("get_weather", {"city": "Beijing", "days": 3})]),
    (":a+b(c", _hy4_call(":a+b(c", "get_current_date", []), None, [("get_current_date", {})]),
])
def test_hy_v4_finds_its_suffix_in_the_vocabulary(suffix: str, text: str, content, calls) -> None:
    module = parsergen.load("hy_v4", tokenizer=_hy4_vocab(suffix))
    assert module.SPEC["terminals"]["CALLS_START"]["text"] == f"<tool_calls{suffix}>"
    tools = [*TOOLS, {"type": "function", "function": {"name": "get_current_date",
                                                      "parameters": {"type": "object"}}}]
    got = module.parse(text, tools=tools, thinking=False)
    assert got.content == content
    assert [(c.name, json.loads(c.arguments)) for c in got.tool_calls] == calls
    # vLLM's test_unsuffixed_tokens: a vocabulary of unsuffixed tags means no suffix.
    assert parsergen.load("hy_v4", tokenizer=_hy4_vocab("")) is parsergen.load("hy_v4")


class _Checkpoint:
    """A tokenizer as vLLM hands one over, with HY 3's suffix in its init_kwargs."""

    def __init__(self) -> None:
        self.init_kwargs = {"token_suffix": S}


def test_many_tokenizers_share_one_module_and_are_not_all_kept() -> None:
    """A process that makes tokenizer after tokenizer (a test suite, a server reloading)
    compiles the suffixed spelling once and keeps only the last few tokenizers alive."""
    import gc
    import weakref

    refs, modules = [], set()
    for _ in range(40):
        tokenizer = _Checkpoint()
        refs.append(weakref.ref(tokenizer))
        modules.add(parsergen.load("hy_v3", tokenizer=tokenizer))
        del tokenizer
    gc.collect()
    assert len(modules) == 1 and modules != {parsergen.load("hy_v3")}
    assert 0 < sum(r() is not None for r in refs) <= 16
