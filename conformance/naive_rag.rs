//! Dogfood: the bemula suite run by `cargo test` against the built-in `naive-rag` system on
//! Bemula-Lite (the hand-realised edition, the harness's default data) with the rule
//! judge. Known failures are listed in
//! `conformance/expectations/naive-rag.txt`; the target passes only while the system's
//! behaviour is unchanged (rewrite the list with `BEMULA_BLESS=1`).

fn main() -> std::process::ExitCode {
    let factory = bemula::system::builtin::factory("naive-rag").expect("a built-in system");
    bemula::harness::Harness::with_factory(factory)
        .expectations(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/conformance/expectations/naive-rag.txt"
        ))
        .run()
}
