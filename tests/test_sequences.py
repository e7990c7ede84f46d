"""Markers spelled over several special tokens are matched as id sequences.

InternLM2 writes a plugin call as ``<|action_start|><|plugin|>`` JSON
``<|action_end|>`` (its chat template, internlm/internlm2-chat-7b), and the same
``<|action_start|>`` before ``<|interpreter|>`` for code.  Those are special tokens at
ids 92538-92541 of its vocabulary; with ids a marker is its tokens, and the same
characters typed as prose are text.
"""

from __future__ import annotations

import pytest

from parsergen.runtime import accumulate
from parsergen.runtime.sequences import PieceSequencer
from parsergen.runtime.tokens import Marker
from support.specs import build
from support.tokenizers import _byte_level, byte_token_ids

SPEC = """
    name: action
    description: InternLM2-style actions spelled over two special tokens
    terminals:
      PLUGIN: "<|action_start|><|plugin|>"
      INTERPRETER: "<|action_start|><|interpreter|>"
      ACTION_END: "<|action_end|>"
    transitions:
      CONTENT:
        PLUGIN: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
        INTERPRETER: CONTENT
      TOOL_ARGS:
        ACTION_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json_envelope, name_key: name, argument_keys: [parameters]}
    render:
      call: '<|action_start|><|plugin|>\\n{"name": ${name_json}, "parameters": ${arguments}}<|action_end|>'
    """

CALL = '<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": 1}}<|action_end|>'


@pytest.fixture(scope="module")
def tokenizer():
    # InternLM2's ids for these tokens (tokenizer_config.json of internlm2-chat-7b).
    specials = [(92538, "<|plugin|>", True), (92539, "<|interpreter|>", True),
                (92540, "<|action_end|>", True), (92541, "<|action_start|>", True),
                (92542, "<|im_end|>", True), (92543, "<|im_start|>", True)]
    return _byte_level(0, specials, eos="<|im_end|>")


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return build(tmp_path_factory.mktemp("action"), SPEC)


def _stream(module, tokenizer, ids: list[int]):
    """Per-token deltas (each token's own text) through ChatParser, and parse()."""
    parser = module.ChatParser(tokenizer)
    deltas = [parser.feed(tokenizer.decode([i]), [i]) for i in ids]
    streamed = accumulate([*deltas, parser.finish()])
    whole = module.parse(tokenizer.decode(ids), tokenizer=tokenizer, token_ids=ids)
    return streamed, whole


def test_a_spelling_over_special_tokens_matches_by_ids(module, tokenizer) -> None:
    ids = tokenizer.encode("Sure." + CALL + "Done.", add_special_tokens=False)
    assert 92541 in ids and 92538 in ids  # the marker is its special tokens
    for message in _stream(module, tokenizer, ids):
        assert message.content == "Sure.Done."
        assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", '{"a": 1}')]
    # Neither token is dropped as an unnamed special token (issue 13's first point).
    info = module.StreamingParser.LEXICONS[False].info(tokenizer)
    assert not info.drop_texts & {"<|action_start|>", "<|plugin|>"}


def test_the_same_characters_typed_as_prose_are_text(module, tokenizer) -> None:
    prose = byte_token_ids(tokenizer, CALL)
    assert not {92538, 92540, 92541} & set(prose)
    ids = [*tokenizer.encode("Use ", add_special_tokens=False), *prose]
    for message in _stream(module, tokenizer, ids):
        assert (message.content, list(message.tool_calls)) == ("Use " + CALL, [])
    # Without ids there is only text: the spelling is the marker.
    assert [c.name for c in module.parse(CALL).tool_calls] == ["f"]


def test_a_first_piece_that_spells_nothing_is_text(module, tokenizer) -> None:
    # <|action_start|><|interpreter|> is another marker; <|action_start|> then prose is
    # the token's text, and the interpreter block is content (the spec says so).
    text = "a<|action_start|>b<|action_start|><|interpreter|>print(1)<|action_end|>c"
    ids = tokenizer.encode(text, add_special_tokens=False)
    for message in _stream(module, tokenizer, ids):
        assert message.content == "a<|action_start|>bprint(1)<|action_end|>c"
        assert list(message.tool_calls) == []


