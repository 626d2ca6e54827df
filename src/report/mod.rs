//! Reports: `results.jsonl`, `summary.json`, Markdown and JUnit XML.
