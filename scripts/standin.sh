# Sourced by scripts that run adapters against the offline model stand-in
# (adapters/python/standin_models.py): `start_standin NAME WORK [STAND-IN ARGS…]` starts it
# on a free port with its log in WORK/standin.log, waits until it has written its port,
# sets `standin_pid` (the caller kills it on exit) and exports the adapters' model
# settings pointing at it; NAME prefixes the error when it does not start.
start_standin() {
    local name=$1 work=$2
    shift 2
    "${python:-python3}" adapters/python/standin_models.py --port-file "$work/port" "$@" \
        > "$work/standin.log" 2>&1 &
    standin_pid=$!
    for _ in $(seq 1 100); do
        [ -s "$work/port" ] && break
        sleep 0.1
    done
    if [ ! -s "$work/port" ]; then
        echo "$name: the model stand-in did not start:" >&2
        cat "$work/standin.log" >&2
        return 1
    fi
    export BEMULA_MODEL_BASE_URL="http://127.0.0.1:$(cat "$work/port")/v1"
    export BEMULA_CHAT_MODEL=standin-chat BEMULA_EMBED_MODEL=standin-embed BEMULA_EMBED_DIMS=256
    unset OPENAI_API_KEY OPENAI_BASE_URL BEMULA_LLM_BASE_URL BEMULA_EMBED_BASE_URL
}
