"""Mem0 adapter: a reset leaves nothing of the namespace behind, and nothing of the others is touched.

Needs the mem0ai package and a model endpoint (BEMULA_MODEL_BASE_URL, e.g. the stand-in);
scripts/python-adapters.sh runs it in the Mem0 environment. Skipped elsewhere.
"""

import importlib.util
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

READY = importlib.util.find_spec("mem0") is not None and bool(os.environ.get("BEMULA_MODEL_BASE_URL"))


@unittest.skipUnless(READY, "needs mem0ai and BEMULA_MODEL_BASE_URL")
class Mem0Reset(unittest.TestCase):
    def setUp(self):
        import mem0_adapter
        from mem0.memory.main import _build_session_scope
        self.adapter = mem0_adapter.Mem0Adapter()
        self.scope = lambda ns: _build_session_scope({"user_id": mem0_adapter.user_id(ns)})

    def recent(self, namespace):
        return [m["content"] for m in self.adapter.memory.db.get_last_messages(self.scope(namespace))]

    def test_reset_clears_memories_and_the_recent_messages_mem0_feeds_its_extractor(self):
        a, b = "x 1/forget", "x 1/control"
        for ns in (a, b):
            self.adapter.reset(ns)
            self.adapter.observe(ns, {"index": 0, "user": f"My dog in {ns} is called Rex.", "assistant": "Noted."})
        self.assertTrue(self.recent(a))
        self.adapter.reset(a)
        self.assertEqual(self.adapter.query(a, "What is my dog called?"), [])
        # delete_all alone leaves these; Mem0 would show them to the LLM on the next add.
        self.assertEqual(self.recent(a), [])
        self.assertEqual(self.recent(b), [f"My dog in {b} is called Rex.", "Noted."])
        self.assertEqual(self.adapter.query(b, "What is my dog called?"), [f"My dog in {b} is called Rex."])


if __name__ == "__main__":
    unittest.main()
