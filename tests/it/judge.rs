//! Integration tests: judge.
