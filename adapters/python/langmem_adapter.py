"""LangMem (the `langmem` package) served over bemula-adapter/1.

Each namespace gets its own LangGraph `InMemoryStore` and LangMem memory store manager
(`create_memory_store_manager`), so namespaces share no state; memories live under the
store namespace ("memories", <namespace>). Every turn (user and assistant message) goes
through the manager, whose LLM extracts, patches and, with deletions enabled, removes
memories. A query is a semantic search of the namespace's store, returning each memory's
text. A reset deletes every item under the namespace through `store.delete`.

How it forgets: LangMem's manager can remove stored memories during the dialogue
(`enable_deletes=True`; the package ships it off and the paper enables it), but only
memories its search surfaced for the current turn (`query_limit` of them) are shown to
the LLM, so only those can be patched or removed.

Embeddings come from the configured OpenAI-compatible endpoint through the `openai`
client (no tokenizer download), the chat model through `langchain_openai.ChatOpenAI`.
Tracing and telemetry are off.

Settings from the environment (see adapter_config.py): BEMULA_MODEL_BASE_URL,
OPENAI_API_KEY, BEMULA_CHAT_MODEL, BEMULA_EMBED_MODEL, BEMULA_EMBED_DIMS, BEMULA_TOP_K
(default 10), BEMULA_LANGMEM_QUERY_LIMIT (default 5, the package's) and
BEMULA_LANGMEM_DELETES (default true).

Run: bemula check-adapter --system "cmd:python3 adapters/python/langmem_adapter.py"
"""

import os
import sys
import threading
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter_config  # noqa: E402

adapter_config.offline()

from bemula_adapter import main  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402
from langmem import create_memory_store_manager  # noqa: E402

PAGE = 1000


def store_label(namespace):
    """A LangGraph namespace label for a bemula namespace: injective, with no period."""
    return quote(namespace, safe="").replace(".", "%2E")


def memory_text(value):
    """The text of a stored LangMem memory ({"kind", "content": {"content": text}})."""
    content = value.get("content", value) if isinstance(value, dict) else value
    if isinstance(content, dict) and isinstance(content.get("content"), str):
        return content["content"]
    return content if isinstance(content, str) else str(content)


class LangMemAdapter:
    """A store and a memory manager per namespace; the models are shared."""

    def __init__(self):
        self.models = adapter_config.Models(top_k_default=10)
        self.query_limit = adapter_config.positive_int("BEMULA_LANGMEM_QUERY_LIMIT", 5)
        self.enable_deletes = adapter_config.flag("BEMULA_LANGMEM_DELETES", True)
        m = self.models
        budget = {}
        if m.max_reply_tokens:
            # langchain-openai sends the budget as `max_completion_tokens`, which
            # llama.cpp's server (and other OpenAI-compatible servers) ignore, so that a
            # small local model ran one reply past 15 minutes; `max_tokens` goes in the
            # body too, the name every OpenAI-compatible server reads.
            budget = {"max_tokens": m.max_reply_tokens,
                      "extra_body": {"max_tokens": m.max_reply_tokens}}
        self.chat = ChatOpenAI(model=m.chat_model, base_url=m.base_url, api_key=m.api_key,
                               temperature=0, **budget)
        self.spaces = {}
        self.lock = threading.Lock()

    def info(self):
        settings = self.models.settings()
        settings.update({
            "enable_deletes": self.enable_deletes,
            "enable_inserts": True,
            "query_limit": self.query_limit,
            "forgetting_path": (
                "the memory manager's LLM may patch or remove stored memories during the "
                "dialogue (enable_deletes), limited to the query_limit memories its search "
                "surfaces for the turn"),
            "reset": "store.delete of every item under ('memories', namespace)",
            "namespace_scope": "a separate InMemoryStore and manager per namespace",
            "store": "langgraph InMemoryStore",
            "concurrency": "nothing shared between namespaces but the model clients",
            "langgraph": adapter_config.version("langgraph"),
        })
        return {"name": "langmem", "version": adapter_config.version("langmem"),
                "settings": settings,
                "capabilities": {"query": "memories", "flush": False, "sessions": False},
                "timeouts": self.models.timeouts()}

    def _space(self, namespace):
        with self.lock:
            space = self.spaces.get(namespace)
            if space is None:
                store = InMemoryStore(index={"dims": self.models.embed_dims,
                                             "embed": self.models.embed})
                manager = create_memory_store_manager(
                    self.chat, namespace=("memories", store_label(namespace)),
                    enable_deletes=self.enable_deletes, query_limit=self.query_limit,
                    store=store)
                space = self.spaces[namespace] = (store, manager)
            return space

    def reset(self, namespace):
        store, _ = self._space(namespace)
        prefix = ("memories", store_label(namespace))
        while True:
            items = store.search(prefix, limit=PAGE)
            if not items:
                break
            for item in items:
                store.delete(item.namespace, item.key)

    def observe(self, namespace, turn):
        _, manager = self._space(namespace)
        messages = [{"role": "user", "content": turn["user"]},
                    {"role": "assistant", "content": turn["assistant"]}]
        messages = [msg for msg in messages if msg["content"]]
        if messages:
            manager.invoke({"messages": messages})

    def query(self, namespace, question):
        store, _ = self._space(namespace)
        items = store.search(("memories", store_label(namespace)), query=question,
                             limit=self.models.top_k)
        return [memory_text(item.value) for item in items]


if __name__ == "__main__":
    sys.exit(main(LangMemAdapter()))
