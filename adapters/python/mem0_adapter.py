"""Mem0 (the `mem0ai` package) served over bemula-adapter/1.

Each namespace is a Mem0 user id (the namespace, percent-encoded so that it has no
whitespace, which Mem0 rejects). Every turn goes through `Memory.add` with the user and
assistant messages; a query is `Memory.search` filtered on that user id. A reset deletes
that user's memories with `Memory.delete_all(user_id=...)` and the recent-message context
Mem0 keeps per scope in its SQLite store (which `delete_all` leaves behind); it never
calls the global `Memory.reset()`.

How it forgets: in mem0ai 2.x, `add()` is additive. With inference on (the default) an
LLM extracts memories from the new messages and they are inserted, deduplicated by hash;
`add()` never updates or deletes a stored memory. Only explicit `update()`/`delete()`
calls remove or rewrite, and this adapter never issues them except for the reset. A
forget request can therefore only add memories; it cannot remove one.

The vector store is Qdrant in memory, the history store SQLite in memory; telemetry is
off (set before import). One lock serialises all calls: Qdrant's local mode is not safe
under concurrent writers.

Settings from the environment (see adapter_config.py): BEMULA_MODEL_BASE_URL,
OPENAI_API_KEY, BEMULA_CHAT_MODEL, BEMULA_EMBED_MODEL, BEMULA_EMBED_DIMS, BEMULA_TOP_K
(default 10), and BEMULA_MEM0_INFER (default true; false stores raw messages).

Run: bemula check-adapter --system "cmd:python3 adapters/python/mem0_adapter.py"
"""

import os
import sys
import tempfile
import threading
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter_config  # noqa: E402

adapter_config.offline()
os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="bemula-mem0-"))

from bemula_adapter import main  # noqa: E402
from mem0 import Memory  # noqa: E402
from mem0.memory.main import _build_session_scope  # noqa: E402
from qdrant_client import QdrantClient  # noqa: E402


def user_id(namespace):
    """The Mem0 user id of a namespace: injective, and free of whitespace."""
    return quote(namespace, safe="")


class Mem0Adapter:
    """One Mem0 `Memory` holding every namespace as a separate user id."""

    def __init__(self):
        self.models = adapter_config.Models(top_k_default=10)
        self.infer = adapter_config.flag("BEMULA_MEM0_INFER", True)
        m = self.models
        llm = {"model": m.chat_model, "openai_base_url": m.base_url, "api_key": m.api_key,
               "temperature": 0.0}
        if m.max_reply_tokens:
            llm["max_tokens"] = m.max_reply_tokens
        self.memory = Memory.from_config({
            "llm": {"provider": "openai", "config": llm},
            "embedder": {"provider": "openai", "config": {
                "model": m.embed_model, "openai_base_url": m.embed_base_url,
                "api_key": m.embed_api_key,
                "embedding_dims": m.embed_dims}},
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "bemula", "embedding_model_dims": m.embed_dims,
                "client": QdrantClient(location=":memory:")}},
            "history_db_path": ":memory:",
        })
        self.lock = threading.Lock()

    def info(self):
        settings = self.models.settings()
        settings.update({
            "infer": self.infer,
            "forgetting_path": (
                "none: add() only inserts (LLM-extracted memories when infer is on, raw "
                "messages when off, hash-deduplicated) and never updates or deletes; the "
                "adapter issues no delete except the reset"),
            "reset": "Memory.delete_all(user_id=namespace) plus the scope's recent messages "
                     "in the SQLite store; never Memory.reset()",
            "namespace_scope": "user_id (percent-encoded namespace)",
            "vector_store": "qdrant in memory",
            "history_store": "sqlite in memory",
            "telemetry": False,
            "concurrency": "one lock around every call",
        })
        return {"name": "mem0", "version": adapter_config.version("mem0ai"), "settings": settings,
                "capabilities": {"query": "memories", "flush": False, "sessions": False},
                "timeouts": self.models.timeouts()}

    def reset(self, namespace):
        uid = user_id(namespace)
        with self.lock:
            self.memory.delete_all(user_id=uid)
            db = self.memory.db
            with db._lock:
                db.connection.execute("DELETE FROM messages WHERE session_scope = ?",
                                      (_build_session_scope({"user_id": uid}),))
                db.connection.commit()

    def observe(self, namespace, turn):
        messages = [{"role": "user", "content": turn["user"]},
                    {"role": "assistant", "content": turn["assistant"]}]
        messages = [msg for msg in messages if msg["content"]]
        if not messages:
            return
        with self.lock:
            # A forget request is one more turn: Mem0's own pipeline decides what it does.
            self.memory.add(messages, user_id=user_id(namespace), infer=self.infer)

    def query(self, namespace, question):
        with self.lock:
            found = self.memory.search(question, filters={"user_id": user_id(namespace)},
                                       top_k=self.models.top_k)
        results = found["results"] if isinstance(found, dict) else found
        return [r["memory"] for r in results]


if __name__ == "__main__":
    sys.exit(main(Mem0Adapter()))
