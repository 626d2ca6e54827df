"""A worked example adapter: a small keyword-overlap memory served over bemula-adapter/1.

It stores each user utterance per namespace and answers a question with the stored
utterances sharing the most content words with it (as `memories`, best first). It
handles forget requests naively: a user turn such as "Please forget that my locker code
is 1234" removes the stored utterances that share most of the request's content words,
and the request itself is not stored.

Run it:  python3 adapters/python/example_memory.py [--stdio | --http 127.0.0.1:0]
Check it: bemula check-adapter --system "cmd:python3 adapters/python/example_memory.py"
"""

import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bemula_adapter import main  # noqa: E402

TOP_K = 5

STOPWORDS = set("""
a an and are as at be but by did do does for from had has have he her his i if in into is
it its me my of on or our she so than that the their them then there they this to too was
we were what when where which who why will with you your please about also just
""".split())

FORGET = re.compile(r"\b(?:forget|delete|erase|remove)\b(?:\s+(?:that|about|the fact that))?\s*(.*)",
                    re.IGNORECASE | re.DOTALL)


def content_words(text):
    """Lowercase words of 2+ characters that are not stopwords."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOPWORDS}


class KeywordMemory:
    """Per-namespace lists of user utterances, retrieved by word overlap."""

    def __init__(self):
        self.store = {}
        self.lock = threading.Lock()

    def info(self):
        return {
            "name": "example-keyword-memory",
            "version": "1",
            "settings": {
                "top_k": TOP_K,
                "deletion": "naive: a 'forget/delete that ...' turn removes stored turns "
                            "sharing at least half of its content words",
            },
            "capabilities": {"query": "memories", "flush": False, "sessions": False},
        }

    def reset(self, namespace):
        with self.lock:
            self.store[namespace] = []

    def observe(self, namespace, turn):
        text = turn["user"]
        match = FORGET.search(text)
        with self.lock:
            turns = self.store.setdefault(namespace, [])
            if match and content_words(match.group(1)):
                target = content_words(match.group(1))
                turns[:] = [t for t in turns
                            if len(content_words(t) & target) * 2 < len(target)]
                return
            turns.append(text)

    def query(self, namespace, question):
        asked = content_words(question)
        with self.lock:
            turns = list(self.store.get(namespace, []))
        scored = [(len(content_words(t) & asked), i) for i, t in enumerate(turns)]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(key=lambda s: (-s[0], -s[1]))  # best overlap, then most recent
        return [turns[i] for _, i in scored[:TOP_K]]


if __name__ == "__main__":
    sys.exit(main(KeywordMemory()))