def test_a_spelling_cut_at_the_end_is_text(module, tokenizer) -> None:
    ids = tokenizer.encode("a<|action_start|>", add_special_tokens=False)
    for message in _stream(module, tokenizer, ids):
        assert (message.content, list(message.tool_calls)) == ("a<|action_start|>", [])


def test_the_sequencer_takes_the_longest_spelling() -> None:
    a, b = chr(0x100000), chr(0x100001)
    sequencer = PieceSequencer({a: "SHORT", a + "x" + b: "LONG"})
    got = sequencer.feed([Marker(a, "<a>"), "x"])
    assert got == [] and sequencer.held  # a longer spelling may still come
    assert sequencer.feed([Marker(b, "<b>"), "tail"]) == [Marker("LONG", "<a>x<b>"), "tail"]
    assert sequencer.feed([Marker(a, "<a>"), "y"]) == [Marker("SHORT", "<a>"), "y"]
    assert sequencer.feed([Marker(b, "<b>")]) == ["<b>"]  # starts no spelling
    assert sequencer.feed([Marker(a, "<a>")]) == []
    assert sequencer.feed([Marker("END", "</e>")]) == [Marker("SHORT", "<a>"),
                                                       Marker("END", "</e>")]


CHECKED = """
    name: checked
    description: spellings that surprise with token ids
    terminals:
      PLUGIN: "<|action_start|><|plugin|>"
      INTERP: "run<|interpreter|>"
      SHELL: {text: ["sh<|interpreter|>", "SHELL:"]}
      ACTION_END: {text: ["<|action_end|>", "END"], token_id: true}
      MISSING: {text: "<|missing|>", token_id: true}
    transitions:
      CONTENT:
        PLUGIN: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
        INTERP: CONTENT
        SHELL: CONTENT
        MISSING: CONTENT
      TOOL_ARGS:
        ACTION_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json_envelope, name_key: name, argument_keys: [parameters]}
    render:
      call: '<|action_start|><|plugin|>{"name": ${name_json}, "parameters": ${arguments}}<|action_end|>'
    """


def test_check_with_a_tokenizer_says_how_each_terminal_is_matched(tmp_path, tokenizer,
                                                                  capsys) -> None:
    import textwrap

    from parsergen.compiler import cli

    spec = tmp_path / "checked.yaml"
    spec.write_text(textwrap.dedent(CHECKED).lstrip("\n"), encoding="utf-8")
    tokenizer.save_pretrained(tmp_path / "tok")
    assert cli.main(["check", "--tokenizer", str(tmp_path / "tok"), str(spec)]) == 0
    out, err = capsys.readouterr()
    assert f"{spec}:4: PLUGIN '<|action_start|><|plugin|>' by id sequence" in out
    # Words before a special token: the token by id, the words as text (GigaChat 3).
    assert f"{spec}:5: INTERP 'run<|interpreter|>' by id sequence" in out
    assert f"{spec}:6: SHELL 'sh<|interpreter|>' by text" in out
    assert f"{spec}:7: ACTION_END '<|action_end|>' by token id" in out
    warned = {line.split(": warning: ")[0]: line for line in err.splitlines()
              if ": warning: " in line}
    # SHELL's other spelling has no special token: a quote of the first acts as it.
    assert "has a spelling without one" in warned[f"{spec}:6:1"]
    assert "'END' is never matched once token ids come" in warned[f"{spec}:7:1"]
    assert "'<|missing|>' is not one token" in warned[f"{spec}:8:1"]
    assert f"{spec}:4:1" not in warned and f"{spec}:5:1" not in warned
    # A bad tokenizer is an error message, not a traceback.
    assert cli.main(["check", "--tokenizer", str(tmp_path / "nothing"), str(spec)]) == 2
    assert "cannot load tokenizer" in capsys.readouterr().err


