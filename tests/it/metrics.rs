//! Integration tests: metrics. Small record sets built by hand, each metric pinned to a
//! value worked out by hand in the comments (z̃ = z ∧ c, Eq. 2–5).

use RequestType::{F1, F2, F6};
use bemula::dataset::{Attack, RequestType, Suite, Tier, Version};
use bemula::metrics::{
    BootstrapConfig, FailReason, MetricSet, bootstrap, bootstrap_difference, breakdowns, compute,
    counts, judging, request_outcomes,
};
use bemula::record::Record;

/// Builds the records of one instance.
struct Instance {
    id: String,
    tier: Tier,
    records: Vec<Record>,
}

impl Instance {
    fn new(id: &str, tier: Tier) -> Instance {
        Instance {
            id: id.to_string(),
            tier,
            records: Vec::new(),
        }
    }

    fn push(
        &mut self,
        request: Option<(&str, RequestType)>,
        suite: Suite,
        attack: Option<Attack>,
        version: Version,
        question_id: String,
        correct: bool,
    ) -> &mut Record {
        self.records.push(Record {
            instance: self.id.clone(),
            tier: self.tier,
            request: request.map(|(r, _)| r.to_string()),
            request_type: request.map(|(_, t)| t),
            suite,
            attack,
            version,
            question_id,
            question: "?".to_string(),
            expected: "value".to_string(),
            answer: Some("answer".to_string()),
            correct,
            error: None,
            unscored: false,
            conditioned_on: None,
            judge: "rule".to_string(),
            reason: if correct { "right" } else { "wrong" }.to_string(),
            restarts: 0,
            truncated_turns: 0,
            decided_by: None,
        });
        self.records.last_mut().expect("just pushed")
    }

    /// The record added last.
    fn last(&mut self) -> &mut Record {
        self.records.last_mut().expect("a record")
    }

    /// Retention question `<req>-ret`, scored on the control version.
    fn ret(&mut self, req: &str, kind: RequestType, ok: bool) -> &mut Self {
        let id = format!("{req}-ret");
        self.push(
            Some((req, kind)),
            Suite::Retention,
            None,
            Version::Control,
            id,
            ok,
        );
        self
    }

    /// Efficacy question, conditioned on the retention question (F6: not conditioned).
    fn eff(&mut self, req: &str, kind: RequestType, ok: bool) -> &mut Self {
        let cond = (kind != F6).then(|| format!("{req}-ret"));
        let id = format!("{req}-eff");
        self.push(
            Some((req, kind)),
            Suite::Efficacy,
            None,
            Version::Forget,
            id,
            ok,
        )
        .conditioned_on = cond;
        self
    }

    /// Relearning question, not conditioned.
    fn rl(&mut self, req: &str, kind: RequestType, ok: bool) -> &mut Self {
        let id = format!("{req}-rl");
        self.push(
            Some((req, kind)),
            Suite::Relearning,
            None,
            Version::Forget,
            id,
            ok,
        );
        self
    }

    /// Attack question asked on both versions; the forget record is conditioned on the
    /// control one.
    fn att(
        &mut self,
        req: &str,
        kind: RequestType,
        attack: Attack,
        control: bool,
        forget: bool,
    ) -> &mut Self {
        let id = format!("{req}-{}", attack.name());
        let cond = Some(id.clone());
        let r = Some((req, kind));
        self.push(
            r,
            Suite::Attack,
            Some(attack),
            Version::Control,
            id.clone(),
            control,
        );
        self.push(
            r,
            Suite::Attack,
            Some(attack),
            Version::Forget,
            id.clone(),
            forget,
        )
        .conditioned_on = cond;
        self
    }

    /// Preservation question asked on both versions.
    fn pres(&mut self, id: &str, control: bool, forget: bool) -> &mut Self {
        let id = id.to_string();
        let cond = Some(id.clone());
        self.push(
            None,
            Suite::Preservation,
            None,
            Version::Control,
            id.clone(),
            control,
        );
        self.push(
            None,
            Suite::Preservation,
            None,
            Version::Forget,
            id.clone(),
            forget,
        )
        .conditioned_on = cond;
        self
    }
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what} is undefined, expected {want}"));
    assert!(
        (got - want).abs() < 1e-12,
        "{what}: expected {want}, got {got}"
    );
}

