"""Typed streaming of tool arguments: any split gives the same JSON, typed by the schema."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.json import JsonArguments
from parsergen.runtime.arguments.nested_elements import ElementArguments
from parsergen.runtime.arguments.notation_reader import NotationArguments
from parsergen.runtime.arguments.python_kwargs import PythonArguments
from parsergen.runtime.arguments.writer import ArgumentsWriter
from parsergen.runtime.arguments.xml_parameters_reader import TaggedArguments
from parsergen.runtime.coercion import coerce
from parsergen.runtime.schema_nodes import schema_types
from support import with_types

PROPS = {
    "city": {"type": "string"},
    "days": {"type": "integer"},
    "ratio": {"type": "number"},
    "flag": {"type": "boolean"},
    "note": {"type": ["string", "null"]},
    "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "obj": {"type": "object"},
    "items": {"type": "array"},
    "level": {"enum": ["low", "high"]},
}

QWEN = {"open": "<parameter=", "name_end": ">", "close": "</parameter>", "trim": True}
GLM = {"open": "<arg_key>", "name_end": "</arg_key>", "value_open": "<arg_value>",
       "close": "</arg_value>"}


def run(reader_factory, text: str, cuts: list[int]) -> tuple[str, list[str]]:
    writer = ArgumentsWriter(PROPS)
    reader = reader_factory(writer)
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    pieces = [reader.feed(text[a:b]) for a, b in zip(bounds, bounds[1:])]
    pieces.append(reader.finish())
    return "".join(pieces), pieces


@pytest.mark.parametrize(
    "key, raw, expected",
    [
        ("city", "3", "3"),
        ("days", "3", 3),
        ("days", "three", "three"),
        ("ratio", "1.5", 1.5),
        ("ratio", "2", 2),
        ("flag", "true", True),
        ("flag", "0", False),
        # vLLM 0.33's coerce_to_schema_type (tool_parsers/utils.py, its engine's): "1"
        # and "0" are booleans, case and spaces aside; other words stay text.
        ("flag", "1", True),
        ("flag", " False", False),
        ("flag", "yes", "yes"),
        ("note", "null", None),
        ("note", "nullish", "nullish"),
        ("either", "7", 7),
        ("either", "seven", "seven"),
        ("obj", '{"a": [1]}', {"a": [1]}),
        ("obj", "{broken", "{broken"),
        ("items", "[1, 2]", [1, 2]),
        ("level", "high", "high"),
        ("unknown", "5", "5"),
    ],
)
def test_tagged_values_are_typed_by_schema(key: str, raw: str, expected) -> None:
    out, _ = run(lambda w: TaggedArguments(w, **QWEN),
                 f"\n<parameter={key}>\n{raw}\n</parameter>\n", [])
    # (Types too: True == 1 and 2.0 == 2 in Python, not in JSON.)
    assert with_types(json.loads(out)) == with_types({key: expected})


def test_schema_types() -> None:
    assert schema_types({"type": ["integer", "null"]}) == {"integer", "null"}
    assert schema_types({"enum": [1, "a", None]}) == {"integer", "string", "null"}
    assert schema_types({"type": "string", "nullable": True}) == {"string", "null"}
    assert schema_types({}) == {"string"}
    assert coerce("1e999", frozenset(["number"])) == "1e999"  # not a JSON number


def test_string_values_stream_before_they_end() -> None:
    writer = ArgumentsWriter(PROPS)
    reader = TaggedArguments(writer, **QWEN)
    first = reader.feed("<parameter=city>\nZür")
    assert first == '{"city": "Zür'
    assert reader.feed("ich\n") == "ich"  # the newline may be the trimmed last one
    assert reader.feed("more") == "\\nmore"
    # A value the schema may retype waits until it is complete.
    assert reader.feed("</parameter><parameter=days>\n4") == '", "days": '
    # A close tag waits for what follows it: the call's end closes the value.
    assert reader.feed("2\n</parameter>") == ""
    assert reader.finish() == "42}"


def test_a_close_tag_is_decided_by_what_follows() -> None:
    """A close tag followed by more text is value text; followed by the next field's
    open tag (after whitespace) it closed the value."""
    writer = ArgumentsWriter(PROPS)
    reader = TaggedArguments(writer, **QWEN)
    out = reader.feed('<parameter=city>\nsay "</parameter>')
    out += reader.feed(' \n')
    assert out == '{"city": "say \\"'
    out += reader.feed('"\n</parameter>\n<para')
    assert out == '{"city": "say \\"</parameter> \\n\\"'
    out += reader.feed("meter=days>\n4\n</parameter>\n")
    assert out + reader.finish() == '{"city": "say \\"</parameter> \\n\\"", "days": 4}'


def test_close_tags_and_call_closers_quoted_in_values() -> None:
    """A value quoting its close tag and then the call's closer (qwen3), a MiniMax M3
    value holding its call closer: what follows each shows they are value text."""
    qwen3 = parsergen.load("qwen3")
    text = ('<tool_call>\n<function=f>\n<parameter=code>\nx = "</parameter>" </function> y'
            '\n</parameter>\n</function>\n</tool_call>')
    calls = qwen3.parse(text, thinking=False).tool_calls
    assert [json.loads(c.arguments) for c in calls] == [
        {"code": 'x = "</parameter>" </function> y'}]
    m3 = parsergen.load("minimax_m3")
    p = "]<]minimax[>["
    text = (f'{p}<tool_call>{p}<invoke name="f">{p}<code>a {p}</invoke> b{p}</code>'
            f'{p}</invoke>{p}</tool_call>')
    calls = m3.parse(text, thinking=False).tool_calls
    assert [json.loads(c.arguments) for c in calls] == [{"code": f"a {p}</invoke> b"}]


# (qwen3 and the formats that share its grammar: a call opener inside a value.)
OPENER_CASES = [
    # quoted in a value (the canitoolcall fixture qwen3-xml/coder-marker-in-arguments)
    ("<parameter=s>\nopen with <function=x>.\n</parameter>\n</function>",
     [("f", {"s": "open with <function=x>."})]),
    ("<parameter=s>\na <function=x> b <function=\n</parameter>\n</function>",
     [("f", {"s": "a <function=x> b <function="})]),
    # the value's close tag (and the call's) missing: a call's start follows it
    ("<parameter=s>\nv\n<function=g>\n<parameter=t>\nw\n</parameter>\n</function>",
     [("f", {"s": "v"}), ("g", {"t": "w"})]),
    ("<parameter=s>\nv\n<function=g>\n</function>", [("f", {"s": "v"}), ("g", {})]),
]


@pytest.mark.parametrize("fmt", ["qwen3", "mimo", "seed_oss", "step3p5"])
@pytest.mark.parametrize("args,expected", OPENER_CASES)
def test_a_call_opener_in_a_value_is_decided_by_what_follows(fmt: str, args: str,
                                                             expected: list) -> None:
    """``<function=x>`` inside a value starts a call only where a name, its ``>`` and
    then a field's open tag or a call closer follow (runtime/value_gate.py); streamed
    by characters as parsed."""
    module = parsergen.load(fmt)
    start, end = module.render({"content": None, "tool_calls": [
        {"name": "f", "arguments": {}}]}, thinking=False).split("</function>")
    text = start + args + end + "Done."
    parsed = module.parse(text, thinking=False, ids="sequential")
    got = [(c.name, {k: v.strip() for k, v in json.loads(c.arguments).items()})
           for c in parsed.tool_calls]  # (mimo keeps a value's newlines)
    assert got == expected
    assert parsed.content == "Done."
    chat = module.ChatParser(None, thinking=False, stream_calls="complete", ids="sequential")
    out = [chat.feed(ch) for ch in text] + [chat.finish()]
    assert accumulate(out) == parsed


def test_nullable_string_streams_once_it_cannot_be_null() -> None:
    writer = ArgumentsWriter(PROPS)
    reader = TaggedArguments(writer, **QWEN)
    assert reader.feed("<parameter=note>nu") == '{"note": '
    assert reader.feed("t") == '"nut'


VALUES = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
    st.integers(-1000, 1000), st.booleans(), st.none(),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 9), max_size=2),
)
ARGS = st.dictionaries(st.sampled_from(sorted(PROPS) + ["free", "x y", "ключ"]), VALUES,
                       max_size=5)


def _expected(args: dict) -> dict:
    """What typing by PROPS makes of values written as text."""
    out = {}
    for key, value in args.items():
        raw = value if isinstance(value, str) else json.dumps(value)
        types = schema_types(PROPS.get(key)) if key in PROPS else frozenset(["string"])
        out[key] = coerce(raw, types)
    return out


@settings(max_examples=300, deadline=None)
@given(args=ARGS, cuts=st.lists(st.integers(0, 10_000), max_size=10))
def test_tagged_any_split_gives_the_same_typed_json(args: dict, cuts: list[int]) -> None:
    # Values are written as the model writes them: strings raw, others as JSON text.
    body = "".join(
        f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v)}\n</parameter>\n"
        for k, v in args.items() if "<" not in str(v)
    )
    shown = {k: v for k, v in args.items() if "<" not in str(v)}
    whole, _ = run(lambda w: TaggedArguments(w, **QWEN), body, [])
    split, _ = run(lambda w: TaggedArguments(w, **QWEN), body, cuts)
    assert split == whole
    assert with_types(json.loads(whole)) == with_types(_expected(shown))


MINIMAX = {"open": "<parameter", "name_end": ">", "close": "</parameter>",
           "header": "attributes"}
MINICPM5 = {"open": "<param", "name_end": ">", "close": "</param>", "header": "attributes",
            "cdata": True}
# Tagged fields, well formed or not: per field its open tag, header, name end, value and
# close tag, any of them left out, values holding tags, other text between fields.
_TAGGED = {
    "qwen": (QWEN, ["days", "city", " obj "], ["\n3\n", "x y", "", "true", '{"a": 1}']),
    "minimax": (MINIMAX, [' name="days"', " name='city'", ' name="obj"/'],
                ["3", "x y", "", "null", "[1, 2]"]),
    "glm": (GLM, ["days", "city", " obj "], ["<arg_value>3", "\n<arg_value>x y", "3",
                                               "<arg_value>", "<arg_value>true"]),
    "cdata": (MINICPM5, [' name="days"', " name='city'", ' name="obj"/'],
              ["3", "<![CDATA[x </param> y]]>", "", "<![CDATA[", "]]>"]),
}
_FIELD = st.tuples(st.booleans(), st.integers(0, 2), st.booleans(),
                   st.lists(st.integers(0, 7), min_size=1, max_size=3), st.booleans(),
                   st.sampled_from(["", "\n", " ", "junk"]))


@settings(max_examples=500, deadline=None)
@given(style=st.sampled_from(sorted(_TAGGED)), fields=st.lists(_FIELD, max_size=4))
def test_tagged_whole_reads_as_pieces_do(style: str, fields: list) -> None:
    """``whole`` (a run's whole arguments) writes what ``feed`` then ``finish`` write,
    wherever it takes the text at all."""
    options, headers, values = _TAGGED[style]
    tags = [options["open"], options["close"], options["name_end"]]  # (quoted in values)
    text = ""
    for opened, header, named, parts, closed, after in fields:
        value = "".join((values + tags)[i] for i in parts)
        text += (options["open"] if opened else "") + headers[header] + (
            options["name_end"] if named else "") + value + (
            options["close"] if closed else "") + after
    taken = TaggedArguments(ArgumentsWriter(PROPS), **options).whole(text)
    if taken is not None:
        assert taken == run(lambda w: TaggedArguments(w, **options), text, [])[0], text


@pytest.mark.parametrize("options, body", [
    (QWEN, "<parameter=days>\n3\n</parameter>\n<parameter=city>\nRome\n</parameter>\n"),
    (MINIMAX, '<parameter name="days">3</parameter>\n<parameter name="obj"/>\n'),
    (GLM, "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n<arg_key>city</arg_key>"
          "<arg_value>Rome</arg_value>"),
])
def test_tagged_whole_takes_fields_as_written(options: dict, body: str) -> None:
    """Fields as templates write them are read at once."""
    taken = TaggedArguments(ArgumentsWriter(PROPS), **options).whole(body)
    assert taken is not None
    assert taken == run(lambda w: TaggedArguments(w, **options), body, [])[0]


@settings(max_examples=300, deadline=None)
@given(args=ARGS, cuts=st.lists(st.integers(0, 10_000), max_size=10))
def test_glm_tags_any_split(args: dict, cuts: list[int]) -> None:
    shown = {k: v for k, v in args.items() if "<" not in str(v)}
    body = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{v if isinstance(v, str) else json.dumps(v)}"
        "</arg_value>\n" for k, v in shown.items()
    )
    whole, _ = run(lambda w: TaggedArguments(w, **GLM), body, [])
    split, _ = run(lambda w: TaggedArguments(w, **GLM), body, cuts)
    assert split == whole
    expected = {k: coerce(v if isinstance(v, str) else json.dumps(v),
                          schema_types(PROPS[k]) if k in PROPS else frozenset(["string"]))
                for k, v in shown.items()}
    assert with_types(json.loads(whole)) == with_types(expected)


@settings(max_examples=300, deadline=None)
@given(args=ARGS, cuts=st.lists(st.integers(0, 10_000), max_size=10),
       ascii_only=st.booleans(), indent=st.sampled_from([None, 2]))
def test_json_any_split_gives_the_same_typed_json(args, cuts, ascii_only, indent) -> None:
    body = json.dumps(args, ensure_ascii=ascii_only, indent=indent)
    whole, _ = run(JsonArguments, body, [])
    split, _ = run(JsonArguments, body, cuts)
    assert split == whole
    parsed = json.loads(whole)
    assert list(parsed) == list(args)
    for key, value in args.items():
        types = schema_types(PROPS.get(key)) if key in PROPS else None
        if types is None or isinstance(value, str) and "string" in types and types <= {"string"}:
            assert parsed[key] == value
        elif isinstance(value, str):
            assert parsed[key] == coerce(value, types)
        else:
            assert parsed[key] == coerce(json.dumps(value, ensure_ascii=False), types) \
                or parsed[key] == value


def test_json_ended_inside_a_value_is_closed_and_reported() -> None:
    writer = ArgumentsWriter(None)
    reader = JsonArguments(writer)
    out = reader.feed('{"a": [1, {"b": "x') + reader.finish()
    assert json.loads(out) == {"a": [1, {"b": "x"}]}
    # README, "Broken output": only closers are added, and the warning names them.
    assert writer.warnings == ["the call ended before its arguments closed: '\"}]}' added"]


def test_json_that_is_not_an_object_gives_empty_arguments() -> None:
    writer = ArgumentsWriter(None)
    reader = JsonArguments(writer)
    assert reader.feed("[1, 2]") + reader.finish() == "{}"
    assert writer.warnings == ["arguments are not a JSON object: they begin with '[' and are "
                               "dropped"]


NOTATION_PROPS = {"n": {"type": "integer"}, "o": {"type": "object", "properties": {
    "k": {"type": "boolean"}}}, "b": {"type": "array", "items": {"type": "string"}}}
NOTATION = 'a:<|"|>x, y}<|"|>,n:42,b:[1,<|"|>s<|"|>],o:{k:true, s:<|"|>{,}<|"|>}, e:<|"|><|"|>}'


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(0, 10_000), max_size=12), typed=st.booleans())
def test_notation_any_split(cuts: list[int], typed: bool) -> None:
    def reader(writer):
        return NotationArguments(writer, delimiter='<|"|>')

    def run_with(props, cuts):
        writer = ArgumentsWriter(props)
        r = reader(writer)
        bounds = sorted({0, len(NOTATION), *(c % (len(NOTATION) + 1) for c in cuts)})
        return "".join(r.feed(NOTATION[a:b]) for a, b in zip(bounds, bounds[1:])) + r.finish()

    props = NOTATION_PROPS if typed else None
    assert run_with(props, cuts) == run_with(props, [])
    # Bare words are typed by their notation; the schema, where it types one, wins.
    expected = {"a": "x, y}", "n": 42, "b": [1, "s"], "o": {"k": True, "s": "{,}"}, "e": ""}
    if typed:
        expected.update(b=["1", "s"])
    assert with_types(json.loads(run_with(props, cuts))) == with_types(expected)


PY_VALUES = st.recursive(
    st.one_of(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
              st.integers(-1000, 1000), st.booleans(), st.none(),
              st.floats(allow_nan=False, allow_infinity=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=3), inner, max_size=2)),
    max_leaves=6,
)


def _json_like(value):
    """What JSON makes of a Python value (dict keys stay strings, tuples lists)."""
    return json.loads(json.dumps(value))


@settings(max_examples=300, deadline=None)
@given(args=st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), PY_VALUES,
                            max_size=4),
       cuts=st.lists(st.integers(0, 10_000), max_size=10), spaced=st.booleans())
def test_python_kwargs_any_split(args: dict, cuts: list[int], spaced: bool) -> None:
    # Written as a model writes a Python call: repr() values, either quote style.
    body = (", " if spaced else ",").join(f"{k}={v!r}" for k, v in args.items())

    def run_with(cuts):
        writer = ArgumentsWriter(None)
        reader = PythonArguments(writer)
        bounds = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
        return "".join(reader.feed(body[a:b]) for a, b in zip(bounds, bounds[1:])) + reader.finish()

    whole = run_with([])
    assert run_with(cuts) == whole
    assert with_types(json.loads(whole)) == with_types(_json_like(args))


def test_python_kwargs_typed_by_schema() -> None:
    writer = ArgumentsWriter(PROPS)
    reader = PythonArguments(writer)
    out = reader.feed("city='Paris', days=3, flag=True, note=None, items=(1, 'a')") + reader.finish()
    assert out == json.dumps({"city": "Paris", "days": 3, "flag": True, "note": None,
                              "items": [1, "a"]})  # (the text: json.loads takes 1 for True)


def _elements(body: str, props=None) -> tuple[dict, list[str]]:
    writer = ArgumentsWriter(props)
    reader = ElementArguments(writer, prefix="~")
    return json.loads(reader.feed(body) + reader.finish()), writer.warnings


def test_elements_nest_repeat_and_keep_mixed_text() -> None:
    body = "~<a>1~</a>~<a>2~</a>~<o>x~<k>v~</k>y~<$text>z~</$text>~</o>"
    assert _elements(body) == ({"a": ["1", "2"], "o": {"k": "v", "$text": "z",
                                                       "$$text": "xy"}}, [])


def test_elements_too_deep_or_cut_are_dropped_and_reported() -> None:
    deep = "~<x>" * 129 + "v" + "~</x>" * 129
    assert _elements(deep) == ({}, [
        "an element nested deeper than 128 was dropped, and the arguments after it"])
    ok = "~<x>" * 128 + "v" + "~</x>" * 128
    value = _elements(ok)[0]
    for _ in range(127):
        value = value["x"]
    assert value == {"x": "v"}
    # The call ended before an element's close tag: the value ends there.
    assert _elements("~<a>1~</a>~<b>2") == ({"a": "1", "b": "2"}, [
        "an element was not closed before the call's end; its value ends there"])
    assert _elements("junk ~<a>1~</a>") == ({}, [
        "text that is no argument element was dropped"])


def test_element_values_hold_prefixes_and_other_close_tags() -> None:
    """Inside an element, a prefix that opens no child and closes no element is text;
    a top-level close tag followed by text (not an open tag) is text too."""
    body = '~<a>x ~ y ~</invoke> ~</b> "~</a>" ~</a>\n~<c>~<d>1~</d>z~</c>'
    assert _elements(body) == ({"a": 'x ~ y ~</invoke> ~</b> "~</a>" ', "c": {
        "d": "1", "$text": "z"}}, [])
    assert _elements("~<a>1~</a>~</a>~<b>2~</b>")[0] == {"a": "1~</a>", "b": "2"}


CDATA_BODY = ('<param name="city"><![CDATA[<b>Zürich</b> & </param> x]]></param>\n'
              '<param name="code">\n<![CDATA[a]]]]><![CDATA[>b]]>\n</param>'
              '<param name="q">plain <![CDATA[ kept ]]> text</param>')


@settings(max_examples=300, deadline=None)
@given(cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_cdata_sections_unwrap_at_any_split(cuts: list[int]) -> None:
    """With ``cdata``, a section's text is the value's exactly (its delimiters dropped,
    a close tag inside it value text); text around a section is kept; any split of the
    arguments gives the same."""
    whole, _ = run(lambda w: TaggedArguments(w, **MINICPM5), CDATA_BODY, [])
    split, _ = run(lambda w: TaggedArguments(w, **MINICPM5), CDATA_BODY, cuts)
    assert split == whole
    assert json.loads(whole) == {"city": "<b>Zürich</b> & </param> x", "code": "\na]]>b\n",
                                 "q": "plain  kept  text"}
    without, _ = run(lambda w: TaggedArguments(w, **{**MINICPM5, "cdata": False}),
                     '<param name="q"><![CDATA[x]]></param>', [])
    assert json.loads(without) == {"q": "<![CDATA[x]]>"}  # the option off: text as written


@pytest.mark.xfail(strict=True, reason=(
    "a CDATA section is read as any element value: a close tag inside it followed by a "
    "field's open tag (or, in a format, the call's end marker) still closes the value; "
    "sections that hide markup from the reader and the TOOL_ARGS value scanner are not "
    "built yet (vLLM's minicpm5 parser cuts such a block too)"))
def test_cdata_section_hides_a_close_tag_before_a_field() -> None:
    text = '<param name="q"><![CDATA[a</param><param name="city">b]]></param>'
    out, _ = run(lambda w: TaggedArguments(w, **MINICPM5), text, [])
    assert json.loads(out) == {"q": 'a</param><param name="city">b'}


# kv_lines: transformers' kv-lines content parser (utils/chat_parsing/content_parsers.py,
# _kv_lines) is the reference, run here on the same text.
KV_TEXT = st.text(st.sampled_from("ab :=;\n\t\"{}1"), max_size=40)


@settings(max_examples=300, deadline=None)
@given(body=KV_TEXT, cuts=st.lists(st.integers(0, 10_000), max_size=10),
       seps=st.sampled_from([("\n", ":"), (";", "="), ("\n\n", "::")]))
def test_kv_lines_any_split_reads_as_transformers(body: str, cuts: list[int],
                                                  seps: tuple[str, str]) -> None:
    content_parsers = pytest.importorskip("transformers.utils.chat_parsing.content_parsers")
    from parsergen.runtime.arguments.kv_lines import KeyValueLines

    line_sep, kv_sep = seps

    def run_with(cuts: list[int]) -> str:
        reader = KeyValueLines(ArgumentsWriter(None), line_sep, kv_sep, False)
        bounds = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
        return "".join(reader.feed(body[a:b]) for a, b in zip(bounds, bounds[1:])) + reader.finish()

    whole = run_with([])
    assert run_with(cuts) == whole
    assert json.loads(whole) == content_parsers._kv_lines(
        body, {"line_sep": line_sep, "kv_sep": kv_sep})


def test_kv_lines_typed_by_schema_or_json_values() -> None:
    from parsergen.runtime.arguments.kv_lines import KeyValueLines

    body = 'city: Paris\ndays: 3\nobj: {"a": [1]}\nnot a pair\nunknown: [1, 2]\n'
    typed = KeyValueLines(ArgumentsWriter(PROPS), "\n", ":", False)
    assert json.loads(typed.feed(body) + typed.finish()) == {
        "city": "Paris", "days": 3, "obj": {"a": [1]}, "unknown": "[1, 2]"}
    loose = KeyValueLines(ArgumentsWriter(None), "\n", ":", True)
    assert json.loads(loose.feed(body) + loose.finish()) == {
        "city": "Paris", "days": 3, "obj": {"a": [1]}, "unknown": [1, 2]}


KV_SPEC = """
    name: kv_calls
    description: calls whose arguments are key=value lines
    terminals:
      CALL_START: {pattern: '<call (?P<name>[\\w.-]{1,64})>'}
      CALL_END: "</call>"
    transitions:
      CONTENT:
        CALL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME]}
      TOOL_ARGS:
        CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: kv_lines, kv_sep: "=", json_values: true}
    render:
      call: "<call ${name}>${arguments}</call>"
