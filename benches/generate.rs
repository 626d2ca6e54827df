//! Benchmark: generate (filled in with its feature).
fn main() {}
