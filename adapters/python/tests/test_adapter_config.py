"""Tests of the adapters' shared configuration: environment parsing and what the handshake reveals.

Run: python3 -m unittest discover -s adapters/python/tests
"""

import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import adapter_config  # noqa: E402

CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith("BEMULA_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}


class Config(unittest.TestCase):
    def test_defaults_are_the_papers_models(self):
        with mock.patch.dict(os.environ, CLEAN, clear=True):
            m = adapter_config.Models(top_k_default=10)
        self.assertEqual((m.base_url, m.chat_model, m.embed_model, m.embed_dims, m.top_k),
                         ("https://api.openai.com/v1", "gpt-4o-mini", "text-embedding-3-small", 1536, 10))

    def test_environment_overrides_and_the_key_never_shows(self):
        env = dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:9/v1/", OPENAI_API_KEY="sk-secret-123",
                   BEMULA_CHAT_MODEL="qwen3", BEMULA_EMBED_DIMS="256", BEMULA_TOP_K="4")
        with mock.patch.dict(os.environ, env, clear=True):
            m = adapter_config.Models()
        settings = m.settings()
        self.assertEqual(settings["model_base_url"], "http://127.0.0.1:9/v1")
        self.assertEqual((settings["chat_model"], settings["embed_dims"], settings["top_k"]), ("qwen3", 256, 4))
        self.assertEqual(settings["api_key"], "set")
        self.assertNotIn("sk-secret-123", repr(settings))

    def test_bemulas_own_llm_url_is_the_chat_endpoint_when_no_adapter_url_is_set(self):
        env = dict(CLEAN, BEMULA_LLM_BASE_URL="http://127.0.0.1:8123/v1/", OPENAI_BASE_URL="http://elsewhere/v1")
        with mock.patch.dict(os.environ, env, clear=True):
            m = adapter_config.Models()
        self.assertEqual(m.base_url, "http://127.0.0.1:8123/v1")
        env["BEMULA_MODEL_BASE_URL"] = "http://127.0.0.1:9000/v1"
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(adapter_config.Models().base_url, "http://127.0.0.1:9000/v1")

    def test_embeddings_have_their_own_endpoint_and_key_defaulting_to_the_chat_ones(self):
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:7001/v1",
                                              OPENAI_API_KEY="sk-chat-77"), clear=True):
            m = adapter_config.Models()
        self.assertEqual((m.embed_base_url, m.embed_api_key), ("http://127.0.0.1:7001/v1", "sk-chat-77"))
        self.assertEqual(m.settings()["embed_api_key"], "set")
        env = dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:7001/v1", OPENAI_API_KEY="sk-chat-77",
                   BEMULA_EMBED_BASE_URL="http://127.0.0.1:7002/v1/", BEMULA_EMBED_API_KEY="sk-embed-88")
        with mock.patch.dict(os.environ, env, clear=True):
            m = adapter_config.Models()
        self.assertEqual(m.base_url, "http://127.0.0.1:7001/v1")
        self.assertEqual((m.embed_base_url, m.embed_api_key), ("http://127.0.0.1:7002/v1", "sk-embed-88"))
        settings = m.settings()
        self.assertEqual(settings["embed_base_url"], "http://127.0.0.1:7002/v1")
        self.assertNotIn("sk-embed-88", repr(settings))
        self.assertNotIn("sk-chat-77", repr(settings))
        # Without any key the embeddings key is unset too.
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_EMBED_BASE_URL="http://127.0.0.1:7002/v1"),
                             clear=True):
            self.assertEqual(adapter_config.Models().settings()["embed_api_key"], "unset")

    def test_embed_calls_the_embeddings_endpoint(self):
        seen = {}

        class FakeOpenAI:
            def __init__(self, base_url, api_key):
                seen.update(base_url=base_url, api_key=api_key)
                self.embeddings = self

            def create(self, model, input, dimensions):
                seen.update(model=model, input=input)
                return mock.Mock(data=[mock.Mock(embedding=[0.5, 0.25]) for _ in input])

        env = dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:7001/v1",
                   BEMULA_EMBED_BASE_URL="http://127.0.0.1:7002/v1", BEMULA_EMBED_MODEL="e5-small")
        with mock.patch.dict(os.environ, env, clear=True):
            m = adapter_config.Models()
        with mock.patch.dict(sys.modules, {"openai": mock.Mock(OpenAI=FakeOpenAI)}):
            vectors = m.embed(["a lighthouse on the coast"])
        self.assertEqual(vectors, [[0.5, 0.25]])
        self.assertEqual((seen["base_url"], seen["api_key"], seen["model"]),
                         ("http://127.0.0.1:7002/v1", "no-key", "e5-small"))

    def test_the_handshake_asks_for_a_call_timeout_fit_for_llm_calls(self):
        with mock.patch.dict(os.environ, CLEAN, clear=True):
            self.assertEqual(adapter_config.Models().timeouts(), {"call_s": 600})
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_ADAPTER_CALL_S="900"), clear=True):
            self.assertEqual(adapter_config.Models().timeouts(), {"call_s": 900})
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_ADAPTER_CALL_S="soon"), clear=True):
            with self.assertRaises(SystemExit) as e:
                adapter_config.Models()
            self.assertIn("BEMULA_ADAPTER_CALL_S", str(e.exception))

    def test_the_reply_budget_is_the_librarys_unless_set(self):
        with mock.patch.dict(os.environ, CLEAN, clear=True):
            models = adapter_config.Models()
            self.assertIsNone(models.max_reply_tokens)
            self.assertEqual(models.settings()["max_reply_tokens"], "the library's default")
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_MAX_REPLY_TOKENS="256"), clear=True):
            models = adapter_config.Models()
            self.assertEqual(models.max_reply_tokens, 256)
            self.assertEqual(models.settings()["max_reply_tokens"], 256)
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_MAX_REPLY_TOKENS="0"), clear=True):
            with self.assertRaises(SystemExit) as e:
                adapter_config.Models()
            self.assertIn("BEMULA_MAX_REPLY_TOKENS", str(e.exception))

    def test_openai_base_url_is_the_fallback(self):
        with mock.patch.dict(os.environ, dict(CLEAN, OPENAI_BASE_URL="http://127.0.0.1:8/v1"), clear=True):
            self.assertEqual(adapter_config.Models().base_url, "http://127.0.0.1:8/v1")

    def test_malformed_numbers_and_flags_name_the_variable(self):
        for name, value in (("BEMULA_TOP_K", "ten"), ("BEMULA_EMBED_DIMS", "0"), ("BEMULA_TOP_K", "-3")):
            with mock.patch.dict(os.environ, dict(CLEAN, **{name: value}), clear=True):
                with self.assertRaises(SystemExit) as e:
                    adapter_config.Models()
                self.assertIn(name, str(e.exception))
        with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_MEM0_INFER="maybe"), clear=True):
            with self.assertRaises(SystemExit) as e:
                adapter_config.flag("BEMULA_MEM0_INFER", True)
            self.assertIn("BEMULA_MEM0_INFER", str(e.exception))

    def test_flags(self):
        for raw, want in (("", True), ("false", False), ("0", False), ("Yes", True), ("off", False)):
            with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_X=raw), clear=True):
                self.assertIs(adapter_config.flag("BEMULA_X", True), want)

    def test_offline_switches_off_telemetry_and_downloads(self):
        with mock.patch.dict(os.environ, dict(CLEAN, MEM0_TELEMETRY="True"), clear=True):
            adapter_config.offline()
            self.assertEqual(os.environ["MEM0_TELEMETRY"], "False")
            self.assertEqual(os.environ["HF_HUB_OFFLINE"], "1")
            self.assertEqual(os.environ["ANONYMIZED_TELEMETRY"], "False")


if __name__ == "__main__":
    unittest.main()
