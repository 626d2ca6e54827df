#!/usr/bin/env bash
# Wall time of a dogfood harness target (default conformance_null: Bemula-Lite, the
# null system, 63 requests) run by a plain `cargo test` and by cargo-nextest, which
# starts a process per request. The build is made first and not timed; the generated-
# data cache (target/bemula/cache) is emptied before each timed run, as after an edit.
#
#   scripts/bench-nextest.sh [TARGET] [--no-cache]
#
# --no-cache also times a nextest run whose processes cannot use the cache (a plain
# file stands where its directory would be), each generating the data as before the
# cache existed.
set -euo pipefail
target=conformance_null
no_cache=0
for arg in "$@"; do
  case "$arg" in
    --no-cache) no_cache=1 ;;
    *) target=$arg ;;
  esac
done
cd "$(dirname "$0")/.."
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
cache="$target_dir/bemula/cache"
cargo test --test "$target" --no-run >/dev/null 2>&1
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')"; }

rm -rf "$cache"
start=$(now)
cargo test --test "$target" >/dev/null 2>&1 || true
plain=$(elapsed "$start" "$(now)")
echo "plain cargo test --test $target: ${plain} s"

rm -rf "$cache"
start=$(now)
cargo nextest run --test "$target" --no-fail-fast >/dev/null 2>&1 || true
nextest=$(elapsed "$start" "$(now)")
echo "cargo nextest run --test $target: ${nextest} s ($(python3 -c "print(f'{$nextest / $plain:.2f}')")x the plain run)"

if [ "$no_cache" = 1 ]; then
  rm -rf "$cache" && mkdir -p "$(dirname "$cache")" && touch "$cache"
  start=$(now)
  cargo nextest run --test "$target" --no-fail-fast >/dev/null 2>&1 || true
  uncached=$(elapsed "$start" "$(now)")
  rm -f "$cache"
  echo "cargo nextest run --test $target, no data cache: ${uncached} s ($(python3 -c "print(f'{$uncached / $plain:.2f}')")x the plain run)"
fi
