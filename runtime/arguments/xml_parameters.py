"""The ``xml_parameters`` argument syntax: tagged fields, ``OPEN name NAME_END value CLOSE``.

Its reader is ``xml_parameters_reader``; here are its options, rendering and xgrammar style.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .fallback import FALLBACK_SCHEMA, fallback_syntax
from .trim import TRIM_SCHEMA, trim_mode
from .values import ElementValues, ValueScan
from .writer import ArgumentsWriter, json_type
from .xml_parameters_reader import ATTRIBUTE, TaggedArguments, spellings

_LITERAL: Final = {"$ref": "#/$defs/literal"}
_SPELLINGS: Final = {"oneOf": [_LITERAL, {"type": "array", "items": _LITERAL, "minItems": 1,
                                   "uniqueItems": True}]}


def escape_xml(text: str) -> str:
    """An XML attribute value's text escaped (``&`` first, then ``<``, ``>``, ``"``)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def cdata_section(text: str) -> str:
    """``text`` as CDATA: one section, split where the text holds ``]]>``."""
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


# xgrammar's XML styles, each of one spelling of this syntax (checked by rendering calls
# through the tag: tests/integration/test_structural.py).  Others, such as Kimi K3's
# ``<|open|>argument`` variant (whose render xgrammar's kimi_k3_xml does not accept),
# get no tag.
_XGRAMMAR_STYLES: tuple[tuple[Mapping[str, Any], str], ...] = (
    ({"open": "<parameter=", "name_end": ">", "close": "</parameter>", "trim": "one_newline"},
     "qwen_xml"),
    ({"open": "<parameter=", "name_end": ">", "close": "</parameter>", "trim": "none"},
     "qwen_xml"),
    ({"open": "<parameter", "name_end": ">", "header": "attributes", "close": "</parameter>"},
     "minimax_xml"),
    ({"open": "<arg_key>", "name_end": "</arg_key>", "value_open": "<arg_value>",
      "close": "</arg_value>"}, "glm_xml"),
    ({"open": "<｜DSML｜parameter", "name_end": ">", "header": "attributes",
      "string_attribute": "string", "close": "</｜DSML｜parameter>"}, "deepseek_xml"),
    ({"open": "<｜DSML｜ parameter", "name_end": ">", "header": "attributes",
      "string_attribute": "string", "close": "</｜DSML｜ parameter>"}, "deepseek_v4_1_xml"),
)


