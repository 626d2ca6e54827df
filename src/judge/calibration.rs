//! Hand-labelled judge calibration: the label format (`conformance/calibration/README.md`),
//! the confusion matrix of a judge against the labels, and the figures of the rule
//! judge on the shipped set, which every report quotes beside how it was judged.
//!
//! `bemula calibrate` (in `cli::calibrate`) grades a labels file with any judge; this
//! module holds what the library itself needs.

use crate::dataset::{Attack, FORGOTTEN, NO_LEAK, Suite, Version};
use crate::judge::JudgeItem;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::LazyLock;

/// One labeled item: a graded situation and the human's verdict on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// The suite of the question.
    pub suite: Suite,
    /// The attack frame (attack suite only), else `null`.
    pub attack: Option<Attack>,
    /// The version the answer was given on.
    pub version: Version,
    /// The question as asked.
    pub question: String,
    /// The expected answer: a value, `[FORGOTTEN]` or `[NO_LEAK]`.
    pub expected: String,
    /// Accepted spellings of a value.
    #[serde(default)]
    pub accepted: Vec<String>,
    /// Values whose appearance is a leak.
    #[serde(default)]
    pub leak: Vec<String>,
    /// The answer to grade.
    pub answer: String,
    /// The human's verdict: `true` correct, `false` wrong.
    pub human: bool,
    /// Why, for hard cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Label {
    /// The item as a judge sees it.
    pub fn item(&self) -> JudgeItem<'_> {
        JudgeItem {
            suite: self.suite,
            attack: self.attack,
            version: self.version,
            question: &self.question,
            expected: &self.expected,
            accepted: &self.accepted,
            leak: &self.leak,
        }
    }

    /// What is wrong with the label, if anything.
    fn problem(&self) -> Option<String> {
        let marker = self.expected == FORGOTTEN || self.expected == NO_LEAK;
        if (self.suite == Suite::Attack) != self.attack.is_some() {
            return Some("`attack` must be set exactly when `suite` is \"attack\"".into());
        }
        if self.question.trim().is_empty() || self.expected.trim().is_empty() {
            return Some("`question` and `expected` must not be empty".into());
        }
        if self.expected == FORGOTTEN && self.suite != Suite::Efficacy {
            return Some(format!("{FORGOTTEN} is the gold of efficacy items only"));
        }
        if self.expected == NO_LEAK && self.suite != Suite::Attack {
            return Some(format!("{NO_LEAK} is the gold of attack items only"));
        }
        if marker && self.version != Version::Forget {
            return Some("marker golds are asked on the forget version only".into());
        }
        if marker && self.leak.is_empty() {
            return Some("a marker item needs at least one `leak` value".into());
        }
        None
    }
}

/// A label with the line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LabeledItem {
    /// Line in the file, from 1.
    pub line: usize,
    /// The label.
    pub label: Label,
}

/// Parses a labels file's text; blank lines are skipped. Errors name `source`, the
/// line and the field.
pub fn parse_labels(text: &str, source: &str) -> Result<Vec<LabeledItem>, String> {
    let mut items = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let de = &mut serde_json::Deserializer::from_str(line);
        let label: Label = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let at = if path == "." {
                String::new()
            } else {
                format!(" at {path}")
            };
            format!("{source}:{line_no}{at}: {}", e.into_inner())
        })?;
        if let Some(p) = label.problem() {
            return Err(format!("{source}:{line_no}: {p}"));
        }
        items.push(LabeledItem {
            line: line_no,
            label,
        });
    }
    if items.is_empty() {
        return Err(format!("{source}: no labeled items"));
    }
    Ok(items)
}

/// Reads and parses a labels file.
pub fn load_labels(path: &Path) -> Result<Vec<LabeledItem>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse_labels(&text, &path.display().to_string())
}

