"""LightMem (zjunlp/LightMem, module `lightmem`) served over bemula-adapter/1.

LightMem is installed from its repository (its only PyPI release, 0.0.0, is an empty
skeleton): requirements/lightmem.txt pins the commit this adapter was written against.

Each namespace gets its own `LightMemory` with its own local Qdrant folder. LightMem is
configured for an OpenAI-compatible endpoint: its `openai` memory manager (the LLM that
extracts facts and decides updates) on the chat endpoint, its `openai` text embedder on
the embeddings endpoint, `embedding` indexing and retrieval. Its llmlingua-2 pre-compressor
and topic segmenter are off (they need torch and a local BERT model), so every call to
`add_memory` is one segment and LightMem's short-term buffer batches segments for
extraction, from the user's messages (`messages_use="user_only"`, LightMem's default).

A turn is passed to `LightMemory.add_memory` as a user and an assistant message stamped
with the session's date (LightMem's `YYYY/MM/DD (Ddd) HH:MM:SS` form), turns one second
apart and never earlier than the namespace's previous turn, so that LightMem's time order
is the dialogue's. By default (`BEMULA_LIGHTMEM_EXTRACT=buffer`) the adapter does what
LightMem's own LongMemEval and LoCoMo runners do: every turn goes in unforced, LightMem's
512-token short-term buffer decides when to extract, and the last turn (here: the one
before `flush`, or before `end_session` when the update runs there) goes in with
`force_segment=True, force_extract=True`; the adapter holds back the newest turn until the
next call to know which one is last. `BEMULA_LIGHTMEM_EXTRACT=turn` forces extraction on
every turn, as LightMem's README example does.

How it forgets: extraction only adds memories. LightMem's offline update
(`construct_update_queue_all_entries`, then `offline_update_all_entries(score_threshold)`)
shows the LLM each stored memory with the newer memories whose similarity reaches the
threshold, and the LLM may update or delete it. It runs at `flush`, once every turn is
extracted (`BEMULA_LIGHTMEM_UPDATE=flush`, the default, as LightMem's experiments run it
once after construction), at every `end_session` (`session`), or never (`off`). A query
is `LightMemory.retrieve`, whose hits read `<time stamp> <weekday> <memory>`. A reset
closes the namespace's LightMemory and builds a new one over a new Qdrant store (LightMem
removes the folder of a store that is not `on_disk`), never touching another namespace.
In `buffer` mode the newest turn reaches LightMem at `flush`, which bemula calls before it
queries.

Settings from the environment (see adapter_config.py): BEMULA_MODEL_BASE_URL,
OPENAI_API_KEY, BEMULA_EMBED_BASE_URL, BEMULA_EMBED_API_KEY, BEMULA_CHAT_MODEL,
BEMULA_EMBED_MODEL, BEMULA_EMBED_DIMS, BEMULA_TOP_K (default 10, `retrieve`'s),
BEMULA_ADAPTER_CALL_S; BEMULA_LIGHTMEM_UPDATE (flush | session | off),
BEMULA_LIGHTMEM_UPDATE_THRESHOLD (0.8, LightMem's README), BEMULA_LIGHTMEM_EXTRACT
(buffer | turn), BEMULA_LIGHTMEM_DIR (the folder for the Qdrant stores, kept; by default
a new temporary one, removed when the adapter exits). OPENROUTER_API_KEY is dropped: with
it set, LightMem's manager would send its calls to OpenRouter instead of the configured
endpoint.

LightMem loads tiktoken's o200k_base encoding when it builds a LightMemory (to count the
short-term buffer's tokens); tiktoken downloads it once and caches it (TIKTOKEN_CACHE_DIR).

Run: bemula check-adapter --system "cmd:python3 adapters/python/lightmem_adapter.py"
"""

import atexit
import datetime
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter_config  # noqa: E402

# The commit of zjunlp/LightMem this adapter was written against (requirements/lightmem.txt).
PINNED_COMMIT = "8fc9a9179f9170c4a40fc653fcb410375900f26e"
# What the adapter calls on a LightMemory; the PyPI skeleton has none of it.
API = ("from_config", "add_memory", "retrieve", "construct_update_queue_all_entries",
       "offline_update_all_entries")
UPDATE_POINTS = ("flush", "session", "off")
EXTRACT_MODES = ("buffer", "turn")
COLLECTION = "bemula"


def choice(name, default, options):
    """An environment variable that must be one of `options`; a clear exit naming it otherwise."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw not in options:
        raise SystemExit(f"{name} must be one of {', '.join(options)}, got {raw!r}")
    return raw


def unit_float(name, default):
    """A number in (0, 1] from the environment; a clear exit naming the variable otherwise."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a number in (0, 1], got {raw!r}") from None
    if not 0.0 < value <= 1.0:
        raise SystemExit(f"{name} must be a number in (0, 1], got {raw!r}")
    return value


