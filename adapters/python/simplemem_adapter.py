"""SimpleMem (the `simplemem` package) served over bemula-adapter/1.

Each namespace gets its own `SimpleMemSystem` whose memories live in their own LanceDB
table (named from the namespace) in one database folder. Every turn is added as two
dialogues ("User", "Assistant") stamped with the session date; `flush` compresses what
is still buffered (`finalize`). A query runs SimpleMem's hybrid retrieval (semantic,
keyword and structured search, with its planning and reflection steps) and returns the
retrieved entries' restatements as memories. A reset drops and recreates that table
(`clear_db=True`, SimpleMem's `VectorStore.clear`), never another namespace's.

How it forgets: it does not. SimpleMem compresses each window of dialogues into memory
entries once and never edits or deletes them; a forget request is compressed like any
other turn.

Embeddings: simplemem 0.1.0 loads a SentenceTransformers model (Qwen3-Embedding by
default) from the Hugging Face hub; the adapter replaces that loader with an embedding
model served by the configured OpenAI-compatible endpoint (the paper used
text-embedding-3-small for every system), so neither torch nor sentence-transformers is
installed (`requirements/simplemem.txt` installs simplemem without them).

The searches of one query run one after another (SimpleMem's parallel retrieval merges
results in completion order, so the memories' order would vary from run to run); this
changes no result, only their order's stability.

Reply budget: simplemem 0.1.0's LLMClient sends no max_tokens, so a small local model
may run a reply to the end of its window (minutes on a CPU). With
BEMULA_MAX_REPLY_TOKENS set, the adapter gives the OpenAI clients SimpleMem makes that
budget (`max_tokens` on each chat completion it sends).

Malformed plans: with planning on (SimpleMem's default), SimpleMem asks the model for an
information plan in JSON and, in 0.1.0, reads `plan['required_info']` unguarded, so a
model that answers with valid JSON of another shape (a small local model does) raises
KeyError out of every query. SimpleMem falls back to a one-requirement plan when the
call or the JSON parse fails; the adapter makes a plan without a `required_info` list
take that same fallback, and keeps only the strings of a targeted-query list (a query
that is not a string would be sent to the embedder). Each such repair is logged to
stderr; the handshake says so under `malformed_plans`.

Settings from the environment (see adapter_config.py): BEMULA_MODEL_BASE_URL,
OPENAI_API_KEY, BEMULA_CHAT_MODEL, BEMULA_EMBED_MODEL, BEMULA_EMBED_DIMS,
BEMULA_MAX_REPLY_TOKENS; the retrieval
budgets are SimpleMem's own (semantic 25, keyword 5, structured 5; window 40 turns).

Run: bemula check-adapter --system "cmd:python3 adapters/python/simplemem_adapter.py"
"""

import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter_config  # noqa: E402

adapter_config.offline()

import numpy as np  # noqa: E402
import simplemem.core.hybrid_retriever  # noqa: E402
import simplemem.system  # noqa: E402
import simplemem.utils.llm_client  # noqa: E402
from bemula_adapter import main  # noqa: E402
from simplemem.config import get_config  # noqa: E402


