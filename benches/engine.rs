//! Benchmark: engine (filled in with its feature).
fn main() {}