/// Two instances worked out by hand.
///
/// Instance `a` (short):
/// - r1 (F1): retention ✓, efficacy ✓ (c = retention ✓) → 1, relearning ✓,
///   indirect control ✓ forget ✓ → 1, boolean control ✓ forget ✗ → 0.
/// - r2 (F2): everything ✓ → all 1.
/// - p1: control ✓ forget ✓ → 1; p2: control ✗ forget ✓ → 0 (conditioning).
///
/// Instance `b` (medium):
/// - r1 (F6): retention ✓, efficacy ✓ (new value, c = 1) → 1, no relearning,
///   indirect ✓/✓ → 1, boolean ✓/✓ → 1.
/// - r2 (F1): retention ✗ → 0, efficacy ✓ but c = retention ✗ → 0, relearning ✓ → 1,
///   indirect control ✓ forget ✗ → 0, boolean control ✗ forget ✓ → 0.
/// - p1: ✓/✓ → 1.
fn worked_example() -> Vec<Record> {
    let mut a = Instance::new("a", Tier::Short);
    a.ret("r1", F1, true).eff("r1", F1, true).rl("r1", F1, true);
    a.att("r1", F1, Attack::Indirect, true, true)
        .att("r1", F1, Attack::Boolean, true, false);
    a.ret("r2", F2, true).eff("r2", F2, true).rl("r2", F2, true);
    a.att("r2", F2, Attack::Indirect, true, true)
        .att("r2", F2, Attack::Boolean, true, true);
    a.pres("p1", true, true).pres("p2", false, true);

    let mut b = Instance::new("b", Tier::Medium);
    b.ret("r1", F6, true).eff("r1", F6, true);
    b.att("r1", F6, Attack::Indirect, true, true)
        .att("r1", F6, Attack::Boolean, true, true);
    b.ret("r2", F1, false)
        .eff("r2", F1, true)
        .rl("r2", F1, true);
    b.att("r2", F1, Attack::Indirect, true, false)
        .att("r2", F1, Attack::Boolean, false, true);
    b.pres("p1", true, true);

    a.records.into_iter().chain(b.records).collect()
}

#[test]
fn worked_example_pins_every_metric() {
    let m = compute(&worked_example());
    // RA: a-r1 1, a-r2 1, b-r1 1, b-r2 0 → 3/4.
    close(m.ra, 0.75, "RA");
    // FE: a-r1 1, a-r2 1, b-r1 1 (F6, unconditioned), b-r2 0 (retention wrong) → 3/4.
    close(m.fe, 0.75, "FE");
    // PR: a-p1 1, a-p2 0 (control wrong), b-p1 1 → 2/3.
    close(m.pr, 2.0 / 3.0, "PR");
    // RLA: a-r1, a-r2, b-r2 all 1 → 1.
    close(m.rla, 1.0, "RLA");
    // AR: indirect 1,1,1,0 → 3/4; boolean 0,1,1,0 (b-r2 control wrong) → 1/2; mean 5/8.
    close(m.ar, 0.625, "AR");
    // RPR: a-r1 fails (boolean), a-r2 fails only through a-p2, b-r1 passes, b-r2
    // fails → 1/4.
    close(m.rpr, 0.25, "RPR");
    // FA = √(3/4 · 5/8) = √(15/32); UG = √(2/3 · 1); Score = √(15/32 · 2/3) = √(5/16).
    close(m.fa, (15.0f64 / 32.0).sqrt(), "FA");
    close(m.ug, (2.0f64 / 3.0).sqrt(), "UG");
    close(m.score, (5.0f64 / 16.0).sqrt(), "Score");
    close(m.score, m.fa.unwrap() * m.ug.unwrap(), "Score = FA × UG");
}

