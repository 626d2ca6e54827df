"""Serve a Python memory system over the bemula-adapter/1 protocol (standard library only).

The protocol is specified in conformance/PROTOCOL.md: JSON-RPC 2.0, one message per
line on stdin/stdout, or one request per HTTP POST body.

Wrap any object that has

    reset(namespace)                 forget everything in the namespace, nothing else
    observe(namespace, turn)         turn = {"index": int, "user": str, "assistant": str}
    query(namespace, question)       -> str (an answer) or a list of memories, best
                                        first, or {"answer": str} / {"memories": [...]};
                                        a memory is a str or {"text": str, "time": str}
                                        (time: ISO 8601, when it was learnt)

and optionally start_session(namespace, session), end_session(namespace),
flush(namespace) and info() -> {"name", "version", "settings", "capabilities",
"timeouts"} (timeouts: {"call_s": seconds}, for a system whose calls take minutes):

    from bemula_adapter import main
    main(MyMemory())          # --stdio (default) or --http HOST:PORT

Calls on different namespaces may run at the same time (in threads), so the object must
keep namespaces apart and be safe for that; calls on one namespace arrive one at a time.

Anything the wrapped code prints goes to stderr: stdout carries only protocol messages.
"""

import argparse
import json
import os
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "bemula-adapter/1"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SYSTEM_FAILURE = -32000
UNKNOWN_NAMESPACE = -32001
NOT_SUPPORTED = -32002
BUSY = -32003
SYSTEM_TIMEOUT = -32004
PROTOCOL_MISMATCH = -32005

METHODS = ("handshake", "reset", "start_session", "observe", "end_session", "flush",
           "query", "shutdown")


