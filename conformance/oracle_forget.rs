//! Dogfood: the positive control. The instrument `oracle-forget` reads the dataset and
//! forgets exactly what each request names, so with the oracle reader and the rule
//! judge it passes every request the offline reader can score. Its expectations file,
//! `conformance/expectations/oracle-forget.txt`, lists only the F4 requests (a derived
//! fact is never stated, so the oracle reader cannot answer its control probes); any
//! other failure is a regression of the data, the judge or the metrics and fails
//! `cargo test`.

fn main() -> std::process::ExitCode {
    bemula::harness::Harness::instrument("oracle-forget")
        .expectations(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/conformance/expectations/oracle-forget.txt"
        ))
        .run()
}
