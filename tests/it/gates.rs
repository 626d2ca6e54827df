//! Positive control, metric gates and regression gates.

use bemula::cli::validate::PositiveControl;
use bemula::dataset::{RequestType, Suite, Tier, Version};
use bemula::metrics::{FailReason, FailedItem, RequestOutcome};

fn outcome(id: &str, kind: RequestType, passed: bool) -> RequestOutcome {
    RequestOutcome {
        instance: "short_001".into(),
        tier: Tier::Short,
        request: id.into(),
        request_type: Some(kind),
        passed,
        failed: if passed {
            vec![]
        } else {
            vec![FailedItem {
                question_id: format!("{id}-eff-f1"),
                version: Version::Forget,
                suite: Suite::Efficacy,
                attack: None,
                reason: FailReason::Wrong,
                detail: "leak value \"6134\" revealed".into(),
            }]
        },
    }
}

#[test]
fn the_positive_control_fails_on_any_request_but_f4_and_names_its_items() {
    let only_f4 = PositiveControl::of(&[
        outcome("r1", RequestType::F1, true),
        outcome("r2", RequestType::F4, false),
    ]);
    assert!(only_f4.passes());
    let text = only_f4.render("hand");
    assert!(text.contains("F4 inferential   0 of 1 passed"), "{text}");
    assert!(text.contains("PASSED"), "{text}");

    let broken = PositiveControl::of(&[
        outcome("r1", RequestType::F1, false),
        outcome("r2", RequestType::F4, false),
    ]);
    assert!(!broken.passes());
    let text = broken.render("hand");
    assert!(text.contains("FAIL short_001::r1 (F1)"), "{text}");
    assert!(
        text.contains("r1-eff-f1 (wrong, forget version): leak value"),
        "{text}"
    );
    assert!(!text.contains("FAIL short_001::r2"), "{text}");
}

#[test]
fn the_oracle_forget_dogfood_expects_only_f4_to_fail() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/conformance/expectations/oracle-forget.txt"
    );
    let expectations = bemula::harness::Expectations::read(std::path::Path::new(path)).unwrap();
    assert!(!expectations.is_empty());
    for name in expectations.names() {
        assert!(name.ends_with("::F4_inferential"), "{name} in {path}");
    }
}
