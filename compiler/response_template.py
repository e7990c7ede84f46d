"""A Hugging Face ``response_template`` as a parsergen spec: the second front end.

transformers (>= 5.13) declares a checkpoint's output format as regions (``fields``)
with ``open``/``close`` anchors, a content parser and a ``transform`` into the message.
``template_spec`` reads one into the spec dict a YAML spec would hold (terminals,
transitions, reasoning, arguments, assembly), with a position for every value, so the
rest is the ordinary pipeline (validate -> lower -> IR -> generator).

The mapping: ``thinking`` (or ``reasoning_content``) is the REASONING state, ``content``
is CONTENT, ``tool_calls`` the tool states; text outside every region is content when
``content`` is the implicit (open-less) field, else it is dropped (the template's null
sink, TOOL_BETWEEN with no event).  An anchor's literals are terminals; a pattern is
read by ``regex_shapes``.  A call's name comes from the open pattern's capture that the
transform names it by (TOOL_NAME, ended by the literal after it, or a pattern terminal's
capture) or from the JSON (``json_envelope``);
``xml-inline`` tags are ``xml_parameters``; JSON with unquoted keys and one string
delimiter is Gemma 4's ``notation``; a list of Python calls (LFM2.5) is the
``python_list`` body with ``python_kwargs``; a reasoning open pattern that looks ahead
for its close is ``reasoning.confirmed_by_end``.  What cannot be said is refused with its field path
and the reason (``TemplateError``), never half-compiled.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic, Path, Position, SpecError, json_path
from .patterns import NAME_CAPTURE, pattern_shape
from .regex_shapes import Piece, Unsupported, literals, shapes

REASONING_FIELDS = ("thinking", "reasoning_content", "reasoning")
TEMPLATE_KEYS = {"version", "defaults", "fields", "start_anchor", "start_anchor_pattern"}
FIELD_KEYS = {"open", "open_pattern", "close", "close_pattern", "content", "content_args",
              "repeats", "join", "optional", "transform", "transform_each"}
OUT_SINK = "TOOL_BETWEEN"  # outside every region when no field is implicit: dropped
# The longest text a call's open pattern is tried on where its own match is unbounded.
OPEN_BOUND = 256


class TemplateDiagnostic(Diagnostic):
    """A problem in a template given as data: ``response_template: $.path: message``
    (no line to name); one read from a file keeps ``FILE:LINE:COL``."""

    def __str__(self) -> str:
        p = self.position
        where = p.file if p.line == 0 else f"{p.file}:{p.line}:{p.col}"
        return f"{where}: {self.path}: {self.message}"


class _Refused(Exception):
    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass
class _Spec:
    """The spec being written, and the template path each spec value comes from."""

    display: str
    positions: dict[Path, Position]
    terminals: dict[str, str] = field(default_factory=dict)  # literal -> terminal name
    # pattern terminals: name -> {pattern, max_length} (an open pattern markers cannot say)
    patterns: dict[str, dict[str, Any]] = field(default_factory=dict)
    transitions: dict[str, dict[str, Any]] = field(default_factory=dict)
    where: dict[Path, Path] = field(default_factory=dict)  # spec path -> template path
    # start-only terminals: name -> text (a region's marker that only the very start of
    # the completion writes, `<think>|^`)
    at_start: dict[str, str] = field(default_factory=dict)

    def terminal(self, text: str, hint: str, source: Path) -> str:
        name = self.terminals.get(text)
        if name is None:
            base = re.sub(r"[^A-Z0-9]+", "_", hint.upper()).strip("_") or "MARK"
            name, n = base, 2
            while name in self.terminals.values():
                name, n = f"{base}_{n}", n + 1
            self.terminals[text] = name
            self.where[("terminals", name)] = source
        return name

    def pattern(self, value: dict[str, Any], hint: str, source: Path) -> str:
        """A pattern terminal's name (a new one per pattern)."""
        name = next((n for n, v in self.patterns.items() if v == value), None)
        if name is None:
            name, n = hint, 2
            while name in self.terminals.values() or name in self.patterns:
                name, n = f"{hint}_{n}", n + 1
            self.patterns[name] = value
            self.where[("terminals", name)] = source
        return name

    def go(self, state: str, text: str, hint: str, to: str, emit: list[str], source: Path,
           name: str | None = None, capture: str = NAME_CAPTURE) -> None:
        name = name or self.terminal(text, hint, source)
        row = self.transitions.setdefault(state, {})
        if name in row:  # the first region to claim a marker in a state keeps it
            return
        row[name] = {"to": to, "emit": list(emit)} if emit else to
        if capture != NAME_CAPTURE:  # a pattern terminal's other capture names the call
            row[name]["name"] = capture
        self.where[("transitions", state, name)] = source


def _anchor(raw: dict[str, Any], key: str, path: Path) -> tuple[list[list[Piece]], Path] | None:
    """The alternatives of a field's (or the template's) ``key`` anchor, or None."""
    if key in raw:
        value = raw[key]
        if not value or not (isinstance(value, str) or (
                isinstance(value, list) and all(isinstance(v, str) and v for v in value))):
            raise _Refused((*path, key), "must be a non-empty string or list of strings")
        return literals(value), (*path, key)
    if f"{key}_pattern" in raw:
        where = (*path, f"{key}_pattern")
        if not isinstance(raw[f"{key}_pattern"], str):
            raise _Refused(where, "must be a regular expression (a string)")
        try:
            return shapes(raw[f"{key}_pattern"]), where
        except Unsupported as exc:
            raise _Refused(where, f"cannot be compiled into parsergen markers: {exc}") from None
    return None


