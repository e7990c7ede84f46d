"""The compiled build (tools/build_backend.py, tools/build_compiled.py): what an install
gets where it can, marked for mypyc, current when imported, ``PARSERGEN_PURE``, and
parsers that copy the same whether compiled or not.

The suite runs against whichever build is installed: compiled, as README's test
command installs it where there is a C compiler.  Beside it (started at collection:
tests/support/background.py), the other build runs too: with the compiled build
imported, the goldens, the property tests and the pure-only tests run again with
``PARSERGEN_PURE=1`` (pure Python, the same sources); with pure Python imported, a
compiled build is made apart, unoptimised (``--opt-level 0``), and the goldens of a few
formats run against it: mypyc checks types at run time that mypy only infers (a
``frozenset & dict_keys`` that is a set once broke every compiled parser).
``PARSERGEN_COMPILED_BUILD=0`` skips the second run.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import parsergen
import parsergen.runtime
from parsergen import native
from support.background import Job, submit
from support.compiled import COMPILED
from support.tokenizers import FORMAT_TOKENIZERS

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "build_compiled.py"
_MARK = "mypyc_attr(allow_interpreted_subclasses=True)"
# Classes mypyc leaves to Python (their instances are plain Python objects).
_NOT_NATIVE = {"Protocol", "NamedTuple", "Enum", "TypedDict"}


def _tool():
    spec = importlib.util.spec_from_file_location("build_compiled", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_runtime_class_is_marked_for_mypyc() -> None:
    # Generated parsers subclass runtime classes, and a compiled object copies only
    # when its class allows interpreted subclasses (see tools/build_compiled.py).
    unmarked = []
    for path in sorted((ROOT / "runtime").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {ast.unparse(base).split("[")[0] for base in node.bases}
            if bases & _NOT_NATIVE:
                continue
            if _MARK not in {ast.unparse(d) for d in node.decorator_list}:
                unmarked.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert not unmarked, f"add @{_MARK}: {unmarked}"


def test_left_out_modules_exist() -> None:
    tool = _tool()
    assert all((ROOT / name).is_file() for name in tool.LEFT_OUT)
    assert set(tool.modules()) | set(tool.LEFT_OUT) == {
        f"{folder}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder in ("runtime", "generated") for path in (ROOT / folder).rglob("*.py")}


@pytest.mark.skipif(not COMPILED, reason="the runtime imported is pure Python")
def test_the_compiled_build_is_current() -> None:
    folders = native.folders()
    changed = _tool().stale(folders)
    assert changed is not None, f"compiled modules without {_tool().MANIFEST} in {folders}"
    assert not changed, f"stale compiled build: {changed}; run {TOOL.name} again or --remove"
    assert not parsergen.load("hermes").__file__.endswith(".py")  # the formats compiled too
    assert parsergen.which_build().startswith("compiled (mypyc)")


def _c_compiler() -> bool:
    """Whether the C compiler Python's extensions are built with is here."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    return bool(cc) and shutil.which(cc[0]) is not None


def _can_compile() -> bool:
    """Whether this machine has what an install compiles with: a C compiler and
    Python's headers."""
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return _c_compiler() and headers.is_file()


@pytest.mark.skipif(not _can_compile(), reason="no C compiler or Python headers here")
def test_an_install_that_could_compile_did() -> None:
    # The install falls back to pure Python when the mypyc build fails, and says so in
    # the build's record: here, where it could compile, that is a failed build.
    record = native.manifest(native.folders()) or {}
    fell_back = record.get("pure", "")
    assert not fell_back or native.PURE_VARIABLE in fell_back, parsergen.which_build()


_SOURCE_TREE = ("parsergen", "compiler", "runtime", "generated", "grammars", "tools",
                "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")


def test_an_install_without_a_c_compiler_is_pure_and_says_why(tmp_path: Path) -> None:
    # The build backend (tools/build_backend.py) on a copy of the tree, with a C
    # compiler that is not there: a pure wheel for any platform, one line saying so,
    # and the reason kept for `parsergen --version`.
    src = tmp_path / "src"
    for name in _SOURCE_TREE:
        if (ROOT / name).is_dir():
            # (Not cargo's target: the Rust background job writes it while this copies.)
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.so", "*.pyd", native.MANIFEST, "target"))
        else:
            shutil.copyfile(ROOT / name, src / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                           "-w", str(tmp_path / "out"), str(src)], capture_output=True, text=True,
                          env={**{k: v for k, v in os.environ.items()
                                  if k != native.PURE_VARIABLE}, "CC": "no-such-cc"})
    assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
    line = "parsergen: installing pure Python (slower): no C compiler (no-such-cc not found)"
    assert line in done.stdout + done.stderr
    (wheel,) = (tmp_path / "out").glob("*.whl")
    assert wheel.name.startswith("parsergen_llm-") and wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        record = json.loads(archive.read(f"parsergen/runtime/{native.MANIFEST}"))
    assert record == {"pure": "no C compiler (no-such-cc not found)"}
    assert not [name for name in names if name.endswith((".so", ".pyd"))]
    assert {"parsergen/native.py", "parsergen/generated/qwen3.py",
            "parsergen/grammars/schema.json", "parsergen/runtime/driver.py"} <= names


