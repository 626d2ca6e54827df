#!/usr/bin/env bash
# Times a maintained Python adapter run by pools of 1, 2 and 4 processes
# (`bemula run --adapter-processes N`) against a model endpoint with a fixed latency per
# request (the offline stand-in, adapters/python/standin_models.py --latency-ms), on a
# fixed subset of the generated Lite data, and checks that every pool size gives the same
# records. The adapter's library is set up as scripts/python-adapters.sh sets it up.
#
# Usage: scripts/bench-adapter-pool.sh [--adapter mem0] [--latency-ms 50]
#                                      [--processes "1 2 4"] [--instances 2]
#        BEMULA_BIN=path/to/bemula uses that binary instead of building a release one.
#
# Each timed run is a whole `bemula run` as a user runs it: the processes' start, the
# preflight (which checks the pool), the instances, the reports. Prints one row per pool
# size: wall time, speed-up over the first size, and each process's namespaces and calls.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

adapter=mem0
latency=50
sizes="1 2 4"
keep=2
while [ $# -gt 0 ]; do
    case "$1" in
        --adapter) adapter=$2; shift 2 ;;
        --latency-ms) latency=$2; shift 2 ;;
        --processes) sizes=$2; shift 2 ;;
        --instances) keep=$2; shift 2 ;;
        *) echo "bench-adapter-pool: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
    esac
done

python=${PYTHON:-python3}
scripts/python-adapters.sh --install-only "$adapter" >&2
hash=$(sha256sum "adapters/python/requirements/$adapter.txt" | cut -c1-16)
py="$root/target/py-adapters/$adapter-$hash/bin/python"
if [ -z "${BEMULA_BIN:-}" ]; then
    cargo build --quiet --release --bin bemula
    bemula="$root/target/release/bemula"
else
    bemula=$BEMULA_BIN
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bemula-pool.XXXXXX")
standin_pid=""
cleanup() {
    if [ -n "$standin_pid" ]; then kill "$standin_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=scripts/standin.sh
. scripts/standin.sh
start_standin bench-adapter-pool "$work" --latency-ms "$latency" || exit 1

"$bemula" generate --lite --out "$work/lite" > /dev/null
mkdir "$work/data"
find "$work/lite" -name 'short_*.json' | sort | head -n "$keep" | xargs -I{} cp {} "$work/data/"
system="cmd:$py adapters/python/${adapter}_adapter.py"

echo "bench-adapter-pool: $adapter, $keep short instances, endpoint latency ${latency} ms" >&2
printf '%-10s %10s %9s  %s\n' processes "wall (s)" speed-up "per process"
first=""
for n in $sizes; do
    out="$work/out-$n"
    t0=$(date +%s.%N)
    if ! "$bemula" run --data "$work/data" --system "$system" --adapter-processes "$n" \
        --bootstrap 0 --out "$out" > "$work/run-$n.log" 2>&1; then
        cat "$work/run-$n.log" >&2
        echo "bench-adapter-pool: the run with $n processes failed" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    wall=$("$python" -c "print($t1 - $t0)")
    [ -n "$first" ] || first=$wall
    per=$(grep -o "adapter processes: .*" "$work/run-$n.log" | sed 's/^adapter processes: //' || true)
    printf '%-10s %10.1f %8.2fx  %s\n' "$n" "$wall" "$("$python" -c "print($first / $wall)")" "${per:-one process}"
done

# The records must not depend on the pool's size.
"$python" - "$work" $sizes <<'EOF'
import glob, json, sys
work, sizes = sys.argv[1], sys.argv[2:]
def records(n):
    [path] = glob.glob(f"{work}/out-{n}/*/results.jsonl")
    rows = []
    for line in open(path):
        record = json.loads(line)
        record.pop("restarts", None)
        rows.append(json.dumps(record, sort_keys=True))
    return sorted(rows)
base = records(sizes[0])
errors = sum(json.loads(r)["error"] is not None for r in base)
for n in sizes[1:]:
    if records(n) != base:
        sys.exit(f"bench-adapter-pool: the records with {n} processes differ from those with {sizes[0]}")
print(f"records: {len(base)} per run, {errors} errors, identical for {', '.join(sizes)} processes")
EOF
