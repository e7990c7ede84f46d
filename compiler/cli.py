"""The ``parsergen`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .build import plan, project_root, registry_outputs, repo_specs, stale, write, write_changed
from .diagnostics import SpecError


def _cmd_build(args: argparse.Namespace) -> int:
    if args.specs:
        specs = [(Path(s), s) for s in args.specs]
        out_dir = Path(args.output or ".")
        index = False
    else:
        root = project_root()
        specs = repo_specs(root)
        out_dir = Path(args.output) if args.output else root / "generated"
        index = True
    # The spec schema's argument syntaxes and tool bodies (and docs/' reference of them)
    # come from the registries; the specs are checked against the schema, so these are
    # written before the specs are compiled.
    registry = [] if args.specs else registry_outputs(project_root())
    written = [] if args.check else write_changed(registry)
    try:
        outputs = plan(specs, out_dir, index=index) + registry
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
    from .build import compile_spec

    status = 0
    for spec in args.specs:
        try:
            fmt = compile_spec(Path(spec), spec)
        except SpecError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        print(f"{spec}: ok ({fmt.name})")
    return status


def _cmd_list(args: argparse.Namespace) -> int:
    import parsergen

    for name in parsergen.formats():
        print(f"{name:<20} {parsergen.entry(name).description}")
    return 0


def _cmd_detect(args: argparse.Namespace) -> int:
    import parsergen

    found = parsergen.route(args.model)
    if found is None:
        print(f"no format for {args.model!r}", file=sys.stderr)
        return 1
    print(found.describe())
    return 0


def _cmd_parse(args: argparse.Namespace) -> int:
    import parsergen

    if args.jsonl:
        return _cmd_parse_jsonl(args)
    route = None if args.format or not args.model else parsergen.route(args.model)
    name = args.format or (route.format if route else None)
    if name is None:
        print("give --format NAME, or --model ID of a known model", file=sys.stderr)
        return 2
    try:
        module = parsergen.load(name)
    except KeyError:
        print(f"unknown format {name!r}; 'parsergen list' shows them", file=sys.stderr)
        return 2
    if args.thinking is None and route is not None:
        args.thinking = route.defaults.get("thinking")  # the model variant's default
    if args.file in (None, "-"):
        text = sys.stdin.read()
    else:
        text = Path(args.file).read_text(encoding="utf-8")
    step = args.chunk if args.chunk and args.chunk > 0 else max(len(text), 1)
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    if args.openai:
        tools = json.loads(Path(args.tools).read_text(encoding="utf-8")) if args.tools else None
        if args.stream:
            chat = module.ChatParser(tools=tools, thinking=args.thinking)
            for delta in [*map(chat.feed, pieces), chat.finish()]:
                if delta is not None:
                    print(json.dumps(delta.to_openai(), ensure_ascii=False))
        else:
            message = module.parse(text, tools=tools, thinking=args.thinking)
            print(json.dumps(message.to_openai(), ensure_ascii=False))
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
    import parsergen
    from parsergen.batch import parse_jsonl

    if args.format is not None and args.format not in [*parsergen.formats(),
                                                       *parsergen.aliases()]:
        print(f"unknown format {args.format!r}; 'parsergen list' shows them", file=sys.stderr)
        return 2
    options = {"format": args.format, "model": args.model, "tokenizer": args.tokenizer,
               "workers": args.workers}
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``parsergen`` console script."""
    parser = argparse.ArgumentParser(prog="parsergen", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="compile specs into parser modules")
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="spec files (default: every grammars/*.yaml into generated/)")
    p.add_argument("-o", "--output", metavar="DIR", help="output directory")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a generated file is stale or orphaned")
    p.set_defaults(run=_cmd_build)

    p = sub.add_parser("check", help="validate specs")
    p.add_argument("specs", nargs="+", metavar="SPEC")
    p.set_defaults(run=_cmd_check)

    p = sub.add_parser("list", help="list the bundled formats")
    p.set_defaults(run=_cmd_list)

    p = sub.add_parser("detect", help="the format for a model name (repo id or local path), "
                       "then its defaults (thinking: true/false and where it comes from)")
    p.add_argument("model", metavar="NAME")
    p.set_defaults(run=_cmd_detect)

    p = sub.add_parser("parse", help="print the events of a completion, or parse a JSONL batch")
    p.add_argument("--format", metavar="NAME", help="the format (or give --model)")
    p.add_argument("--model", metavar="ID", help="pick the format from a model id")
    p.add_argument("file", nargs="?", metavar="FILE|-")
    p.add_argument("--jsonl", metavar="IN|-",
                   help="one JSON object per line ({completion, prompt?, tools?, token_ids?, "
                        "model?}) -> one OpenAI message per line, in input order")
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
    group.add_argument("--thinking", dest="thinking", action="store_true", default=None)
    group.add_argument("--no-thinking", dest="thinking", action="store_false")
    p.set_defaults(run=_cmd_parse)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
