"""Tests of the offline model stand-in: its embeddings, its reading of prompts and its HTTP API.

Run: python3 -m unittest discover -s adapters/python/tests
"""

import base64
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import standin_models as s  # noqa: E402


class Embeddings(unittest.TestCase):
    def test_deterministic_normalised_and_of_the_asked_size(self):
        a = s.embed("My sister lives in Lisbon", 64)
        self.assertEqual(a, s.embed("my sister lives in lisbon!", 64))
        self.assertEqual(len(a), 64)
        self.assertAlmostEqual(math.sqrt(sum(v * v for v in a)), 1.0, places=9)

    def test_shared_words_are_closer_than_unrelated_ones(self):
        q = s.embed("where does my sister live", 256)
        near = s.embed("my sister lives in Lisbon and she is a nurse", 256)
        far = s.embed("the locker code is 4417", 256)
        dot = lambda x, y: sum(i * j for i, j in zip(x, y))  # noqa: E731
        self.assertGreater(dot(q, near), dot(q, far))

    def test_empty_text_still_gives_a_unit_vector(self):
        self.assertEqual(s.embed("", 8), [1.0] + [0.0] * 7)


class ReadingPrompts(unittest.TestCase):
    def test_plain_user_message(self):
        self.assertEqual(s.user_lines([{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "I adopted a cat last week."}]),
                         ["I adopted a cat last week."])

    def test_quoted_conversation_under_a_new_messages_heading(self):
        prompt = ("## Last k Messages\nuser: I used to live in Oslo.\n\n"
                  "## New Messages\nuser: We moved to Bergen.\nIt rains a lot.\n"
                  "assistant: Sounds wet.\nuser: Also, my son turned six.\n\n## Current Date\n2024-05-01")
        self.assertEqual(s.user_lines([{"role": "user", "content": prompt}]),
                         ["We moved to Bergen.\nIt rains a lot.", "Also, my son turned six."])

    def test_printed_langchain_messages(self):
        prompt = ("Extract memories.\n<session_1>\n"
                  "================================ Human Message =================================\n\n"
                  "My passport number ends in 0412.\n\n"
                  "================================== Ai Message ==================================\n\n"
                  "Noted.\n</session_1>")
        self.assertEqual(s.user_lines([{"role": "user", "content": prompt}]),
                         ["My passport number ends in 0412."])

    def test_timestamped_dialogue_window(self):
        prompt = ("[Current Window Dialogues]\n[2024-03-02T00:00:00] User: I drive a blue van.\n"
                  "[2024-03-02T00:00:00] Assistant: Nice.\n\n[Requirements]\n1. Be complete")
        self.assertEqual(s.user_lines([{"role": "user", "content": prompt}]), ["I drive a blue van."])

    def test_content_given_as_parts(self):
        message = {"role": "user", "content": [{"type": "text", "text": "I play the oboe."}]}
        self.assertEqual(s.user_lines([message]), ["I play the oboe."])