"""


def test_kv_lines_from_a_spec(tmp_path) -> None:
    from support.specs import build

    module = build(tmp_path, KV_SPEC, "kv_calls")
    text = "Sure.<call get_weather>\ncity = Paris\ndays = 3\n</call>"
    whole = module.parse(text)
    assert whole.content == "Sure." and [(c.name, json.loads(c.arguments))
                                         for c in whole.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})]
    chat = module.ChatParser()
    streamed = accumulate([chat.feed(ch) for ch in text] + [chat.finish()])
    assert [json.loads(c.arguments) for c in streamed.tool_calls] == [{"city": "Paris", "days": 3}]
    assert module.parse(module.render(whole)).tool_calls[0].arguments == whole.tool_calls[0].arguments


# KV_SPEC with literal markers around the name (export reads literal markers).
KV_LITERAL = """
    name: kv_calls
    description: calls whose arguments are key=value lines
    terminals:
      CALL_START: "<call "
      NAME_END: ">"
      CALL_END: "</call>"
    transitions:
      CONTENT:
        CALL_START: {to: TOOL_NAME, emit: [TOOL_CALL_START]}
      TOOL_NAME:
        NAME_END: TOOL_ARGS
      TOOL_ARGS:
        CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: kv_lines, kv_sep: "=", json_values: true}
    render:
      call: "${CALL_START}${name}${NAME_END}${arguments}${CALL_END}"
