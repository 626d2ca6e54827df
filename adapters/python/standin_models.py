"""An offline stand-in for an OpenAI-compatible model endpoint (test infrastructure only).

It lets the real code of memory libraries (Mem0, LangMem, ...) run without a network or
model weights, so their bemula adapters can be tested in CI. It is deterministic and
understands nothing: scores measured against it mean nothing about any memory system.

Endpoints (HTTP on 127.0.0.1, standard library only):

    GET  /v1/models              the model names it answers to (any name is accepted)
    POST /v1/embeddings          hashing bag-of-words vectors, L2-normalised, of a fixed
                                 dimension (--dims, or the request's `dimensions`); the
                                 `base64` encoding format is supported
    POST /v1/chat/completions    scripted replies:
        - a request with `tools`: one call of the tool that `tool_choice` names, else of
          the first tool that creates something (not a done/remove/delete/patch tool),
          with arguments built from its JSON schema, the strings filled with the newest
          user text of the conversation;
        - a request with a `json_schema` response format: an instance of the schema,
          built the same way;
        - a Mem0 extraction prompt (it asks for `{"memory": [...]}`): every new user
          message returned as a memory to ADD;
        - a SimpleMem compression prompt (it asks for `lossless_restatement` entries):
          every user line of the current window returned as one entry;
        - a LightMem extraction prompt (it asks for `{"data": [{"source_id", "fact"}]}`):
          every numbered line (`[time, day] 3.user: ...`) of the last user message
          returned as a fact with its number as `source_id`;
        - any other JSON-object request: `{}`;
        - anything else: the newest user text, as plain text.
      Nothing is ever updated or deleted by the scripted replies.

With --latency-ms N every POST is answered N milliseconds late (requests are served
concurrently), standing for a hosted model's round trip in throughput measurements.

Run:  python3 adapters/python/standin_models.py [--port 0] [--dims 256] [--port-file F]
                                                [--latency-ms 0]
It prints `listening on http://127.0.0.1:PORT/v1` on stdout once it accepts requests.
"""

import argparse
import base64
import hashlib
import json
import math
import os
import re
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODELS = ("standin-chat", "standin-embed")
WORD = re.compile(r"[a-z0-9]+")
STRING_LIMIT = 600


def embed(text, dims):
    """A deterministic hashing bag-of-words vector of `dims` floats, L2-normalised."""
    vector = [0.0] * dims
    for word in WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dims
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


