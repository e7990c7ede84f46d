"""The ``parsergen`` command line."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from parsergen.index import FormatEntry
from parsergen.specs import SpecWarning

from .targets import TARGETS
from .diagnostics import SpecError


def _cmd_build(args: argparse.Namespace) -> int:
    from .build import plan, project_root, registry_outputs, repo_specs, stale, write, write_changed

    if args.specs:
        specs = [(Path(s), s) for s in args.specs]
        out_dir = Path(args.output or ".")
        index = False
    else:
        root = project_root()
        specs = repo_specs(root)
        out_dir = Path(args.output) if args.output else root / "generated"
        index = True
    # The project's tree gets every target (and --check checks them all); a user's spec
    # its Python module unless --target says otherwise.
    if args.target is None:
        targets = ("python",) if args.specs else TARGETS
    else:
        targets = TARGETS if args.target == "all" else (args.target,)
    # The spec schema's argument syntaxes and tool bodies (and docs/' reference of them)
    # come from the registries; the specs are checked against the schema, so these are
    # written before the specs are compiled.
    registry = [] if args.specs else registry_outputs(project_root())
    written = [] if args.check else write_changed(registry)
    try:
        outputs = plan(specs, out_dir, index=index, targets=targets) + registry
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.check:
        differing, orphans = stale(outputs, out_dir)
        for path in differing:
            print(f"stale: {path}", file=sys.stderr)
        for path in orphans:
            print(f"orphan: {path}", file=sys.stderr)
        if differing or orphans:
            print("run 'parsergen build' to regenerate", file=sys.stderr)
            return 1
        print(f"{len(outputs)} generated files are up to date")
        return 0
    changed = written + write(outputs, out_dir, remove_orphans=index)
    for path in changed:
        print(f"wrote {path}" if path.exists() else f"removed {path}")
    if not changed:
        print(f"{len(outputs)} generated files are up to date")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .advice import spec_warnings
    from .build import compile_loaded
    from .loader import LoadedSpec, load_spec
    from .roundtrip import roundtrip_errors
    from .rust_regex import rust_regex_diagnostics

    from parsergen.response_templates import compile_template, is_template

    status = 0
    for spec in args.specs:
        template = is_template(spec)  # a tokenizer_config.json or a model directory
        try:
            if template:
                fmt = compile_template(spec)[1]
            else:
                loaded = load_spec(Path(spec), spec)
                fmt = compile_loaded(loaded, spec)
        except SpecError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        if template:  # (no file of YAML: the round trip's errors name the template)
            loaded = LoadedSpec({}, {}, [], [])
        # Calls render() writes that parse() does not read back: an error, which the
        # warnings (a machine that loses text) may explain.
        errors = roundtrip_errors(fmt, loaded)
        for problem in errors:
            print(problem, file=sys.stderr)
        for problem in [] if template else spec_warnings(Path(spec), loaded, fmt):
            print(problem.warning(), file=sys.stderr)
        # What `build --target rust` would refuse: a warning, as the Python build is fine.
        for problem in rust_regex_diagnostics(fmt) if fmt.reasoning is not None else []:
            print(problem.warning(), file=sys.stderr)
        if errors:
            status = 1
            continue
        if args.tokenizer is not None and not _check_tokens(spec, fmt, args.tokenizer):
            return 2
        print(f"{spec}: ok ({fmt.name})")
    return status


def _check_tokens(spec: str, fmt: Any, tokenizer_name: str) -> bool:
    """Print how each terminal is matched with the tokenizer (False: it cannot load)."""
    import parsergen

    from .tokencheck import load_tokenizer, match_report, report_lines

    try:
        tokenizer = load_tokenizer(tokenizer_name)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return False
    lines, warnings = report_lines(fmt, match_report(fmt, parsergen.load(Path(spec)),
                                                     tokenizer))
    print("\n".join(lines))
    for warning in warnings:
        print(warning, file=sys.stderr)
    return True


def _cmd_schema(args: argparse.Namespace) -> int:
    from .advice import schema_path

    print(schema_path())
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    """A format as a Hugging Face response_template: JSON on stdout, or set as the
    ``response_template`` of a tokenizer_config.json (its other keys kept)."""
    import parsergen

    try:
        template = parsergen.export_response_template(args.response_template)
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return 1
    except KeyError:
        print(f"unknown format {args.response_template!r}", file=sys.stderr)
        return 1
    if args.output is None:
        print(json.dumps(template, indent=2, ensure_ascii=False))
        return 0
    out = Path(args.output)
    config = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    config["response_template"] = template
    out.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def _user_entries(args: argparse.Namespace) -> list[tuple[str, FormatEntry]] | None:
    """The user's specs (PARSERGEN_SPECS, then --spec) with their entries; None after
    printing why one of --spec cannot be used."""
    import parsergen.specs

    try:
        return parsergen.specs.user_entries(args.user_specs)
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return None


def _cmd_list(args: argparse.Namespace) -> int:
    import parsergen

    users = _user_entries(args)
    if users is None:
        return 1
    for name in parsergen.formats():
        print(f"{name:<20} {parsergen.entry(name).description}")
    for path, entry in users:
        print(f"{entry.name:<20} {entry.description} ({path})")
    return 0


def _detect_tokenizer(args: argparse.Namespace) -> Any:
    """The tokenizer ``detect`` routes with: --tokenizer's (transformers), else the model's
    own directory's files (its response_template, chat template and added tokens), else
    None; ValueError if --tokenizer cannot load."""
    from parsergen.response_templates import CONFIG_NAME, LocalTokenizer

    if args.tokenizer is not None:
        from .tokencheck import load_tokenizer

        return load_tokenizer(args.tokenizer)
    if (Path(args.model) / CONFIG_NAME).is_file():
        return LocalTokenizer(args.model)
    return None


def _cmd_detect(args: argparse.Namespace) -> int:
    import parsergen

    try:
        tokenizer = _detect_tokenizer(args)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SpecWarning)
            found = parsergen.route(args.model, tokenizer=tokenizer, specs=args.user_specs)
    except (SpecError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    for warning in caught:  # a response_template that does not compile: why not
        print(warning.message, file=sys.stderr)
    if found is None:
        print(f"no format for {args.model!r}", file=sys.stderr)
        return 1
    print(found.describe())
    return 0


def _load(name: str) -> ModuleType | None:
    """The module of a format name or a spec's path; None after printing why not."""
    import parsergen

    try:
        return parsergen.load(name)
    except KeyError:
        print(f"unknown format {name!r}; 'parsergen list' shows them (or give a spec's path)",
              file=sys.stderr)
    except SpecError as exc:
        print(exc, file=sys.stderr)
    return None