def _bare(alt: list[Piece]) -> list[Piece]:
    """An alternative without the whitespace at its ends (regions are read stripped)."""
    while alt and alt[0].kind == "ws" or alt and alt[0].kind == "opt" and not alt[0].text.strip():
        alt = alt[1:]
    while alt and alt[-1].kind == "ws" or alt and alt[-1].kind == "opt" and not alt[-1].text.strip():
        alt = alt[:-1]
    return alt


def _region_marks(alts: list[list[Piece]], where: Path, sink: bool) -> tuple[list[str], list[str], bool]:
    """A text region's open or close alternatives as (markers, dropped headers, at start/end).

    An alternative is a literal, the text's start or end, or (where the outside text is
    dropped anyway) an optional header literal and a dropped gap before the literal."""
    marks: list[str] = []
    headers: list[str] = []
    edge = False
    for alt in alts:
        alt = _bare(alt)
        kinds = [p.kind for p in alt]
        if kinds in (["start"], ["end"]):
            edge = True
        elif kinds == ["lit"]:
            marks.append(alt[0].text)
        elif sink and kinds in (["opt", "gap", "lit"], ["gap", "lit"], ["opt", "lit"]):
            headers += [p.text for p in alt if p.kind == "opt"]
            marks.append(alt[-1].text)
        else:
            raise _Refused(where, "parsergen reads a text region's anchor as literals (with "
                           "whitespace around them), the text's start or end; this one has "
                           + _describe(alt))
    return marks, headers, edge


def _describe(alt: list[Piece]) -> str:
    names = {"lit": "a literal", "ws": "whitespace", "opt": "an optional literal",
             "gap": "a gap of any text", "group": "a capture", "start": "^", "end": "$",
             "ahead": "a lookahead for a literal"}
    return " then ".join(names[p.kind] for p in alt) or "nothing"


# --- tool calls: the content parser and transform as an argument syntax ---------------

_FUNCTION = {"type": "function"}


def _placeholder(value: Any) -> str | None:
    m = re.fullmatch(r"\{(\w+(?:\.\w+)*)\}", value) if isinstance(value, str) else None
    return m.group(1) if m else None


def _capture(placeholder: str | None) -> str | None:
    """The open pattern's capture a ``{X}`` placeholder reads (not the content, not a
    member of it), or None."""
    return placeholder if placeholder and "." not in placeholder \
        and placeholder != "content" else None


def _call_shape(raw: dict[str, Any], path: Path) -> tuple[dict[str, Any], str | None, str | None]:
    """(arguments, tool body or None, the open pattern's capture that names the call).

    Recognised transforms (transformers' own and TRL's): the JSON is the function
    (``{"function": "{content}"}``), a capture is the name and the content the arguments
    (``{"name": "{name}", "arguments": "{content}"}``, any capture: ``{recipient}``), the
    JSON's members are them (``{content.K}``, or ``{K}`` with ``transform_each`` over a
    list of calls)."""
    content = raw.get("content", "text")
    args = raw.get("content_args", {}) or {}
    transform = raw.get("transform")
    each = raw.get("transform_each", False)
    tpath = (*path, "transform")
    if not isinstance(transform, dict) or transform.get("type") != "function" \
            or set(transform) != {"type", "function"}:
        raise _Refused(tpath, "parsergen builds OpenAI tool calls; a tool_calls transform must "
                       'be {"type": "function", "function": ...} (an arbitrary transform '
                       "cannot be compiled)")
    function = transform["function"]
    whole = _placeholder(function)
    name = arguments = None
    if isinstance(function, dict) and set(function) == {"name", "arguments"}:
        name, arguments = _placeholder(function["name"]), _placeholder(function["arguments"])
    if whole is None and (name is None or arguments is None):
        raise _Refused((*tpath, "function"), "must be \"{content}\" or {\"name\": \"{...}\", "
                       "\"arguments\": \"{...}\"}: other shapes cannot be compiled")
    cpath = (*path, "content")
    if content == "json":
        extra = set(args) - {"unquoted_keys", "string_delims", "allow_non_json"}
        if extra or args.get("allow_non_json"):
            raise _Refused((*path, "content_args"), "json's allow_non_json and options other "
                           "than unquoted_keys and string_delims cannot be compiled")
        if each:
            if whole is not None or name is None or arguments is None or "." in name + arguments:
                raise _Refused(tpath, 'with transform_each, the function must be {"name": '
                               '"{KEY}", "arguments": "{KEY}"}: the members of each call')
            return ({"syntax": "json_envelope", "name_key": name, "argument_keys": [arguments]},
                    "json_array", None)
        if whole == "content":
            return {"syntax": "json_envelope", "name_key": "name",
                    "argument_keys": ["arguments"]}, None, None
        if name is not None and arguments is not None and name.startswith("content.") \
                and arguments.startswith("content.") and name.count(".") == arguments.count(".") == 1:
            return ({"syntax": "json_envelope", "name_key": name[8:],
                     "argument_keys": [arguments[8:]]}, None, None)
        if _capture(name) and arguments == "content":
            delims = args.get("string_delims") or []
            if args.get("unquoted_keys") or delims:
                if not (args.get("unquoted_keys") and len(delims) == 1
                        and len(delims[0]) == 2 and delims[0][0] == delims[0][1]):
                    raise _Refused((*path, "content_args"), "JSON with unquoted keys compiles "
                                   "with exactly one string delimiter that opens and closes "
                                   "(Gemma 4's notation)")
                return {"syntax": "notation", "string_delimiter": delims[0][0]}, None, name
            return {"syntax": "json"}, None, name
        raise _Refused(tpath, "the name and arguments must come from a capture of the open "
                       "pattern and the content, or from members of the JSON")
    if content == "xml-inline":
        if each or not _capture(name) or arguments != "content":
            raise _Refused(tpath, 'xml-inline calls need {"name": "{CAPTURE}", "arguments": '
                           '"{content}"} with the name captured by the open pattern')
        return _xml_arguments(args, (*path, "content_args")), None, name
    if content == "kv-lines":
        if each or not _capture(name) or arguments != "content":
            raise _Refused(tpath, 'kv-lines calls need {"name": "{CAPTURE}", "arguments": '
                           '"{content}"} with the name captured by the open pattern')
        return _kv_arguments(args, (*path, "content_args")), None, name
    raise _Refused(cpath, f"a tool call's content parser {content!r} cannot be compiled "
                   "(json, xml-inline and kv-lines can)")


