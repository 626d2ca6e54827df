"""LightMem adapter: its configuration and per-namespace bookkeeping, and, with LightMem's library, the real thing.

The first tests need only the standard library: they drive the adapter with a recorder in
place of LightMemory (no LightMem code runs) and check what it asks of LightMem and when.
The tests of `WithLightMem` need LightMem's library (zjunlp/LightMem, installed from
adapters/python/requirements/lightmem.txt; the PyPI release 0.0.0 is an empty skeleton and
does not count), and those of `WithLightMemAndEndpoint` also a model endpoint
(BEMULA_MODEL_BASE_URL, e.g. the stand-in); scripts/python-adapters.sh lightmem runs them in
LightMem's environment. Skipped elsewhere, saying why.

Run: python3 -m unittest discover -s adapters/python/tests -p "test_lightmem_*.py"
"""

import inspect
import os
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTERS = os.path.dirname(HERE)
sys.path.insert(0, ADAPTERS)
import adapter_config  # noqa: E402
import lightmem_adapter as lm  # noqa: E402

CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith("BEMULA_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY")}
# The recorders write nothing, so the adapter's store folder is never created.
UNUSED_ROOT = os.path.join(tempfile.gettempdir(), "bemula-lightmem-test-unused")
PROBLEM = lm.library_problem()
NO_LIBRARY = (f"needs LightMem's library (zjunlp/LightMem, from adapters/python/requirements/lightmem.txt): "
              f"{PROBLEM}")


class Recorder:
    """Stands in for a LightMemory: records what the adapter calls, runs no LightMem code."""

    def __init__(self, config, log):
        self.config = config
        self.log = log
        self.closed = False

    def add_memory(self, messages, METADATA_GENERATE_PROMPT=None, *, force_segment=False, force_extract=False):
        self.log.append(("add", [m["content"] for m in messages], messages[0]["time_stamp"],
                         force_segment and force_extract))

    def construct_update_queue_all_entries(self, top_k=20, keep_top_n=10):
        self.log.append(("queue",))

    def offline_update_all_entries(self, score_threshold=0.9):
        self.log.append(("update", score_threshold))

    def retrieve(self, query, limit=10):
        self.log.append(("retrieve", query, limit))
        return [f"2024-03-02T00:00:00.000 Sat memory for {query}"]


def adapter(env=None, log=None):
    """An adapter over recorders, configured by `env` (on top of a clean environment)."""
    log = [] if log is None else log
    built = []

    def build(config):
        built.append(Recorder(config, log))
        return built[-1]

    def close(system):
        system.closed = True

    with mock.patch.dict(os.environ, dict(CLEAN, BEMULA_LIGHTMEM_DIR=UNUSED_ROOT, **(env or {})), clear=True):
        a = lm.LightMemAdapter(build=build, close=close)
    return a, log, built


def turn(user, index=0):
    return {"index": index, "user": user, "assistant": "Noted."}