#[test]
fn worked_example_request_outcomes() {
    let outcomes = request_outcomes(&worked_example());
    let summary: Vec<(&str, &str, bool)> = outcomes
        .iter()
        .map(|o| (o.instance.as_str(), o.request.as_str(), o.passed))
        .collect();
    assert_eq!(
        summary,
        [
            ("a", "r1", false),
            ("a", "r2", false),
            ("b", "r1", true),
            ("b", "r2", false)
        ]
    );
    // a-r1 fails on its boolean attack (and on the instance's failed preservation item).
    let reasons = |i: usize| -> Vec<(String, FailReason)> {
        outcomes[i]
            .failed
            .iter()
            .map(|f| (f.question_id.clone(), f.reason))
            .collect()
    };
    assert_eq!(
        reasons(0),
        [
            ("r1-boolean".to_string(), FailReason::Wrong),
            ("p2".to_string(), FailReason::PreservationItemFailed)
        ]
    );
    // a-r2 fails only through the preservation item p2, whose control probe failed.
    assert_eq!(
        reasons(1),
        [("p2".to_string(), FailReason::PreservationItemFailed)]
    );
    assert!(
        outcomes[1].failed[0]
            .detail
            .starts_with("control probe failed: p2 on the control version"),
        "{}",
        outcomes[1].failed[0].detail
    );
    assert_eq!(outcomes[1].request_type, Some(F2));
    assert_eq!(outcomes[2].failed, []);
    assert_eq!(outcomes[2].tier, Tier::Medium);
    assert_eq!(
        reasons(3),
        [
            ("r2-ret".to_string(), FailReason::Wrong),
            ("r2-eff".to_string(), FailReason::ControlProbeFailed),
            ("r2-indirect".to_string(), FailReason::Wrong),
            ("r2-boolean".to_string(), FailReason::ControlProbeFailed),
        ]
    );
    // RPR agrees with the outcomes.
    let passed = outcomes.iter().filter(|o| o.passed).count() as f64;
    close(
        compute(&worked_example()).rpr,
        passed / outcomes.len() as f64,
        "RPR vs outcomes",
    );
}

#[test]
fn worked_example_breakdowns() {
    let b = breakdowns(&worked_example());
    assert_eq!(b.by_type.keys().collect::<Vec<_>>(), ["F1", "F2", "F6"]);
    // F1 = a-r1 and b-r2: RA (1+0)/2, FE (1+0)/2, RLA (1+1)/2, indirect (1+0)/2,
    // boolean (0+0)/2 → AR 1/4, RPR 0/2.
    let f1 = &b.by_type["F1"];
    close(f1.ra, 0.5, "F1 RA");
    close(f1.fe, 0.5, "F1 FE");
    close(f1.rla, 1.0, "F1 RLA");
    close(f1.ar, 0.25, "F1 AR");
    close(f1.rpr, 0.0, "F1 RPR");
    assert_eq!((f1.pr, f1.fa, f1.ug, f1.score), (None, None, None, None));
    // F2 = a-r2: all items pass, but the instance's preservation item p2 fails → RPR 0.
    let f2 = &b.by_type["F2"];
    close(f2.ar, 1.0, "F2 AR");
    close(f2.rpr, 0.0, "F2 RPR");
    // F6 = b-r1: no relearning question → RLA undefined; passes → RPR 1.
    let f6 = &b.by_type["F6"];
    assert_eq!(f6.rla, None);
    close(f6.rpr, 1.0, "F6 RPR");
    // By attack: indirect 3/4, boolean 2/4.
    assert_eq!(b.by_attack.len(), 2);
    close(b.by_attack["indirect"], 0.75, "indirect");
    close(b.by_attack["boolean"], 0.5, "boolean");
    // Tier short = instance a: RA 1, FE 1, PR 1/2, RLA 1, AR mean(1, 1/2) = 3/4, RPR 0.
    let short = &b.by_tier["short"];
    close(short.pr, 0.5, "short PR");
    close(short.ar, 0.75, "short AR");
    close(short.rpr, 0.0, "short RPR");
    close(
        short.score,
        (0.75f64).sqrt() * (0.5f64).sqrt(),
        "short Score",
    );
    // Tier medium = instance b: RA 1/2, FE 1/2, PR 1, RLA 1, AR mean(1/2, 1/2), RPR 1/2,
    // FA √(1/4) = 1/2, UG 1, Score 1/2.
    let medium = &b.by_tier["medium"];
    close(medium.ra, 0.5, "medium RA");
    close(medium.rpr, 0.5, "medium RPR");
    close(medium.score, 0.5, "medium Score");
}