def _kv_arguments(args: dict[str, Any], path: Path) -> dict[str, Any]:
    """kv-lines' options as the kv_lines syntax (its separators, JSON values)."""
    extra = set(args) - {"line_sep", "kv_sep", "value_parser", "strip"}
    if extra:
        raise _Refused(path, f"kv-lines options {sorted(extra)} cannot be compiled")
    if args.get("strip", True) is not True:
        raise _Refused((*path, "strip"), "kv-lines lines are read stripped: strip false "
                       "cannot be compiled")
    out: dict[str, Any] = {"syntax": "kv_lines"}
    for key, default in (("line_sep", "\n"), ("kv_sep", ":")):
        value = args.get(key, default)
        if not isinstance(value, str) or not value:
            raise _Refused((*path, key), "must be a non-empty string")
        if value != default:
            out[key] = value
    parser = args.get("value_parser")
    if parser == {"name": "json", "args": {"allow_non_json": True}}:
        out["json_values"] = True
    elif parser is not None and parser != {"name": "text"}:
        raise _Refused((*path, "value_parser"), "a value parser other than text or json with "
                       "allow_non_json cannot be compiled (values are typed by the tool's schema)")
    return out


_NAME_FROM_CAPTURE = {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}


def _python_call_list(raw: dict[str, Any]) -> tuple[str, str] | None:
    """A list of Python calls, ``OPEN[f(a='x'), g(b={...})]CLOSE`` (TRL's LFM2.5): the
    open pattern is ``OPEN[`` or ``,`` before ``NAME(``, the close ``)`` with ``]CLOSE``
    after the list's last call, and ``xml-inline`` reads ``key=value`` pairs whose values
    are JSON with quoted strings.  (OPEN, CLOSE), or None for another shape."""
    args = raw.get("content_args") or {}
    parser = args.get("value_parser")
    if raw.get("content") != "xml-inline" or raw.get("transform") != _NAME_FROM_CAPTURE \
            or raw.get("transform_each") or set(args) - {"tag_pattern", "value_parser"} \
            or not all(isinstance(raw.get(k), str) for k in ("open_pattern", "close_pattern")):
        return None
    if parser is not None:
        options = parser.get("args", {})
        delims = options.get("string_delims", []) if isinstance(options, dict) else None
        if parser.get("name") != "json" or not isinstance(delims, list) \
                or set(options) - {"string_delims", "allow_non_json"} \
                or any(d not in (["'", "'"], ['"', '"']) for d in delims):
            return None
    try:
        opens = [_bare(a) for a in shapes(raw["open_pattern"])]
        [close] = [_bare(a) for a in shapes(raw["close_pattern"])]
        [tag] = shapes(str(args.get("tag_pattern", "")))
    except (Unsupported, ValueError):
        return None
    call = [("group", "name"), ("lit", "(")]
    lead = {tuple((p.kind, p.text) for p in a if p.kind != "ws")[:1]: a for a in opens}
    listed = [a[0].text for a in opens if a[0].kind == "lit" and a[0].text.endswith("[")]
    if len(opens) != 2 or (("lit", ","),) not in lead or len(listed) != 1 or listed[0] == "[" \
            or any([(p.kind, p.text) for p in a if p.kind != "ws"][1:] != call for a in opens) \
            or [(p.kind, p.text) for p in close][:1] != [("lit", ")")] or len(close) != 2 \
            or close[1].kind != "opt" or not close[1].text.startswith("]") \
            or [(p.kind, p.text) for p in tag][:2] != [("group", "key"), ("lit", "=")] \
            or [(p.kind, p.text) for p in tag][2:] != [("group", "value")]:
        return None
    return listed[0][:-1], close[1].text[1:]