def route_to_configured_endpoint():
    """Drop OPENROUTER_API_KEY: with it set, LightMem's OpenAI manager calls OpenRouter."""
    os.environ.pop("OPENROUTER_API_KEY", None)


def build_config(models, path):
    """The configuration LightMemory.from_config takes: the configured endpoints, a Qdrant store at `path`."""
    return {
        "pre_compress": False,
        "topic_segment": False,
        "messages_use": "user_only",
        "metadata_generate": True,
        "text_summary": True,
        "extraction_mode": "flat",
        "memory_manager": {
            "model_name": "openai",
            "configs": {"model": models.chat_model, "api_key": models.api_key,
                        "openai_base_url": models.base_url},
        },
        "index_strategy": "embedding",
        "text_embedder": {
            "model_name": "openai",
            "configs": {"model": models.embed_model, "api_key": models.embed_api_key,
                        "openai_base_url": models.embed_base_url,
                        "embedding_dims": models.embed_dims},
        },
        "retrieve_strategy": "embedding",
        "embedding_retriever": {
            "model_name": "qdrant",
            "configs": {"collection_name": COLLECTION, "embedding_model_dims": models.embed_dims,
                        "path": path, "on_disk": False},
        },
        "update": "offline",
    }


def stamp(moment):
    """A time in LightMem's session time stamp form, e.g. `2024/03/02 (Sat) 00:00:07`."""
    return f"{moment:%Y/%m/%d} ({moment:%a}) {moment:%H:%M:%S}"


def turn_messages(turn, moment):
    """One exchange as LightMem's messages: a user and an assistant message with a time stamp."""
    when = stamp(moment)
    return [{"role": "user", "content": turn["user"], "time_stamp": when},
            {"role": "assistant", "content": turn["assistant"], "time_stamp": when}]


def library_problem():
    """Why LightMem's library cannot be used here (a sentence), or None when it can."""
    if importlib.util.find_spec("lightmem") is None:
        return "the `lightmem` package is not installed"
    if importlib.util.find_spec("lightmem.configs") is None:
        return (f"the installed `lightmem` ({adapter_config.version('lightmem')}) is not LightMem's "
                "library: the PyPI release 0.0.0 is an empty skeleton")
    return None


def library():
    """LightMem's LightMemory class, checked to have the API the adapter calls."""
    problem = library_problem()
    if problem is None:
        adapter_config.offline()
        try:
            from lightmem.memory.lightmem import LightMemory
        except ImportError as e:
            problem = f"importing lightmem.memory.lightmem failed ({e})"
        else:
            missing = [name for name in API if not callable(getattr(LightMemory, name, None))]
            if not missing:
                return LightMemory
            problem = ("lightmem.memory.lightmem.LightMemory lacks " + ", ".join(missing)
                       + f" (installed lightmem: {adapter_config.version('lightmem')})")
    raise SystemExit(f"lightmem_adapter: {problem}; install LightMem from its repository: "
                     "pip install --no-deps -r adapters/python/requirements/lightmem.txt")


def source_commit():
    """The commit LightMem was installed from (pip's direct_url.json), or why it is unknown."""
    try:
        raw = importlib.metadata.distribution("lightmem").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
    try:
        return json.loads(raw)["vcs_info"]["commit_id"]
    except (TypeError, ValueError, KeyError):
        return "unknown (not installed from git)"


def build_lightmemory(config):
    """A LightMemory built by LightMem's own `from_config`."""
    return library().from_config(config)


def close_lightmemory(system):
    """Release a LightMemory's local Qdrant store (its folder stays locked until then)."""
    retriever = getattr(system, "embedding_retriever", None)
    client = getattr(retriever, "client", None)
    if client is not None:
        client.close()