def test_parsergen_pure_imports_the_sources() -> None:
    # PARSERGEN_PURE=1 at run time: the runtime and the formats come from their .py
    # files, compiled modules beside them or not, and the version line says so.
    probe = ("import parsergen, parsergen.runtime.driver as d\n"
             "m = parsergen.load('hermes')\n"
             "print(d.__file__, m.__file__, m.parse('Hi').content)\n"
             "print(parsergen.which_build())\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, native.PURE_VARIABLE: "1"}, check=True)
    files, build = done.stdout.splitlines()
    runtime, hermes, content = files.split()
    assert runtime.endswith("/runtime/driver.py") and hermes.endswith("/generated/hermes.py")
    assert content == "Hi" and build == f"pure Python: {native.PURE_VARIABLE}=1"
    assert not done.stderr


def test_a_module_compiled_from_a_changed_source_is_stale(tmp_path: Path) -> None:
    # What makes `import parsergen` run pure in an edited source tree: a module whose
    # compiled file is still there but whose source differs from the one it was built
    # from; once its compiled file is gone (`parsergen build` deletes it), it is not.
    from importlib.machinery import EXTENSION_SUFFIXES

    folders = {"runtime": tmp_path / "runtime", "generated": tmp_path / "generated"}
    for folder in folders.values():
        folder.mkdir()
    source = folders["runtime"] / "driver.py"
    source.write_text("X = 1\n", encoding="utf-8")
    compiled = source.with_name("driver" + EXTENSION_SUFFIXES[0])
    compiled.write_bytes(b"(compiled)")
    record = {"modules": _tool().source_hashes(folders, ["runtime/driver.py"]),
              "in_place": True}
    assert native.stale(folders, record) == []
    source.write_text("X = 2\n", encoding="utf-8")
    assert native.stale(folders, record) == ["runtime/driver.py"]
    compiled.unlink()
    assert native.stale(folders, record) == []


def test_the_sources_finder_passes_over_compiled_modules() -> None:
    # PARSERGEN_PURE's finder: a runtime or generated module's spec is its .py file,
    # whatever lies beside it; other modules are left to the other finders.
    finder = native.SourcesOnly()
    folders = native.folders()
    spec = finder.find_spec("parsergen.runtime.driver", [str(folders["runtime"])])
    assert spec is not None and spec.origin == str(folders["runtime"] / "driver.py")
    spec = finder.find_spec("parsergen.runtime.bodies", [str(folders["runtime"])])
    assert spec is not None and spec.origin == str(folders["runtime"] / "bodies" / "__init__.py")
    assert finder.find_spec("parsergen.specs", [str(ROOT / "parsergen")]) is None


_TEXT = {
    "qwen3": '<think>Let me see.</think>Sure.<tool_call>\n<function=get_weather>\n'
             '<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
    "hermes": 'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
              '</tool_call>',
    "kimi_k2": '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0'
               '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
               '<|tool_calls_section_end|>',
    "llama4_pythonic": '[get_weather(city="Paris"), get_time(zone="CET")]',
}


@pytest.mark.parametrize("fmt", sorted(_TEXT))
def test_a_parser_deep_copied_midway_continues_alike(fmt: str, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    text = _TEXT[fmt]
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])  # its info is copied too
    for level in (module.StreamingParser, module.ChatParser):
        for cut in (0, len(text) // 3, len(text) // 2, len(text) - 5, len(text)):
            whole = (level(tokenizer, ids="sequential") if level is module.ChatParser
                     else level(tokenizer))
            whole.feed(text[:cut])
            twin = copy.deepcopy(whole, {id(tokenizer): tokenizer})  # one tokenizer
            rest = [whole.feed(text[cut:]), whole.finish()]
            assert [twin.feed(text[cut:]), twin.finish()] == rest, (fmt, level.__name__, cut)


_OTHER_BUILD = os.environ.get("PARSERGEN_COMPILED_BUILD") != "0"
_BUILDS = _OTHER_BUILD and not COMPILED and _c_compiler()
_PURE_RUN = _OTHER_BUILD and COMPILED
# With PARSERGEN_PURE=1: what runs pure beside a compiled suite (the goldens, the
# property tests, and the files with tests that only run pure).
_PURE_TESTS = ["tests/test_goldens.py", "tests/test_own_goldens.py", "tests/test_properties.py",
               "tests/test_compiled.py", "tests/test_schema_typing.py"]


def _pure_job() -> Job:
    """The goldens and the property tests (and the pure-only tests) run pure."""
    return Job("pure run", [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x",
                            "-rA", *_PURE_TESTS],
               ROOT, env={native.PURE_VARIABLE: "1", "PARSERGEN_COMPILED_BUILD": "0"})


def _build_job() -> Job:
    """Build the compiled runtime and run a few formats' goldens against it."""
    selection = " or ".join([*sorted(_TEXT), "current", "marked"])
    return Job("compiled build",
               [sys.executable, str(TOOL), "--opt-level", "0", "--formats", ",".join(sorted(_TEXT)),
                "--test", "-x",
                "tests/test_goldens.py", "tests/test_own_goldens.py", "tests/test_compiled.py",
                "-k", selection], ROOT, env={"PARSERGEN_COMPILED_BUILD": "0"})


def background_jobs() -> dict[str, list[Job]]:
    """The other build's run, started at collection beside the suite
    (tests/support/background.py)."""
    return {"test_goldens_of_a_few_formats_pass_compiled": [_build_job()] if _BUILDS else [],
            "test_goldens_and_properties_pass_pure": [_pure_job()] if _PURE_RUN else []}


@pytest.mark.skipif(not _PURE_RUN, reason="PARSERGEN_COMPILED_BUILD=0, or the suite runs "
                    "pure Python already")
def test_goldens_and_properties_pass_pure() -> None:
    code, text = submit(_pure_job()).result(timeout=900)
    assert code == 0, text[-10000:]
    # (it ran pure: the test that checks PARSERGEN_PURE passed in it)
    assert "PASSED tests/test_compiled.py::test_parsergen_pure_imports_the_sources" in text


@pytest.mark.skipif(not _BUILDS, reason="PARSERGEN_COMPILED_BUILD=0, the runtime is compiled "
                    "already, or no C compiler to build it")
def test_goldens_of_a_few_formats_pass_compiled() -> None:
    code, text = submit(_build_job()).result(timeout=900)
    assert code == 0, text[-10000:]
    assert " passed" in text and "compiled" in text


@pytest.mark.skipif(COMPILED, reason="mypyc classes are not serializable (see build_compiled.py)")
@pytest.mark.parametrize("fmt", sorted(_TEXT))
def test_a_parser_pickled_midway_continues_alike(fmt: str, get_tokenizer) -> None:
    """A parser (its tokenizer too) pickles midway; the copy goes on as the original."""
    import pickle
    module = parsergen.load(fmt)
    text = _TEXT[fmt]
    for tokenizer in (None, get_tokenizer(FORMAT_TOKENIZERS[fmt])):
        for level in (module.StreamingParser, module.ChatParser):
            for cut in (0, len(text) // 2, len(text) - 5):
                whole = (level(tokenizer, ids="sequential") if level is module.ChatParser
                         else level(tokenizer))
                whole.feed(text[:cut])
                twin = pickle.loads(pickle.dumps(whole))
                rest = [whole.feed(text[cut:]), whole.finish()]
                assert [twin.feed(text[cut:]), twin.finish()] == rest, (fmt, level.__name__, cut)


@pytest.mark.skipif(COMPILED, reason="a compiled Lexicon has no __dict__ to compare with")
def test_a_lexicon_copies_every_attribute_but_its_cache() -> None:
    from parsergen.runtime.lexicon import Lexicon
    lexicon = parsergen.load("hermes").StreamingParser.LEXICONS[False]
    assert set(vars(lexicon)) == {*Lexicon._STATE, "_infos"}


def test_building_a_module_anew_deletes_its_compiled_build(tmp_path: Path) -> None:
    # An extension module next to its .py is imported in its place: once the .py is
    # rewritten, the compiled one is the module as it was.
    from importlib.machinery import EXTENSION_SUFFIXES

    from parsergen.compiler.build import Output, write
    suffix = EXTENSION_SUFFIXES[0]
    (tmp_path / "fmt.py").write_text("# old\n", encoding="utf-8")
    (tmp_path / f"fmt{suffix}").write_bytes(b"compiled")
    (tmp_path / "same.py").write_text("# same\n", encoding="utf-8")
    (tmp_path / f"same{suffix}").write_bytes(b"compiled")
    write([Output(tmp_path / "fmt.py", "# new\n"), Output(tmp_path / "same.py", "# same\n")],
          tmp_path, remove_orphans=False)
    assert not (tmp_path / f"fmt{suffix}").exists()
    assert (tmp_path / f"same{suffix}").exists()  # its source is as it was built
