//! Integration tests: llm.