@mypyc_attr(allow_interpreted_subclasses=True)
class TaggedSyntax(ArgumentSyntax):
    """Each argument between tags, its name in the opening one: ``OPEN name NAME_END value CLOSE``.

    Values are typed by the tool's schema (qwen3, GLM, MiniMax, DeepSeek's DSML, Kimi K3).
    With ``header: attributes`` the opening tag holds XML attributes, one of which is the
    name.  A value also ends where the next argument opens; text outside arguments is
    ignored.  A close tag closes its value only where the next argument's open tag or
    the call's end follows it (after whitespace); followed by other text it is value
    text.  A value whose header marks it as text (``string_attribute``) ends only
    there: a format's marker inside it is text.  In any other value, a marker that would
    end the call is decided by what follows it: more text or a tag of this syntax makes
    it value text; another marker or the end of the completion means the value's close
    tag is missing.
    """

    name = "xml_parameters"
    schema = options_schema({
        "open": {**_SPELLINGS, "description": (
            "Starts a parameter, before its name; several spellings: the first is "
            "canonical (rendering), all are read.")},
        "name_end": {**_LITERAL, "description": "Ends the name."},
        "value_open": {**_LITERAL, "description": (
            "Starts the value, after the name (GLM's <arg_value>); default: the value "
            "follows name_end.")},
        "close": {**_SPELLINGS, "description": (
            "Ends the value (so does the next parameter's open); several spellings as "
            "for open.")},
        "trim": TRIM_SCHEMA,
        "header": {"enum": ["name", "attributes"], "description": (
            "The text between open and name_end: the name itself (default), or XML "
            "attributes, one of which (name_attribute) is the name (name=\"K\", name='K' "
            "or name=K).")},
        "name_attribute": {"type": "string", "minLength": 1, "description": (
            "With header: attributes, the attribute holding the name (default: name; "
            "Kimi K3: key).")},
        "string_attribute": {
            "oneOf": [
                {"type": "string", "minLength": 1, "description": (
                    "The attribute that marks a value as text when it is \"true\"; a value "
                    "without it is JSON (DeepSeek's string=\"false\").")},
                {"type": "object", "additionalProperties": False,
                 "required": ["name", "value"],
                 "properties": {
                     "name": {"type": "string", "minLength": 1},
                     "value": {"type": "string", "description": (
                         "The attribute value that marks text (Kimi K3: type=\"string\").")},
                     "default": {"type": "string", "description": (
                         "The value assumed when the attribute is missing.")}}},
            ],
            "description": ("With header: attributes, which values are text; any other "
                            "value is JSON (text if it does not parse)."),
        },
        "json_values": {"type": "boolean", "description": (
            "A value the tool's schema does not type is JSON where it parses, else text "
            "(a Hugging Face xml-inline value_parser json with allow_non_json; with header: "
            "attributes, where no string_attribute says otherwise: Muse); default false: "
            "text.")},
        "close_first": {"type": "boolean", "description": (
            "A close tag always closes its value, as a regular expression's lazy match "
            "does (a Hugging Face xml-inline template); default false: what follows it "
            "decides.")},
        "cdata": {"type": "boolean", "description": (
            "A value's <![CDATA[...]]> sections are their text exactly, delimiters dropped "
            "(after trim; MiniCPM5's multi-line values); rendering writes a string with a "
            "< in one section. A close tag inside a section is still decided by what "
            "follows it, as in any value. Default false: the delimiters are value text.")},
        "entities": {"enum": ["xml"], "description": (
            "With header: attributes, character references in attribute values are "
            "decoded: xml (&amp; &lt; &gt; &quot; &apos;, &#N; and &#xH;; Kimi K3). "
            "Values between the tags are raw text either way.")},
        "json_fallback": FALLBACK_SCHEMA,
    }, required=("open", "name_end", "close"))
    bodies = ("text",)
    __slots__ = ("open", "opens", "name_end", "close", "closes", "value_open", "trim", "attributes",
                 "name_attribute", "string_attribute", "entities", "close_first",
                 "json_values", "cdata")

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.opens, self.closes = spellings(options["open"]), spellings(options["close"])
        self.open, self.close = self.opens[0], self.closes[0]  # what rendering writes
        self.name_end = options["name_end"]
        self.value_open = options.get("value_open")
        self.trim = trim_mode(options.get("trim"))
        self.attributes = options.get("header") == "attributes"
        self.name_attribute = options.get("name_attribute", "name")
        self.string_attribute = options.get("string_attribute")
        self.entities = options.get("entities")
        self.close_first = bool(options.get("close_first", False))
        self.json_values = bool(options.get("json_values", False))
        self.cdata = bool(options.get("cdata", False))
        self.fallback = fallback_syntax(options.get("json_fallback"))

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return self._reader(make_writer(name or ""))

    def _reader(self, writer: ArgumentsWriter) -> TaggedArguments:
        # (Keywords spelt out: compiled, a call with **options goes through Python.)
        return TaggedArguments(writer, open=self.opens, name_end=self.name_end,
                               close=self.closes, value_open=self.value_open, trim=self.trim,
                               header="attributes" if self.attributes else "name",
                               name_attribute=self.name_attribute,
                               string_attribute=self.string_attribute, entities=self.entities,
                               close_first=self.close_first, json_values=self.json_values,
                               cdata=self.cdata)

    def whole_arguments(self, text: str, properties: Mapping[str, Any] | None) -> str | None:
        """The fields read at once by the reader streaming uses: taken when every value
        the text opens is closed by its end (a call-ending marker after it ended the
        call) and nothing was warned of; else None."""
        if self.key_opening(text) is not None:
            return None  # (the key is at the end of the name: ToolCalls reads that)
        reader = self._reader(ArgumentsWriter(properties))
        out = reader.whole(text)
        if out is None:  # (read piece by piece, as streaming reads it)
            reader = self._reader(ArgumentsWriter(properties))
            out = reader.feed(text)
            if not reader.complete():
                return None
            out += reader.finish()
        return None if reader.writer.warnings else out

    def key_opening(self, args: str) -> str | None:
        """The arguments start with the end of a name (GLM's ``NAMEkey</arg_key>``): the
        key is at the end of the call's name, and ``open`` belongs before it."""
        if self.attributes or not args.lstrip().startswith(self.name_end):
            return None
        return self.open

    def values(self) -> ValueScan:
        """Element values: sure text where the header says the value is a string (only
        its close tag ends it), ambiguous otherwise."""
        sure = self._marks_text if self.attributes and self.string_attribute else None
        return ElementValues(open=self.opens, name_end=self.name_end, close=self.closes,
                             value_open=self.value_open, text_kind=sure,
                             self_closing=bool(self.attributes),
                             name_of=self._name_of if self.attributes else None,
                             close_first=self.close_first)

    def _name_of(self, header: str) -> str:
        """A field header's name (its name attribute)."""
        attrs = {k: dq or sq or bare for k, dq, sq, bare in ATTRIBUTE.findall(header)}
        return attrs.get(self.name_attribute, "").strip()

    def _marks_text(self, header: str) -> bool:
        """Whether a field header's attributes mark its value as text."""
        attr = self.string_attribute
        name, value, default = ((attr["name"], attr.get("value", "true"), attr.get("default"))
                                if isinstance(attr, Mapping) else (attr, "true", None))
        attrs = {k: dq or sq or bare for k, dq, sq, bare in ATTRIBUTE.findall(header)}
        return attrs.get(name, default) == value

    def structural_style(self) -> str | None:
        # xgrammar's style reads the canonical spelling only, as rendering writes it.
        return self._style_by_options(_XGRAMMAR_STYLES, {"open": self.open, "close": self.close})

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        out: list[Piece] = []
        string_attr = self.string_attribute
        trim = self.trim
        for key, value in arguments.items():
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            if self.cdata and isinstance(value, str) and "<" in value:
                text = cdata_section(value)
            if self.attributes:
                header = f' {self.name_attribute}="{escape_xml(key) if self.entities else key}"'
                if isinstance(string_attr, Mapping):  # type="string", else the JSON type
                    header += f' {string_attr["name"]}="{string_attr["value"] if isinstance(value, str) else json_type(value)}"'
                elif string_attr:
                    header += f' {string_attr}="{"true" if isinstance(value, str) else "false"}"'
            else:
                header = key
            out.append((self.open, True))
            out.append((header, False))
            out.append((self.name_end, True))
            if self.value_open:
                out.append((self.value_open, True))
            out.append((f"\n{text}\n" if trim == "one_newline" else text, False))
            out.append((self.close, True))
        return out