def _cmd_parse(args: argparse.Namespace) -> int:
    import parsergen

    if args.jsonl:
        return _cmd_parse_jsonl(args)
    try:
        # The model's route gives its variant's defaults even where --format names the
        # format (as in batch: parsergen/batch.py settings).
        route = parsergen.route(args.model, specs=args.user_specs) if args.model else None
    except SpecError as exc:
        print(exc, file=sys.stderr)
        return 1
    name = args.format or (route.spec or route.format if route else None)
    if name is None:
        print("give --format NAME|SPEC.yaml, or --model ID of a known model", file=sys.stderr)
        return 2
    module = _load(name)
    if module is None:
        return 2
    if args.thinking is None and route is not None:
        args.thinking = route.defaults.get("thinking")  # the model variant's default
    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        try:
            text = Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{args.file}: cannot read: {exc}", file=sys.stderr)
            return 2
    step = args.chunk if args.chunk and args.chunk > 0 else max(len(text), 1)
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    if args.openai:
        tools = json.loads(Path(args.tools).read_text(encoding="utf-8")) if args.tools else None
        if args.stream:
            chat = module.ChatParser(tools=tools, thinking=args.thinking)
            for delta in [*map(chat.feed, pieces), chat.finish()]:
                if delta is not None:
                    print(json.dumps(delta.to_openai(), ensure_ascii=False))
            warned = list(chat.warnings)
        else:
            message = module.parse(text, tools=tools, thinking=args.thinking)
            print(json.dumps(message.to_openai(), ensure_ascii=False))
            warned = list(message.warnings)
        for warning in warned:  # what went wrong, beside the message (not in it)
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    parser = module.StreamingParser(thinking=args.thinking)
    events = []
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.finish())
    from parsergen.runtime import merge_chunks

    for ev in merge_chunks(events):
        if args.json:
            print(json.dumps({"type": ev.type.name, "value": ev.value,
                              "tool_index": ev.tool_index}, ensure_ascii=False))
        else:
            where = f"[{ev.tool_index}]" if ev.tool_index >= 0 else ""
            print(f"{ev.type.name}{where} {json.dumps(ev.value, ensure_ascii=False)}")
    return 0


