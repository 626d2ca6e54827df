//! Integration tests: harness.