#[test]
fn worked_example_counts() {
    let c = counts(&worked_example());
    // a: 7 + 7 + 4 records, b: 6 + 7 + 2 → 33; 15 on the control version of which the
    // 4 retention records are scored → 18 + 4 = 22 scored. Wrong: a-r1 boolean forget,
    // a-p2 control, b-r2 retention, b-r2 indirect forget, b-r2 boolean control → 5.
    assert_eq!(c.records, 33);
    assert_eq!(c.scored, 22);
    assert_eq!(c.wrong, 5);
    assert_eq!(c.correct, 28);
    assert_eq!((c.errors, c.unscored, c.missing_control), (0, 0, 0));
}

#[test]
fn attack_robustness_is_the_mean_of_per_type_means() {
    // Indirect: 3 items, all pass → 1. Boolean: 1 item, fails → 0.
    // AR = (1 + 0) / 2 = 1/2, whereas the pooled mean would be 3/4.
    let mut i = Instance::new("i", Tier::Short);
    for r in ["r1", "r2", "r3"] {
        i.att(r, F1, Attack::Indirect, true, true);
    }
    i.att("r1", F1, Attack::Boolean, true, false);
    let m = compute(&i.records);
    close(m.ar, 0.5, "AR");
    // No other suite has items: their metrics, and FA/UG/Score, are undefined.
    assert_eq!((m.ra, m.fe, m.pr, m.rla), (None, None, None, None));
    assert_eq!((m.fa, m.ug, m.score), (None, None, None));
}

#[test]
fn conditioning_cancels_credit_without_a_control_pass() {
    // Efficacy correct but retention wrong → 0; preservation forget correct but control
    // wrong → 0; attack forget correct but control wrong → 0.
    let mut i = Instance::new("i", Tier::Short);
    i.ret("r1", F1, false).eff("r1", F1, true);
    i.pres("p1", false, true);
    i.att("r1", F1, Attack::Jailbreak, false, true);
    let m = compute(&i.records);
    close(m.fe, 0.0, "FE");
    close(m.pr, 0.0, "PR");
    close(m.ar, 0.0, "AR");
    // The same items with passing control probes count.
    let mut j = Instance::new("j", Tier::Short);
    j.ret("r1", F1, true).eff("r1", F1, true);
    j.pres("p1", true, true);
    j.att("r1", F1, Attack::Jailbreak, true, true);
    let m = compute(&j.records);
    close(m.fe, 1.0, "FE");
    close(m.pr, 1.0, "PR");
    close(m.ar, 1.0, "AR");
    close(m.rpr, 1.0, "RPR");
}

#[test]
fn errors_unscored_and_missing_controls_never_pass() {
    let mut i = Instance::new("i", Tier::Short);
    i.ret("r1", F1, true);
    // Marked correct by mistake but carrying an error: still not a pass.
    i.eff("r1", F1, true).last().error = Some("timeout".to_string());
    i.ret("r2", F1, true);
    i.eff("r2", F1, true).last().unscored = true;
    // Efficacy of r3 is conditioned on a retention record that is absent.
    i.eff("r3", F1, true);
    i.ret("r4", F1, true).eff("r4", F1, true);
    let m = compute(&i.records);
    // RA: r1, r2, r4 retention pass → 1. FE: only r4 passes → 1/4.
    close(m.ra, 1.0, "RA");
    close(m.fe, 0.25, "FE");
    // RPR: r4 passes (no preservation items) → 1/4.
    close(m.rpr, 0.25, "RPR");
    let c = counts(&i.records);
    assert_eq!((c.errors, c.unscored, c.missing_control), (1, 1, 1));
    assert_eq!(c.correct, 5);
    let outcomes = request_outcomes(&i.records);
    let reasons: Vec<FailReason> = outcomes
        .iter()
        .flat_map(|o| o.failed.iter().map(|f| f.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            FailReason::Error,
            FailReason::Unscored,
            FailReason::ControlProbeMissing
        ]
    );
}