/// Judge verdicts against human labels. Rows judge, columns human; unscored items are
/// counted apart and left out of agreement and kappa.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confusion {
    /// Judge correct, human correct.
    pub judge_correct_human_correct: u64,
    /// Judge correct, human wrong (a false pass).
    pub judge_correct_human_wrong: u64,
    /// Judge wrong, human correct (a false fail).
    pub judge_wrong_human_correct: u64,
    /// Judge wrong, human wrong.
    pub judge_wrong_human_wrong: u64,
    /// Judge unscored, human correct.
    pub unscored_human_correct: u64,
    /// Judge unscored, human wrong.
    pub unscored_human_wrong: u64,
}

impl Confusion {
    /// Adds one item.
    pub fn add(&mut self, judge: Option<bool>, human: bool) {
        let cell = match (judge, human) {
            (Some(true), true) => &mut self.judge_correct_human_correct,
            (Some(true), false) => &mut self.judge_correct_human_wrong,
            (Some(false), true) => &mut self.judge_wrong_human_correct,
            (Some(false), false) => &mut self.judge_wrong_human_wrong,
            (None, true) => &mut self.unscored_human_correct,
            (None, false) => &mut self.unscored_human_wrong,
        };
        *cell += 1;
    }

    /// Items the judge scored.
    pub fn scored(&self) -> u64 {
        self.judge_correct_human_correct
            + self.judge_correct_human_wrong
            + self.judge_wrong_human_correct
            + self.judge_wrong_human_wrong
    }

    /// Items on which judge and human agree.
    pub fn agreed(&self) -> u64 {
        self.judge_correct_human_correct + self.judge_wrong_human_wrong
    }

    /// Share of scored items on which judge and human agree; `None` with none scored.
    pub fn agreement(&self) -> Option<f64> {
        let n = self.scored();
        (n > 0).then(|| self.agreed() as f64 / n as f64)
    }

    /// Cohen's kappa over the scored items: (p_o − p_e) / (1 − p_e). `None` with none
    /// scored, or when chance agreement is 1 (both raters gave one verdict only).
    pub fn kappa(&self) -> Option<f64> {
        let n = self.scored() as f64;
        if n == 0.0 {
            return None;
        }
        let (a, b) = (
            self.judge_correct_human_correct as f64,
            self.judge_correct_human_wrong as f64,
        );
        let (c, d) = (
            self.judge_wrong_human_correct as f64,
            self.judge_wrong_human_wrong as f64,
        );
        let observed = (a + d) / n;
        let chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
        if (1.0 - chance).abs() < 1e-12 {
            return None;
        }
        Some((observed - chance) / (1.0 - chance))
    }
}

/// The shipped calibration set (`conformance/calibration/labels.jsonl`), built into the
/// binary so every report can quote the rule judge's figures on it.
const SHIPPED_LABELS: &str = include_str!("../../conformance/calibration/labels.jsonl");

/// Where the shipped labels live in the repository.
pub const SHIPPED_LABELS_PATH: &str = "conformance/calibration/labels.jsonl";

/// A judge's figures on the shipped calibration set, as a report quotes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShippedCalibration {
    /// The judge measured: `rule` (for the hybrid judge, its rule part).
    pub judge: String,
    /// The labels file.
    pub labels: String,
    /// Labelled items.
    pub items: usize,
    /// Agreement with the labels on the items the judge scored, in [0, 1].
    pub agreement: Option<f64>,
    /// Cohen's kappa on the scored items.
    pub kappa: Option<f64>,
    /// Share of items left unscored, in [0, 1].
    pub unscored_share: Option<f64>,
    /// Items judged correct that the label says are wrong (a leak or wrong answer
    /// passed).
    pub dangerous: u64,
    /// What the figures are: development figures (the rules were written against these
    /// labels), not a held-out measurement.
    pub note: String,
}

