//! The `tests/bemula.rs` of the README: a memory system checked by the bemula harness.
//! Run it like a test target: `cargo run --example tests_bemula -- --list`.
//! (A test in `tests/it/harness.rs` keeps this file and the README in step.)

// tests/bemula.rs
use bemula::harness::Harness;
use bemula::system::{MemorySystem, Namespace, Reply, SystemResult, TurnInput};

#[derive(Default)]
struct MyMemory {
    turns: Vec<String>,
}

impl MemorySystem for MyMemory {
    fn reset(&mut self, _ns: &Namespace) -> SystemResult<()> {
        self.turns.clear();
        Ok(())
    }
    fn observe(&mut self, _ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.turns.push(turn.user.clone());
        Ok(())
    }
    fn query(&mut self, _ns: &Namespace, question: &str) -> SystemResult<Reply> {
        // Return your own answer (Reply::Answer) or what you retrieved, best first
        // (Reply::memories, or Reply::Memories with times); memories are turned into an
        // answer by the run's answerer, the same for every system.
        let _ = question;
        Ok(Reply::memories(self.turns.iter().rev().take(5).cloned()))
    }
}

fn main() -> std::process::ExitCode {
    Harness::from_fn("my-memory", MyMemory::default).run()
}