/// A failing item's detail explains its reason without restating it, so a report that
/// prints "reason: detail" says each thing once ("preservation item failed: wrong: …",
/// never "preservation item failed: preservation item failed (Wrong): …").
#[test]
fn a_failing_items_detail_never_restates_its_reason() {
    let mut i = Instance::new("i", Tier::Short);
    i.ret("r1", F1, true);
    i.eff("r1", F1, true).last().error = Some("timeout".to_string());
    i.ret("r2", F1, true);
    i.eff("r2", F1, true).last().unscored = true;
    i.eff("r3", F1, true);
    let mut records = i.records.clone();
    records.extend(worked_example());
    let failed: Vec<_> = request_outcomes(&records)
        .into_iter()
        .flat_map(|o| o.failed)
        .collect();
    let kinds: std::collections::BTreeSet<String> =
        failed.iter().map(|f| f.reason.to_string()).collect();
    assert!(kinds.len() >= 4, "{kinds:?}");
    for f in &failed {
        if f.reason == FailReason::Wrong {
            continue;
        }
        let reason = f.reason.to_string();
        assert!(
            !f.detail.to_lowercase().contains(&reason),
            "{reason}: {}",
            f.detail
        );
        assert!(
            !f.detail.starts_with("error:") && !f.detail.starts_with("unscored:"),
            "{}",
            f.detail
        );
        if f.reason == FailReason::PreservationItemFailed {
            assert!(
                ["wrong: ", "error: ", "unscored: ", "control probe"]
                    .iter()
                    .any(|p| f.detail.starts_with(p)),
                "a preservation item says why it failed: {}",
                f.detail
            );
        }
    }
}

/// One instance with two requests (F1, F2) and three preservation items: `control`
/// is the correctness of every control-version answer, the others that of the
/// forget-version answers of each suite.
fn standard_instance(
    id: &str,
    control: bool,
    efficacy: bool,
    preservation: bool,
    relearning: bool,
    attack: bool,
) -> Vec<Record> {
    let mut i = Instance::new(id, Tier::Short);
    for (r, kind) in [("r1", F1), ("r2", F2)] {
        i.ret(r, kind, control)
            .eff(r, kind, efficacy)
            .rl(r, kind, relearning);
        for a in Attack::ALL {
            i.att(r, kind, a, control, attack);
        }
    }
    for p in ["p1", "p2", "p3"] {
        i.pres(p, control, preservation);
    }
    i.records
}

fn system(
    control: bool,
    efficacy: bool,
    preservation: bool,
    relearning: bool,
    attack: bool,
) -> Vec<Record> {
    (0..4)
        .flat_map(|k| {
            standard_instance(
                &format!("i{k}"),
                control,
                efficacy,
                preservation,
                relearning,
                attack,
            )
        })
        .collect()
}

#[test]
fn degenerate_strategies_score_zero() {
    // Stores nothing: every control answer is wrong; on the forget version it says "I
    // don't know" (efficacy and attacks "correct"), answers no preservation question
    // and cannot relearn. Conditioning turns FE, PR, AR into 0.
    let nothing = compute(&system(false, true, false, false, true));
    close(nothing.ra, 0.0, "store-nothing RA");
    close(nothing.fe, 0.0, "store-nothing FE");
    close(nothing.pr, 0.0, "store-nothing PR");
    close(nothing.ar, 0.0, "store-nothing AR");
    close(nothing.score, 0.0, "store-nothing Score");

    // Wipes everything at the first request: stores, forgets and resists attacks, and
    // relearns new facts, but loses all preservation facts → PR 0 → UG 0 → Score 0.
    let wipe = compute(&system(true, true, false, true, true));
    close(wipe.ra, 1.0, "wipe RA");
    close(wipe.fe, 1.0, "wipe FE");
    close(wipe.ar, 1.0, "wipe AR");
    close(wipe.pr, 0.0, "wipe PR");
    close(wipe.score, 0.0, "wipe Score");
    close(wipe.rpr, 0.0, "wipe RPR");

    // Never forgets: stores and keeps everything, so efficacy and attacks fail.
    let hoard = compute(&system(true, false, true, true, false));
    close(hoard.ra, 1.0, "never-forget RA");
    close(hoard.fe, 0.0, "never-forget FE");
    close(hoard.ar, 0.0, "never-forget AR");
    close(hoard.pr, 1.0, "never-forget PR");
    close(hoard.score, 0.0, "never-forget Score");

    // The ideal system passes everything.
    let ideal = compute(&system(true, true, true, true, true));
    close(ideal.score, 1.0, "ideal Score");
    close(ideal.rpr, 1.0, "ideal RPR");
}

