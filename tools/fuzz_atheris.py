"""Coverage-guided fuzzing of every bundled format with atheris (libFuzzer).

    python tools/fuzz_atheris.py -runs=200000          # or -max_total_time=600
    python tools/fuzz_atheris.py -atheris_runs=... CORPUS_DIR

Each input picks a format (first byte), a delta size (second byte) and a text: the rest,
decoded with replacement characters, with each NUL byte standing for one of the
format's markers. The parser must not raise; its accounting
must give back the input with nothing lost; streamed deltas must add up to parse().
A failure raises, and libFuzzer saves the input that caused it.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import parsergen
    from parsergen.runtime import accumulate
    from parsergen.runtime.accounting import account
    from parsergen.runtime.messages import without_cut_calls

FORMATS = sorted(parsergen.formats())
MODULES = [parsergen.load(f) for f in FORMATS]


def _marker_soup(module, data: bytes) -> str:
    """Bytes as text, each NUL byte replaced by one of the format's markers."""
    lexicon = module.StreamingParser.LEXICONS[True]
    literals = sorted({*lexicon.literals, *lexicon.token_terminals.values()}) or [""]
    out = []
    for chunk in data.split(b"\x00"):
        out.append(chunk.decode("utf-8", "replace"))
        out.append(literals[len(chunk) % len(literals)])
    return "".join(out)


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    module = MODULES[data[0] % len(MODULES)]
    step = data[1] % 7 + 1
    text = _marker_soup(module, data[2:])
    deltas = [(text[i : i + step], []) for i in range(0, len(text), step)]
    whole = module.parse(text, ids="sequential")
    accounting = account(module.StreamingParser(), deltas, whole.cut_calls)
    if accounting.text != text or accounting.problems:
        raise AssertionError(f"{module.FORMAT}: {accounting.problems or 'bytes lost or added'}")
    for stream_calls in ("incremental", "complete"):
        chat = module.ChatParser(ids="sequential", stream_calls=stream_calls)
        streamed = without_cut_calls(
            accumulate([chat.feed(t) for t, _ in deltas] + [chat.finish()]), chat.cut_calls)
        if streamed != whole:
            raise AssertionError(f"{module.FORMAT} ({stream_calls}): stream differs from parse()")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