def message_text(message):
    """The text of one chat message (a string, or the text parts of a list)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def user_lines(messages):
    """What the user said most recently, as a list of lines.

    Library prompts quote conversations as `user: ...` lines, often under a heading for
    the new messages; those lines win. Otherwise the last user message's text is used.
    """
    texts = [message_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not texts:
        texts = [message_text(m) for m in messages if isinstance(m, dict)]
    text = texts[-1] if texts else ""
    section = (re.search(r"#+\s*New Messages\s*\n(.*?)(?:\n#+\s|\Z)", text, re.S | re.I)
               or re.search(r"\[Current Window Dialogues\]\s*\n(.*?)(?:\n\[[A-Z][^\]\n]*\]\s*\n|\Z)",
                            text, re.S))
    scope = section.group(1) if section else text
    banners = re.split(r"^=+ (Human|Ai|System|Tool) Message =+$", scope, flags=re.M)
    if len(banners) > 1:  # LangChain's printed messages
        said = [re.sub(r"\n\s*</[^>]+>\s*$", "", body).strip()
                for who, body in zip(banners[1::2], banners[2::2]) if who == "Human"]
        said = [text for text in said if text]
        if said:
            return said
    quoted, speaker = [], None
    for line in scope.splitlines():
        turn = re.match(r"\s*(?:\[[^\]\n]*\]\s*)?(user|human|assistant|ai|system)\s*:(.*)", line, re.I)
        if turn:
            speaker = turn.group(1).lower()
            if speaker in ("user", "human"):
                quoted.append(turn.group(2).strip())
        elif speaker in ("user", "human") and line.strip():
            quoted[-1] = (quoted[-1] + "\n" + line.strip()).strip()
    quoted = [q for q in quoted if q]
    if quoted:
        return quoted
    lines = [line.strip() for line in scope.splitlines() if line.strip()]
    return lines[-1:] if lines else ["nothing"]


def numbered_lines(text):
    """The numbered lines of a LightMem prompt (`[time, day] 3.user: ...`) as (number, text) pairs.

    A line without a number continues the message above it; assistant lines are left out.
    """
    found, current = [], None
    for line in text.splitlines():
        numbered = re.match(r"\s*(?:\[[^\]\n]*\]\s*)?(\d+)\.(\S[^:\n]*):(.*)", line)
        if numbered:
            current = None
            if numbered.group(2).strip().lower() not in ("assistant", "ai", "system"):
                current = [int(numbered.group(1)), numbered.group(3).strip()]
                found.append(current)
        elif line.startswith("--- Topic"):
            current = None
        elif current is not None and line.strip():
            current[1] = (current[1] + "\n" + line.strip()).strip()
    return [(number, said) for number, said in found if said]


def instance(schema, text, defs=None, depth=0):
    """A JSON value valid for a (simple) JSON schema, its strings filled with `text`."""
    defs = defs if defs is not None else (schema.get("$defs") or schema.get("definitions") or {})
    if not isinstance(schema, dict) or depth > 8:
        return text
    if "$ref" in schema:
        target = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
        return instance(target, text, defs, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return instance(options[0], text, defs, depth + 1)
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: instance(sub, text, defs, depth + 1) for name, sub in props.items()}
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        if isinstance(items, dict) and items.get("type", "string") == "string" and "enum" not in items:
            return [w for w in dict.fromkeys(WORD.findall(text.lower())) if len(w) > 3][:5]
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    return text[:STRING_LIMIT]


def creating_tool(tools, choice):
    """The tool to call: the one `tool_choice` names, else the first creating one."""
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    functions = [t.get("function", t) for t in tools if isinstance(t, dict)]
    for f in functions:
        if named and f.get("name") == named:
            return f
    for f in functions:
        if not re.search(r"done|remove|delete|patch", f.get("name", ""), re.I):
            return f
    return functions[0] if functions else None


def chat_reply(body):
    """The assistant message for a chat completion request: (message, finish_reason)."""
    messages = body.get("messages") or []
    lines = user_lines(messages)
    text = " ".join(lines)
    tools = body.get("tools") or []
    if tools and body.get("tool_choice") != "none":
        tool = creating_tool(tools, body.get("tool_choice"))
        if tool is not None:
            args = instance(tool.get("parameters") or {}, text)
            call_id = "call_" + hashlib.sha1(json.dumps([tool.get("name"), args]).encode()).hexdigest()[:16]
            return ({"role": "assistant", "content": None, "tool_calls": [{
                "id": call_id, "type": "function",
                "function": {"name": tool.get("name", "tool"), "arguments": json.dumps(args)}}]},
                    "tool_calls")
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return {"role": "assistant", "content": json.dumps(instance(schema, text))}, "stop"
    prompt = "\n".join(message_text(m) for m in messages if isinstance(m, dict))
    if '"memory"' in prompt and "attributed_to" in prompt:
        memories = [{"id": str(i), "text": line, "attributed_to": "user"} for i, line in enumerate(lines)]
        return {"role": "assistant", "content": json.dumps({"memory": memories})}, "stop"
    if "lossless_restatement" in prompt:  # SimpleMem's window compression
        entries = [{"lossless_restatement": line, "keywords": instance({"type": "array"}, line),
                    "timestamp": None, "location": None, "persons": [], "entities": [],
                    "topic": "conversation"} for line in lines]
        return {"role": "assistant", "content": json.dumps(entries)}, "stop"
    if '"source_id"' in prompt and '"fact"' in prompt:  # LightMem's fact extraction
        users = [message_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        facts = [{"source_id": number, "fact": said} for number, said in numbered_lines(users[-1] if users else "")]
        return {"role": "assistant", "content": json.dumps({"data": facts})}, "stop"
    if fmt.get("type") == "json_object":
        return {"role": "assistant", "content": "{}"}, "stop"
    return {"role": "assistant", "content": text[:STRING_LIMIT]}, "stop"


def tokens(text):
    """A rough token count (words), for the usage fields."""
    return len(WORD.findall(str(text).lower()))


class Handler(BaseHTTPRequestHandler):
    """Serves the three endpoints; anything else is a 404 naming the path."""

    protocol_version = "HTTP/1.1"
    dims = 256
    latency_s = 0.0
    log_file = None
    log_lock = threading.Lock()

    def log_message(self, fmt, *args):  # keep stderr quiet
        pass

    def send_json(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, message):
        self.send_json(status, {"error": {"message": message, "type": "invalid_request_error"}})

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "bemula-standin"} for m in MODELS]})
        else:
            self.error(404, f"no such endpoint: GET {self.path}")

    def do_POST(self):
        if self.latency_s > 0:
            time.sleep(self.latency_s)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as e:
            self.error(400, f"request body is not valid JSON: {e}")
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/embeddings"):
            reply = self.embeddings(body)
        elif path.endswith("/chat/completions"):
            message, finish = chat_reply(body)
            reply = {"id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()),
                     "model": body.get("model", MODELS[0]),
                     "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                     "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
        else:
            self.error(404, f"no such endpoint: POST {self.path}")
            return
        if reply is None:
            return
        if self.log_file:
            with self.log_lock, open(self.log_file, "a") as f:
                f.write(json.dumps({"path": path, "request": body, "reply": reply}) + "\n")
        self.send_json(200, reply)

    def embeddings(self, body):
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
            self.error(400, "`input` must be a string or a list of strings (token arrays are not supported)")
            return None
        dims = body.get("dimensions") or self.dims
        if not isinstance(dims, int) or dims < 1:
            self.error(400, "`dimensions` must be a positive integer")
            return None
        data = []
        for i, text in enumerate(inputs):
            vector = embed(text, dims)
            if body.get("encoding_format") == "base64":
                vector = base64.b64encode(struct.pack(f"<{dims}f", *vector)).decode()
            data.append({"object": "embedding", "index": i, "embedding": vector})
        used = sum(tokens(t) for t in inputs)
        return {"object": "list", "data": data, "model": body.get("model", MODELS[1]),
                "usage": {"prompt_tokens": used, "total_tokens": used}}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Offline stand-in for an OpenAI-compatible model endpoint "
                                                 "(test infrastructure: its answers mean nothing).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--dims", type=int, default=256, help="embedding dimension when a request names none")
    parser.add_argument("--port-file", help="write the port number here once listening")
    parser.add_argument("--log", help="append every request and reply here (JSON lines)")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="answer every POST this many milliseconds late (a fixed round trip)")
    args = parser.parse_args(argv)
    if args.dims < 1:
        parser.error("--dims must be a positive integer")
    if not args.latency_ms >= 0:
        parser.error("--latency-ms must be a non-negative number")
    Handler.latency_s = args.latency_ms / 1000.0
    Handler.dims = args.dims
    Handler.log_file = args.log
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{port}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"listening on http://{args.host}:{port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