class EndpointEmbedding:
    """SimpleMem's EmbeddingModel interface, served by an OpenAI-compatible endpoint."""

    models = None

    def __init__(self, model_name=None, use_optimization=True):
        self.model_name = self.models.embed_model
        self.dimension = self.models.embed_dims
        self.model_type = "openai_compatible_endpoint"
        self.supports_query_prompt = False

    def encode(self, texts, is_query=False):
        if isinstance(texts, str):
            texts = [texts]
        vectors = np.asarray(self.models.embed(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def encode_single(self, text, is_query=False):
        return self.encode([text], is_query=is_query)[0]

    def encode_query(self, queries):
        return self.encode(queries, is_query=True)

    def encode_documents(self, documents):
        return self.encode(documents, is_query=False)


def table_name(namespace):
    """A LanceDB table name for a namespace: injective, letters, digits and `_` only."""
    return "ns_" + namespace.encode().hex()


def budget_replies(max_tokens):
    """Makes the OpenAI clients that SimpleMem's LLMClient creates send `max_tokens`
    (unless a call sets it) on every chat completion."""
    module = simplemem.utils.llm_client
    make = getattr(module.OpenAI, "bemula_unbudgeted", module.OpenAI)

    def budgeted(*args, **kwargs):
        client = make(*args, **kwargs)
        create = client.chat.completions.create

        def create_with_budget(*a, **kw):
            kw.setdefault("max_tokens", max_tokens)
            return create(*a, **kw)

        client.chat.completions.create = create_with_budget
        return client

    budgeted.bemula_unbudgeted = make
    module.OpenAI = budgeted


def fallback_plan(query):
    """SimpleMem 0.1.0's own fallback plan (HybridRetriever._analyze_information_requirements
    returns it when the model call or the JSON parse fails)."""
    return {
        "question_type": "general",
        "key_entities": [query],
        "required_info": [{"info_type": "general", "description": "relevant information",
                           "priority": "high"}],
        "relationships": [],
        "minimal_queries_needed": 1,
    }


def guard_plans():
    """Makes SimpleMem's planning survive a model's malformed plan: a plan that is not an
    object with a `required_info` list becomes SimpleMem's fallback plan, and a list of
    targeted queries keeps only its non-empty strings (the question itself if none)."""
    retriever = simplemem.core.hybrid_retriever.HybridRetriever
    analyse = getattr(retriever._analyze_information_requirements, "bemula_unguarded",
                      retriever._analyze_information_requirements)
    target = getattr(retriever._generate_targeted_queries, "bemula_unguarded",
                     retriever._generate_targeted_queries)

    def analyse_guarded(self, query):
        plan = analyse(self, query)
        if isinstance(plan, dict) and isinstance(plan.get("required_info"), list):
            return plan
        print(f"simplemem adapter: the model's information plan has no required_info list "
              f"({type(plan).__name__}); using SimpleMem's fallback plan", file=sys.stderr)
        return fallback_plan(query)

    def target_guarded(self, query, plan):
        queries = target(self, query, plan)
        queries = queries if isinstance(queries, list) else [queries]
        kept = [q for q in queries if isinstance(q, str) and q.strip()]
        if len(kept) < len(queries):
            print(f"simplemem adapter: dropped targeted queries that are not text: {queries!r}",
                  file=sys.stderr)
        return kept or [query]

    analyse_guarded.bemula_unguarded = analyse
    target_guarded.bemula_unguarded = target
    retriever._analyze_information_requirements = analyse_guarded
    retriever._generate_targeted_queries = target_guarded


class SimpleMemAdapter:
    """A SimpleMemSystem (and LanceDB table) per namespace."""

    def __init__(self):
        self.models = adapter_config.Models(top_k_default=25)
        if self.models.max_reply_tokens:
            budget_replies(self.models.max_reply_tokens)
        EndpointEmbedding.models = self.models
        guard_plans()
        simplemem.system.EmbeddingModel = EndpointEmbedding
        self.db_path = os.environ.get("BEMULA_SIMPLEMEM_DB") or tempfile.mkdtemp(prefix="bemula-simplemem-")
        config = get_config()
        config.embedding_model = self.models.embed_model
        config.embedding_dimension = self.models.embed_dims
        config.use_streaming = False
        self.systems = {}
        self.dates = {}
        self.lock = threading.Lock()

    def info(self):
        config = get_config()
        settings = self.models.settings()
        settings.update({
            "top_k": {"semantic": config.semantic_top_k, "keyword": config.keyword_top_k,
                      "structured": config.structured_top_k},
            "window_size": config.window_size, "overlap_size": config.overlap_size,
            "planning": config.enable_planning, "reflection": config.enable_reflection,
            "max_reflection_rounds": config.max_reflection_rounds,
            "forgetting_path": "none: each window of turns is compressed into entries once; "
                               "entries are never edited or deleted",
            "reset": "drop and recreate the namespace's LanceDB table (VectorStore.clear)",
            "namespace_scope": "a SimpleMemSystem and LanceDB table per namespace",
            "embedder": "the configured endpoint, in place of SimpleMem's SentenceTransformers loader",
            "streaming": False,
            "max_reply_tokens": self.models.max_reply_tokens
            or "unset: simplemem 0.1.0's LLMClient sends no max_tokens (set "
               "BEMULA_MAX_REPLY_TOKENS and the adapter adds it)",
            "malformed_plans": "a plan without a required_info list takes SimpleMem's own "
                               "fallback plan; targeted queries that are not text are dropped "
                               "(simplemem 0.1.0 raises KeyError on the first)",
            "parallel_retrieval": False,
            "parallel_processing": False,
            "why_not_parallel": "SimpleMem merges parallel searches in completion order, "
                                "which makes the order of retrieved memories vary",
            "concurrency": "nothing shared between namespaces but the database folder",
        })
        return {"name": "simplemem", "version": adapter_config.version("simplemem"),
                "settings": settings,
                "capabilities": {"query": "memories", "flush": True, "sessions": True},
                "timeouts": self.models.timeouts()}

    def _system(self, namespace):
        with self.lock:
            system = self.systems.get(namespace)
        if system is None:
            raise RuntimeError(f"namespace {namespace!r} was never reset")
        return system

    def reset(self, namespace):
        m = self.models
        system = simplemem.system.SimpleMemSystem(
            api_key=m.api_key, model=m.chat_model, base_url=m.base_url, db_path=self.db_path,
            table_name=table_name(namespace), clear_db=True, use_streaming=False,
            # Parallel retrieval merges its searches' results in completion order, so the
            # same question could return the memories in another order from run to run.
            enable_parallel_retrieval=False, enable_parallel_processing=False)
        with self.lock:
            self.systems[namespace] = system
            self.dates[namespace] = None

    def start_session(self, namespace, session):
        with self.lock:
            self.dates[namespace] = session.get("date")

    def observe(self, namespace, turn):
        system = self._system(namespace)
        with self.lock:
            date = self.dates.get(namespace)
        stamp = f"{date}T00:00:00" if date and "T" not in date else date
        for speaker, text in (("User", turn["user"]), ("Assistant", turn["assistant"])):
            if text:
                system.add_dialogue(speaker, text, timestamp=stamp)

    def flush(self, namespace):
        self._system(namespace).finalize()

    def query(self, namespace, question):
        system = self._system(namespace)
        system.finalize()
        entries = system.hybrid_retriever.retrieve(question)
        return [e.lossless_restatement for e in entries]


if __name__ == "__main__":
    sys.exit(main(SimpleMemAdapter()))