def _xml_arguments(args: dict[str, Any], path: Path) -> dict[str, Any]:
    """xml-inline's tag_pattern as xml_parameters: OPEN key NAME_END [VALUE_OPEN] value CLOSE."""
    extra = set(args) - {"tag_pattern", "value_parser"}
    if extra:
        raise _Refused(path, f"xml-inline options {sorted(extra)} cannot be compiled")
    parser = args.get("value_parser")
    if parser is not None and parser != {"name": "json", "args": {"allow_non_json": True}} \
            and parser != {"name": "text"}:
        raise _Refused((*path, "value_parser"), "a value parser other than text or json with "
                       "allow_non_json cannot be compiled (values are typed by the tool's schema)")
    try:
        [alt] = shapes(args.get("tag_pattern", ""))
    except (Unsupported, ValueError):
        raise _Refused((*path, "tag_pattern"), "must be one literal-framed tag: OPEN(?P<key>...)"
                       "NAME_END(?P<value>.*?)CLOSE") from None
    kinds = [p.kind for p in alt]
    pieces = [p for p in alt if p.kind != "ws"]
    ks = [p.kind for p in pieces]
    if ks not in (["lit", "group", "lit", "group", "lit"], ["lit", "group", "lit", "lit", "group", "lit"]) \
            or pieces[1].text != "key" or pieces[-2].text != "value" \
            or pieces[-2].source not in (".*?", "[\\s\\S]*?"):
        raise _Refused((*path, "tag_pattern"), "must be one literal-framed tag: "
                       "OPEN(?P<key>...)NAME_END[VALUE_OPEN](?P<value>.*?)CLOSE; this one has "
                       + _describe(alt))
    out: dict[str, Any] = {"syntax": "xml_parameters", "open": pieces[0].text.strip(),
                           "name_end": pieces[2].text, "close": pieces[-1].text.strip(),
                           "close_first": True}
    if parser is not None and parser["name"] == "json":
        out["json_values"] = True
    if len(pieces) == 6:
        out["value_open"] = pieces[3].text.strip()
    value_at = kinds.index("group", kinds.index("group") + 1)
    if 0 < value_at < len(kinds) - 1 and (kinds[value_at - 1] == "ws" or kinds[value_at + 1] == "ws"):
        out["trim"] = "strip"
    return out


# --- the template as a spec -----------------------------------------------------------


def _text_field(raw: dict[str, Any], path: Path) -> bool:
    """Check a reasoning or content field (text, no transform); whether it is stripped."""
    if raw.get("content", "text") != "text":
        raise _Refused((*path, "content"), "reasoning and content are text: another content "
                       "parser cannot be compiled")
    for key in ("transform", "transform_each"):
        if raw.get(key):
            raise _Refused((*path, key), "a transform of reasoning or content cannot be compiled")
    extra = set(raw.get("content_args", {}) or {}) - {"strip"}
    if extra:
        raise _Refused((*path, "content_args"), f"text options {sorted(extra)} cannot be compiled")
    if raw.get("join") not in (None, ""):
        raise _Refused((*path, "join"), "parsergen joins a field's regions with nothing "
                       "between them; another join cannot be compiled")
    return (raw.get("content_args", {}) or {}).get("strip", True) is not False


def _lits_between_ws(alt: list[Piece]) -> list[str] | None:
    """The literals of an alternative that is literals with whitespace between, or None."""
    lits = [p.text for p in alt if p.kind == "lit"]
    if any(p.kind not in ("lit", "ws") for p in alt) or not lits:
        return None
    return lits


def _check_types(raw: dict[str, Any], path: Path) -> None:
    """A field's values of the types transformers requires (its loader's checks)."""
    for key, kind, what in (("content", str, "a string"), ("content_args", dict, "a mapping"),
                            ("repeats", bool, "true or false"), ("optional", bool, "true or false"),
                            ("transform_each", bool, "true or false"), ("join", str, "a string")):
        if key in raw and not isinstance(raw[key], kind):
            raise _Refused((*path, key), f"must be {what}")
    args = raw.get("content_args", {})
    if "tag_pattern" in args and not isinstance(args["tag_pattern"], str):
        raise _Refused((*path, "content_args", "tag_pattern"), "must be a regular expression")
    if "value_parser" in args and not isinstance(args["value_parser"], dict):
        raise _Refused((*path, "content_args", "value_parser"), "must be a mapping")
    delims = args.get("string_delims", [])
    if not isinstance(delims, list) or not all(
            isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) and x for x in d)
            for d in delims):
        raise _Refused((*path, "content_args", "string_delims"), "must be a list of "
                       "[open, close] pairs of strings")


