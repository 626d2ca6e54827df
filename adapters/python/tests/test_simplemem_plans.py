"""SimpleMem's planning survives a model whose plans have another shape: simplemem 0.1.0
reads plan['required_info'] unguarded, so a small local model's valid JSON without that
key raised KeyError out of every query. Needs the adapter's libraries
(scripts/python-adapters.sh runs it in the SimpleMem environment)."""

import importlib.util
import json
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from recording_server import RecordingServer  # noqa: E402


class SearchLog:
    """A vector store that records what it is asked and finds nothing."""

    def __init__(self):
        self.searched = []

    def semantic_search(self, query, top_k=None):
        self.searched.append(query)
        return []


def replies(plan, queries):
    """Answers SimpleMem's planning prompt with `plan` and its query prompt with `queries`."""

    def reply(body):
        system = body["messages"][0]["content"]
        return json.dumps(queries if "query generation" in system else plan)

    return reply


@unittest.skipUnless(importlib.util.find_spec("simplemem"), "needs the simplemem adapter's libraries")
class MalformedPlans(unittest.TestCase):
    def retrieve(self, plan, queries, question):
        server = RecordingServer(replies(plan, queries))
        self.addCleanup(server.close)
        env = {"BEMULA_MODEL_BASE_URL": server.url, "BEMULA_CHAT_MODEL": "m", "OPENAI_API_KEY": "k"}
        with mock.patch.dict(os.environ, env, clear=True):
            import simplemem_adapter
            from simplemem.core.hybrid_retriever import HybridRetriever
            from simplemem.utils.llm_client import LLMClient
            adapter = simplemem_adapter.SimpleMemAdapter()
            store = SearchLog()
            retriever = HybridRetriever(
                llm_client=LLMClient(api_key="k", model="m", base_url=server.url, use_streaming=False),
                vector_store=store, enable_planning=True, enable_reflection=False,
                enable_parallel_retrieval=False)
            found = retriever.retrieve(question)
        self.settings = adapter.info()["settings"]
        return found, store.searched, server.bodies

    def test_a_plan_without_required_info_takes_simplemems_fallback(self):
        found, searched, bodies = self.retrieve(
            {"question_type": "factual", "key_entities": ["home"]},
            {"queries": ["home town of the user"]}, "Where do I live now?")
        self.assertEqual(found, [])
        self.assertEqual(searched, ["Where do I live now?", "home town of the user"])
        self.assertIn("fallback plan", self.settings["malformed_plans"])
        # The targeted-query prompt was built from the fallback plan.
        self.assertIn("relevant information", bodies[-1]["messages"][1]["content"])

    def test_a_plan_that_is_a_list_takes_the_fallback(self):
        found, searched, _ = self.retrieve(
            ["where", "live"], {"queries": []}, "Which street was my old flat on?")
        self.assertEqual(found, [])
        self.assertEqual(searched, ["Which street was my old flat on?"])

    def test_queries_that_are_not_text_are_dropped(self):
        plan = {"question_type": "factual", "required_info": [{"info_type": "place"}]}
        _, searched, _ = self.retrieve(
            plan, {"queries": [{"query": "flat"}, "  ", "street of the old flat", 7]},
            "Which street was my old flat on?")
        self.assertEqual(searched, ["Which street was my old flat on?", "street of the old flat"])


if __name__ == "__main__":
    unittest.main()