#[test]
fn no_records_leave_every_metric_undefined_and_null_in_json() {
    let m = compute(&[]);
    assert_eq!(m, MetricSet::default());
    let json = serde_json::to_value(m).expect("serialises");
    let keys: Vec<&String> = json.as_object().expect("an object").keys().collect();
    let mut expected = MetricSet::KEYS.to_vec();
    expected.sort();
    let mut keys_sorted: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    keys_sorted.sort();
    assert_eq!(keys_sorted, expected);
    assert!(json.as_object().unwrap().values().all(|v| v.is_null()));
    let back: MetricSet = serde_json::from_value(json).expect("round trip");
    assert_eq!(back, m);
}

/// A varied system: `n` instances whose outcomes follow a fixed pattern.
fn varied(n: usize, shift: usize) -> Vec<Record> {
    let mut records = Vec::new();
    for k in 0..n {
        let mut i = Instance::new(&format!("i{k:02}"), Tier::ALL[k % 4]);
        let bit = |salt: usize| (k * 7 + salt * 13 + shift) % 5 != 0;
        for (j, (r, kind)) in [("r1", F1), ("r2", F2), ("r3", F6)].into_iter().enumerate() {
            i.ret(r, kind, bit(j))
                .eff(r, kind, bit(j + 3) && k % 3 != 0);
            if kind != F6 {
                i.rl(r, kind, bit(j + 6));
            }
            for (x, a) in Attack::ALL.into_iter().enumerate() {
                i.att(r, kind, a, bit(x + 9), bit(x + j + 11) && k % 2 == 0);
            }
        }
        for (x, p) in ["p1", "p2", "p3"].into_iter().enumerate() {
            i.pres(p, bit(x + 20), bit(x + 23));
        }
        records.extend(i.records);
    }
    records
}

#[test]
fn bootstrap_is_deterministic_and_brackets_the_point_estimate() {
    let records = varied(30, 0);
    let point = compute(&records);
    let config = BootstrapConfig {
        resamples: 2_000,
        ..BootstrapConfig::default()
    };
    let first = bootstrap(&records, &config).expect("valid settings");
    let again = bootstrap(&records, &config).expect("valid settings");
    assert_eq!(first, again, "same seed, same intervals");
    assert_eq!(first.keys().count(), 9);
    for key in MetricSet::KEYS {
        let interval = first[key];
        let value = point.get(key).expect("defined");
        assert!(interval.lo <= interval.hi);
        assert!(
            interval.contains(value),
            "{key}: {value} outside [{}, {}]",
            interval.lo,
            interval.hi
        );
        assert!((0.0..=1.0).contains(&interval.lo) && (0.0..=1.0).contains(&interval.hi));
    }
    // The retention interval is not degenerate with varied instances.
    assert!(first["RA"].hi > first["RA"].lo);
    let other = bootstrap(&records, &BootstrapConfig { seed: 7, ..config }).expect("valid");
    assert_ne!(first, other, "another seed, (slightly) other intervals");
    for key in ["RA", "FE", "Score"] {
        assert!(
            (first[key].lo - other[key].lo).abs() < 0.1,
            "{key} moves only slightly"
        );
    }
}

#[test]
fn bootstrap_of_one_instance_is_degenerate() {
    let records = varied(1, 0);
    let point = compute(&records);
    let intervals = bootstrap(
        &records,
        &BootstrapConfig {
            resamples: 100,
            ..BootstrapConfig::default()
        },
    )
    .expect("valid settings");
    for key in MetricSet::KEYS {
        let value = point.get(key).expect("defined");
        assert_eq!(intervals[key].lo, value, "{key}");
        assert_eq!(intervals[key].hi, value, "{key}");
    }
}