class _Builder:
    def __init__(self, template: Any, display: str, root: Position) -> None:
        self.template = template
        self.spec = _Spec(display, {})
        self.root = root
        self.initial = "CONTENT"
        self.out = "CONTENT"
        self.reasoning: dict[str, Any] | None = None
        self.assembly: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self.refusals: list[_Refused] = []
        self.strips: list[bool] = []  # each text field's strip
        self.render: dict[str, str] = {}  # render's templates, where the anchors say them

    def written(self, alts: list[list[Piece]] | None) -> str:
        """How render writes an anchor: its first alternative's literals as terminals."""
        if not alts:
            return ""
        out = []
        for piece in alts[0]:  # (an optional newline after a name is written: it ends it)
            if piece.kind in ("lit", "opt") and piece.text in self.spec.terminals:
                out.append("${%s}" % self.spec.terminals[piece.text])
            elif piece.kind == "opt":
                out.append(piece.text)
            elif piece.kind == "ws" and piece.text == "+":
                out.append(" ")
            elif piece.kind == "group":
                out.append("${name}")
        return "".join(out)

    def chain(self, lits: list[str], first_from: str, last_to: str, emit: list[str],
              hint: str, source: Path) -> None:
        """first_from -l1-> TOOL_PREAMBLE -l2-> ... -ln-> last_to (emit on the first)."""
        state = first_from
        for i, lit in enumerate(lits):
            to = last_to if i == len(lits) - 1 else "TOOL_PREAMBLE"
            self.spec.go(state, lit, f"{hint}_{i + 1}" if len(lits) > 1 else hint, to,
                         emit if i == 0 else [], source)
            state = to

    def build(self) -> None:
        t = self.template
        if not isinstance(t, dict):
            raise _Refused((), "a response_template must be a mapping")
        if t.get("version", 1) != 1:
            raise _Refused(("version",), "only version 1 is known")
        for key in sorted(set(t) - TEMPLATE_KEYS):
            self.refusals.append(_Refused((key,), "not a response_template key"))
        defaults = t.get("defaults", {})
        if not isinstance(defaults, dict):
            raise _Refused(("defaults",), "must be a mapping")
        for key in sorted(set(defaults) - {"role"}):
            self.refusals.append(_Refused(("defaults", key), "parsergen's message has no "
                                          "field for this default"))
        fields = t.get("fields")
        if not isinstance(fields, dict) or not fields:
            raise _Refused(("fields",), "must be a non-empty mapping of fields")
        for name, raw in fields.items():
            path = ("fields", name)
            if not isinstance(raw, dict):
                self.refusals.append(_Refused(path, "a field must be a mapping"))
            elif set(raw) - FIELD_KEYS:
                self.refusals.append(_Refused(path, f"unknown keys {sorted(set(raw) - FIELD_KEYS)}"))
            elif name not in (*REASONING_FIELDS, "content", "tool_calls"):
                self.refusals.append(_Refused(path, "parsergen's message has reasoning "
                                              "(thinking, reasoning_content), content and "
                                              "tool_calls; this field has no place in it"))
        if self.refusals:
            return
        implicit = [n for n, raw in fields.items() if "open" not in raw and "open_pattern" not in raw]
        if len(implicit) > 1:
            raise _Refused(("fields",), f"at most one field may have no open: {implicit}")
        if implicit and implicit[0] != "content":
            raise _Refused(("fields", implicit[0]), "only content can be the implicit "
                           "(open-less) field: text outside regions is content or dropped")
        self.out = "CONTENT" if implicit else OUT_SINK
        self.initial = self.out
        reasoning = [n for n in fields if n in REASONING_FIELDS]
        if len(reasoning) > 1:
            raise _Refused(("fields", reasoning[1]), "a second reasoning field")
        for name, raw in fields.items():
            try:
                _check_types(raw, ("fields", name))
                if name in REASONING_FIELDS:
                    self.reasoning_field(raw, ("fields", name))
                elif name == "content":
                    self.content_field(raw, ("fields", name), bool(implicit))
                else:
                    self.tool_field(raw, ("fields", name))
            except _Refused as exc:
                self.refusals.append(exc)
        self.anchor(t)

    def reasoning_field(self, raw: dict[str, Any], path: Path) -> None:
        self.strips.append(_text_field(raw, path))
        if not self.strips[-1]:
            self.assembly["strip_trailing_reasoning_whitespace"] = False
        opened, where = _anchor(raw, "open", path) or ([], path)
        closed = _anchor(raw, "close", path)
        if [[p.kind for p in alt] for alt in opened] == [["ahead"]]:
            self.confirmed_field(opened[0][0].text, where, closed)
            return
        marks, headers, at_start = _region_marks(opened, where, self.out == OUT_SINK)
        for h in headers:
            self.spec.go(self.out, h, "HEADER", self.out, [], where)
        if at_start:
            self.initial = "REASONING"
            for m in marks:  # `<think>|^`: at the very start the marker is the opener
                name = f"{self.spec.terminal(m, 'THINK_START', where)}_AT_START"
                self.spec.at_start[name] = m
                self.spec.where[("terminals", name)] = where
                self.spec.go("REASONING", m, "", "REASONING", [], where, name)
        start = [self.spec.terminal(m, "THINK_START", where) for m in marks]
        for m in marks:
            self.spec.go(self.out, m, "THINK_START", "REASONING", ["REASONING_START"], where)
        end: list[str] = []
        if closed is not None:
            marks, _, _ = _region_marks(closed[0], closed[1], False)
            end = [self.spec.terminal(m, "THINK_END", closed[1]) for m in marks]
            for m in marks:
                self.spec.go("REASONING", m, "THINK_END", self.out, ["REASONING_END"], closed[1])
        if closed is not None and not at_start:  # (at the start: render's own default
            self.render["reasoning"] = (self.written(opened) + "${reasoning}"  # writes
                                        + self.written(closed[0]))  # the end when empty)
        self.reasoning = {"start": start, "end": end}
        if at_start:  # the completion starts in reasoning whatever the prompt holds
            self.reasoning["start_optional"] = True

    def confirmed_field(self, ahead: str, where: Path,
                        closed: tuple[list[list[Piece]], Path] | None) -> None:
        """An open pattern that is a lookahead for the close, ``(?=[\\s\\S]*?</think>)``:
        text is reasoning where the close comes after it.  Compiled for the completion's
        start (``reasoning.confirmed_by_end``): held until the close comes, content if
        the completion ends first; content after the close is content whatever follows
        (goldens/DIFFERENCES.md)."""
        marks = _region_marks(closed[0], closed[1], False)[0] if closed is not None else []
        if ahead not in marks:
            raise _Refused(where, "a lookahead open pattern compiles where it looks for the "
                           "region's own close (text is reasoning if the close follows)")
        if self.out != "CONTENT":
            raise _Refused(where, "a lookahead open pattern compiles with an implicit content "
                           "field: text the close does not confirm is content")
        assert closed is not None
        end = [self.spec.terminal(m, "THINK_END", closed[1]) for m in marks]
        for m in marks:
            self.spec.go("REASONING", m, "THINK_END", self.out, ["REASONING_END"], closed[1])
        self.initial = "REASONING"
        self.reasoning = {"start": [], "end": end, "start_optional": True,
                          "confirmed_by_end": True}

    def content_field(self, raw: dict[str, Any], path: Path, implicit: bool) -> None:
        self.strips.append(_text_field(raw, path))
        if not self.strips[-1]:
            self.assembly["strip_content_whitespace_with_tools"] = False
            self.assembly["drop_whitespace_only_content_before_tools"] = False
        if not implicit:
            opened, where = _anchor(raw, "open", path) or ([], path)
            marks, headers, at_start = _region_marks(opened, where, True)
            for h in headers:
                self.spec.go(self.out, h, "HEADER", self.out, [], where)
            for m in marks:
                self.spec.go(self.out, m, "TEXT_START", "CONTENT", [], where)
            if at_start:
                self.initial = "CONTENT"
        closed = _anchor(raw, "close", path)
        if closed is not None:
            marks, _, _ = _region_marks(closed[0], closed[1], False)
            for m in marks:
                self.spec.go("CONTENT", m, "TEXT_END", self.out, [], closed[1])
        if not implicit:
            self.render["content"] = (self.written(opened) + "${content}"
                                      + self.written(closed[0] if closed else None))

    def tool_field(self, raw: dict[str, Any], path: Path) -> None:
        if raw.get("join") is not None:
            raise _Refused((*path, "join"), "tool calls are a list: join cannot be compiled")
        listed = _python_call_list(raw) if self.out == "CONTENT" else None
        if listed is not None:
            self.python_calls(*listed, path)
            return
        arguments, body, named = _call_shape(raw, path)
        self.extra["arguments"] = arguments
        if body is not None:
            self.extra["tool_body"] = body
        elif not raw.get("repeats", False):
            raise _Refused((*path, "repeats"), "a tool_calls field that does not repeat keeps "
                           "one call, not a list: set repeats: true")
        listing = body == "json_array"
        start = [] if listing else ["TOOL_CALL_START"]
        saved = copy.deepcopy((self.spec.terminals, self.spec.transitions, self.spec.where))
        try:
            opened, where = _anchor(raw, "open", path) or ([], path)
            self.call_opens(opened, where, arguments, listing, named, start)
        except _Refused as exc:
            if not named or not isinstance(raw.get("open_pattern"), str):
                raise
            # Not literals around the name: the whole open pattern is one pattern
            # terminal whose capture names the call, if a stream can decide it.
            self.spec.terminals, self.spec.transitions, self.spec.where = saved
            opened, where = [], (*path, "open_pattern")
            self.pattern_open(raw["open_pattern"], where, exc, start, named)
        self.call_close(raw, path, arguments, opened, listing, named)

    def python_calls(self, opener: str, closer: str, path: Path) -> None:
        """A list of Python calls between two markers: the ``python_list`` body reads the
        list, ``python_kwargs`` each call's arguments (at any depth, where the template's
        tag pattern reads values nested three deep, and its quoted strings and JSON values
        as Python literals and JSON's true, false and null)."""
        where_open, where_close = (*path, "open_pattern"), (*path, "close_pattern")
        start = self.spec.terminal(opener, "CALL_START", where_open)
        end = self.spec.terminal(closer, "CALL_END", where_close)
        self.spec.go(self.out, opener, "CALL_START", "TOOL_ARGS", [], where_open)
        self.spec.go(self.out, closer, "CALL_END", self.out, [], where_close)  # after the ]
        self.spec.go("TOOL_ARGS", closer, "CALL_END", self.out, [], where_close)
        self.extra["tool_body"] = "python_list"
        self.extra["arguments"] = {"syntax": "python_kwargs", "json_literals": True}
        self.render.update(calls_open="${%s}[" % start, call="${name}(${arguments})",
                           separator=", ", calls_close="]${%s}" % end)

    def pattern_open(self, source: str, where: Path, refused: _Refused,
                     start: list[str], named: str) -> None:
        """A call's open pattern as one pattern terminal into TOOL_ARGS (its capture
        ``named`` is TOOL_NAME; the others are matched and dropped, as transformers
        drops captures its transform does not use); a pattern with no bound of its own
        is tried on at most ``OPEN_BOUND`` characters."""
        value: dict[str, Any] = {"pattern": source}
        try:
            try:
                shape = pattern_shape(source, None)
            except ValueError as exc:
                if "unbounded" not in str(exc):
                    raise
                value["max_length"] = OPEN_BOUND
                shape = pattern_shape(source, OPEN_BOUND)
            if named not in shape.captures:
                raise ValueError(f"it has no capture (?P<{named}>...), which the transform "
                                 "names the call by")
        except ValueError as exc:
            raise _Refused(where, f"{refused.message}; nor is it a pattern terminal: {exc}") \
                from None
        name = self.spec.pattern(value, "TOOL_START", where)
        self.spec.go(self.out, "", "", "TOOL_ARGS", [*start, "TOOL_NAME"], where, name,
                     capture=named)

    def call_opens(self, opened: list[list[Piece]], where: Path, arguments: dict[str, Any],
                   listing: bool, named: str | None, start: list[str]) -> None:
        """A call's open anchor as markers: literals, the name's text, literals."""
        name_sources: set[str] = set()
        for alt in opened:
            alt = _bare(alt)
            kinds = [p.kind for p in alt]
            if not named:
                if self.out == OUT_SINK and kinds[-2:] == ["gap", "lit"] \
                        and set(kinds[:-2]) <= {"opt"}:  # a header dropped with the sink
                    for header in alt[:-2]:
                        self.spec.go(self.out, header.text, "HEADER", self.out, [], where)
                    alt = alt[-1:]
                lits = _lits_between_ws(alt)
                if lits is None or (listing and len(lits) > 1):
                    raise _Refused(where, "the name comes from the JSON here: the open "
                                   "anchor must be literals; this one has " + _describe(alt))
                self.chain(lits, self.out, "TOOL_ARGS", start, "TOOL_START", where)
                continue
            if "group" not in kinds or alt[kinds.index("group")].text != named:
                raise _Refused(where, f"the transform names the call by {{{named}}}: the "
                               f"open pattern must capture it as (?P<{named}>...)")
            at = kinds.index("group")
            prefix = _lits_between_ws(alt[:at])
            suffix = alt[at + 1:]
            gap = bool(suffix) and suffix[0].kind == "gap"
            if gap:
                suffix = suffix[1:]
            optional = [p.text for p in suffix if p.kind == "opt"]
            ends = _lits_between_ws([p for p in suffix if p.kind != "opt"]) or []
            if prefix is None or (optional and (ends or len(suffix) != len(optional))) \
                    or (suffix and not ends and not optional) or "group" in kinds[at + 1:]:
                raise _Refused(where, "parsergen reads a call's open pattern as literals, the "
                               "name capture, then literals (a gap of any text may follow the "
                               "name); this one has " + _describe(alt))
            # greedy: the name runs up to the literal that ends TOOL_NAME, as a lazy
            # capture followed by that literal does; a gap after it is not the name
            source = re.sub(r"([+*])\?$", r"\1", alt[at].source)
            name_sources.add(f"(?P<name>{source})" + ("(?s:.*)" if gap else ""))
            self.chain(prefix, self.out, "TOOL_NAME", start, "TOOL_START", where)
            if ends:
                self.chain(ends, "TOOL_NAME", "TOOL_ARGS", [], "NAME_END", where)
                continue
            for text in optional:  # the name's own end, when written
                self.spec.go("TOOL_NAME", text, "NAME_END", "TOOL_ARGS", [], where)
            syntax = arguments["syntax"]
            first = {"json": "{", "notation": "{"}.get(syntax) or arguments.get("open")
            if first is None:  # (kv_lines: nothing opens the arguments but the name's end)
                raise _Refused(where, "a literal must end the name: these arguments have "
                               "no opening of their own")
            self.spec.go("TOOL_NAME", first, "ARGS_OPEN", "TOOL_ARGS",
                         [] if syntax == "notation" else ["ARG_VALUE_CHUNK"], where)
        if len(name_sources) > 1:
            raise _Refused(where, "the open pattern's alternatives capture the name differently")
        if name_sources:
            self.extra["tool_name"] = {"pattern": name_sources.pop()}

    def call_close(self, raw: dict[str, Any], path: Path, arguments: dict[str, Any],
                   opened: list[list[Piece]], listing: bool, named: str | None) -> None:
        """A call's close anchor as markers, then render's call."""
        closed = _anchor(raw, "close", path)
        if closed is None:
            self.call_render(arguments, opened, [], listing, named)
            return
        for alt in closed[0]:
            alt = _bare(alt)
            if [p.kind for p in alt] == ["end"]:
                continue
            lits = _lits_between_ws(alt)
            if lits is None:
                raise _Refused(closed[1], "parsergen reads a call's close as literals (with "
                               "whitespace between), or the text's end; this one has "
                               + _describe(alt))
            for lit in lits[:-1]:  # read inside the arguments, as the template reads them
                self.spec.go("TOOL_ARGS", lit, "ARGS_TAIL", "TOOL_ARGS", ["ARG_VALUE_CHUNK"],
                             closed[1])
            end = [] if listing else ["TOOL_CALL_END"]
            for state in ("TOOL_ARGS", "TOOL_NAME", "TOOL_PREAMBLE"):
                if state == "TOOL_ARGS" or state in self.spec.transitions:
                    self.spec.go(state, lits[-1], "TOOL_END", self.out, end, closed[1])
            if listing:  # after the list's ] the body is back in CONTENT
                self.spec.go("CONTENT", lits[-1], "TOOL_END", self.out, [], closed[1])
        self.call_render(arguments, opened, closed[0], listing, named)

    def call_render(self, arguments: dict[str, Any], opened: list[list[Piece]],
                    closed: list[list[Piece]], listing: bool, named: str | None) -> None:
        """render's call (and the list around calls): the anchors around the arguments
        (none where the open anchor is a pattern terminal: no text to write)."""
        syntax = arguments["syntax"]
        if not opened:
            return
        opening, closing = self.written(opened), self.written(closed)
        if syntax == "json_envelope":
            call = '{"%s": ${name_json}, "%s": ${arguments}}' % (
                arguments["name_key"], arguments["argument_keys"][0])
            if listing:
                self.render.update(calls_open=opening + "[", separator=", ",
                                   calls_close="]" + closing, call=call)
                return
            self.render["call"] = opening + call + closing
            return
        if named and "${name}" in opening and not opening.endswith("${name}"):
            body = "${arguments}"  # the literals after the name end it
        elif named:
            args_open = self.spec.terminals.get("{")
            body = ("${%s}${arguments}}" % args_open if syntax == "notation" and args_open
                    else "${arguments}")
        else:
            return
        self.render["call"] = opening + body + closing

    def anchor(self, t: dict[str, Any]) -> None:
        """start_anchor's literals: where the prompt's assistant turn starts."""
        try:
            found = _anchor(t, "start_anchor", ())
        except _Refused as exc:
            self.refusals.append(exc)
            return
        if found is None:
            return
        lits = [p.text for alt in found[0] for p in alt[:1] if p.kind == "lit"]
        if lits:
            self.extra["turn_boundary_tokens"] = list(dict.fromkeys(lits))

    def result(self, name: str) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "name": name,
            "description": f"Hugging Face response_template ({self.spec.display})",
            "initial_state": self.initial,
            # (every literal by token id too: the tokenizer decides which are tokens,
            # as for a spec's token_id markers, runtime/vocabulary.py's whole_tokens)
            "terminals": {**{n: {"text": text, "token_id": True}
                             for text, n in self.spec.terminals.items()},
               **{n: {"text": text, "at_start": True} for n, text in self.spec.at_start.items()},
                          **self.spec.patterns},
            "transitions": self.spec.transitions,
        }
        if self.reasoning is not None:
            spec["reasoning"] = self.reasoning
        if self.out == OUT_SINK:  # (the map replaces the defaults: say those reached)
            reached = {self.initial} | {
                (go if isinstance(go, str) else go["to"])
                for row in self.spec.transitions.values() for go in row.values()}
            spec["content_events"] = {
                state: event for state, event in (("CONTENT", "TEXT_CHUNK"),
                                                  ("REASONING", "REASONING_CHUNK"),
                                                  ("TOOL_NAME", "TOOL_NAME"), (OUT_SINK, None))
                if state in reached}
        spec.update(self.extra)
        if self.strips and all(self.strips):  # HF's text parser strips each region
            self.assembly["strip_text"] = True
        if self.assembly:
            spec["assembly"] = self.assembly
        if "call" in self.render or "tool_calls" not in self.template["fields"]:
            spec["render"] = self.render
        return spec


