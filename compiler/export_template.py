"""A compiled format as a Hugging Face ``response_template``: the export pass.

transformers' template language (``transformers/utils/chat_parsing``) reads a completion
as flat regions: outside them, every field's ``open`` (a literal list or a regex) is
watched; inside one, only its ``close``; the region's text goes through a content
parser (``text``, ``json`` with ``unquoted_keys``/``string_delims``, ``xml-inline``
with a ``tag_pattern``, ``kv-lines``) and a ``transform`` into the message.  There is
no nesting, no state but the open region, and a region ends only at its close or the
text's end.

``response_template`` writes one from what the IR says a message looks like: the
render's canonical call (``RenderIR.call``: the markers around the name and the
arguments, with every spelling of each marker) is the tool_calls region, split at the
arguments; the argument syntax is the content parser; the reasoning markers (and what
else ends reasoning, as a lookahead) are the thinking region; content is the implicit
region, closed (so dropped) at the markers the spec drops in CONTENT.  What the
language cannot say is refused with the spec line and the reason (``SpecError``).
"""

from __future__ import annotations

import re
from typing import Any

from .diagnostics import Diagnostic, Position, SpecError
from .ir import FormatIR
from .render import Parts

OUTSIDE = {"CONTENT", "REASONING", "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"}


class _Refused(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def _alternation(texts: list[str]) -> str:
    """A regex for any of ``texts``, longest first (as transformers orders literal lists)."""
    ordered = sorted(dict.fromkeys(texts), key=len, reverse=True)
    body = "|".join(re.escape(t) for t in ordered)
    return body if len(ordered) == 1 else f"(?:{body})"


class _Writer:
    """The template of one format's IR."""

    def __init__(self, ir: FormatIR) -> None:
        self.ir = ir
        self.spellings: dict[str, list[str]] = {}  # canonical text -> every spelling
        self.by_name: dict[str, tuple[str, ...]] = {}
        for variant in ir.variants:
            for t in variant.terminals:
                if t.pattern is not None:  # (not a traceback: the reason, at the spec line)
                    raise _Refused("terminals", f"{t.name} is a pattern terminal: exporting "
                                   "a marker spelled by a regex is not supported")
                self.spellings.setdefault(t.spellings[0], [])
                self.spellings[t.spellings[0]] += [s for s in t.spellings
                                                   if s not in self.spellings[t.spellings[0]]]
                self.by_name[t.name] = t.spellings

    def marker(self, text: str) -> str:
        return _alternation(self.spellings.get(text, [text]))

    def parts(self, parts: Parts) -> str:
        """Markers as any of their spellings, whitespace as any whitespace, text as is."""
        out = []
        for kind, value in parts:
            if kind == "marker":
                out.append(self.marker(value))
            elif kind == "text" and not value.strip():
                out.append(r"\s*")
            elif kind == "text":  # (whitespace around it: any whitespace)
                out.append((r"\s*" if value[0].isspace() else "") + re.escape(value.strip())
                           + (r"\s*" if value[-1].isspace() else ""))
            else:
                raise _Refused("render", f"the field ${{{value}}} here cannot be an anchor")
        return "".join(out)

    def template(self) -> dict[str, Any]:
        ir = self.ir
        extra = [s for s in ir.reachable if s not in OUTSIDE]
        if extra:
            raise _Refused("initial_state", f"the state {extra[0]} (a message header whose "
                           "text chooses the channel) has no region: a template's regions "
                           "open at fixed anchors and cannot read a header first")
        fields: dict[str, Any] = {}
        if ir.reasoning is not None:
            fields["thinking"] = self.thinking()
        tool_states = {"TOOL_ARGS", "TOOL_NAME"} & set(ir.reachable)
        if tool_states:
            fields["tool_calls"] = self.tool_calls()
        fields["content"] = self.content()
        template: dict[str, Any] = {"defaults": {"role": "assistant"}}
        if ir.turn_boundary_tokens:  # (and the role line after one, up to the next tag:
            # the IR knows the boundaries, not the role's name)
            template["start_anchor_pattern"] = _alternation(list(ir.turn_boundary_tokens)) + "[^<]*"
        else:  # (no known turn start: the whole prefix is read)
            template["start_anchor_pattern"] = "^"
        template["fields"] = fields
        return template

    def thinking(self) -> dict[str, Any]:
        reasoning = self.ir.reasoning
        assert reasoning is not None
        own = self.ir.render.reasoning
        if own is not None:  # the spec's own reasoning template: the anchors around it
            at = own.index(("field", "reasoning"))
            opens, closes = [self.parts(own[:at])], [self.parts(own[at + 1:])]
        else:
            opens = [_alternation([s for n in reasoning.start for s in self.by_name[n]])] \
                if reasoning.start else []
            closes = [_alternation([s for n in reasoning.end for s in self.by_name[n]])] \
                if reasoning.end else []
        if not opens:
            raise _Refused("reasoning.start", "reasoning that no marker opens cannot be a region")
        if all(v.initial_state == "REASONING" for v in self.ir.variants):
            opens.append("^")  # the completion starts in reasoning (after a marker if written)
        # (a call's marker that also ends reasoning would be a close that reads nothing, a
        # lookahead: parsergen's import cannot compile one, so a call inside reasoning
        # that was never closed stays reasoning: goldens/DIFFERENCES.md)
        field: dict[str, Any] = {}
        if own is None and len(opens) == 1:  # literals: transformers' fast path
            field["open"] = [s for n in reasoning.start for s in self.by_name[n]]
        else:
            field["open_pattern"] = "|".join(opens)
        if own is None and closes:
            field["close"] = [s for n in reasoning.end for s in self.by_name[n]]
        elif closes:
            field["close_pattern"] = closes[0]
        field["content"] = "text"
        return field

    def content(self) -> dict[str, Any]:
        """The implicit region: its close is every marker the spec drops in CONTENT, and
        the markers around a section of calls (each call is a region of its own)."""
        dropped = [value for parts in (self.ir.render.calls_open, self.ir.render.calls_close)
                   for kind, value in parts if kind == "marker"  # (a section of calls,
                   and not (self.ir.tool_body == "json_array" and self.listed())]  # not a list)
        dropped = [s for text in dropped for s in self.spellings.get(text, [text])]
        for state in self.ir.states:
            if state.name != "CONTENT":
                continue
            for t in state.transitions:
                if t.target == "CONTENT" and not t.emit:
                    dropped += list(self.by_name[t.terminal])
        # (each region as written, joined: the text around a dropped marker or a call
        # reads as one, as parsergen's content does)
        field: dict[str, Any] = {"content": "text", "content_args": {"strip": False},
                                 "repeats": True, "join": ""}
        if dropped:
            field["close"] = sorted(dict.fromkeys(dropped))
        return field

    def tool_calls(self) -> dict[str, Any]:
        ir = self.ir
        call = ir.render.call
        if call is None:
            raise _Refused("render", "the spec writes no call (render.call): the anchors of "
                           "a call are not known")
        syntax = ir.arguments.get("syntax")
        fields = [p for p in call if p[0] == "field"]
        at = call.index(("field", "arguments"))
        before, after = list(call[:at]), list(call[at + 1:])
        if any(k == "marker" for k, _ in ir.render.separator):
            raise _Refused("render.separator", "a marker between calls: a template's region "
                           "is one call, and the text between regions is content")
        if syntax == "json_envelope" and ir.arguments.get("name_is_key"):
            raise _Refused("arguments", "the call's name is its JSON key: a transform "
                           "takes a value by a fixed key, not a key")
        if ir.tool_body == "json_array" and self.listed():
            return self.call_list()
        if ir.tool_body in ("json_array", "json_object", "python_list", "python_lines"):
            raise _Refused("tool_body", f"the {ir.tool_body} body's calls end where a JSON or "
                           "Python value closes; a region ends only at a close anchor or the "
                           "text's end")
        out: dict[str, Any] = {}
        if syntax == "json_envelope":
            # the JSON object is the region: the anchors are the markers around it
            while before and before[-1][0] != "marker":
                before.pop()
            while after and after[0][0] != "marker":
                after.pop(0)
            name_key = ir.arguments.get("name_key", "name")
            keys = ir.arguments.get("argument_keys", ["arguments"])
            out.update(content="json", transform={"type": "function", "function": {
                "name": f"{{content.{name_key}}}", "arguments": f"{{content.{keys[0]}}}"}})
        else:
            if ("field", "name") not in fields:
                raise _Refused("render.call", "the call's name is not written before its "
                               "arguments")
            out.update(self.arguments(syntax))
            out["transform"] = {"type": "function",
                                "function": {"name": "{name}", "arguments": "{content}"}}
            if syntax == "notation" and before and before[-1] == ("marker", "{"):
                before.pop()  # the braces are the notation's own: the region reads them
                if after and after[0][0] == "text" and after[0][1].startswith("}"):
                    after[0] = ("text", after[0][1][1:])

        if not any(k == "marker" for k, _ in before) or not any(k == "marker" for k, _ in after):
            raise _Refused("render.call", "no marker after (or before) a call's "
                           "arguments: they end where their JSON closes, and a region ends "
                           "only at a close anchor or the text's end")
        # a name no marker ends runs to whitespace, a tag or the braces
        ended = any(k == "marker" for k, _ in before[before.index(("field", "name")) + 1:]) \
            if ("field", "name") in before else True
        opening = self.opening(before, r".+?" if ended else r"[^\s<{]+")
        closing = self.parts(tuple(after)) if after else ""
        return {"open_pattern": opening, "close_pattern": closing, "repeats": True, **out}

    def listed(self) -> bool:
        """Whether the calls are one JSON list between markers (Jamba's <tool_calls>[...])."""
        r = self.ir.render
        return (self.ir.arguments.get("syntax") == "json_envelope"
                and any(k == "marker" for k, _ in r.calls_open)
                and any(k == "marker" for k, _ in r.calls_close))

    def call_list(self) -> dict[str, Any]:
        """The list is the region, read as JSON, each call taken by its keys."""
        r, args = self.ir.render, self.ir.arguments
        marks = [v for k, v in r.calls_open if k == "marker"], [v for k, v in r.calls_close
                                                               if k == "marker"]
        keys = args.get("argument_keys", ["arguments"])
        return {"open_pattern": "".join(self.marker(m) for m in marks[0]),
                "close_pattern": "".join(self.marker(m) for m in marks[1]),
                "content": "json", "transform_each": True,
                "transform": {"type": "function", "function": {
                    "name": f"{{{args.get('name_key', 'name')}}}", "arguments": f"{{{keys[0]}}}"}}}

    def opening(self, before: list[tuple[str, str]], name: str) -> str:
        """The open pattern: the markers before the arguments, and between two of them
        the name's text (the format's tool_name pattern, else ``name`` captured)."""
        out, run = "", []
        for part in [*before, ("marker", "")]:
            if part[0] != "marker":
                run.append(part)
                continue
            fields = [v for k, v in run if k == "field"]
            if fields and self.ir.tool_name_pattern is not None:
                pattern = re.sub(r"^\(\?s\)", "", self.ir.tool_name_pattern)
                # (only the name reaches the message: other groups need not capture)
                pattern = re.sub(r"\(\?P<(?!name>)\w+>", "(?:", pattern)
                out += r"\s*" + pattern + r"\s*"
            elif [f for f in fields if f != "name"]:
                raise _Refused("render.call", f"${{{fields[-1]}}} before the arguments, "
                               "and no tool_name pattern that reads it")
            else:
                for kind, value in run:
                    out += (r"\s*(?P<name>%s)\s*" % name) if kind == "field" \
                        else self.parts(((kind, value),))
            run = []
            if part[1]:
                out += self.marker(part[1])
        return out

    def arguments(self, syntax: str | None) -> dict[str, Any]:
        args = self.ir.arguments
        if syntax == "json":
            return {"content": "json"}
        if syntax == "notation":
            delimiter = args.get("string_delimiter", '"')
            return {"content": "json", "content_args": {
                "unquoted_keys": True, "string_delims": [[delimiter, delimiter]]}}
        if syntax == "xml_parameters":
            if args.get("json_fallback") is not None:
                raise _Refused("arguments", "a call written either as elements or as one JSON "
                               "object (json_fallback): a template's region has one content "
                               "parser")
            opening, name_end = args["open"], args["name_end"]
            if args.get("header") == "attributes":
                if args.get("string_attribute"):
                    raise _Refused("arguments", "a value's type in an attribute of its tag "
                                   "(string_attribute): xml-inline's value parser reads the "
                                   "value alone")
                # the name attribute as the render writes it: <parameter name="KEY">
                opening += f' {args.get("name_attribute", "name")}="'
                name_end = '"' + name_end
            trim = args.get("trim", "strip")
            # (one_newline: any whitespace, as transformers' own Qwen3 template reads it)
            around = {"strip": r"\s*", "one_newline": r"\s*", "none": ""}.get(trim)
            if around is None:
                raise _Refused("arguments", f"trim {trim!r}")
            value_open = r"\s*" + re.escape(args["value_open"]) if args.get("value_open") else ""
            tag = (re.escape(opening) + r"(?P<key>.+?)" + re.escape(name_end)
                   + value_open + around + r"(?P<value>.*?)" + around + re.escape(args["close"]))
            content_args: dict[str, Any] = {"tag_pattern": tag}
            if args.get("json_values"):
                content_args["value_parser"] = {"name": "json", "args": {"allow_non_json": True}}
            return {"content": "xml-inline", "content_args": content_args}
        if syntax == "kv_lines":
            kv_args: dict[str, Any] = {k: args[k] for k in ("line_sep", "kv_sep") if k in args}
            if args.get("json_values"):
                kv_args["value_parser"] = {"name": "json", "args": {"allow_non_json": True}}
            return {"content": "kv-lines", **({"content_args": kv_args} if kv_args else {})}
        raise _Refused("arguments", f"the {syntax} argument syntax: no content parser of "
                       "the template language reads it (json, xml-inline, kv-lines)")


def response_template(ir: FormatIR) -> dict[str, Any]:
    """The response_template that says ``ir``'s format; SpecError naming the spec line
    and the reason where the template language cannot say it."""
    try:
        return _Writer(ir).template()
    except _Refused as exc:
        line = ir.lines.get(exc.key) or ir.lines.get(exc.key.split(".")[0]) or 1
        raise SpecError([Diagnostic(Position(ir.source, line, 1), f"$.{exc.key}",
                                    f"cannot be exported as a response_template: "
                                    f"{exc.message}")]) from None


__all__ = ["response_template"]
