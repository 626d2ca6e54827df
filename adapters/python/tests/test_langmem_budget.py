"""The LangMem adapter's reply budget reaches an OpenAI-compatible server under the name
it reads (`max_tokens`), not only as langchain-openai's `max_completion_tokens`, which
llama.cpp's server ignores. Needs the adapter's libraries (scripts/python-adapters.sh
runs it in the LangMem environment)."""

import importlib.util
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from recording_server import RecordingServer  # noqa: E402


@unittest.skipUnless(importlib.util.find_spec("langchain_openai"), "needs the langmem adapter's libraries")
class ReplyBudget(unittest.TestCase):
    def setUp(self):
        self.server = RecordingServer()
        self.url = self.server.url

    def tearDown(self):
        self.server.close()

    def chat_body(self, env):
        base = {"BEMULA_MODEL_BASE_URL": self.url, "BEMULA_CHAT_MODEL": "m",
                "OPENAI_API_KEY": "k"}
        with mock.patch.dict(os.environ, dict(base, **env), clear=True):
            import langmem_adapter
            adapter = langmem_adapter.LangMemAdapter()
            adapter.chat.invoke("hello")
        self.assertEqual(len(self.server.bodies), 1)
        return self.server.bodies[0]

    def test_the_budget_is_sent_as_max_tokens(self):
        body = self.chat_body({"BEMULA_MAX_REPLY_TOKENS": "32"})
        self.assertEqual(body.get("max_tokens"), 32, body)

    def test_without_a_budget_none_is_sent(self):
        body = self.chat_body({})
        self.assertNotIn("max_tokens", body)
        self.assertNotIn("max_completion_tokens", body)


if __name__ == "__main__":
    unittest.main()
