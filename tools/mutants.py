"""Targeted mutants over runtime/, compiler/ and parsergen/: does the corpus notice, do
the tests?

Each mutant is one exact source snippet of one file and its replacement.  For each, the
tool works in a private copy of the tree (a temp dir; the working tree is never
touched, whatever happens), whose ``parsergen/`` links ``runtime``, ``compiler``,
``generated`` and ``grammars`` to the copy's folders and comes first on PYTHONPATH,
ahead of the editable install:

1. applies the mutant (and rebuilds ``generated/`` in the copy when compiler/ changed);
2. replays the golden corpus (every ``goldens/*.golden`` section as events and as a
   ChatParser stream, every ``goldens/*.messages`` case through ``parse()``) and
   compares it with the unmutated copy's replay: does the mutant change the corpus?
3. runs a fast test selection with ``-x``; a survivor that changes the corpus then gets
   the full suite (``--full all``: every survivor; ``--full none``: none).

It prints a table (mutant, corpus changed, caught by) and the score: caught mutants over
corpus-changing ones; mutants that leave the corpus alone are listed apart.

    .venv/bin/python tools/mutants.py --jobs 2     # every mutant (see the docstring's end)
    .venv/bin/python tools/mutants.py --list       # names and descriptions
    .venv/bin/python tools/mutants.py --only NAME [--only NAME ...]
    .venv/bin/python tools/mutants.py --check      # every snippet occurs once (fast)

Latest run (2026-12-01, 103 mutants, 2-core VM, --jobs 2, 34.4 minutes): 48 change the
corpus, 48/48 caught.  Of the 55 that do not, 45 are caught by the fast selection; of
the 10 left, the full suite (``--full all``) catches strings-hide-nothing, tagged-next-open,
python-non-finite-kept, python-no-implicit-concatenation and scan-split-leftmost by a
test of theirs, and lower-calls-are-text-off and schema-boolean-off only by
tests/test_compiled.py (to check: it may fail on any edit of the copy's runtime);
compiler-no-plain-fast-path is speed only.  The corpus compares final (merged) events and messages, not when
each delta's events came out: hold-back mutants show up in the tests only.
Added 2026-12-02, run alone (``--only``): ids-not-counted and tools-attributes-untyped,
both caught by the fast selection (test_chat.py, test_integration_api.py); and
schema-boolean-off and lower-calls-are-text-off are now caught by it too
(test_arguments.py compares the typed value's type: its check had taken 1 for True;
test_reasoning.py extends qwen3, which calls from reasoning, with calls_are_text).
Added 2026-12-04 (an outside audit's gaps, run alone with ``--only``, 27.6 minutes):
writer-null-case-sensitive, batch-model-precedence-flipped,
batch-thinking-precedence-flipped, batch-defaults-over-given and
cli-jsonl-thinking-dropped change no corpus result and are all caught by the fast
selection (test_value_casings.py, test_batch.py).
Added 2026-12-04, run alone (``--only``, 17.4 minutes): json-stray-quote-ends,
json-end-repair-silent, writer-retyped-infinity and python-call-paren-kinds, and the
retargeted json-cut-not-closed: none changes the corpus, all five are caught by the fast
selection (test_broken_json.py, test_arguments.py).

The run of 2026-12-04 from 90194ac (the fast selection then lacked the two files
below): quoted-closer-always-text and quoted-closer-any-marker-closes changed no corpus
result and SURVIVED it; run alone by hand, test_broken_calls.py catches the first (and
quoted-skip-passes-special), test_marker_values.py the second (deepseek_v32's close tag
inside a value), so both files joined the fast selection.

Added 2026-12-05 (issue 36, a call marker quoted in prose): reasoning-quoted-marker-counts,
reasoning-gate-no-space, reasoning-gates-none and envelope-name-any-value.  A run with
``--only`` on a loaded machine (load average 13) had the fast selection time out on the
first; each was then applied by hand and caught by tests/test_broken_calls.py (-k
reasoning, gated, name_belongs: test_a_call_marker_quoted_in_reasoning_is_reasoning,
test_a_call_in_reasoning_still_ends_it, test_gated_formats,
test_words_where_a_calls_name_belongs_are_no_call), which is in the fast selection.

Not part of the default pytest run; ``tests/test_mutants.py`` checks that every snippet
still occurs exactly once in the current source, so the list does not rot.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import threading
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"runtime": "runtime", "compiler": "compiler", "generated": "generated",
            "grammars": "grammars"}
# Tests that run in well under a minute and reach every part of the runtime.
FAST = ["tests/test_promises.py", "tests/test_args.py", "tests/test_expected.py",
        "tests/test_chat.py", "tests/test_reasoning.py", "tests/test_prompt.py",
        "tests/test_scanner.py",
        "tests/test_arguments.py", "tests/test_goldens.py", "tests/test_messages.py",
        "tests/test_own_goldens.py", "tests/test_routing.py", "tests/test_lexing.py",
        "tests/test_compiler.py", "tests/test_accounting.py", "tests/test_malformed.py",
        "tests/test_bodies.py", "tests/test_syntaxes.py", "tests/test_cut_calls.py",
        "tests/test_framing.py", "tests/test_terminal_framing.py",
        "tests/test_trim.py", "tests/test_canonical.py", "tests/test_object_runs.py",
        "tests/test_call_runs.py", "tests/test_array_runs.py", "tests/test_integration_api.py",
        "tests/test_batch.py", "tests/test_value_casings.py", "tests/test_warnings.py",
        "tests/test_broken_json.py", "tests/test_broken_calls.py",
        "tests/test_marker_values.py"]
FAST_TIMEOUT, FULL_TIMEOUT, CORPUS_TIMEOUT = 900, 1800, 600


# What the compiler reads: a mutant there changes generated/, which is rebuilt (the
# registries of argument syntaxes and tool bodies decide defaults and the schema).
COMPILER_INPUTS = ("compiler/", "runtime/arguments/", "runtime/bodies/")


@dataclass(frozen=True)
class Mutant:
    """One targeted change: ``old`` (found exactly once in ``file``) becomes ``new``."""

    name: str
    file: str
    old: str
    new: str
    description: str


M = Mutant
MUTANTS: list[Mutant] = [
    # --- lexing: per-state literal matchers ----------------------------------------
    M("lex-hold-off-by-one", "runtime/lexicon.py",
      "k = n - self.reach\n", "k = n - self.reach + 1\n",
      "hold-back looks one character too few back: a split marker's first char leaks"),
    M("lex-no-hold", "runtime/lexicon.py",
      "                if m is None or start >= hold:\n                    return hold, -1, None",
      "                if m is None or start >= hold:\n                    return len(buf), -1, None",
      "nothing is held back: a marker split across deltas is text"),
    M("lex-shortest-first", "runtime/lexicon.py",
      "key=lambda s: (-len(s), s)", "key=lambda s: (len(s), s)",
      "alternatives shortest first: a longer marker loses to its prefix"),
    M("lex-hold-first-candidate-only", "runtime/lexicon.py",
      "            if buf[k:] in prefixes:\n                return k\n            k += 1",
      "            if buf[k:] in prefixes:\n                return k\n            return n",
      "hold-back gives up after the first character that may start a literal"),
    M("lex-no-closure", "runtime/lexicon.py",
      "        for outer in sorted(hiding):\n",
      "        for outer in sorted(hiding)[:0]:\n",
      "a state ignores literals that can hide its live markers"),
    # --- the streaming driver ----------------------------------------------------------
    M("driver-framing-words-dropped", "runtime/machine.py",
      "            self.framing = None\n            out.append(",
      "            self.framing = None\n            (",
      "words in a framing state reach no one (text after </function>, vLLM's loss)"),
    M("accounting-words-in-framing-ok", "runtime/accounting.py",
      'if category.startswith("framing ") and _WORD.search(consumed, i, j):', "if False:",
      "the accounting takes words left in framing for framing"),
    M("runs-text-between-markers", "runtime/runs.py",
      "                    if buf[end : end + len(literal)] != literal:\n                        break  # text where the call has none, or another marker\n                    end += len(literal)",
      "                    if buf.find(literal, end) < 0:\n                        break  # text where the call has none, or another marker\n                    end = buf.find(literal, end) + len(literal)",
      "a call read whole (CALL_RUNS) though text stands between two of its markers"),
    M("runs-first-char-search-not-nearest", "runtime/searching.py",
      "                k = buf.find(c, pos, at)\n",
      "                k = buf.find(c, pos, stop)\n",
      "a run's arguments step takes the last first character it looked for, not the nearest"),
    M("driver-final-pending-dropped", "runtime/driver.py",
      "        if self.pending:\n            pending, self.pending = self.pending, \"\"\n"
      "            self._end(pending, out)\n        state = self.state_id",
      "        if self.pending:\n            self.pending = \"\"\n"
      "        state = self.state_id",
      "finish() drops text held back as a possible marker prefix"),
    M("driver-cut-marker-is-content", "runtime/driver.py",
      "cut, name = (self.matchers[state].cut(tail) if state in self.FRAMING_STATES",
      "cut, name = (self.matchers[state].cut(tail) if state in ()",
      "a marker cut at the end of a framing state is content (words in framing)"),
    M("driver-finish-no-reasoning-end", "runtime/driver.py",
      "        elif state == REASONING:\n            out.append(SemanticEvent(_REASONING_END, \"\", self.tool_index))",
      "        elif state == REASONING:\n            pass",
      "finish() inside reasoning emits no REASONING_END"),
    M("driver-finish-no-call-end", "runtime/bodies/text.py",
      "        out.append(SemanticEvent(TOOL_CALL_END, \"\", index))\n        return None",
      "        return None",
      "finish() leaves an open call without TOOL_CALL_END"),
    M("driver-held-args-lost", "runtime/bodies/json.py",
      "        self.flush(out)\n        index = self.parser.tool_index\n        if index < 0:\n"
      "            return False\n        # The call may only lack",
      "        index = self.parser.tool_index\n        if index < 0:\n"
      "            return False\n        # The call may only lack",
      "finish() drops a held JSON closer"),
    M("driver-plain-ignores-stop", "runtime/machine.py",
      "                if char in text:\n                    return None",
      "                if False:\n                    return None",
      "the plain fast path takes deltas that may hold a marker"),
    M("calls-trailer-leads-in", "runtime/calls.py",
      "                if raw.marker in self.trailers:",
      "                if False:",
      "a marker written after a call's end starts the next call's text (a cut call's)"),
    M("ir-no-call-trailers", "compiler/to_ir.py",
      "            elif terminal in closers:\n                stage = \"after\"",
      "            elif False:\n                stage = \"after\"",
      "no marker counts as written after a call's end"),
    M("driver-marker-before-pending", "runtime/machine.py",
      "        if self.pending:\n            pending, self.pending = self.pending, \"\"\n"
      "            self.lex(pending, True, out)\n        self.fresh = False",
      "        self.fresh = False",
      "a marker token does not first flush the text held before it"),
    M("driver-header-lost", "runtime/driver.py",
      "            if cut is None or cut.fullmatch(self.header) is None:\n                out.append(SemanticEvent(_TEXT_CHUNK, self.header, self.tool_index))",
      "            if False:\n                out.append(SemanticEvent(_TEXT_CHUNK, self.header, self.tool_index))",
      "finish() drops a message header that never became a block"),
    M("strings-hide-nothing", "runtime/arguments/values.py",
      "            self.inside = m.group()\n            self.quoted = True",
      "            self.inside = m.group()\n            self.quoted = False",
      "a marker inside a JSON or Python string argument ends the call"),
    M("closer-never-waits", "runtime/value_gate.py",
      "        return name in self.closers and (scan.ambiguous or special and scan.quoted)",
      "        return False",
      "a call closer inside an element value ends the call whatever follows it"),
    M("quoted-closer-always-text", "runtime/value_gate.py",
      "        return name in self.closers and (scan.ambiguous or special and scan.quoted)",
      "        return name in self.closers and scan.ambiguous",
      "a special-token closer inside a string left open is string text: the calls after it are swallowed"),
    M("quoted-closer-any-marker-closes", "runtime/value_gate.py",
      "                    return False  # markup that cannot follow: quoted in the string",
      "                    return True  # markup that cannot follow: quoted in the string",
      "a closer quoted in a string before markup that cannot follow it ends the call"),
    M("quoted-skip-passes-special", "runtime/lexing.py",
      "                if m is not None:\n                    limit = m.start()",
      "                if False:\n                    limit = m.start()",
      "inside a string the skip jumps over a special-token closer"),
    M("held-limit-off", "runtime/bodies/python_list.py",
      "if len(self.held) > _HELD_LIMIT:", "if False:",
      "held pythonic list syntax is never released (no bound)"),
    M("reasoning-end-boundary", "runtime/prompt.py",
      "            elif token_ids[i] in boundary:\n                break\n        return \"end\" if call",
      "            elif False:\n                break\n        return \"end\" if call",
      "is_reasoning_end looks past a turn boundary"),
    M("reasoning-end-start-ignored", "runtime/prompt.py",
      "                if self._opens:\n                    return \"start\"\n                break",
      "                break",
      "is_reasoning_end: a start marker does not reopen reasoning"),
    M("prompt-neither-keeps-default", "runtime/prompt.py",
      "                if ids[i] in info.stop_ids:\n                    break\n            return \"none\"",
      "                if ids[i] in info.stop_ids:\n                    break\n            return None",
      "a prompt read by ids with no reasoning marker keeps the format's default"),
    M("prompt-opener-ignored", "runtime/opening.py",
      "        opens = name in self.opening\n",
      "        opens = False\n",
      "a start marker token that begins the completion after a marker-less prompt is text"),
    M("lower-calls-are-text-off", "compiler/lower.py",
      "    if as_mapping(spec.get(\"reasoning\")).get(\"calls_are_text\") is True:",
      "    if False:",
      "reasoning.calls_are_text keeps the calls that start in REASONING"),
    M("reclose-marker-is-content", "runtime/opening.py",
      "                elif name not in self.reclosing:",
      "                elif True:",
      "an end marker repeated right after reasoning closed shows in content"),
    M("reclose-only-once", "runtime/opening.py",
      "                elif self.after_close:  # a repeated end marker: no event",
      "                elif False:",
      "an end marker repeated twice after reasoning closed shows in content"),
    M("reclose-no-whitespace", "runtime/opening.py",
      "        space = len(buf) - len(buf.lstrip()) if self.after_close else 0",
      "        space = 0",
      "whitespace before a repeated end marker ends the window"),
    M("object-run-any-text-between", "runtime/runs.py",
      "if framing is not None and begin > at and framing(buf, at, begin).end() < begin:",
      "if False:",
      "a run of whole calls in a framing state reads on over text between calls that is content"),
    M("compiler-no-enter-values", "compiler/to_ir.py",
      "    if target == \"TOOL_ARGS\" and source != \"TOOL_ARGS\" and values:\n",
      "    if False:\n",
      "the value scanner is not restarted when a call's arguments begin"),
    M("compiler-no-closing-reasoning", "compiler/lexers.py",
      "        if any(end not in content for end in reasoning.end):\n            return True",
      "        if False:\n            return True",
      "no REASONING lexer takes an end marker written again right after reasoning closed"),
    M("runs-body-not-told", "runtime/runs.py",
      "    if markup is not None:\n        p.body.ran_calls()\n",
      "",
      "after array elements read whole, the body still waits for the array's opening"),
    M("runs-chain-not-followed", "runtime/runs.py",
      "        program = lexer.program  # the calls after one go on in the state it ends in",
      "        break",
      "a section's first call read whole, the calls after it piece by piece"),
    M("array-run-any-space-between", "runtime/bodies/json_array.py",
      '_BETWEEN: Final = re.compile(r"[ \\t\\r\\n,]*").match',
      '_BETWEEN: Final = re.compile(r"[\\s,]*").match',
      "a run of whole array elements reads on over whitespace the array body ends at "
      "(a no-break space: the array was no array of calls, its rest content)"),
    M("content-ids-off-by-one", "runtime/prompt.py",
      "            if _ends_at(ids, i, end_seqs):\n                return ids[i + 1 :]",
      "            if _ends_at(ids, i, end_seqs):\n                return ids[i:]",
      "extract_content_ids keeps the end marker"),
    M("calls-are-text-ends-inside", "runtime/prompt.py",
      "                if not self._calls_are_text:\n                    return \"end\"",
      "                if True:\n                    return \"end\"",
      "is_reasoning_end: a call marker inside open reasoning ends it despite calls_are_text"),
    M("calls-are-text-find-inside", "runtime/prompt.py",
      "                if (not (inside and self._calls_are_text) and len(seq) <= i + 1",
      "                if (len(seq) <= i + 1",
      "find_reasoning_end: a call marker inside open reasoning ends it despite calls_are_text"),
    # --- token-id scanning ---------------------------------------------------------------
    M("scan-no-defer", "runtime/tokens.py",
      "            self.deferred.extend(item for item in found if type(item) is Marker)\n            return items",
      "            return [item for item in found if type(item) is Marker]",
      "markers whose text has not arrived are placed at once, before their text"),
    M("scan-tail-dropped", "runtime/tokens.py",
      "            tail = [delta_text[tail_at:]] if tail_at < len(delta_text) else []",
      "            tail = []",
      "text after the delta's tokens is dropped (as vLLM does)"),
    M("scan-split-leftmost", "runtime/tokens.py",
      "            pos = delta_text.rfind(markers[i].text, 0, limit)",
      "            pos = delta_text.find(markers[i].text, 0, limit)",
      "a marker takes the leftmost lookalike, typed in prose"),
    M("scan-unambiguous-no-count", "runtime/tokens.py",
      "        if any(text.count(marker_text) != n for marker_text, n in counts.items()):\n            return None",
      "        if False:\n            return None",
      "a long delta is split at typed lookalikes of its markers"),
    M("scan-deferred-never-flushed", "runtime/tokens.py",
      "        items.extend(m for m in self.deferred if not is_piece(m.name))\n        self.deferred = []",
      "        self.deferred = []",
      "markers still waiting at the end are dropped"),
    # --- JSON tracking and readers -------------------------------------------------------
    M("jsonscan-escape-lost", "runtime/arguments/scanning/json_structure.py",
      "                if text[i] == \"\\\\\":\n                    self.escape = True",
      "                if text[i] == \"\\\\\":\n                    self.escape = False",
      "an escaped quote in a string ends the string (escape lost)"),
    M("jsonargs-no-hold", "runtime/bodies/json.py",
      "        if run_start >= 0 and run_end == n:", "        if False:",
      "a top-level JSON closer is not held back"),
    M("jsonargs-depth", "runtime/bodies/json.py",
      "                if depth > 0:\n                    depth -= 1",
      "                if depth > 1:\n                    depth -= 1",
      "a nested closer does not lower the depth"),
    M("json-args-as-text", "runtime/arguments/json.py",
      "                        out.append(self.writer.begin(self._key(), \"json:\" + ch))",
      "                        out.append(self.writer.begin(self._key()))",
      "JSON argument values are typed as plain text"),
    M("json-escape-across-deltas", "runtime/arguments/scanning/json_strings.py",
      "        if i + 1 >= n:\n            return \"\".join(parts), i, False\n        esc = buf[i + 1]",
      "        if i + 1 >= n:\n            return \"\".join(parts), n, False\n        esc = buf[i + 1]",
      "a JSON string escape cut by a delta is lost"),
    M("json-unicode-escape", "runtime/arguments/scanning/json_strings.py",
      "        code = int(buf[i + 2 : i + 6], 16) if _is_hex(buf[i + 2 : i + 6]) else 0xFFFD",
      "        code = 0xFFFD",
      "\\uXXXX escapes decode to U+FFFD"),
    M("json-no-warning", "runtime/arguments/writer.py",
      "                if mode == \"hold_json!\":\n                    self.warnings.append",
      "                if False:\n                    self.warnings.append",
      "a non-JSON value gives no warning"),
    M("json-bad-value-raw", "runtime/arguments/writer.py",
      "                return to_json(held if schemaless else coerce(held, self.types))",
      "                return held",
      "a non-JSON value is written as is: the arguments are not JSON"),
    M("json-raw-trailing-ws", "runtime/arguments/json.py",
      "                self.ws = piece[len(body):] if end < 0 else \"\"",
      "                self.ws = \"\"",
      "whitespace inside a raw value split by a delta is lost"),
    M("json-cut-not-closed", "runtime/arguments/json.py",
      "            if (quote or brackets) and writer.close_value(quote + brackets):",
      "            if (quote or brackets) and writer.close_value(quote):",
      "a value the call's end leaves inside a nested array/object is not closed"),
    M("json-stray-quote-ends", "runtime/arguments/json.py",
      "                if buf[pos] in (KEY_ENDS if key else VALUE_ENDS):",
      "                if True:",
      "a quote the model left unescaped ends its string: say \"hi\" is cut short"),
    M("json-end-repair-silent", "runtime/arguments/json.py",
      "            writer.closed_at_end(added + \"}\")",
      "            pass",
      "arguments the call's end closes are not reported"),
    M("writer-retyped-infinity", "runtime/arguments/writer.py",
      "to_json(value) if finite(value) else text",
      "to_json(value)",
      "1e400 re-typed by the schema is written \"Infinity\", a value the model did not write"),
    M("python-call-paren-kinds", "runtime/arguments/scanning/python_scan.py",
      "                    elif self.call:\n                        return i",
      "                    elif False:\n                        return i",
      "a ) that ends a call whose dict the model left open runs on into the next call"),
    # --- XML / tagged readers ------------------------------------------------------------
    M("tagged-trim-off", "runtime/arguments/trim.py",
      "                if text[0] == \"\\n\":\n                    text = text[1:]",
      "                if False:\n                    text = text[1:]",
      "a tagged value keeps its leading template newline"),
    M("tagged-trailing-nl-kept", "runtime/arguments/trim.py",
      "                if final:\n                    text = text[:-1]",
      "                if final:\n                    pass",
      "a tagged value keeps its trailing template newline"),
    M("strip-trailing-run-sent", "runtime/arguments/trim.py",
      "            self.held = \"\" if final else text[len(body):]",
      "            self.held = \"\"",
      "a stripped value loses the whitespace inside it where a delta ended in it"),
    M("tagged-partial-close", "runtime/arguments/xml_parameters_reader.py",
      "                    safe = len(buf) - partial_len(buf, pos, self.closes + self.opens)",
      "                    safe = len(buf)",
      "a close tag split by a delta becomes value text"),
    M("tagged-string-attr", "runtime/arguments/xml_parameters_reader.py",
      "            self.kind = \"text\"\n        else:\n            self.kind = \"json_or_text\"",
      "            self.kind = \"text\"\n        else:\n            self.kind = \"text\"",
      "string=\"false\" values are typed as text"),
    M("tagged-close-always-closes", "runtime/arguments/xml_parameters_reader.py",
      "                if any(buf.startswith(tag, j) for tag in self.opens):\n                    out.append(self._value(\"\", final=True) + self.writer.end())",
      "                if True:\n                    out.append(self._value(\"\", final=True) + self.writer.end())",
      "a close tag followed by more value text still closes the value"),
    M("element-scan-close-always-closes", "runtime/arguments/values.py",
      "                self.where = (_OUTSIDE if self.close_first else _CLOSING) if closes else _NAME",
      "                self.where = _OUTSIDE if closes else _NAME",
      "the value scanner takes a close tag inside a value as its end: a call closer after it ends the call"),
    M("nested-close-always-closes", "runtime/arguments/nested_elements.py",
      "        elif kind == _CLOSE and (len(stack) > 1 or _closes(text, end, prefix) != _TEXT):",
      "        elif kind == _CLOSE:",
      "a top-level element's close tag followed by value text still closes it"),
    M("nested-scan-ignores-elements", "runtime/arguments/nested_elements.py",
      "        self.ambiguous = bool(names) and not self.closing",
      "        self.ambiguous = False",
      "a MiniMax M3 call closer inside an element value ends the call whatever follows it"),
    M("tagged-next-open", "runtime/arguments/xml_parameters_reader.py",
      "                stops = [i for i in (end, nxt) if i >= 0]",
      "                stops = [i for i in (end,) if i >= 0]",
      "a value does not end where the next field opens"),
    M("followed-by-consumes-follower", "runtime/lexicon.py",
      "                                sizes.setdefault(state, {})[framed + follower] = len(framed)",
      "                                sizes.setdefault(state, {})[framed + follower] = len(framed + follower)",
      "a marker that needs a follower swallows the follower's text"),
    M("followed-by-no-token-hold", "runtime/lexicon.py",
      "        return FollowHold(gated) if gated else None",
      "        return None",
      "with token ids, a marker that needs a follower counts whatever follows it"),
    M("nested-trim-ignored", "runtime/arguments/nested_elements.py",
      "        value = trimmed(value, trim)",
      "        pass",
      "nested_elements values keep their whitespace whatever trim says"),
    M("framing-not-in-text", "runtime/lexicon.py",
      "                        live.setdefault(framed, name)  # (another marker's own spelling wins)",
      "                        pass",
      "in text, a marker's framing newlines stay text"),
    M("framing-no-token-hold", "runtime/lexicon.py",
      "        return FramingHold(framed) if framed else None",
      "        return None",
      "with token ids, a marker token's framing newlines stay text"),
    M("framing-end-of-delta", "runtime/driver.py",
      "        return self._had_ids and delta_text[-1:] in self._frame_befores",
      "        return False",
      "with token ids, a newline that ends a delta is not held for a framed marker"),
    # --- Python readers ------------------------------------------------------------------
    M("python-escape", "runtime/arguments/python_kwargs.py",
      "                    piece.append(py_unescape(text[end : end + size]))",
      "                    piece.append(text[end : end + size])",
      "Python string escapes are kept as written"),
    M("python-literal-depth", "runtime/arguments/scanning/python_scan.py",
      "            elif ch == \",\" and self.depth <= 0:",
      "            elif ch == \",\":",
      "a comma inside a list literal ends the value"),
    M("python-bad-literal-raises", "runtime/arguments/python_kwargs.py",
      "_NOT_A_LITERAL: Final = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)",
      "_NOT_A_LITERAL: Final = (MemoryError, RecursionError)",
      "a value that is no literal raises instead of staying text"),
    M("python-non-finite-kept", "runtime/arguments/scanning/python_literals.py",
      "    if (isinstance(value, float) and not math.isfinite(value)\n            or ",
      "    if (isinstance(value, float) and False\n            or ",
      "1e400 in a Python literal is written as Infinity, which is not JSON"),
    M("python-no-implicit-concatenation", "runtime/arguments/python_kwargs.py",
      "                elif ch in \"'\\\"\" and not self.loose:",
      "                elif ch in \"'\\\"\" and False:",
      "'a' 'b' is not one string"),
    # --- schema typing -------------------------------------------------------------------
    M("schema-integer-as-float", "runtime/coercion.py",
      "    if \"integer\" in types:\n        try:\n            return int(raw)",
      "    if \"integer\" in types:\n        try:\n            return float(raw)",
      "integer fields become floats"),
    M("schema-boolean-off", "runtime/coercion.py",
      "        if low in (\"true\", \"1\"):\n            return True",
      "        if low in (\"true\",):\n            return True",
      "\"1\" is not true for a boolean field"),
    M("schema-nullable-ignored", "runtime/schema_nodes.py",
      "    if schema.get(\"nullable\") is True:\n        types.add(\"null\")",
      "    if False:\n        types.add(\"null\")",
      "nullable is ignored"),
    M("schema-anyof-ignored", "runtime/schema_nodes.py",
      "    for key in (\"anyOf\", \"oneOf\", \"allOf\"):",
      "    for key in (\"allOf\",):",
      "anyOf/oneOf choices are ignored"),
    M("schema-ref-ignored", "runtime/schema_compiler.py",
      "            if target is not None:\n                self._merge(out, target, seen)",
      "            if False:\n                self._merge(out, target, seen)",
      "$ref is not followed"),
    M("schema-union-props-ignored", "runtime/schema_compiler.py",
      "    for choice in choices:  # a union of objects: each branch's keys are typed",
      "    for choice in ():  # a union of objects: each branch's keys are typed",
      "a top-level anyOf/oneOf of objects types none of its keys"),
    M("writer-no-escape", "runtime/arguments/writer.py",
      "        if mode == \"stream\":\n            return _escape(chunk)",
      "        if mode == \"stream\":\n            return chunk",
      "streamed string values are not JSON-escaped"),
    # --- assembly ------------------------------------------------------------------------
    M("assembly-cut-completed", "runtime/calls.py",
      "        if cut:\n            self._cut_off(call, content)",
      "        if False:\n            self._cut_off(call, content)",
      "a call cut by max_tokens is completed"),
    M("assembly-cut-not-reported", "runtime/calls.py",
      "        self.cut_calls.append(CutCall(call.index, text, sent))\n",
      "",
      "a cut call is not reported in cut_calls (parse() loses its text)"),
    M("assembly-cut-wrapper-lost", "runtime/calls.py",
      "        call.text, self.between = self.between, []",
      "        self.between = []",
      "a cut call's text loses the markup read before its start (a tool section's opener)"),
    M("assembly-complete-calls-streamed", "runtime/assembly.py",
      "warnings=self.warnings, whole_calls=stream_calls == \"complete\",",
      "warnings=self.warnings, whole_calls=False,",
      "stream_calls=\"complete\" streams calls as they come (a cut call is sent)"),
    M("calls-no-spill", "runtime/calls.py",
      "        writer.spill = [] if self.spill else None\n",
      "        writer.spill = None\n",
      "text after the arguments of a call they end is dropped (Mistral's answer after a call)"),
    M("names-words-are-a-name", "runtime/call_names.py",
      "    return bool(name) and not _WORDS(name)\n",
      "    return bool(name)\n",
      "words after a name marker are a cut call's name (Mistral's [TOOL_CALLS] tags.)"),
    M("names-no-tail", "runtime/call_names.py",
      "        self.tail = tail.lstrip()",
      "        self.tail = \"\"",
      "a name cut inside the render's text after it (DeepSeek's fence) is prose, not a cut call"),
    M("assembly-args-fast-path-no-text", "runtime/calls.py",
      "        self.closing = None\n        call.text.append(text)\n",
      "        self.closing = None\n",
      "ChatParser's argument fast path forgets the call's text (a cut call loses it)"),
    M("driver-plain-args-held-sent", "runtime/lexing.py",
      "        if chunk == text:\n            return _ARGS\n",
      "        if chunk:\n            return _ARGS\n",
      "a plain TOOL_ARGS delta whose closer the JSON body holds back goes out whole"),
    M("json-depth-passes-escape", "runtime/arguments/scanning/json_structure.py",
      "        return not self.scan.escape and _DEPTH_CHANGE(text) is None",
      "        return _DEPTH_CHANGE(text) is None",
      "a delta after a backslash skips the JSON scan of an object or array body: the escape stays pending"),
    M("json-array-plain-outside-element", "runtime/bodies/json_array.py",
      "        if not self.element or not self.end.depth and text.startswith(\"{\"):\n",
      "        if not self.end.depth and text.startswith(\"{\"):\n",
      "plain text between a JSON array's elements goes out as arguments"),
    M("assembly-args-fast-path-held-lost", "runtime/calls.py",
      "            call.name_parts.append(out)  # kept until the call ends (_emit_args)\n",
      "",
      "ChatParser's argument fast path drops what a held call's arguments read (stream_arg_deltas false)"),
    M("json-depth-goes-on-no-restore", "runtime/arguments/scanning/json_structure.py",
      "        self.depth, scan.in_string, scan.escape = depth, in_string, escape\n        return False\n",
      "        return False\n",
      "a delta that closes a JSON object or array body's value is counted twice"),
    M("assembly-unknown-tool-kept", "runtime/call_names.py",
      "        return bool(name) and (self.valid_names is None or name in self.valid_names)",
      "        return bool(name)",
      "validate_tool_names is ignored"),
    M("assembly-name-not-stripped", "runtime/call_names.py",
      "        name, call_id = header.strip(), \"\"", "        name, call_id = header, \"\"",
      "a call's name keeps surrounding whitespace"),
    M("assembly-ws-before-tools", "runtime/text_rules.py",
      "        if not self.seen and self._drop_ws_before_tools:\n            self.held = \"\"",
      "        if False:\n            self.held = \"\"",
      "whitespace-only content before calls is kept"),
    M("assembly-strip-content", "runtime/text_rules.py",
      "        if self._rstrip:\n            body = text.rstrip()",
      "        if False:\n            body = text.rstrip()",
      "content before calls is not right-stripped"),
    M("assembly-after-end-newline", "runtime/text_rules.py",
      "            if text.startswith(\"\\n\"):\n                text = text[1:]\n                if not text:\n                    return \"\"\n        if self._lstrip_newlines",
      "            if False:\n                text = text[1:]\n                if not text:\n                    return \"\"\n        if self._lstrip_newlines",
      "the newline after a framed reasoning end stays in content"),
    M("assembly-ids-alnum", "runtime/call_ids.py",
      "                return \"\".join(_IDS.choices(_ALNUM, k=9))",
      "                return \"\".join(_IDS.choices(_ALNUM, k=8))",
      "mistral call ids have 8 characters"),
    M("assembly-call-warnings-lost", "runtime/calls.py",
      "        self.warnings.extend(f\"tool call {call.index}: {w}\" for w in writer.warnings)",
      "        pass",
      "argument warnings are not reported"),
    M("assembly-reasoning-strip", "runtime/text_rules.py",
      "        text = self.ws + text\n        body = text.rstrip()",
      "        text = text\n        body = text.rstrip()",
      "reasoning whitespace held between deltas is lost"),
    # --- render --------------------------------------------------------------------------
    M("render-calls-after-content", "runtime/render.py",
      "        if content and not self.calls_first:", "        if content:",
      "content is written before calls even in calls-first formats"),
    M("render-no-trim-newlines", "runtime/arguments/xml_parameters.py",
      "        out.append((f\"\\n{text}\\n\" if trim == \"one_newline\" else text, False))",
      "        out.append((text, False))",
      "tagged values are written without their newlines"),
    M("render-string-attr", "runtime/arguments/xml_parameters.py",
      "{\"true\" if isinstance(value, str) else \"false\"}", "{\"true\"}",
      "every DSML value is written as string=\"true\""),
    # --- compiler ------------------------------------------------------------------------
    M("compiler-emit-dropped", "compiler/to_ir.py",
      "    for event in emit:\n", "    for event in emit[:1]:\n",
      "a transition emits only its first event"),
    M("compiler-json-args-raw", "runtime/arguments/json.py",
      "    bodies = (\"json\", \"text\", \"json_object\")",
      "    bodies = (\"text\", \"json\", \"json_object\")",
      "the json syntax defaults to the text body: raw text (no held closer)"),
    M("compiler-no-plain-fast-path", "compiler/lexers.py",
      "event = action.event if isinstance(action, EmitText) else None",
      "event = None",
      "no state takes the plain fast path"),
    M("compiler-no-header-text", "compiler/to_ir.py",
      "Emit(event, \"header\" if source == \"MESSAGE_HEADER\" else \"value\")",
      "Emit(event, \"value\")",
      "a header that turns out to be text emits the marker instead"),
    M("compiler-no-framing-text", "compiler/to_ir.py",
      "return DropText() if written else FramingText(punctuation)", "return DropText()",
      "every state without an event drops its text, words included"),
    M("compiler-implicit-end", "compiler/to_ir.py",
      "if \"REASONING_END\" in tr.emit and tr.terminal not in end}))",
      "if False}))",
      "markers that end reasoning implicitly are not known to is_reasoning_end"),
    M("canonical-types-ignored", "runtime/arguments/writer.py",
      "        elif not types & _KINDS_OK[json_type(value)]:\n            return False\n    return True",
      "    return True",
      "a canonical object is kept as written though its schema wants other types"),
    M("run-between-dropped", "runtime/assembly.py",
      "                calls.not_markup()\n                self._content(between, content)",
      "                calls.not_markup()",
      "whitespace between calls read whole is not content"),
    M("run-keeps-whitespace-before-tools", "runtime/assembly.py",
      "            self._text.before_call()  # (the whitespace",
      "            (lambda: '')()  # (the whitespace",
      "content whitespace before calls read whole is kept"),
    M("finish-leaves-cycles", "runtime/assembly.py",
      "        self.events.release()\n        return delta",
      "        return delta",
      "a finished ChatParser (parse() too) leaves its parser and body, each referring to "
      "the other, to the cycle collector"),
    M("feed-after-finish-parses", "runtime/assembly.py",
      "        if self._done:\n            self._after_finish(delta_text)\n            return None\n",
      "",
      "text fed after finish() goes to the released parser"),
    M("ids-not-counted", "runtime/call_ids.py",
      "n = (self._base + count) & 0xFFFFFFFF",
      "n = self._base & 0xFFFFFFFF",
      "the calls of one completion share one random id"),
    M("tools-attributes-untyped", "runtime/schema_types.py",
      'function: dict[str, Any] = {"name": name, "parameters": params}',
      'function: dict[str, Any] = {"name": name, "parameters": None}',
      "a pydantic tool read from its attributes loses its schema (its calls go untyped)"),
    # --- an outside audit's: a rule tested in one casing, one precedence -----------
    M("writer-null-case-sensitive", "runtime/arguments/writer.py",
      'if not "null".startswith(held.lower()):',
      'if not "null".startswith(held):',
      "a nullable string written Null or NULL streams as that text, not null"),
    M("batch-model-precedence-flipped", "parsergen/batch.py",
      '    model = record.get("model") or model',
      '    model = model or record.get("model")',
      "--model overrides a record's own model"),
    M("batch-thinking-precedence-flipped", "parsergen/batch.py",
      '    given = {"thinking": own if own is not None else thinking}',
      '    given = {"thinking": thinking if thinking is not None else own}',
      "--thinking/--no-thinking overrides a record's own thinking"),
    M("batch-defaults-over-given", "parsergen/batch.py",
      "    return name, {**defaults, **{k: v for k, v in given.items() if v is not None}}",
      "    return name, {**{k: v for k, v in given.items() if v is not None}, **defaults}",
      "a route's defaults override the record's and the command line's options"),
    M("cli-jsonl-thinking-dropped", "compiler/cli.py",
      '"model": args.model, "thinking": args.thinking,',
      '"model": args.model,',
      "--no-thinking is ignored with --jsonl"),
    M("name-cut-in-marker-is-prose", "runtime/call_names.py",
      "    return not _WORD(rest[:1]) and not _WORDS(rest)",
      "    return False",
      "a requested name cut inside the marker after it (GLM's \\n<arg_) is content"),
    # --- a call marker quoted in prose (issue #36) ---------------------------------------
    M("reasoning-quoted-marker-counts", "runtime/reasoning_lexing.py",
      "            if not marker:\n",
      "            if False:\n",
      "a call marker quoted in reasoning ends it: the words after it and </think> are a call's"),
    M("reasoning-gate-no-space", "runtime/reasoning_lexing.py",
      "    while i < n and buf[i].isspace():",
      "    while False:",
      "a call in reasoning written with a newline after its marker is reasoning text"),
    M("reasoning-gates-none", "compiler/gates.py",
      "        if followers:\n            out[tr.terminal] = followers",
      "        if False:\n            out[tr.terminal] = followers",
      "no call marker waits in reasoning for what follows it"),
    M("envelope-name-any-value", "runtime/arguments/envelope.py",
      "                        if ch != '\"':  # (no call is named by anything but a string)",
      "                        if False:  # (no call is named by anything but a string)",
      "words after a JSON-looking opener's \"name\": make a cut call, not content"),
    # --- a parse's one pass over a whole text (issue #39) -------------------------------
    M("whole-text-marker-after-run", "runtime/whole_text.py",
      "        if not calls or search(text, at) is not None:",
      "        if not calls:",
      "a call's start marker after a run of whole calls is content, not a cut call"),
    M("whole-text-recloser", "runtime/whole_text.py",
      "                if head.startswith(marker) or marker.startswith(head):",
      "                if False:",
      "an end marker written again where reasoning closed before the completion is content"),
]

# The corpus replay, run inside the copy: prints one JSON object {key: result}.
CORPUS_SCRIPT = r'''
import json, sys
from pathlib import Path
sys.path.insert(0, "tests")
import parsergen
from parsergen.runtime import accumulate, merge_chunks
from support import goldens as event_goldens
from support.messages import load
from support.tokenizers import TOKENIZERS

toks = {}
def tok(name):
    if name not in toks:
        toks[name] = TOKENIZERS[name]()
    return toks[name]

def guarded(fn):
    try:
        return fn()
    except Exception as exc:  # a mutant may raise: that is a result too
        return "raised " + type(exc).__name__ + ": " + str(exc)[:200]

out = {}
base = json.load(open(sys.argv[1])) if len(sys.argv) > 1 else None

def record(key, value):
    value = json.loads(json.dumps(value))  # as the baseline file has it (lists, not tuples)
    out[key] = value
    if base is not None and base.get(key) != value:  # the first difference is enough
        json.dump({key: value}, sys.stdout)
        sys.exit(0)

for path in sorted(Path("goldens").glob("*.golden")):
    fmt = path.stem
    module = parsergen.load(fmt)
    msgs = Path("goldens") / f"{fmt}.messages"
    tools = load(msgs).tools if msgs.exists() else None
    for g in event_goldens.load(path):
        tk = None if g.mode == "notok" else tok(g.tokenizer)
        def events():
            p = module.StreamingParser(tk, thinking=g.thinking)
            evs = []
            for ids, text in g.deltas:
                evs += p.feed(text, ids)
            evs += p.finish()
            return [(e.type.name, e.tool_index, e.value) for e in merge_chunks(evs)]
        def stream():
            c = module.ChatParser(tk, tools=tools, thinking=g.thinking, ids="sequential")
            m = accumulate([c.feed(text, ids) for ids, text in g.deltas] + [c.finish()])
            return [repr(m), list(c.cut_calls), list(c.warnings)]
        key = f"{fmt} | {g.title}"
        record("events " + key, guarded(events))
        record("stream " + key, guarded(stream))
for path in sorted(Path("goldens").glob("*.messages")):
    fmt = path.stem
    module = parsergen.load(fmt)
    file = load(path)
    for case in file.cases:
        def parsed():
            return repr(module.parse(case.text, tools=file.tools, tokenizer=tok(file.tokenizer),
                                     token_ids=case.ids, thinking=case.thinking, ids="sequential"))
        def parsed_text():
            return repr(module.parse(case.text, tools=file.tools, thinking=case.thinking,
                                     ids="sequential"))
        record(f"parse {fmt} | {case.name}", guarded(parsed))
        record(f"parse text {fmt} | {case.name}", guarded(parsed_text))
json.dump(out, sys.stdout)
'''


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".venv", ".git", "__pycache__", ".pytest_cache",
                                      ".hypothesis")}


class Sandbox:
    """A private copy of the tree and a shim package that maps parsergen.* onto it."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="parsergen-mutants-"))
        self.tree = self.tmp / "tree"
        shutil.copytree(ROOT, self.tree, ignore=_ignore)
        # The copy's own parsergen/ becomes the package: its subpackages are links to
        # the copy's folders, found on PYTHONPATH before the editable install's finder.
        for sub, folder in PACKAGES.items():
            (self.tree / "parsergen" / sub).symlink_to(self.tree / folder,
                                                       target_is_directory=True)
        self.env = dict(os.environ, PYTHONPATH=str(self.tree), PYTHONDONTWRITEBYTECODE="1",
                        PYTHONHASHSEED="0")

    def run(self, args: list[str], timeout: int) -> subprocess.CompletedProcess:
        """Run ``python ARGS`` in the copy."""
        return subprocess.run([sys.executable, *args], cwd=self.tree, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def apply(self, mutant: Mutant) -> None:
        """Write the mutated file into the copy (rebuilding generated/ when the compiler
        reads it)."""
        path = self.tree / mutant.file
        path.write_text(_mutated(mutant), encoding="utf-8")
        if mutant.file.startswith(COMPILER_INPUTS):
            done = self.run(["-m", "parsergen.compiler.cli", "build"], 600)
            if done.returncode:
                raise RuntimeError(f"build failed: {done.stderr[-500:]}")

    def restore(self, mutant: Mutant) -> None:
        """Put the copy back as the working tree has it."""
        shutil.copy(ROOT / mutant.file, self.tree / mutant.file)
        if mutant.file.startswith(COMPILER_INPUTS):
            shutil.rmtree(self.tree / "generated")
            shutil.copytree(ROOT / "generated", self.tree / "generated", ignore=_ignore)

    def corpus(self, base: Path | None = None) -> dict[str, object]:
        """The corpus replayed through the copy as it is now (up to the first result
        that differs from the ``base`` file's, if given)."""
        done = self.run(["-c", CORPUS_SCRIPT, *([str(base)] if base else [])], CORPUS_TIMEOUT)
        if done.returncode:
            return {"crash": done.stderr[-300:]}
        return json.loads(done.stdout)

    def tests(self, paths: list[str], timeout: int) -> str | None:
        """The first failing test of ``paths`` (with -x), or None if all pass."""
        paths = [p for p in paths if p.startswith("-") or (self.tree / p).exists()]
        try:
            done = self.run(["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", *paths], timeout)
        except subprocess.TimeoutExpired:
            return "timeout"
        if done.returncode == 0:
            return None
        for line in done.stdout.splitlines():
            if line.startswith(("FAILED ", "ERROR ")):
                return line.split(" ", 1)[1].split(" - ")[0]
        return f"exit {done.returncode}"

    def close(self) -> None:
        """Remove the copy."""
        shutil.rmtree(self.tmp, ignore_errors=True)


def _mutated(mutant: Mutant) -> str:
    source = (ROOT / mutant.file).read_text(encoding="utf-8")
    count = source.count(mutant.old)
    if count != 1:
        raise ValueError(f"{mutant.name}: snippet found {count} times in {mutant.file}")
    return source.replace(mutant.old, mutant.new)


def check() -> list[str]:
    """Problems with the mutant list: snippets not found exactly once, duplicate names."""
    problems = []
    names = [m.name for m in MUTANTS]
    problems += [f"duplicate name {n}" for n in sorted({n for n in names if names.count(n) > 1})]
    for m in MUTANTS:
        if not m.file.startswith(("runtime/", "compiler/", "parsergen/")):
            problems.append(f"{m.name}: {m.file} is not in runtime/, compiler/ or parsergen/")
            continue
        try:
            _mutated(m)
        except ValueError as err:
            problems.append(str(err))
    return problems


# Corpus replays run one at a time (side by side they reported changes that a replay
# alone did not show); a change is confirmed by a second replay.
_CORPUS_LOCK = threading.Lock()


def _changed(box: Sandbox, base_file: Path) -> str:
    """The first corpus result the copy changes ("" if none), seen twice."""
    seen = []
    for _ in range(2):
        with _CORPUS_LOCK:
            try:
                got = box.corpus(base_file)
            except subprocess.TimeoutExpired:
                got = {"timeout": "the corpus replay hung"}
        first = "crash" if "crash" in got else next(iter(got), "") if len(got) == 1 else ""
        if not first:
            return ""
        seen.append(first)
    return seen[0] if seen[0] == seen[1] else ""


def _one(box: Sandbox, m: Mutant, base_file: Path, full: str,
         tests: bool) -> tuple[str, str, str, str]:
    """(name, corpus changed, caught by, first changed result) of one mutant."""
    try:
        box.apply(m)
        first = _changed(box, base_file)
        changes = "yes" if first else "no"
        caught = box.tests(FAST, FAST_TIMEOUT) if tests else "(not run)"
        if caught is None and (full == "all" or full == "changing" and first):
            # Not tests/test_mutants.py: in a mutated copy its snippet is gone by design.
            caught = box.tests(["tests", "--ignore=tests/test_mutants.py"], FULL_TIMEOUT)
            caught = caught and f"{caught} (full suite)"
    finally:
        box.restore(m)
    return m.name, changes, caught or "SURVIVED", first


def main(argv: list[str] | None = None) -> int:
    """Run the mutants and print the table and the score."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", metavar="NAME", help="run only these mutants")
    ap.add_argument("--list", action="store_true", help="list the mutants")
    ap.add_argument("--check", action="store_true", help="check that every snippet applies")
    ap.add_argument("--full", choices=("changing", "all", "none"), default="changing",
                    help="which fast-selection survivors get the full suite (default: "
                    "those that change the corpus)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run side by side")
    ap.add_argument("--corpus-only", action="store_true", help="only whether the corpus changes")
    args = ap.parse_args(argv)
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:30} {m.file:26} {m.description}")
        return 0
    problems = check()
    if problems or args.check:
        print("\n".join(problems) or f"all {len(MUTANTS)} mutants apply")
        return 1 if problems else 0
    unknown = set(args.only or ()) - {m.name for m in MUTANTS}
    if unknown:
        print(f"unknown mutants: {sorted(unknown)}")
        return 2
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    start = time.monotonic()
    boxes = [Sandbox() for _ in range(max(1, min(args.jobs, len(chosen))))]
    rows: list[tuple[str, str, str, str]] = []
    try:
        base = boxes[0].corpus()
        if "crash" in base:
            print("the unmutated corpus replay failed:", base["crash"])
            return 2
        base_file = boxes[0].tmp / "baseline.json"
        base_file.write_text(json.dumps(base), encoding="utf-8")
        print(f"baseline: {len(base)} corpus results ({time.monotonic() - start:.0f}s)",
              flush=True)
        free: queue.Queue[Sandbox] = queue.Queue()
        for box in boxes:
            free.put(box)

        def run(m: Mutant) -> tuple[str, str, str, str]:
            box = free.get()
            t0 = time.monotonic()
            try:
                row = _one(box, m, base_file, args.full, not args.corpus_only)
            finally:
                free.put(box)
            print(f"{row[0]:30} corpus changed: {row[1]:4} caught by: {row[2]}"
                  f"  [{time.monotonic() - t0:.0f}s]" + (f"  ({row[3]})" if row[3] else ""),
                  flush=True)
            return row

        pool = ThreadPoolExecutor(len(boxes))
        try:
            rows = list(pool.map(run, chosen))
        finally:  # on Ctrl-C: no new mutant starts; running ones end with their tests
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        for box in boxes:
            box.close()
    _report(rows, time.monotonic() - start)
    return 0


def _report(rows: list[tuple[str, str, str, str]], seconds: float) -> None:
    width = max((len(r[0]) for r in rows), default=10)
    print(f"\n{'mutant':{width}}  {'corpus changed':14}  caught by")
    print("-" * (width + 70))
    for name, changes, caught, _ in rows:
        print(f"{name:{width}}  {changes:14}  {caught}")
    if all(r[2] == "(not run)" for r in rows):  # --corpus-only
        print(f"corpus changed by {sum(r[1] == 'yes' for r in rows)} of {len(rows)}")
        print(f"time: {seconds / 60:.1f} min")
        return
    changing = [r for r in rows if r[1] == "yes"]
    caught = [r for r in changing if r[2] != "SURVIVED"]
    others = [r for r in rows if r[1] == "no"]
    print("-" * (width + 70))
    print(f"score: {len(caught)}/{len(changing)} corpus-changing mutants caught")
    print(f"no corpus change: {len(others)} ({sum(r[2] != 'SURVIVED' for r in others)} "
          f"caught anyway): {', '.join(r[0] for r in others) or '-'}")
    survivors = [r[0] for r in changing if r[2] == "SURVIVED"]
    print(f"corpus-changing survivors: {', '.join(survivors) or 'none'}")
    print(f"time: {seconds / 60:.1f} min")


if __name__ == "__main__":
    sys.exit(main())
