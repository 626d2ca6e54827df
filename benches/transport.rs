//! Benchmark: transport (filled in with its feature).
fn main() {}
