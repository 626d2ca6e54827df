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