"""


def test_kv_lines_exported_and_imported_back(tmp_path) -> None:
    """A kv_lines spec exported as a response_template (kv-lines) reads as the spec does,
    by transformers' parse_response and by parsergen's import of that template."""
    chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")
    from parsergen.compiler import compile_spec
    from parsergen.compiler.export_template import response_template

    path = tmp_path / "kv_calls.yaml"
    path.write_text(textwrap.dedent(KV_SPEC).lstrip("\n"), encoding="utf-8")
    with pytest.raises(parsergen.SpecError, match="CALL_START is a pattern terminal"):
        response_template(compile_spec(path, path.name))  # (export reads literal markers)
    path.write_text(textwrap.dedent(KV_LITERAL).lstrip("\n"), encoding="utf-8")
    template = response_template(compile_spec(path, path.name))
    assert template["fields"]["tool_calls"]["content"] == "kv-lines"
    text = "Sure.<call get_weather>\ncity = Paris\ndays = 3\n</call>"
    theirs = chat_parsing.parse_response(text, template, prefix="")
    assert theirs["tool_calls"][0]["function"] == {"name": "get_weather",
                                                   "arguments": {"city": "Paris", "days": 3}}
    ours = parsergen.load(template).parse(text)
    assert json.loads(ours.tool_calls[0].arguments) == {"city": "Paris", "days": 3}