#[test]
fn bootstrap_rejects_invalid_settings_and_omits_undefined_metrics() {
    let records = varied(3, 0);
    let bad = BootstrapConfig {
        level: 1.5,
        ..BootstrapConfig::default()
    };
    assert_eq!(
        bootstrap(&records, &bad).unwrap_err().to_string(),
        "bootstrap confidence level 1.5 must be strictly between 0 and 1"
    );
    assert!(
        bootstrap(&[], &BootstrapConfig::default())
            .expect("valid")
            .is_empty()
    );
    // Only attack items: RA etc. are undefined in every resample and have no interval.
    let mut i = Instance::new("i", Tier::Short);
    i.att("r1", F1, Attack::Indirect, true, true);
    let intervals = bootstrap(
        &i.records,
        &BootstrapConfig {
            resamples: 10,
            ..BootstrapConfig::default()
        },
    )
    .expect("valid");
    assert_eq!(intervals.keys().collect::<Vec<_>>(), ["AR", "RPR"]);
}

#[test]
fn paired_difference_bootstrap() {
    let a = varied(20, 0);
    let config = BootstrapConfig {
        resamples: 1_000,
        ..BootstrapConfig::default()
    };
    // A system against itself: every difference is exactly 0.
    let same = bootstrap_difference(&a, &a, &config).expect("valid");
    for key in MetricSet::KEYS {
        assert_eq!((same[key].lo, same[key].hi), (0.0, 0.0), "{key}");
    }
    // The same system with every efficacy answer wrong: FE drops by the point FE in
    // every resample's direction, so the FE difference interval is above 0 and holds
    // the point difference.
    let b: Vec<Record> = a
        .iter()
        .cloned()
        .map(|mut r| {
            if r.suite == Suite::Efficacy {
                r.correct = false;
            }
            r
        })
        .collect();
    let diff = bootstrap_difference(&a, &b, &config).expect("valid");
    let point = compute(&a).fe.unwrap() - compute(&b).fe.unwrap();
    assert!(diff["FE"].lo > 0.0, "{:?}", diff["FE"]);
    assert!(diff["FE"].contains(point));
    assert_eq!((diff["RA"].lo, diff["RA"].hi), (0.0, 0.0));
}

#[test]
fn metric_set_lookup_by_key() {
    let m = compute(&worked_example());
    assert_eq!(m.get("RA"), m.ra);
    assert_eq!(m.get("Score"), m.score);
    assert_eq!(m.get("nope"), None);
}

#[test]
fn judging_counts_which_judge_decided_and_the_unscored_share() {
    let mut inst = Instance::new("i1", Tier::Short);
    inst.ret("r1", F1, true);
    inst.last().decided_by = Some("rule".to_string());
    inst.ret("r2", F1, false);
    inst.last().decided_by = Some("rule".to_string());
    inst.ret("r3", F1, true);
    inst.last().decided_by = Some("llm:m".to_string());
    inst.ret("r4", F1, false);
    inst.last().unscored = true;
    inst.ret("r5", F1, false);
    inst.last().error = Some("system failed".to_string());
    let j = judging(&inst.records, "rule+llm:m");
    assert_eq!(j.judge, "rule+llm:m");
    assert_eq!(j.judged, 4, "the error is not judged");
    assert_eq!(j.decided_by.get("rule"), Some(&2));
    assert_eq!(j.decided_by.get("llm:m"), Some(&1));
    assert_eq!(j.unscored, 1);
    assert_eq!(j.unscored_share, Some(0.25));
    let line = bemula::report::judging_line(&j);
    assert_eq!(
        line,
        "judge `rule+llm:m`: decided by llm:m 25.0%, rule 50.0%, unscored 25.0% (1 of 4 judged records)"
    );
    // A single judge decides whatever it scores.
    let single = judging(&inst.records, "rule");
    assert_eq!(single.decided_by.get("rule"), Some(&2));
    inst.records.iter_mut().for_each(|r| r.decided_by = None);
    let single = judging(&inst.records, "rule");
    assert_eq!(single.decided_by.get("rule"), Some(&3));
}