def _positions(value: Any, path: Path, where: dict[Path, Path], origin: dict[Path, Position],
               at: Position, out: dict[Path, Position]) -> None:
    """A position for every spec path: the template value it was made from."""
    source = where.get(path)
    if source is not None:
        at = origin.get(source, at)
    out[path] = at
    if isinstance(value, dict):
        for key, item in value.items():
            _positions(item, (*path, key), where, origin, at, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _positions(item, (*path, i), where, origin, at, out)


def template_spec(template: Any, name: str, display: str,
                  origin: dict[Path, Position] | None = None) -> tuple[dict[str, Any], dict[Path, Position]]:
    """The spec a response_template says, and a position for each of its values.

    ``origin`` holds the template's own positions when it was read from a file (paths
    inside the template); without it, errors name the path alone.  SpecError lists every
    field that cannot be compiled, with the reason."""
    origin = origin or {}
    root = origin.get((), Position(display, 0, 0))
    builder = _Builder(template, display, root)
    try:
        builder.build()
    except _Refused as exc:
        builder.refusals.append(exc)
    if builder.refusals:
        raise SpecError([_diagnostic(r.path, r.message, origin, root) for r in builder.refusals])
    spec = builder.result(name)
    positions: dict[Path, Position] = {}
    _positions(spec, (), builder.spec.where, origin, root, positions)
    return spec, positions


def _diagnostic(path: Path, message: str, origin: dict[Path, Position], root: Position) -> Diagnostic:
    at = root
    for n in range(len(path), -1, -1):  # the nearest value the file has a position for
        if path[:n] in origin:
            at = origin[path[:n]]
            break
    return TemplateDiagnostic(at, json_path(path), message)


__all__ = ["TemplateDiagnostic", "template_spec"]