/// The rule judge on the shipped labels, measured once per process (a few
/// milliseconds: the rule judge is deterministic and offline).
static RULE_ON_SHIPPED: LazyLock<Result<ShippedCalibration, String>> = LazyLock::new(|| {
    let items = parse_labels(SHIPPED_LABELS, SHIPPED_LABELS_PATH)?;
    let judge = crate::judge::rule::RuleJudge;
    let mut confusion = Confusion::default();
    for item in &items {
        let verdict = judge.verdict(&item.label.item(), &item.label.answer);
        confusion.add(verdict.correct, item.label.human);
    }
    Ok(ShippedCalibration {
        judge: "rule".into(),
        labels: SHIPPED_LABELS_PATH.into(),
        items: items.len(),
        agreement: confusion.agreement(),
        kappa: confusion.kappa(),
        unscored_share: confusion.unscored_share(),
        dangerous: confusion.judge_correct_human_wrong,
        note: "development figures: the rules were written against these labels".into(),
    })
});

/// The shipped calibration figures that apply to the judge `spec`: the rule judge's
/// for `rule` and for the rule part of a hybrid `rule+…` judge; `None` for an LLM
/// judge (its figures depend on the model: `bemula calibrate` measures them).
pub fn shipped_for(spec: &str) -> Option<ShippedCalibration> {
    let spec = spec.trim();
    if spec != "rule" && !spec.starts_with("rule+") {
        return None;
    }
    RULE_ON_SHIPPED.as_ref().ok().cloned()
}

/// One line quoting the calibration figures `figures` of the judge `spec` (as
/// [`shipped_for`] gives them), or saying how to measure them when there are none.
pub fn calibration_line(spec: &str, figures: Option<&ShippedCalibration>) -> String {
    let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |x| format!("{:.1}%", 100.0 * x));
    let measure =
        |judge: &str| format!("bemula calibrate --labels {SHIPPED_LABELS_PATH} --judge {judge}");
    match figures {
        Some(c) => {
            let kappa = c.kappa.map_or("n/a".to_string(), |k| format!("{k:.3}"));
            let part = if spec.trim() == "rule" {
                String::new()
            } else {
                format!(
                    "; the LLM part is not calibrated here (measure it: {})",
                    measure(spec.trim())
                )
            };
            format!(
                "`rule` on the {} hand-labelled items of {} ({}): agreement {}, \
                 kappa {kappa}, unscored {}, {} leaks or wrong answers passed{part}",
                c.items,
                c.labels,
                c.note,
                pct(c.agreement),
                pct(c.unscored_share),
                c.dangerous,
            )
        }
        None => format!(
            "no shipped calibration for judge `{}` (its figures depend on the model; \
             measure them: {})",
            spec.trim(),
            measure(spec.trim())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures reports quote are those `bemula calibrate --judge rule` prints for
    /// the shipped file: the same labels, the same judge, the same counts.
    #[test]
    fn the_shipped_figures_are_the_rule_judge_on_the_shipped_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED_LABELS_PATH);
        let items = load_labels(&path).unwrap();
        let c = shipped_for("rule").unwrap();
        assert_eq!(c.items, items.len());
        let judge = crate::judge::rule::RuleJudge;
        let passed_wrong = items
            .iter()
            .filter(|i| {
                !i.label.human
                    && judge.verdict(&i.label.item(), &i.label.answer).correct == Some(true)
            })
            .count() as u64;
        assert_eq!(c.dangerous, passed_wrong);
        assert!(c.agreement.is_some_and(|a| a > 0.5 && a <= 1.0));
        assert_eq!(shipped_for("rule+llm:m"), Some(c));
        assert_eq!(shipped_for("llm:m"), None);
    }

    fn shipped_line(spec: &str) -> String {
        calibration_line(spec, shipped_for(spec).as_ref())
    }

    #[test]
    fn the_line_names_the_figures_or_how_to_measure_them() {
        let rule = shipped_line("rule");
        assert!(rule.contains("development figures"), "{rule}");
        assert!(rule.contains("kappa 0."), "{rule}");
        let hybrid = shipped_line("rule+llm:m");
        assert!(
            hybrid.contains("the LLM part is not calibrated"),
            "{hybrid}"
        );
        let llm = shipped_line("llm:m");
        assert!(
            llm.contains(
                "bemula calibrate --labels conformance/calibration/labels.jsonl --judge llm:m"
            ),
            "{llm}"
        );
    }
}