def test_a_special_token_inside_a_text_spelling_is_kept(tmp_path, tokenizer) -> None:
    # "sh<|interpreter|>" is matched as text (SHELL has a plain spelling too), so its
    # special token must not be dropped as one the spec does not name.
    module = build(tmp_path, CHECKED)
    ids = tokenizer.encode("a sh<|interpreter|>b", add_special_tokens=False)
    assert 92539 in ids
    message = module.parse("a sh<|interpreter|>b", tokenizer=tokenizer, token_ids=ids)
    assert message.content == "a b"


def test_words_then_a_special_token_match_by_its_id(tmp_path, tokenizer) -> None:
    # GigaChat 3 starts a call with `function call<|role_sep|>\n`: words, then a special
    # token. With ids the words are held until the token shows; typed, it is all text.
    module = build(tmp_path, CHECKED)
    typed = [*tokenizer.encode("a ", add_special_tokens=False),
             *byte_token_ids(tokenizer, "run<|interpreter|>b")]
    split = tokenizer.encode("a runrun ru", add_special_tokens=False)
    for ids, content in (
            (tokenizer.encode("a run<|interpreter|>b", add_special_tokens=False), "a b"),
            (typed, "a run<|interpreter|>b"),
            # Words that start the spelling and then do not finish it are text again.
            ([*split, *tokenizer.encode("n<|interpreter|>b", add_special_tokens=False)],
             "a runrun b"),
            (split, "a runrun ru")):
        parser = module.ChatParser(tokenizer)
        streamed = accumulate([*(parser.feed(tokenizer.decode([i]), [i]) for i in ids),
                               parser.finish()])
        whole = module.parse(tokenizer.decode(ids), tokenizer=tokenizer, token_ids=ids)
        assert streamed.content == whole.content == content
    # The sequencer itself: the words and the piece, after text that ends in their start.
    piece = chr(0x100000)
    sequencer = PieceSequencer({"run" + piece: "RUN"})
    assert sequencer.feed(["x ru"]) == ["x "] and sequencer.held
    assert sequencer.feed(["n", Marker(piece, "<p>"), "y"]) == [Marker("RUN", "run<p>"), "y"]
    assert sequencer.feed(["rurun"]) == ["ru"]
    assert sequencer.flush() == ["run"]


def test_text_that_lags_behind_its_pieces(module, tokenizer) -> None:
    # A detokenizer may hand a token's text one delta late, and a server may hand a
    # parser a run of tokens whose last text has not come yet (vLLM's tool parser after
    # the reasoning parser): <|action_start|> recurs, so its rightmost occurrence in the
    # text is not always its own.
    text = "Sure." + CALL + CALL + "Done."
    ids = tokenizer.encode(text, add_special_tokens=False)
    pieces = [tokenizer.decode([i]) for i in ids]
    lagged = [("" if i == 0 else pieces[i - 1], [t]) for i, t in enumerate(ids)]
    lagged.append((pieces[-1], []))
    grouped = [("".join(p for p, _ in lagged[i : i + 9]),
                [t for _, group in lagged[i : i + 9] for t in group])
               for i in range(0, len(lagged), 9)]
    # The first delta: the text of a whole call, the ids of it and of the next token
    # (the second call's <|action_start|>, whose text comes with the next delta).
    k = len(tokenizer.encode("Sure." + CALL, add_special_tokens=False))
    handed = [("".join(pieces[:k]), ids[: k + 1])] + lagged[k + 1 :]
    for deltas in (lagged, grouped, handed):
        parser = module.ChatParser(tokenizer)
        message = accumulate([*(parser.feed(t, i) for t, i in deltas), parser.finish()])
        assert message.content == "Sure.Done."
        assert [c.name for c in message.tool_calls] == ["f", "f"]
