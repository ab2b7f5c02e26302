#!/usr/bin/env bash
# Installs Open WebUI without torch into its own venv (default: <repo>/.venv-owui), for Amber's filter tests.
#
# Open WebUI pins versions that clash with Amber's .venv, so it never goes there. Torch and the local
# model stacks (sentence-transformers, transformers, accelerate, faster-whisper, einops, rapidocr,
# opencv) are left out: chat, functions and memories work without them, and the full install is
# 7.4 GB instead of 1.3 GB. Idempotent: a stamp file records a finished install; a lock keeps two
# concurrent test runs from installing at once.
#
#   tests/openwebui/install_owui.sh            # prints the venv's python on the last line
#   OWUI_VENV=/some/dir tests/openwebui/install_owui.sh
set -euo pipefail

OWUI_VERSION="${OWUI_VERSION:-0.12.4}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${OWUI_VENV:-$ROOT/.venv-owui}"
PY="${OWUI_PYTHON:-python3.11}"
STAMP="$VENV/.installed-open-webui-$OWUI_VERSION"
# Left out on purpose: torch and the local-model stacks that pull it in.
EXCLUDE='^(torch|torchvision|torchaudio|sentence-transformers|transformers|accelerate|faster-whisper|einops|rapidocr|opencv-python-headless|opencv-python)$'

if [[ -f "$STAMP" ]]; then
  echo "$VENV/bin/python"
  exit 0
fi

mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if [[ -f "$STAMP" ]]; then  # another run finished while we waited
  echo "$VENV/bin/python"
  exit 0
fi

echo "installing open-webui $OWUI_VERSION (no torch) into $VENV ..." >&2
[[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >&2
"$VENV/bin/python" -m pip install -q --no-deps "open-webui==$OWUI_VERSION" >&2

# The package's own pins (base requirements only, no extras), minus the excluded stacks.
REQS="$VENV/owui-requirements.txt"
"$VENV/bin/python" - "$EXCLUDE" >"$REQS" <<'PYEOF'
import re, sys
from importlib.metadata import requires
try:
    from packaging.requirements import Requirement
except ImportError:  # a bare venv has only pip's vendored copy
    from pip._vendor.packaging.requirements import Requirement

exclude = re.compile(sys.argv[1], re.I)
for line in requires("open-webui") or []:
    req = Requirement(line)
    if req.marker is not None and "extra" in str(req.marker):
        continue
    if exclude.match(req.name):
        continue
    print(line)
PYEOF
"$VENV/bin/python" -m pip install -q -r "$REQS" >&2

touch "$STAMP"
echo "open-webui $OWUI_VERSION installed in $VENV" >&2
echo "$VENV/bin/python"
