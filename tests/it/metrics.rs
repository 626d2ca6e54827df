//! Integration tests: metrics.
