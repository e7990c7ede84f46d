"""A file to give vLLM's plugin flags by path: it registers parsergen's parsers.

``--reasoning-parser-plugin`` and ``--tool-parser-plugin`` import a file under its base
name, so ``vllm.py`` itself cannot be given by path (it would shadow vLLM)::

    vllm serve MODEL --tool-parser-plugin "$(python -c 'import parsergen.integrations.parsergen_vllm as m; print(m.__file__)')" ...
"""

from parsergen.integrations.vllm import REGISTERED  # noqa: F401  (registers on import)
