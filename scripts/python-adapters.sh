#!/usr/bin/env bash
# Runs the maintained Python adapters (adapters/python/*_adapter.py) against the real
# libraries, installed from PyPI at the versions pinned in adapters/python/requirements/,
# with the offline model stand-in (adapters/python/standin_models.py) as their LLM and
# embedding endpoint. For each adapter: `bemula check-adapter`, then `bemula run` on two
# short instances, which must finish with every instance present and 0 errors.
#
# Usage: scripts/python-adapters.sh [--install-only] [ADAPTER ...]
#        (default: the adapters CI runs; BEMULA_ML_ADAPTERS=1 adds the opt-in ones: A-MEM
#        and LightMem;
#        --install-only creates the environments and runs nothing, which .ci/run does in
#        the background while the Rust side builds)
#
# Each adapter gets a virtual environment under target/py-adapters/, named after the hash
# of its requirements file, so a warm machine reuses it. A requirements file lists every
# package the adapter needs at an exact version and is installed with --no-deps (SimpleMem
# is installed without the sentence-transformers/torch stack its adapter does not use). Scores under the stand-in mean
# nothing: this checks that the adapters work, not how well the libraries forget.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The adapters that install without a deep-learning stack and run offline; the opt-in
# ones run when BEMULA_ML_ADAPTERS=1 or when named: A-MEM (a large ML stack: torch,
# sentence-transformers; scripts/python-adapters-ml.sh) and LightMem (installed with git
# from its repository, Python 3.10 or 3.11 only, and tiktoken downloads its o200k_base
# encoding on first use unless TIKTOKEN_CACHE_DIR holds it).
default_adapters=(mem0 langmem simplemem)
optin_adapters=(amem lightmem)
if [ "${BEMULA_ML_ADAPTERS:-0}" = 1 ]; then
    default_adapters+=("${optin_adapters[@]}")
fi
install_only=0
if [ "${1:-}" = --install-only ]; then
    install_only=1
    shift
fi
if [ $# -gt 0 ]; then adapters=("$@"); else adapters=("${default_adapters[@]}"); fi

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "python-adapters: $python is missing or older than 3.10 (set PYTHON)" >&2
    exit 1
fi
for name in "${adapters[@]}"; do
    for file in "adapters/python/${name}_adapter.py" "adapters/python/requirements/${name}.txt"; do
        if [ ! -f "$file" ]; then
            echo "python-adapters: unknown adapter '$name' ($file is missing)" >&2
            exit 1
        fi
    done
done

# A virtual environment per adapter, keyed on its pinned requirements.
venv_for() {
    local name=$1 req="adapters/python/requirements/$1.txt" hash dir
    if [ "$name" = lightmem ] && ! "$python" -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
        echo "python-adapters: lightmem needs Python 3.10 or 3.11 (LightMem's requires-python);" \
            "$python is newer (set PYTHON)" >&2
        return 1
    fi
    hash=$(sha256sum "$req" | cut -c1-16)
    dir="target/py-adapters/$name-$hash"
    if [ ! -f "$dir/.complete" ]; then
        echo "python-adapters: installing $name into $dir" >&2
        rm -rf "$dir"
        mkdir -p target/py-adapters || return 1
        "$python" -m venv "$dir" || return 1
        "$dir/bin/python" -m pip install --quiet --disable-pip-version-check \
            --no-input --no-deps -r "$req" >&2 || return 1
        touch "$dir/.complete" || return 1
        # Older environments of this adapter are stale.
        find target/py-adapters -maxdepth 1 -name "$name-*" ! -path "$dir" \
            -exec rm -rf {} + 2>/dev/null || true
    fi
    echo "$root/$dir/bin/python"
}

if [ "$install_only" = 1 ]; then
    status=0
    for name in "${adapters[@]}"; do
        if ! venv_for "$name" > /dev/null; then
            echo "python-adapters: $name: installing adapters/python/requirements/$name.txt failed" >&2
            status=1
        fi
    done
    exit "$status"
fi

start=$(date +%s)
# The stand-in's own tests (standard library only).
"$python" -m unittest discover -s adapters/python/tests
work=$(mktemp -d "${TMPDIR:-/tmp}/bemula-py-adapters.XXXXXX")
standin_pid=""
cleanup() {
    if [ -n "$standin_pid" ]; then kill "$standin_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cargo build --quiet --bin bemula
bemula="$root/target/debug/bemula"


# shellcheck source=scripts/standin.sh
. scripts/standin.sh
start_standin python-adapters "$work" || exit 1

# Two short instances of the generated Lite set.
"$bemula" generate --lite --out "$work/lite" > /dev/null
mkdir "$work/data"
cp "$work/lite/short_001.json" "$work/lite/short_002.json" "$work/data/"

passed=0
failed=()
for name in "${adapters[@]}"; do
    t0=$(date +%s)
    if ! py=$(venv_for "$name"); then
        echo "python-adapters: $name: installing adapters/python/requirements/$name.txt failed" >&2
        failed+=("$name (install)")
        continue
    fi
    if compgen -G "adapters/python/tests/test_${name}_*.py" > /dev/null; then
        echo "== $name: its tests with the library"
        if ! "$py" -m unittest discover -s adapters/python/tests -p "test_${name}_*.py"; then
            echo "python-adapters: $name: its tests failed" >&2
            failed+=("$name (tests)")
            continue
        fi
    fi
    system="cmd:$py adapters/python/${name}_adapter.py"
    echo "== $name: check-adapter"
    if ! "$bemula" check-adapter --system "$system"; then
        echo "python-adapters: $name: check-adapter failed" >&2
        failed+=("$name (check-adapter)")
        continue
    fi
    echo "== $name: run on two instances"
    out="$work/out-$name"
    if ! "$bemula" run --data "$work/data" --system "$system" --bootstrap 0 --no-cache \
        --out "$out" > "$work/run-$name.log" 2>&1; then
        cat "$work/run-$name.log" >&2
        echo "python-adapters: $name: bemula run failed" >&2
        failed+=("$name (run)")
        continue
    fi
    if ! "$python" - "$out" "$name" <<'EOF'
import glob, json, sys
out, name = sys.argv[1], sys.argv[2]
paths = glob.glob(f"{out}/*/summary.json")
if len(paths) != 1:
    sys.exit(f"python-adapters: {name}: expected one summary.json under {out}, found {len(paths)}")
summary = json.load(open(paths[0]))
counts, coverage = summary["counts"], summary["coverage"]
problems = []
if counts["errors"] != 0:
    problems.append(f"{counts['errors']} error records")
if coverage["present"] != 2 or coverage["expected"] != 2:
    problems.append(f"{coverage['present']} of {coverage['expected']} instances present (want 2 of 2)")
if counts["records"] == 0:
    problems.append("no records")
if problems:
    sys.exit(f"python-adapters: {name}: " + "; ".join(problems) + f" ({paths[0]})")
print(f"{name}: {counts['records']} records, 0 errors, 2 instances")
EOF
    then
        cat "$work/run-$name.log" >&2
        failed+=("$name (run summary)")
        continue
    fi
    echo "== $name: ok in $(( $(date +%s) - t0 ))s"
    passed=$((passed + 1))
done

echo "python adapters: ${#adapters[@]} run in $(( $(date +%s) - start ))s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "python adapters: failed: ${failed[*]}" >&2
fi
echo "python adapters: $passed passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