class Configuration(unittest.TestCase):
    def test_lightmem_is_configured_for_the_chat_and_embeddings_endpoints(self):
        env = dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:7001/v1", OPENAI_API_KEY="sk-chat",
                   BEMULA_EMBED_BASE_URL="http://127.0.0.1:7002/v1", BEMULA_EMBED_API_KEY="sk-embed",
                   BEMULA_CHAT_MODEL="qwen3", BEMULA_EMBED_MODEL="e5", BEMULA_EMBED_DIMS="384")
        with mock.patch.dict(os.environ, env, clear=True):
            models = adapter_config.Models()
        config = lm.build_config(models, "/tmp/store-a")
        self.assertEqual(config["memory_manager"], {"model_name": "openai", "configs": {
            "model": "qwen3", "api_key": "sk-chat", "openai_base_url": "http://127.0.0.1:7001/v1"}})
        self.assertEqual(config["text_embedder"], {"model_name": "openai", "configs": {
            "model": "e5", "api_key": "sk-embed", "openai_base_url": "http://127.0.0.1:7002/v1",
            "embedding_dims": 384}})
        self.assertEqual(config["embedding_retriever"], {"model_name": "qdrant", "configs": {
            "collection_name": "bemula", "embedding_model_dims": 384, "path": "/tmp/store-a", "on_disk": False}})
        self.assertEqual((config["index_strategy"], config["retrieve_strategy"], config["update"]),
                         ("embedding", "embedding", "offline"))
        # The llmlingua-2 compressor and segmenter (torch, a local model) stay off.
        self.assertEqual((config["pre_compress"], config["topic_segment"]), (False, False))

    def test_the_handshake_reports_how_it_forgets_and_never_a_key(self):
        a, _, _ = adapter({"OPENAI_API_KEY": "sk-secret-42", "BEMULA_LIGHTMEM_UPDATE_THRESHOLD": "0.75"})
        info = a.info()
        settings = info["settings"]
        self.assertEqual(info["name"], "lightmem")
        self.assertEqual((settings["update"], settings["update_threshold"], settings["extract"]),
                         ("flush", 0.75, "buffer"))
        self.assertIn("offline_update_all_entries", settings["forgetting_path"])
        self.assertIn("0.75", settings["forgetting_path"])
        self.assertIn("at flush", settings["forgetting_path"])
        self.assertNotIn("sk-secret-42", repr(info))
        self.assertEqual(info["capabilities"], {"query": "memories", "sessions": True, "flush": True})
        self.assertEqual(info["timeouts"], {"call_s": 600})

    def test_flush_is_reported_as_a_no_op_only_when_it_is_one(self):
        a, _, _ = adapter({"BEMULA_LIGHTMEM_EXTRACT": "turn", "BEMULA_LIGHTMEM_UPDATE": "session"})
        self.assertIs(a.info()["capabilities"]["flush"], False)
        self.assertIn("at every end_session", a.info()["settings"]["forgetting_path"])
        a, _, _ = adapter({"BEMULA_LIGHTMEM_EXTRACT": "turn", "BEMULA_LIGHTMEM_UPDATE": "off"})
        self.assertIn("run never", a.info()["settings"]["forgetting_path"])

    def test_malformed_settings_name_the_variable(self):
        for name, value in (("BEMULA_LIGHTMEM_UPDATE", "sometimes"), ("BEMULA_LIGHTMEM_EXTRACT", "all"),
                            ("BEMULA_LIGHTMEM_UPDATE_THRESHOLD", "high"),
                            ("BEMULA_LIGHTMEM_UPDATE_THRESHOLD", "1.5"), ("BEMULA_LIGHTMEM_UPDATE_THRESHOLD", "0")):
            with self.assertRaises(SystemExit) as e:
                adapter({name: value})
            self.assertIn(name, str(e.exception))

    def test_an_openrouter_key_does_not_divert_lightmems_calls(self):
        with mock.patch.dict(os.environ, dict(CLEAN, OPENROUTER_API_KEY="sk-or", BEMULA_LIGHTMEM_DIR=UNUSED_ROOT),
                             clear=True):
            lm.LightMemAdapter(build=None)
            self.assertNotIn("OPENROUTER_API_KEY", os.environ)

    def test_the_requirements_pin_the_commit_the_adapter_names_and_no_torch(self):
        with open(os.path.join(ADAPTERS, "requirements", "lightmem.txt")) as f:
            lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        source = f"lightmem @ git+https://github.com/zjunlp/LightMem@{lm.PINNED_COMMIT}"
        self.assertIn(source, lines)
        for line in lines:
            if line != source:
                self.assertRegex(line, r"^[A-Za-z0-9_.-]+==[^ ;]+( ; .+)?$")  # an exact version
                self.assertNotRegex(line.lower(), r"^(torch|sentence-transformers|llmlingua|accelerate)==")
        a, _, _ = adapter()
        self.assertEqual(a.info()["settings"]["pinned_commit"], lm.PINNED_COMMIT)

    def test_close_releases_the_qdrant_client(self):
        client = mock.Mock()
        lm.close_lightmemory(types.SimpleNamespace(embedding_retriever=types.SimpleNamespace(client=client)))
        client.close.assert_called_once_with()

    def test_the_pypi_skeleton_is_refused_with_a_clear_message(self):
        with tempfile.TemporaryDirectory() as fake:
            os.makedirs(os.path.join(fake, "lightmem", "memory"))
            for name in ("lightmem/__init__.py", "lightmem/memory/__init__.py"):
                open(os.path.join(fake, name), "w").close()
            with open(os.path.join(fake, "lightmem", "memory", "lightmem.py"), "w") as f:
                f.write(textwrap.dedent("""\
                    class LightMemory:
                        def add(self, messages): pass
                        def search(self, query, user_id): pass
                    """))
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([fake, ADAPTERS]))
            done = subprocess.run([sys.executable, "-c", "import lightmem_adapter; lightmem_adapter.library()"],
                                  env=env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("empty skeleton", done.stderr)
        self.assertIn("requirements/lightmem.txt", done.stderr)


class Bookkeeping(unittest.TestCase):
    def test_each_namespace_has_its_own_lightmemory_and_store_and_a_reset_replaces_only_its_own(self):
        a, _, built = adapter()
        a.reset("short_001/forget")
        a.reset("short_001/control")
        forget, control = built
        paths = [s.config["embedding_retriever"]["configs"]["path"] for s in built]
        self.assertNotEqual(paths[0], paths[1])
        self.assertTrue(all(p.startswith(a.root + os.sep) for p in paths))
        a.reset("short_001/forget")
        self.assertEqual(len(built), 3)
        self.assertTrue(forget.closed)
        self.assertFalse(control.closed)
        self.assertIs(a.systems["short_001/forget"], built[2])
        self.assertIs(a.systems["short_001/control"], control)
        self.assertEqual(built[2].config["embedding_retriever"]["configs"]["path"], paths[0])

    def test_turns_go_in_unforced_and_the_last_one_forced_at_flush_before_the_offline_update(self):
        a, log, _ = adapter()
        a.reset("n")
        a.start_session("n", {"id": "s1", "date": "2024-03-02"})
        for i, said in enumerate(["I keep my bike in locker 7.", "My trainer is Ines.", "Forget the locker."]):
            a.observe("n", turn(said, i))
        a.end_session("n")
        self.assertEqual(log, [
            ("add", ["I keep my bike in locker 7.", "Noted."], "2024/03/02 (Sat) 00:00:00", False),
            ("add", ["My trainer is Ines.", "Noted."], "2024/03/02 (Sat) 00:00:01", False)])
        a.flush("n")
        self.assertEqual(log[2:], [("add", ["Forget the locker.", "Noted."], "2024/03/02 (Sat) 00:00:02", True),
                                   ("queue",), ("update", 0.8)])

    def test_time_stamps_follow_the_dialogue_and_never_go_back(self):
        a, log, _ = adapter({"BEMULA_LIGHTMEM_EXTRACT": "turn", "BEMULA_LIGHTMEM_UPDATE": "off"})
        a.reset("n")
        for date, turns in (("2024-03-02", 2), ("2024-03-02", 1), ("2024-03-09", 1), ("2024-03-01", 1)):
            a.start_session("n", {"id": date, "date": date})
            for i in range(turns):
                a.observe("n", turn(f"turn {i} on {date}", i))
        self.assertEqual([entry[2] for entry in log], [
            "2024/03/02 (Sat) 00:00:00", "2024/03/02 (Sat) 00:00:01", "2024/03/02 (Sat) 00:00:02",
            "2024/03/09 (Sat) 00:00:00", "2024/03/09 (Sat) 00:00:01"])
        self.assertTrue(all(entry[3] for entry in log))  # every turn forced in `turn` mode

    def test_the_update_runs_at_every_session_end_when_asked_and_flush_then_adds_nothing(self):
        a, log, _ = adapter({"BEMULA_LIGHTMEM_UPDATE": "session", "BEMULA_LIGHTMEM_UPDATE_THRESHOLD": "0.9"})
        a.reset("n")
        a.start_session("n", {"id": "s1", "date": "2024-03-02"})
        a.observe("n", turn("I keep my bike in locker 7."))
        a.end_session("n")
        self.assertEqual([e[0] for e in log], ["add", "queue", "update"])
        self.assertEqual((log[0][3], log[2]), (True, ("update", 0.9)))
        a.flush("n")
        self.assertEqual(len(log), 3)

    def test_without_the_update_flush_only_extracts(self):
        a, log, _ = adapter({"BEMULA_LIGHTMEM_UPDATE": "off"})
        a.reset("n")
        a.observe("n", turn("I keep my bike in locker 7."))
        a.end_session("n")
        a.flush("n")
        self.assertEqual([(e[0], e[3]) for e in log], [("add", True)])

    def test_a_reset_drops_the_held_turn_and_the_clock(self):
        a, log, built = adapter()
        a.reset("n")
        a.start_session("n", {"id": "s1", "date": "2024-03-02"})
        a.observe("n", turn("I keep my bike in locker 7."))
        a.reset("n")
        a.start_session("n", {"id": "s1", "date": "2024-03-02"})
        a.flush("n")
        self.assertEqual([e[0] for e in log], ["queue", "update"])
        a.observe("n", turn("My trainer is Ines."))
        a.flush("n")
        self.assertEqual(log[2][1:], (["My trainer is Ines.", "Noted."], "2024/03/02 (Sat) 00:00:00", True))
        self.assertTrue(built[0].closed)

    def test_namespaces_keep_their_own_held_turns(self):
        a, log, built = adapter({"BEMULA_LIGHTMEM_UPDATE": "off"})
        for ns in ("a", "b"):
            a.reset(ns)
            a.observe(ns, turn(f"fact of {ns}"))
        a.flush("b")
        self.assertEqual(log, [("add", ["fact of b", "Noted."], log[0][2], True)])
        self.assertEqual(a.held.keys(), {"a"})

    def test_a_query_is_lightmems_retrieve_with_top_k(self):
        a, log, _ = adapter({"BEMULA_TOP_K": "4"})
        a.reset("n")
        self.assertEqual(a.query("n", "Which locker?"), ["2024-03-02T00:00:00.000 Sat memory for Which locker?"])
        self.assertEqual(log, [("retrieve", "Which locker?", 4)])

    def test_a_failed_extraction_is_reported_with_where_to_look(self):
        a, _, built = adapter({"BEMULA_MODEL_BASE_URL": "http://127.0.0.1:9/v1", "BEMULA_LIGHTMEM_EXTRACT": "turn"})
        a.reset("n")

        def failing(messages, **_):
            # What LightMem's add_memory raises after its manager swallowed the endpoint's error.
            raise AttributeError("'NoneType' object has no attribute 'get'")

        built[0].add_memory = failing
        with self.assertRaises(RuntimeError) as e:
            a.observe("n", turn("I keep my bike in locker 7."))
        self.assertIn("http://127.0.0.1:9/v1", str(e.exception))
        self.assertIn("Error processing API call", str(e.exception))

    def test_a_namespace_never_reset_is_an_error_naming_it(self):
        a, _, _ = adapter()
        with self.assertRaises(RuntimeError) as e:
            a.query("never/reset", "Which locker?")
        self.assertIn("never/reset", str(e.exception))


@unittest.skipUnless(PROBLEM is None, NO_LIBRARY)
class WithLightMem(unittest.TestCase):
    def test_lightmemory_has_the_api_the_adapter_calls(self):
        cls = lm.library()
        add = inspect.signature(cls.add_memory).parameters
        self.assertTrue({"messages", "force_segment", "force_extract"} <= set(add))
        self.assertIn("limit", inspect.signature(cls.retrieve).parameters)
        self.assertIn("score_threshold", inspect.signature(cls.offline_update_all_entries).parameters)

    def test_lightmem_accepts_the_configuration(self):
        from lightmem.configs.base import BaseMemoryConfigs
        env = dict(CLEAN, BEMULA_MODEL_BASE_URL="http://127.0.0.1:7001/v1",
                   BEMULA_EMBED_BASE_URL="http://127.0.0.1:7002/v1", BEMULA_EMBED_DIMS="256")
        with mock.patch.dict(os.environ, env, clear=True):
            models = adapter_config.Models()
        config = BaseMemoryConfigs(**lm.build_config(models, "/tmp/bemula-lightmem-config-check"))
        self.assertEqual(config.memory_manager.model_name, "openai")
        self.assertEqual(config.memory_manager.configs.openai_base_url, "http://127.0.0.1:7001/v1")
        self.assertEqual(config.text_embedder.model_name, "openai")
        self.assertEqual((config.text_embedder.configs.openai_base_url, config.text_embedder.configs.embedding_dims),
                         ("http://127.0.0.1:7002/v1", 256))
        self.assertEqual((config.embedding_retriever.configs.path,
                          config.embedding_retriever.configs.embedding_model_dims),
                         ("/tmp/bemula-lightmem-config-check", 256))


@unittest.skipUnless(PROBLEM is None and os.environ.get("BEMULA_MODEL_BASE_URL"),
                     NO_LIBRARY if PROBLEM else "needs BEMULA_MODEL_BASE_URL (a model endpoint, e.g. the stand-in)")
class WithLightMemAndEndpoint(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        with mock.patch.dict(os.environ, {"BEMULA_LIGHTMEM_DIR": self.dir.name}):
            self.adapter = lm.LightMemAdapter()

    def tearDown(self):
        for system in self.adapter.systems.values():
            lm.close_lightmemory(system)
        self.dir.cleanup()

    def ingest(self, ns, facts):
        self.adapter.start_session(ns, {"id": "s1", "date": "2024-03-02"})
        for i, fact in enumerate(facts):
            self.adapter.observe(ns, turn(fact, i))
        self.adapter.end_session(ns)
        self.adapter.flush(ns)

    def test_facts_come_back_per_namespace_and_a_reset_empties_only_its_own(self):
        a, b = "x 1/forget", "x 1/control"
        for ns in (a, b):
            self.adapter.reset(ns)
            self.ingest(ns, ["I just moved to a new gym downtown.", f"My locker code in {ns} is 4417.",
                             "My trainer there is called Ines."])
        for ns, other in ((a, b), (b, a)):
            found = "\n".join(self.adapter.query(ns, "What is my locker code?"))
            self.assertIn(f"My locker code in {ns} is 4417.", found)
            self.assertNotIn(other, found)
        self.adapter.reset(a)
        self.assertEqual(self.adapter.query(a, "What is my locker code?"), [])
        self.assertIn(f"My locker code in {b} is 4417.", "\n".join(self.adapter.query(b, "What is my locker code?")))


if __name__ == "__main__":
    unittest.main()