class ChatReplies(unittest.TestCase):
    def test_mem0_style_extraction_adds_every_user_message(self):
        body = {"messages": [
            {"role": "system", "content": 'Return {"memory": [{"id": "0", "text": "...", "attributed_to": "user"}]}'},
            {"role": "user", "content": "## New Messages\nuser: I am allergic to peanuts.\nassistant: Noted.\n"}],
            "response_format": {"type": "json_object"}}
        message, finish = s.chat_reply(body)
        self.assertEqual(finish, "stop")
        self.assertEqual(json.loads(message["content"]),
                         {"memory": [{"id": "0", "text": "I am allergic to peanuts.", "attributed_to": "user"}]})

    def test_tool_request_calls_the_creating_tool_not_the_removing_one(self):
        tools = [{"type": "function", "function": {"name": "RemoveDoc", "parameters": {
                     "type": "object", "properties": {"json_doc_id": {"type": "string"}}}}},
                 {"type": "function", "function": {"name": "Memory", "parameters": {
                     "type": "object", "properties": {"content": {"type": "string"}}}}}]
        message, finish = s.chat_reply({"messages": [{"role": "user", "content": "My bike is red."}],
                                        "tools": tools, "tool_choice": "required"})
        self.assertEqual(finish, "tool_calls")
        call = message["tool_calls"][0]["function"]
        self.assertEqual(call["name"], "Memory")
        self.assertEqual(json.loads(call["arguments"]), {"content": "My bike is red."})

    def test_named_tool_choice_wins(self):
        tools = [{"type": "function", "function": {"name": "Memory", "parameters": {}}},
                 {"type": "function", "function": {"name": "search_memory", "parameters": {
                     "type": "object", "properties": {"query": {"type": "string"}}}}}]
        message, _ = s.chat_reply({"messages": [{"role": "user", "content": "hello"}], "tools": tools,
                                   "tool_choice": {"type": "function", "function": {"name": "search_memory"}}})
        self.assertEqual(message["tool_calls"][0]["function"]["name"], "search_memory")

    def test_json_schema_reply_is_an_instance_of_the_schema(self):
        schema = {"type": "object", "properties": {
            "keywords": {"type": "array", "items": {"type": "string"}},
            "context": {"type": "string"}, "should_evolve": {"type": "boolean"},
            "kind": {"enum": ["fact", "event"]}, "count": {"type": "integer"},
            "nested": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"note": {"type": ["string", "null"]}}}}}
        message, _ = s.chat_reply({"messages": [{"role": "user", "content": "Gardening with my aunt Maria"}],
                                   "response_format": {"type": "json_schema", "json_schema": {"schema": schema}}})
        reply = json.loads(message["content"])
        self.assertEqual(reply["context"], "Gardening with my aunt Maria")
        self.assertEqual(reply["keywords"], ["gardening", "with", "aunt", "maria"])
        self.assertIs(reply["should_evolve"], False)
        self.assertEqual((reply["kind"], reply["count"]), ("fact", 0))
        self.assertEqual(reply["nested"], {"note": "Gardening with my aunt Maria"})

    def test_simplemem_style_compression_gives_one_entry_per_user_line(self):
        prompt = ("[Current Window Dialogues]\n[2024-01-01T00:00:00] User: My gym is on Elm Street.\n"
                  "[2024-01-01T00:00:00] Assistant: Got it.\n\n[Output Format]\nlossless_restatement")
        message, _ = s.chat_reply({"messages": [{"role": "user", "content": prompt}]})
        entries = json.loads(message["content"])
        self.assertEqual([e["lossless_restatement"] for e in entries], ["My gym is on Elm Street."])

    def test_lightmem_style_extraction_gives_one_fact_per_numbered_user_line(self):
        system = ('Output format:\n{"data": [{"source_id": <source_id>, "fact": "<fact>"}]}\n'
                  "Examples:\n[2022-03-20T13:21:00.000, Sun] 0.User: My name is Alice.")
        user = ("--- Topic 4 ---\n[2024-03-02T00:00:00.000, Sat] 0.user: I keep my bike in locker 7.\n"
                "[2024-03-02T00:00:01.000, Sat] 1.user: Groceries to buy:\n3. Buy milk: today\n"
                "--- Topic 5 ---\n[2024-03-02T00:00:02.000, Sat] 2.assistant: Noted.\n"
                "[2024-03-02T00:00:03.000, Sat] 3.user: Please forget the locker.")
        message, _ = s.chat_reply({"messages": [{"role": "system", "content": system},
                                                {"role": "user", "content": user}],
                                   "response_format": {"type": "json_object"}})
        self.assertEqual(json.loads(message["content"]), {"data": [
            {"source_id": 0, "fact": "I keep my bike in locker 7."},
            {"source_id": 1, "fact": "Groceries to buy:\n3. Buy milk: today"},
            {"source_id": 3, "fact": "Please forget the locker."}]})

    def test_other_json_object_requests_get_an_empty_object(self):
        # LightMem's update prompt: no action in the reply, which LightMem reads as "ignore".
        system = 'Decide whether the target memory should be updated, deleted, or ignored. {"action": "update"}'
        message, _ = s.chat_reply({"messages": [{"role": "system", "content": system},
                                                {"role": "user", "content": "Target memory:I live in Oslo."}],
                                   "response_format": {"type": "json_object"}})
        self.assertEqual(message["content"], "{}")

    def test_anything_else_gets_the_user_text(self):
        message, _ = s.chat_reply({"messages": [{"role": "user", "content": "What is my cat called?"}]})
        self.assertEqual(message["content"], "What is my cat called?")


