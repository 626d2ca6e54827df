//! Integration tests: protocol.
