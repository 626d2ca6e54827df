//! Integration tests: systems.
