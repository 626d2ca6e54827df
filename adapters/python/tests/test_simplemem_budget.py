"""SimpleMem's chat completions carry the reply budget the adapter adds: simplemem 0.1.0's
LLMClient sends no max_tokens, so a small local model ran a reply to the end of its
window. Needs the adapter's libraries (scripts/python-adapters.sh runs it in the
SimpleMem environment)."""

import importlib.util
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from recording_server import RecordingServer  # noqa: E402


@unittest.skipUnless(importlib.util.find_spec("simplemem"), "needs the simplemem adapter's libraries")
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
            import simplemem_adapter
            from simplemem.utils import llm_client
            adapter = simplemem_adapter.SimpleMemAdapter()
            client = llm_client.LLMClient(api_key="k", model="m", base_url=self.url,
                                          use_streaming=False)
            client.chat_completion([{"role": "user", "content": "hello"}])
            info = adapter.info()
        self.assertEqual(len(self.server.bodies), 1)
        return self.server.bodies[0], info["settings"]["max_reply_tokens"]

    def test_the_budget_is_sent_as_max_tokens(self):
        body, said = self.chat_body({"BEMULA_MAX_REPLY_TOKENS": "32"})
        self.assertEqual(body.get("max_tokens"), 32, body)
        self.assertEqual(said, 32)

    def test_without_a_budget_none_is_sent(self):
        from simplemem.utils import llm_client
        # An earlier test's adapter left its budget on the module; start without it.
        llm_client.OpenAI = getattr(llm_client.OpenAI, "bemula_unbudgeted", llm_client.OpenAI)
        body, said = self.chat_body({})
        self.assertNotIn("max_tokens", body)
        self.assertIn("unset", said)


if __name__ == "__main__":
    unittest.main()
