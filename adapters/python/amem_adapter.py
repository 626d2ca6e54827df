"""A-MEM (the `a-mem` package, module `agentic_memory`) served over bemula-adapter/1.

Each namespace gets its own `AgenticMemorySystem` with its own ChromaDB folder. Every
user utterance becomes a note (`add_note`, stamped with the session date): the LLM
writes its keywords, context and tags, and the evolution step may link the note to its
neighbours and rewrite the neighbours' context and tags. A query is A-MEM's vector search
(`search`), each hit read back as its content with its context and tags (so that what
evolution rewrote is visible). A reset deletes every note of that namespace with
`AgenticMemorySystem.delete`, never another namespace's.

How it forgets: it cannot delete. Evolution can overwrite the context and tags of notes
related to a new note (a forget request included); the notes' content is never changed
or removed.

a-mem 0.2.6 imports torch, transformers and sentence-transformers at import time, so its
environment is large (about 6 GiB): it is opt-in (`BEMULA_ML_ADAPTERS=1
scripts/python-adapters.sh`, or `scripts/python-adapters.sh amem`). Its embeddings come
from the configured OpenAI-compatible embeddings endpoint (BEMULA_EMBED_BASE_URL when set,
else the chat one; the paper used text-embedding-3-small), in place of the
SentenceTransformers model A-MEM would download from the hub. A-MEM takes no embedding
function: `ChromaRetriever.__init__` (agentic_memory/retrievers.py) builds
`SentenceTransformerEmbeddingFunction(model_name=...)` itself and
`AgenticMemorySystem.__init__` (agentic_memory/memory_system.py) passes it only the model
name, so the adapter replaces that name in `agentic_memory.retrievers` before building a
system. torch stays installed all the same: both modules import
`sentence_transformers.SentenceTransformer` at module level (retrievers.py line 2,
memory_system.py line 11; neither uses it), and sentence-transformers imports torch.

Settings from the environment (see adapter_config.py): BEMULA_MODEL_BASE_URL,
OPENAI_API_KEY, BEMULA_EMBED_BASE_URL, BEMULA_EMBED_API_KEY, BEMULA_CHAT_MODEL,
BEMULA_EMBED_MODEL, BEMULA_EMBED_DIMS, BEMULA_TOP_K (default 10, the paper's),
BEMULA_AMEM_EVO_THRESHOLD (100, the package's).

Run: bemula check-adapter --system "cmd:python3 adapters/python/amem_adapter.py"
"""

import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter_config  # noqa: E402

adapter_config.offline()
MODELS = adapter_config.Models(top_k_default=10)
# A-MEM's OpenAI controller builds `OpenAI(api_key=...)`, which reads the base URL here.
os.environ["OPENAI_BASE_URL"] = MODELS.base_url
os.environ["OPENAI_API_KEY"] = MODELS.api_key

import agentic_memory.retrievers as retrievers  # noqa: E402
from agentic_memory.memory_system import AgenticMemorySystem  # noqa: E402
from bemula_adapter import main  # noqa: E402
from chromadb.api.types import EmbeddingFunction  # noqa: E402


class EndpointEmbeddingFunction(EmbeddingFunction):
    """A ChromaDB embedding function served by the configured endpoint."""

    def __init__(self, model_name=None, **_):
        self.model_name = MODELS.embed_model

    def __call__(self, input):
        return MODELS.embed(list(input))

    @staticmethod
    def name():
        return "bemula-endpoint"

    def get_config(self):
        return {"model_name": self.model_name}

    @staticmethod
    def build_from_config(config):
        return EndpointEmbeddingFunction(**config)


retrievers.SentenceTransformerEmbeddingFunction = EndpointEmbeddingFunction


class AMemAdapter:
    """An AgenticMemorySystem (and ChromaDB folder) per namespace."""

    def __init__(self):
        self.models = MODELS
        self.evo_threshold = adapter_config.positive_int("BEMULA_AMEM_EVO_THRESHOLD", 100)
        self.root = os.environ.get("BEMULA_AMEM_DIR") or tempfile.mkdtemp(prefix="bemula-amem-")
        self.systems = {}
        self.dates = {}
        self.lock = threading.Lock()

    def info(self):
        settings = self.models.settings()
        settings.update({
            "evo_threshold": self.evo_threshold,
            "forgetting_path": "no deletion: evolution may rewrite the context and tags of "
                               "notes related to a new note; note content is never changed",
            "reset": "AgenticMemorySystem.delete of every note in the namespace",
            "namespace_scope": "an AgenticMemorySystem and ChromaDB folder per namespace",
            "notes": "one per user utterance",
            "embedder": "the configured endpoint, in place of A-MEM's SentenceTransformers model",
            "concurrency": "nothing shared between namespaces but the model clients",
        })
        return {"name": "a-mem", "version": adapter_config.version("a-mem"), "settings": settings,
                "capabilities": {"query": "memories", "flush": False, "sessions": True},
                "timeouts": self.models.timeouts()}

    def _system(self, namespace):
        with self.lock:
            system = self.systems.get(namespace)
            if system is None:
                path = os.path.join(self.root, "ns_" + namespace.encode().hex())
                system = self.systems[namespace] = AgenticMemorySystem(
                    llm_backend="openai", llm_model=self.models.chat_model,
                    api_key=self.models.api_key, evo_threshold=self.evo_threshold,
                    storage_path=path)
            return system

    def reset(self, namespace):
        system = self._system(namespace)
        while True:
            ids = system.retriever.get_all_ids()
            if not ids:
                break
            for memory_id in ids:
                system.delete(memory_id)
        with self.lock:
            self.dates[namespace] = None

    def start_session(self, namespace, session):
        with self.lock:
            self.dates[namespace] = session.get("date")

    def observe(self, namespace, turn):
        if not turn["user"]:
            return
        system = self._system(namespace)
        with self.lock:
            date = self.dates.get(namespace)
        # A-MEM's own timestamp format: YYYYMMDDHHMM.
        stamp = date.replace("-", "")[:8] + "0000" if date else None
        system.add_note(turn["user"], time=stamp)

    def query(self, namespace, question):
        system = self._system(namespace)
        hits = system.search(question, k=self.models.top_k)
        notes = system.read_multiple([h["id"] for h in hits])
        found = []
        for hit in hits:
            note = notes.get(hit["id"])
            if note is not None:
                found.append(f"{note.content} (context: {note.context}; tags: {', '.join(note.tags)})")
        return found


if __name__ == "__main__":
    sys.exit(main(AMemAdapter()))
