//! Integration tests: engine.
