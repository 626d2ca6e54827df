"""A chat-completions endpoint on 127.0.0.1 that records every request body and answers
"ok" (or what `reply(body)` returns), for the adapters' tests of what they send and of
how they take what comes back."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


class RecordingServer:
    """Start it, point a client at `url`, read `bodies`; `close()` when done. `reply`, if
    given, maps a request body to the reply's text."""

    def __init__(self, reply=None):
        bodies = self.bodies = []
        answer = reply or (lambda body: "ok")

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                bodies.append(body)
                reply = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer(body)}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
