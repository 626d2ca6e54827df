//! The deterministic rule judge.
