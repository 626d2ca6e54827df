"""Model and retrieval settings shared by the maintained library adapters, read from the environment.

Every adapter takes its models from configuration, never from a hidden default endpoint:

    BEMULA_MODEL_BASE_URL   OpenAI-compatible base URL, up to the API version (else
                            BEMULA_LLM_BASE_URL, bemula's own and what
                            scripts/local-models.sh prints, else OPENAI_BASE_URL,
                            else https://api.openai.com/v1)
    OPENAI_API_KEY          the key sent to it (a placeholder is sent when unset, for
                            local endpoints that need none)
    BEMULA_CHAT_MODEL       the model of the library's internal LLM calls (gpt-4o-mini)
    BEMULA_EMBED_BASE_URL   the embeddings endpoint, when another server serves them
                            (a local chat server and a separate embeddings server);
                            else the chat base URL above
    BEMULA_EMBED_API_KEY    the key sent to the embeddings endpoint (else OPENAI_API_KEY)
    BEMULA_EMBED_MODEL      the embedding model (text-embedding-3-small)
    BEMULA_EMBED_DIMS       the embedding dimension (1536)
    BEMULA_TOP_K            memories returned per query (10)
    BEMULA_ADAPTER_CALL_S   the call timeout the handshake asks bemula for, in seconds
                            (600: an LLM-backed `observe` can take minutes on a local
                            model; an explicit --adapter-timeout still wins)
    BEMULA_MAX_REPLY_TOKENS the reply budget of the library's chat calls, where the
                            library lets it be set (unset: the library's own; a small
                            local model may otherwise run on to the end of its window)

`offline()` also switches off the telemetry and hub downloads of the libraries it knows,
so an adapter makes no network call except to the configured model endpoint.
"""

import importlib.metadata
import os

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def offline():
    """Switch off telemetry and model-hub downloads; call before importing a library."""
    for name, value in (("MEM0_TELEMETRY", "False"), ("HF_HUB_OFFLINE", "1"),
                        ("TRANSFORMERS_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1"),
                        ("ANONYMIZED_TELEMETRY", "False"), ("LANGCHAIN_TRACING_V2", "false"),
                        ("LANGSMITH_TRACING", "false"), ("TOKENIZERS_PARALLELISM", "false"),
                        ("LITELLM_LOCAL_MODEL_COST_MAP", "True")):
        os.environ[name] = value


def positive_int(name, default):
    """A positive integer environment variable; a clear exit naming it when malformed."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a positive integer, got {raw!r}") from None
    if value < 1:
        raise SystemExit(f"{name} must be a positive integer, got {raw!r}")
    return value


def flag(name, default):
    """A boolean environment variable (true/false, 1/0, yes/no, on/off)."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise SystemExit(f"{name} must be true or false, got {raw!r}")


class Models:
    """The endpoint, models and retrieval budget an adapter uses."""

    def __init__(self, top_k_default=10):
        self.base_url = (os.environ.get("BEMULA_MODEL_BASE_URL") or os.environ.get("BEMULA_LLM_BASE_URL")
                         or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_set = bool(os.environ.get("OPENAI_API_KEY"))
        self.api_key = os.environ.get("OPENAI_API_KEY") or "no-key"
        self.embed_base_url = (os.environ.get("BEMULA_EMBED_BASE_URL") or self.base_url).rstrip("/")
        self.embed_api_key_set = bool(os.environ.get("BEMULA_EMBED_API_KEY")) or self.api_key_set
        self.embed_api_key = os.environ.get("BEMULA_EMBED_API_KEY") or self.api_key
        self.chat_model = os.environ.get("BEMULA_CHAT_MODEL") or "gpt-4o-mini"
        self.embed_model = os.environ.get("BEMULA_EMBED_MODEL") or "text-embedding-3-small"
        self.embed_dims = positive_int("BEMULA_EMBED_DIMS", 1536)
        self.top_k = positive_int("BEMULA_TOP_K", top_k_default)
        self.call_s = positive_int("BEMULA_ADAPTER_CALL_S", 600)
        self.max_reply_tokens = positive_int("BEMULA_MAX_REPLY_TOKENS", None)

    def settings(self):
        """The settings to report in the handshake (never the key itself)."""
        return {"model_base_url": self.base_url, "chat_model": self.chat_model,
                "embed_base_url": self.embed_base_url,
                "embed_model": self.embed_model, "embed_dims": self.embed_dims,
                "api_key": "set" if self.api_key_set else "unset",
                "embed_api_key": "set" if self.embed_api_key_set else "unset",
                "top_k": self.top_k,
                "max_reply_tokens": self.max_reply_tokens or "the library's default"}

    def timeouts(self):
        """The handshake's `timeouts`: the call timeout an LLM-backed system needs."""
        return {"call_s": self.call_s}

    def embed(self, texts):
        """Embed a list of texts through the embeddings endpoint (the `openai` client)."""
        from openai import OpenAI
        client = getattr(self, "_client", None)
        if client is None:
            client = self._client = OpenAI(base_url=self.embed_base_url, api_key=self.embed_api_key)
        response = client.embeddings.create(model=self.embed_model, input=list(texts),
                                            dimensions=self.embed_dims)
        return [d.embedding for d in response.data]


def version(package):
    """The installed version of a distribution, read from its metadata."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
