//! Integration tests of the crate, one module per topic.

mod adapters;
mod engine;
mod generate;
mod harness;
mod judge;
#[cfg(feature = "llm")]
mod llm;
mod metrics;
mod protocol;
mod stats;
mod systems;
mod validate;
