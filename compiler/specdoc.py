"""The spec language reference, docs/spec.md: hand-written prose from
``templates/spec.md.jinja`` around tables ``parsergen build`` writes from
grammars/schema.json (every field, its description and example), the body registry
(what follows a body's end), the spec defaults and ``EventType``."""

from __future__ import annotations

import json
from typing import Any

import jinja2
import yaml

from parsergen.runtime.bodies import BODIES
from parsergen.runtime.events import STATE_NAMES, EventType

from .lower import DEFAULTS
from .reference import HEADER, REFERENCE_PATH, _cell, _markdown, summary

SPEC_DOC_PATH = "docs/spec.md"  # relative to the project root
# Fields whose members another generated page describes (one class per syntax).
LINKED = {"arguments": REFERENCE_PATH}
# What each event means; build fails on an event without a line here (KeyError).
EVENT_MEANINGS: dict[str, str] = {
    "TEXT_CHUNK": "A piece of the message's content.",
    "REASONING_START": "Reasoning begins (a marker opened it).",
    "REASONING_CHUNK": "A piece of the reasoning.",
    "REASONING_END": "Reasoning ends; what follows is content or calls.",
    "TOOL_CALL_START": "A call begins: the tool index moves on to it.",
    "TOOL_NAME": "A piece of the open call's name.",
    "ARG_VALUE_CHUNK": "A piece of the open call's argument text, as the model wrote it "
                       "(the argument syntax turns it into JSON arguments).",
    "TOOL_CALL_END": "The open call is complete.",
}
# A name for the keys of a mapping whose keys are named by this $defs entry.
_KEY_NAMES = {"terminal_name": "TERMINAL", "state": "STATE"}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """A schema with a local ``$ref`` followed (its own keys win over the target's)."""
    ref = schema.get("$ref", "")
    if not ref.startswith("#/$defs/"):
        return schema
    target = _resolve(root["$defs"][ref.removeprefix("#/$defs/")], root)
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def _key_name(schema: dict[str, Any]) -> str:
    names = schema.get("propertyNames", {})
    if "enum" in names:
        return "STATE"
    return _KEY_NAMES.get(names.get("$ref", "").removeprefix("#/$defs/"), "KEY")


