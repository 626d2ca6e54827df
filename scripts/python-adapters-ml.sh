#!/usr/bin/env bash
# The opt-in Python adapters, whose libraries need a large ML stack (torch and
# sentence-transformers, about 6 GiB installed): A-MEM. CI runs them only when asked
# (BEMULA_ML_ADAPTERS=1). Same checks as scripts/python-adapters.sh.
set -euo pipefail
exec "$(dirname "$0")/python-adapters.sh" amem "$@"
