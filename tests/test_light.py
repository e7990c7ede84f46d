"""Serving imports only what serving needs: the standard library and the runtime's own.

A server installs parsergen next to its own packages; serving a bundled format must not
need (or import) what compiling a spec needs (PyYAML, Jinja2, jsonschema) nor black,
which only writes generated modules.  A subprocess without those packages (an import
of any of them fails) imports parsergen, streams and parses a bundled format, and
imports both server plugins over stand-ins for vLLM and SGLang (every name a stand-in
class), which register every format.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = r'''
import importlib.abc, importlib.machinery, json, sys, types

BLOCKED = {"yaml", "jinja2", "jsonschema", "black"}
SERVERS = {"vllm", "sglang"}


class StandIn(type):
    """A stand-in class: any attribute is another stand-in class."""

    def __getattr__(cls, name):
        return stand_in(name)

    def __setitem__(cls, key, value):  # (a registry: SGLang's parser maps)
        pass


def stand_in(name):
    return StandIn(name, (), {"__init__": lambda self, *args, **kwargs: None,
                              "register_module": classmethod(lambda cls, *a, **k: None)})


class Module(types.ModuleType):
    def __getattr__(self, name):
        return stand_in(name)


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        if top in SERVERS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, Finder())
import parsergen

qwen3 = parsergen.load("qwen3")
text = ("<think>Let me see.</think>Sure.<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>")
chat = qwen3.ChatParser()
deltas = [chat.feed(text[i:i + 3]) for i in range(0, len(text), 3)] + [chat.finish()]
streamed = [d.to_openai() for d in deltas if d is not None]
parsed = qwen3.parse(text).to_openai()
route = parsergen.route("Qwen/Qwen3.6-35B-A3B")
import parsergen.integrations.vllm as vllm_plugin
import parsergen.integrations.sglang as sglang_plugin
sglang_registered = sglang_plugin.register()
outside = sorted({name.partition(".")[0] for name in sys.modules}
                 - set(sys.stdlib_module_names) - SERVERS - {"parsergen", "__main__"})
print(json.dumps({"streamed": streamed, "parsed": parsed, "route": route.format,
                  "registered": [len(vllm_plugin.REGISTERED), len(sglang_registered)],
                  "outside": outside}))
'''


def test_serving_a_bundled_format_needs_no_compiler_packages() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PARSERGEN_SPECS"}
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          env=env, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr[-5000:]
    out = json.loads(done.stdout)
    assert out["parsed"]["reasoning_content"] == "Let me see."
    assert out["parsed"]["content"] == "Sure."
    assert out["parsed"]["tool_calls"][0]["function"] == {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert "".join(d.get("content") or "" for d in out["streamed"]) == "Sure."
    assert out["route"] == "qwen3"
    import parsergen
    from parsergen.integrations import TEMPLATE_NAMES  # parsergen_hf, parsergen_beam

    assert out["registered"] == [
        len(parsergen.formats()) + len(parsergen.aliases()) + len(TEMPLATE_NAMES)] * 2
    # The runtime's own needs (the compiled build's marks) and what installs packages
    # (.pth files' hooks, imported at start-up: setuptools', an editable install's) only.
    installers = {name for name in out["outside"] if name.startswith("__editable__")}
    assert set(out["outside"]) - installers <= {
        "mypy_extensions", "_distutils_hack", "sitecustomize", "_virtualenv"}, out["outside"]