def _forms(schema: dict[str, Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    """A schema and its ``oneOf`` alternatives, references followed."""
    schema = _resolve(schema, root)
    return [schema, *(_resolve(s, root) for s in schema.get("oneOf", ()))]


def fields(root: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """Every field a spec may write, as (path, its schema, required), in schema order:
    top-level fields and, below them, the members of their object forms, list items
    (``[]``) and mapping values (``.TERMINAL``, ``.STATE``)."""
    out: list[tuple[str, dict[str, Any], bool]] = []

    def members(prefix: str, schema: dict[str, Any]) -> None:
        for form in _forms(schema, root):
            required = set(form.get("required", ()))
            for key, prop in form.get("properties", {}).items():
                if any(path == f"{prefix}{key}" for path, _, _ in out):
                    continue  # (a field two forms share, listed once: thinking_only)
                out.append((f"{prefix}{key}", _resolve(prop, root), key in required))
                if prefix or key not in LINKED:
                    members(f"{prefix}{key}.", prop)
            if isinstance(form.get("items"), dict):
                members(f"{prefix.rstrip('.')}[].", form["items"])
            if isinstance(form.get("additionalProperties"), dict):
                members(f"{prefix}{_key_name(form)}.", form["additionalProperties"])

    members("", root)
    return out


def _type(schema: dict[str, Any], root: dict[str, Any]) -> str:
    """A short name for the values a field admits."""
    kinds = []
    for form in _forms(schema, root)[1:] or _forms(schema, root):
        if "enum" in form:
            kinds.append(" \\| ".join(f"`{v}`" for v in form["enum"]))
        elif "const" in form:
            kinds.append(f"`{form['const']}`")
        elif form.get("type") == "array":
            kinds.append("list")
        elif form.get("type") == "object" or "properties" in form:
            kinds.append("mapping")
        else:
            kinds.append(str(form.get("type", "any")))
    return " or ".join(dict.fromkeys(kinds))


def _yaml(key: str, value: Any) -> str:
    """One example as the YAML line(s) a spec writes: flow style for what fits one line."""
    text = yaml.safe_dump(value, allow_unicode=True, sort_keys=False,
                          default_flow_style=None, width=100)
    text = text.removesuffix("\n").removesuffix("\n...").rstrip("\n")
    if "\n" not in text and (not isinstance(value, (dict, list)) or text[0] in "{["):
        return f"{key}: {text}"
    return f"{key}:\n" + "\n".join(f"  {line}" for line in text.splitlines())


def _example(path: str, schema: dict[str, Any]) -> str:
    """A field's examples as YAML, under the key a spec writes them with."""
    key = path.rsplit(".", 1)[-1].removesuffix("[]")
    return "\n".join(_yaml(key, value) for value in schema.get("examples", ()))


def _prose(text: str) -> str:
    """A description as a Markdown paragraph, its markers (``<name>``) shown, not HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def field_reference(root: dict[str, Any]) -> str:
    """One section per top-level field: type, description, example, sub-field table."""
    lines: list[str] = []
    rows = fields(root)
    for path, schema, required in rows:
        if "." in path or "[]" in path:
            continue
        lines += [f'<a id="field-{path.lstrip("$")}"></a>', "", f"### `{path}`", "",
                  f"{_type(schema, root)}, {'required' if required else 'optional'}.", "",
                  _prose(schema.get("description", "")), ""]
        if path in LINKED:
            lines += [f"Its members, one set per `syntax`: [{LINKED[path]}]"
                      f"({LINKED[path].removeprefix('docs/')}).", ""]
        example = _example(path, schema)
        if example:
            lines += ["```yaml", example, "```", ""]
        below = [r for r in rows if r[0].startswith((f"{path}.", f"{path}[]."))]
        if below:
            lines += ["| field | type | required | description | example |",
                      "| --- | --- | --- | --- | --- |"]
            for sub, sub_schema, sub_required in below:
                # In a code span '<' is shown as it is; only '|' would end the cell.
                ex = "; ".join("`%s`" % json.dumps(v, ensure_ascii=False).replace("|", "\\|")
                               for v in sub_schema.get("examples", ()))
                lines.append(f"| `{sub}` | {_type(sub_schema, root)} | "
                             f"{'yes' if sub_required else 'no'} | "
                             f"{_cell(sub_schema.get('description', ''))} | {ex} |")
            lines.append("")
    return "\n".join(lines).rstrip("\n")


def state_table() -> str:
    """Each state's plain text by default (without content_events)."""
    events = DEFAULTS["content_events"]
    fixed = {"TOOL_ARGS": "the tool body (`tool_body`)",
             "MESSAGE_HEADER": "kept for the header rules"}
    lines = ["| state | its plain text, by default |", "| --- | --- |"]
    for state in STATE_NAMES:
        what = (f"`{events[state]}`" if state in events
                else fixed.get(state, "framing, or `TEXT_CHUNK` (see below)"))
        lines.append(f"| [`{state}`](#state-{state}) | {what} |")
    return "\n".join(lines)


def body_table() -> str:
    """Each tool body: what it is, and the state its own text can end it in."""
    lines = ["| `tool_body` | what it reads | its own end goes to |", "| --- | --- | --- |"]
    for name, cls in BODIES.items():
        after = ", ".join(f"`{s}`" for s in cls.exits_to) or "- (only a marker ends it)"
        lines.append(f"| [`{name}`]({REFERENCE_PATH.removeprefix('docs/')}#body-{name}) "
                     f"| {_cell(_markdown(summary(cls)))} | {after} |")
    return "\n".join(lines)


def event_table() -> str:
    """Every event kind, in vLLM's order, with what it means."""
    lines = ["| event | meaning |", "| --- | --- |"]
    lines += [f"| `{e.name}` | {EVENT_MEANINGS[e.name]} |" for e in EventType]
    return "\n".join(lines)


def spec_reference(schema_text: str) -> str:
    """docs/spec.md from the schema's text (as ``build`` writes it) and the template."""
    root = json.loads(schema_text)
    env = jinja2.Environment(loader=jinja2.PackageLoader("parsergen.compiler", "templates"),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             autoescape=False)
    text = env.get_template("spec.md.jinja").render(
        header=HEADER, fields=field_reference(root), states=state_table(),
        bodies=body_table(), events=event_table(), reference=REFERENCE_PATH)
    return text.rstrip("\n") + "\n"
