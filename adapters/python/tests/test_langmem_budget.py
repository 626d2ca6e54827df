"""The LangMem adapter's reply budget reaches an OpenAI-compatible server under the name
it reads (`max_tokens`), not only as langchain-openai's `max_completion_tokens`, which
llama.cpp's server ignores. Needs the adapter's libraries (scripts/python-adapters.sh
runs it in the LangMem environment)."""

import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


class Recorder(BaseHTTPRequestHandler):
    bodies = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Recorder.bodies.append(body)
        reply = json.dumps({
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


class ReplyBudget(unittest.TestCase):
    def setUp(self):
        self.server = HTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        Recorder.bodies.clear()

    def tearDown(self):
        self.server.shutdown()

    def chat_body(self, env):
        base = {"BEMULA_MODEL_BASE_URL": self.url, "BEMULA_CHAT_MODEL": "m",
                "OPENAI_API_KEY": "k"}
        with mock.patch.dict(os.environ, dict(base, **env), clear=True):
            import langmem_adapter
            adapter = langmem_adapter.LangMemAdapter()
            adapter.chat.invoke("hello")
        self.assertEqual(len(Recorder.bodies), 1)
        return Recorder.bodies[0]

    def test_the_budget_is_sent_as_max_tokens(self):
        body = self.chat_body({"BEMULA_MAX_REPLY_TOKENS": "32"})
        self.assertEqual(body.get("max_tokens"), 32, body)

    def test_without_a_budget_none_is_sent(self):
        body = self.chat_body({})
        self.assertNotIn("max_tokens", body)
        self.assertNotIn("max_completion_tokens", body)


if __name__ == "__main__":
    unittest.main()