class AdapterError(Exception):
    """An error to send as a JSON-RPC error object with this code."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class NotSupported(AdapterError):
    """The system cannot do this call."""

    def __init__(self, message="not supported"):
        super().__init__(NOT_SUPPORTED, message)


class Busy(AdapterError):
    """The system is busy; the client retries after `retry_after_ms`."""

    def __init__(self, message="busy, retry later", retry_after_ms=None):
        data = None if retry_after_ms is None else {"retry_after_ms": int(retry_after_ms)}
        super().__init__(BUSY, message, data)


def _require(params, key, kind, where=""):
    value = params.get(key) if isinstance(params, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        name = {str: "a string", int: "an integer", dict: "an object"}.get(kind, str(kind))
        raise AdapterError(INVALID_PARAMS, f"`{where}{key}` must be {name}")
    return value


class Dispatcher:
    """Turns protocol requests (dicts) into calls on the wrapped object."""

    def __init__(self, memory):
        self.memory = memory
        self.known = set()
        self.lock = threading.Lock()
        self.shutdown_requested = threading.Event()

    def handle_text(self, text):
        """The response (a dict) to one message given as text, or None for a notification."""
        try:
            request = json.loads(text)
        except ValueError as e:
            return _failure(None, AdapterError(PARSE_ERROR, f"request is not valid JSON: {e}"))
        return self.handle(request)

    def handle(self, request):
        """The response (a dict) to one request, or None for a notification."""
        if not isinstance(request, dict):
            what = ("batches are not supported" if isinstance(request, list)
                    else "a request must be a JSON object")
            return _failure(None, AdapterError(INVALID_REQUEST, what))
        has_id = "id" in request
        rid = request.get("id")
        if request.get("jsonrpc") != "2.0" or not isinstance(request.get("method"), str):
            return _failure(rid, AdapterError(
                INVALID_REQUEST, 'a request must carry "jsonrpc": "2.0" and a `method` string'))
        method = request["method"]
        params = request.get("params", {})
        try:
            result = self.dispatch(method, params if params is not None else {})
            response = {"jsonrpc": "2.0", "id": rid, "result": result}
        except AdapterError as e:
            response = _failure(rid, e)
        except Exception as e:  # the wrapped system failed
            last = traceback.format_exception_only(type(e), e)[-1].strip()
            response = _failure(rid, AdapterError(
                SYSTEM_FAILURE, last, {"traceback": traceback.format_exc()}))
        if method == "shutdown":
            self.shutdown_requested.set()
        return response if has_id else None

    def dispatch(self, method, params):
        if method not in METHODS:
            raise AdapterError(METHOD_NOT_FOUND, f"no method `{method}`")
        if not isinstance(params, dict):
            raise AdapterError(INVALID_PARAMS, "params must be an object")
        if method == "handshake":
            return self.handshake(params)
        if method == "shutdown":
            return None
        ns = _require(params, "namespace", str)
        if method == "reset":
            self.memory.reset(ns)
            with self.lock:
                self.known.add(ns)
            return None
        # Check the params before the namespace, so malformed calls say so.
        if method == "start_session":
            session = _require(params, "session", dict)
            _require(session, "id", str, "session.")
            _require(session, "date", str, "session.")
        elif method == "observe":
            turn = _require(params, "turn", dict)
            _require(turn, "index", int, "turn.")
            _require(turn, "user", str, "turn.")
            _require(turn, "assistant", str, "turn.")
        elif method == "query":
            question = _require(params, "question", str)
        with self.lock:
            known = ns in self.known
        if not known:
            raise AdapterError(UNKNOWN_NAMESPACE,
                               f"namespace `{ns}` was never reset on this server; call reset first")
        if method == "start_session":
            return self._optional("start_session", ns, session)
        if method == "observe":
            self.memory.observe(ns, turn)
            return None
        if method in ("end_session", "flush"):
            return self._optional(method, ns)
        return _query_result(self.memory.query(ns, question))

    def _optional(self, name, *args):
        fn = getattr(self.memory, name, None)
        if fn is not None:
            fn(*args)
        return None

    def handshake(self, params):
        protocol = params.get("protocol")
        if protocol is not None and protocol != PROTOCOL:
            raise AdapterError(PROTOCOL_MISMATCH,
                               f"client speaks {protocol}, this adapter speaks {PROTOCOL}")
        info = {}
        if hasattr(self.memory, "info"):
            info = self.memory.info() or {}
        capabilities = {"query": "both", "flush": hasattr(self.memory, "flush"),
                        "sessions": hasattr(self.memory, "start_session")
                        or hasattr(self.memory, "end_session")}
        capabilities.update(info.get("capabilities") or {})
        result = {
            "protocol": PROTOCOL,
            "name": info.get("name") or type(self.memory).__name__,
            "version": info.get("version"),
            "settings": info.get("settings") or {},
            "capabilities": capabilities,
        }
        # An LLM-backed system may ask for a longer call timeout: {"call_s": 600}.
        if info.get("timeouts"):
            result["timeouts"] = info["timeouts"]
        return result


def _is_memory(m):
    if isinstance(m, str):
        return True
    return (isinstance(m, dict) and isinstance(m.get("text"), str)
            and set(m) <= {"text", "time"}
            and (m.get("time") is None or isinstance(m.get("time"), str)))


def _query_result(reply):
    if isinstance(reply, str):
        return {"answer": reply}
    if isinstance(reply, (list, tuple)) and all(_is_memory(m) for m in reply):
        return {"memories": list(reply)}
    if isinstance(reply, dict) and len(reply) == 1 and (
            isinstance(reply.get("answer"), str)
            or (isinstance(reply.get("memories"), list)
                and all(_is_memory(m) for m in reply["memories"]))):
        return reply
    raise AdapterError(INTERNAL_ERROR,
                       "query must return a string, a list of memories (str or "
                       "{'text': str, 'time': str}), {'answer': str} or "
                       f"{{'memories': [...]}}; got {type(reply).__name__}")


def _failure(rid, error):
    obj = {"code": error.code, "message": error.message}
    if error.data is not None:
        obj["data"] = error.data
    return {"jsonrpc": "2.0", "id": rid, "error": obj}


def _is_shutdown(line):
    try:
        request = json.loads(line)
    except ValueError:
        return False
    return isinstance(request, dict) and request.get("method") == "shutdown"


def serve_stdio(memory, workers=8):
    """Serve on stdin/stdout until stdin closes or `shutdown` is answered.

    `memory` is the object to wrap, or a ready Dispatcher (e.g. a subclass).
    Requests run in a pool of `workers` threads and are answered as they finish (the
    ids match responses to requests); `shutdown` is answered after the calls in flight.
    """
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol stream
    dispatcher = memory if isinstance(memory, Dispatcher) else Dispatcher(memory)
    write_lock = threading.Lock()

    def answer(line):
        response = dispatcher.handle_text(line)
        if response is not None:
            data = (json.dumps(response, ensure_ascii=False) + "\n").encode("utf-8")
            with write_lock:
                out.write(data)
                out.flush()

    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        while True:
            raw = sys.stdin.buffer.readline()
            if not raw:
                break
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            if _is_shutdown(line):
                pool.shutdown(wait=True)  # answer the calls in flight first
                answer(line)
                break
            pool.submit(answer, line)
    finally:
        pool.shutdown(wait=True)
    return 0


def serve_http(memory, host="127.0.0.1", port=0, path="/rpc"):
    """Serve over HTTP until `shutdown` is answered; prints `listening on URL` first.

    `memory` is the object to wrap, or a ready Dispatcher (e.g. a subclass).
    """
    sys.stdout.flush()
    dispatcher = memory if isinstance(memory, Dispatcher) else Dispatcher(memory)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self):
            if self.path.split("?")[0] != path:
                return self._send(404, b"not found; post to " + path.encode(), "text/plain")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", errors="replace")
            response = dispatcher.handle_text(body)
            if response is None:
                self._send(204, b"", "application/json")
            else:
                self._send(200, json.dumps(response, ensure_ascii=False).encode(),
                           "application/json")
            if dispatcher.shutdown_requested.is_set():
                threading.Thread(target=server.shutdown, daemon=True).start()

        def _send(self, status, body, content_type):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):
            # One line per request is noise in a run of thousands of calls; set
            # BEMULA_ADAPTER_LOG=1 to see them.
            if os.environ.get("BEMULA_ADAPTER_LOG") == "1":
                sys.stderr.write("bemula_adapter: " + (fmt % args) + "\n")

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    bound_host, bound_port = server.server_address[:2]
    print(f"listening on http://{bound_host}:{bound_port}{path}", flush=True)
    sys.stdout = sys.stderr
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def main(memory, argv=None):
    """Command line: `--stdio` (the default) or `--http HOST:PORT` (port 0 picks one)."""
    parser = argparse.ArgumentParser(description="Serve a memory system over bemula-adapter/1.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--stdio", action="store_true", help="JSON lines on stdin/stdout")
    group.add_argument("--http", metavar="HOST:PORT", help="listen for HTTP POSTs at /rpc")
    args = parser.parse_args(argv)
    if args.http:
        host, sep, port = args.http.rpartition(":")
        if not sep or not port.isdigit():
            parser.error(f"--http expects HOST:PORT, got {args.http!r}")
        return serve_http(memory, host or "127.0.0.1", int(port))
    return serve_stdio(memory)