class Server(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        port_file = os.path.join(cls.dir.name, "port")
        cls.proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(HERE), "standin_models.py"),
                                     "--port-file", port_file, "--dims", "16"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = cls.proc.stdout.readline()
        with open(port_file) as f:
            cls.port = int(f.read())
        cls.banner = line.strip()

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=10)
        cls.proc.stdout.close()
        cls.dir.cleanup()

    def call(self, path, body=None):
        url = f"http://127.0.0.1:{self.port}{path}"
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def test_banner_names_the_port(self):
        self.assertEqual(self.banner, f"listening on http://127.0.0.1:{self.port}/v1")

    def test_models(self):
        status, body = self.call("/v1/models")
        self.assertEqual(status, 200)
        self.assertIn("standin-chat", [m["id"] for m in body["data"]])

    def test_embeddings_as_floats_and_base64(self):
        status, body = self.call("/v1/embeddings", {"model": "x", "input": ["red bike", "blue van"]})
        self.assertEqual(status, 200)
        self.assertEqual([len(d["embedding"]) for d in body["data"]], [16, 16])
        status, body = self.call("/v1/embeddings", {"model": "x", "input": "red bike", "dimensions": 8,
                                                    "encoding_format": "base64"})
        decoded = struct.unpack("<8f", base64.b64decode(body["data"][0]["embedding"]))
        for got, want in zip(decoded, s.embed("red bike", 8)):
            self.assertAlmostEqual(got, want, places=6)

    def test_chat_completion(self):
        status, body = self.call("/v1/chat/completions",
                                 {"model": "m", "messages": [{"role": "user", "content": "I like tea."}]})
        self.assertEqual(status, 200)
        self.assertEqual(body["choices"][0]["message"]["content"], "I like tea.")

    def test_bad_requests_get_errors_naming_the_problem(self):
        status, body = self.call("/v1/embeddings", b"{not json")
        self.assertEqual(status, 400)
        self.assertIn("not valid JSON", body["error"]["message"])
        status, body = self.call("/v1/embeddings", {"input": [[1, 2, 3]]})
        self.assertEqual(status, 400)
        self.assertIn("`input`", body["error"]["message"])
        status, body = self.call("/v1/nothing", {})
        self.assertEqual(status, 404)
        self.assertIn("/v1/nothing", body["error"]["message"])


class Latency(unittest.TestCase):
    def test_every_post_is_answered_late_and_served_concurrently(self):
        with tempfile.TemporaryDirectory() as tmp:
            port_file = os.path.join(tmp, "port")
            proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(HERE), "standin_models.py"),
                                     "--port-file", port_file, "--latency-ms", "300"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                proc.stdout.readline()
                with open(port_file) as f:
                    port = int(f.read())

                def post():
                    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/embeddings",
                                                 data=json.dumps({"input": "tea"}).encode(),
                                                 headers={"Content-Type": "application/json"})
                    with urllib.request.urlopen(req, timeout=10) as r:
                        return r.status

                started = time.monotonic()
                self.assertEqual(post(), 200)
                self.assertGreaterEqual(time.monotonic() - started, 0.3)
                # Four at once take one latency, not four.
                started = time.monotonic()
                with ThreadPoolExecutor(4) as pool:
                    self.assertEqual(list(pool.map(lambda _: post(), range(4))), [200] * 4)
                self.assertLess(time.monotonic() - started, 1.2)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
                proc.stdout.close()

    def test_a_negative_latency_is_refused(self):
        with self.assertRaises(SystemExit):
            s.main(["--latency-ms", "-5"])


if __name__ == "__main__":
    unittest.main()
