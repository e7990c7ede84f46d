"""XML character references decoded (``unescape_xml``), by the spec value that names them."""

from __future__ import annotations

import re
from typing import Final

_XML_REFERENCE: Final = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_XML_NAMED: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _xml_reference(m: re.Match[str]) -> str:
    """The character one XML reference stands for."""
    named, dec, hexa = m.groups()
    if named:
        return _XML_NAMED[named]
    code = int(dec) if dec else int(hexa, 16)
    # Not a character XML can hold (NUL, a surrogate, past Unicode): kept as written.
    if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return m.group()
    return chr(code)


def unescape_xml(text: str) -> str:
    """XML's character references decoded: ``&amp; &lt; &gt; &quot; &apos;``, ``&#N;``
    and ``&#xH;``; anything else (``&copy;``, a bare ``&``) is kept as written."""
    return _XML_REFERENCE.sub(_xml_reference, text) if "&" in text else text


# Spec value (``tool_name.entities``, ``xml_parameters`` ``entities``) -> decoder.
ENTITY_DECODERS: Final = {"xml": unescape_xml}