class LightMemAdapter:
    """A LightMemory (and Qdrant folder) per namespace."""

    def __init__(self, build=build_lightmemory, close=close_lightmemory):
        route_to_configured_endpoint()
        self.models = adapter_config.Models(top_k_default=10)
        self.update = choice("BEMULA_LIGHTMEM_UPDATE", "flush", UPDATE_POINTS)
        self.threshold = unit_float("BEMULA_LIGHTMEM_UPDATE_THRESHOLD", 0.8)
        self.extract = choice("BEMULA_LIGHTMEM_EXTRACT", "buffer", EXTRACT_MODES)
        self.root = os.environ.get("BEMULA_LIGHTMEM_DIR")
        if not self.root:
            self.root = tempfile.mkdtemp(prefix="bemula-lightmem-")
            atexit.register(shutil.rmtree, self.root, ignore_errors=True)
        self.build = build
        self.close = close
        self.systems = {}
        self.held = {}
        self.clock = {}
        self.lock = threading.Lock()

    def info(self):
        settings = self.models.settings()
        settings.update({
            "update": self.update,
            "update_threshold": self.threshold,
            "extract": self.extract,
            "forgetting_path": (
                "extraction only adds; LightMem's offline update (construct_update_queue_all_entries, "
                "offline_update_all_entries) lets the LLM update or delete a memory given the newer "
                f"memories scoring at least {self.threshold} against it, run "
                + {"flush": "at flush", "session": "at every end_session", "off": "never"}[self.update]),
            "extraction": ("LightMem's short-term buffer (512 tokens), forced at the last turn before "
                           "flush or the update" if self.extract == "buffer"
                           else "forced on every turn"),
            "messages_use": "user_only",
            "extraction_mode": "flat",
            "pre_compress": False,
            "topic_segment": False,
            "reset": "the namespace's LightMemory closed and a new one built over a new Qdrant store",
            "namespace_scope": "a LightMemory and local Qdrant folder per namespace",
            "time_stamps": "the session date, turns one second apart in order",
            "memories": "LightMemory.retrieve: time stamp, weekday and memory text",
            "concurrency": "nothing shared between namespaces but the endpoint and LightMem's "
                           "module-level topic counter",
            "source_commit": source_commit(),
            "pinned_commit": PINNED_COMMIT,
        })
        return {"name": "lightmem", "version": adapter_config.version("lightmem"), "settings": settings,
                "capabilities": {"query": "memories", "sessions": True,
                                 "flush": self.extract == "buffer" or self.update == "flush"},
                "timeouts": self.models.timeouts()}

    def _path(self, namespace):
        return os.path.join(self.root, "ns_" + hashlib.sha256(namespace.encode()).hexdigest()[:32])

    def _system(self, namespace):
        with self.lock:
            system = self.systems.get(namespace)
        if system is None:
            raise RuntimeError(f"namespace `{namespace}` has no LightMemory in this adapter; reset it first")
        return system

    def reset(self, namespace):
        with self.lock:
            old = self.systems.pop(namespace, None)
            self.held.pop(namespace, None)
            self.clock.pop(namespace, None)
        if old is not None:
            self.close(old)
        system = self.build(build_config(self.models, self._path(namespace)))
        with self.lock:
            self.systems[namespace] = system

    def start_session(self, namespace, session):
        day = datetime.datetime.strptime(session["date"], "%Y-%m-%d")
        with self.lock:
            last = self.clock.get(namespace)
            self.clock[namespace] = day if last is None else max(day, last)

    def _next_moment(self, namespace):
        with self.lock:
            moment = self.clock.get(namespace)
            if moment is None:
                moment = datetime.datetime.combine(datetime.date.today(), datetime.time())
            self.clock[namespace] = moment + datetime.timedelta(seconds=1)
            return moment

    def _add(self, system, messages, last):
        """LightMemory.add_memory; `last` forces segmentation and extraction, as on a dialogue's last turn."""
        try:
            system.add_memory(messages, force_segment=last, force_extract=last)
        except AttributeError as e:
            # LightMem's manager catches a failed extraction call, prints it and returns no
            # token usage, on which add_memory then fails.
            raise RuntimeError(
                f"LightMem's add_memory failed ({e}); LightMem fails so when its extraction call to "
                f"the chat endpoint {self.models.base_url} fails, and printed the cause to stderr "
                "('Error processing API call ...')") from e

    def observe(self, namespace, turn):
        system = self._system(namespace)
        messages = turn_messages(turn, self._next_moment(namespace))
        if self.extract == "turn":
            self._add(system, messages, last=True)
            return
        with self.lock:
            previous = self.held.get(namespace)
            self.held[namespace] = messages
        if previous is not None:
            self._add(system, previous, last=False)

    def _extract_held(self, namespace, system):
        with self.lock:
            last = self.held.pop(namespace, None)
        if last is not None:
            self._add(system, last, last=True)

    def _offline_update(self, system):
        system.construct_update_queue_all_entries()
        system.offline_update_all_entries(score_threshold=self.threshold)

    def end_session(self, namespace):
        if self.update == "session":
            system = self._system(namespace)
            self._extract_held(namespace, system)
            self._offline_update(system)

    def flush(self, namespace):
        system = self._system(namespace)
        self._extract_held(namespace, system)
        if self.update == "flush":
            self._offline_update(system)

    def query(self, namespace, question):
        return list(self._system(namespace).retrieve(question, limit=self.models.top_k))


if __name__ == "__main__":
    library()
    from bemula_adapter import main
    sys.exit(main(LightMemAdapter()))