def _cmd_parse_jsonl(args: argparse.Namespace) -> int:
    """``parse --jsonl``: one OpenAI message per input line, in order, on every core."""
    from parsergen.batch import parse_jsonl

    if args.format is not None and _load(args.format) is None:
        return 2
    if args.format is None and _user_entries(args) is None:
        return 1
    options = {"format": args.format, "model": args.model, "thinking": args.thinking,
               "tokenizer": args.tokenizer, "workers": args.workers,
               "specs": tuple(args.user_specs)}
    source = sys.stdin if args.jsonl == "-" else open(args.jsonl, encoding="utf-8")
    out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")
    try:
        total, bad = parse_jsonl(source, out, **options)
    finally:
        for stream in (source, out):
            if stream not in (sys.stdin, sys.stdout):
                stream.close()
    if bad:
        print(f"{bad} of {total} lines could not be parsed", file=sys.stderr)
    return 1 if bad else 0


# The shell's status for a writer killed by SIGPIPE (128 + 13), as `cat big | head` leaves.
BROKEN_PIPE_STATUS = 141


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``parsergen`` console script; a reader gone (`| head`) ends it
    quietly with BROKEN_PIPE_STATUS, whichever command was writing."""
    try:
        try:
            return _main(argv)
        finally:
            # Flushed here, not at interpreter exit, where EPIPE would be a traceback.
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return BROKEN_PIPE_STATUS


def _drop_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's own last flush finds no pipe."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout with no descriptor (captured): nothing to flush
        pass


def _main(argv: list[str] | None) -> int:
    """Parse the command line and run its command."""
    parser = argparse.ArgumentParser(prog="parsergen", description=__doc__)
    parser.add_argument("--version", action="store_true",
                        help="print the version and which build runs (compiled or pure Python)")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("build", help="compile specs into parser modules")
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="spec files (default: every grammars/*.yaml into generated/)")
    p.add_argument("-o", "--output", metavar="DIR", help="output directory")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a generated file is stale or orphaned")
    p.add_argument("--target", choices=(*TARGETS, "all"),
                   help="python modules, rust reasoning parsers (generated/rust/), or all "
                        "(default: all for the project's grammars, python for SPEC files)")
    p.set_defaults(run=_cmd_build)

    p = sub.add_parser("check", help="validate specs (errors; warnings about a user's spec); "
                       "a tokenizer_config.json or model directory: its response_template")
    p.add_argument("specs", nargs="+", metavar="SPEC")
    p.add_argument("--tokenizer", metavar="NAME_OR_PATH",
                   help="a transformers tokenizer: say how each terminal is matched with "
                        "its token ids, and warn where a spelling will not match")
    p.set_defaults(run=_cmd_check)

    p = sub.add_parser("schema", help="print the path of the JSON Schema specs obey")
    p.set_defaults(run=_cmd_schema)

    p = sub.add_parser("export", help="write a format as another engine's declaration")
    p.add_argument("--response-template", required=True, metavar="FORMAT",
                   help="a bundled format (or a spec's path) as a Hugging Face "
                        "response_template, for transformers' parse_response")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="set it as FILE's response_template (a tokenizer_config.json; its "
                        "other keys kept) instead of printing it")
    p.set_defaults(run=_cmd_export)

    # The user's own specs, routed with the bundled formats (as PARSERGEN_SPECS's).
    users = argparse.ArgumentParser(add_help=False)
    users.add_argument("--spec", dest="user_specs", action="append", default=[],
                       metavar="PATH", help="a spec of your own to route models to "
                       "(repeatable; also PARSERGEN_SPECS, paths joined by os.pathsep)")

    p = sub.add_parser("list", parents=[users],
                       help="list the bundled formats (and your --spec/PARSERGEN_SPECS ones)")
    p.set_defaults(run=_cmd_list)

    p = sub.add_parser("detect", parents=[users],
                       help="the format for a model name (repo id or local path), "
                       "then its defaults (thinking: true/false and where it comes from)")
    p.add_argument("model", metavar="NAME")
    p.add_argument("--tokenizer", metavar="NAME_OR_PATH",
                   help="a transformers tokenizer: its markers and its response_template "
                        "decide where no models pattern does (a model directory's own "
                        "files are read without it)")
    p.set_defaults(run=_cmd_detect)

    p = sub.add_parser("parse", parents=[users],
                       help="print the events of a completion, or parse a JSONL batch")
    p.add_argument("--format", metavar="NAME|SPEC",
                   help="the format, or a spec's path (or give --model)")
    p.add_argument("--model", metavar="ID",
                   help="a model id: its format (unless --format) and its variant's "
                        "defaults (with --jsonl, for records without their own 'model')")
    p.add_argument("file", nargs="?", metavar="FILE|-")
    p.add_argument("--jsonl", metavar="IN|-",
                   help="one JSON object per line ({completion, prompt?, tools?, token_ids?, "
                        "model?, thinking?}) -> one OpenAI message per line, in input order")
    p.add_argument("-o", "--output", metavar="OUT", help="with --jsonl: output file (stdout)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="with --jsonl: processes (default: every core)")
    p.add_argument("--tokenizer", metavar="NAME",
                   help="with --jsonl: a transformers tokenizer, to use token ids")
    p.add_argument("--json", action="store_true", help="one JSON object per event")
    p.add_argument("--chunk", type=int, default=0, metavar="N",
                   help="stream the text in N-character deltas (default: one delta)")
    p.add_argument("--openai", action="store_true",
                   help="print an OpenAI chat.completion message instead of events")
    p.add_argument("--stream", action="store_true",
                   help="with --openai: one chat.completion.chunk delta per line")
    p.add_argument("--tools", metavar="FILE",
                   help="with --openai: the request's tools (a JSON list) for typing arguments")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--thinking", dest="thinking", action="store_true", default=None,
                       help="the model thinks (over --model's default; with --jsonl, for "
                            "records without their own 'thinking')")
    group.add_argument("--no-thinking", dest="thinking", action="store_false",
                       help="the model does not think (as --thinking)")
    p.set_defaults(run=_cmd_parse)

    args = parser.parse_args(argv)
    if args.version:
        print(_version())
        return 0
    if args.command is None:
        parser.error("a command is required")
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return args.run(args)


def _version() -> str:
    """``parsergen --version``: the distribution's version and which build runs."""
    import parsergen

    return f"parsergen-llm {parsergen.__version__}, {parsergen.which_build()}"


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A spec's warning as the compiler writes it (FILE:LINE:COL: warning: ...); others
    as Python does."""
    out = file or sys.stderr
    if issubclass(category, SpecWarning):
        print(message, file=out)
    else:
        out.write(warnings.formatwarning(message, category, filename, lineno, line))


if __name__ == "__main__":
    sys.exit(main())
