//! `bemula calibrate`: grades a human-labeled JSONL set with a judge and reports how
//! well the judge agrees with the human: agreement, the 2×2 confusion matrix (rows
//! judge, columns human), Cohen's kappa and the disagreeing items.
//!
//! The label format is documented in `conformance/calibration/README.md`; the shipped
//! set is `conformance/calibration/labels.jsonl`.

use super::CliResult;
use crate::dataset::{Attack, Suite};
pub use crate::judge::calibration::{Confusion, Label, LabeledItem, load_labels, parse_labels};
use crate::judge::{Judge, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `bemula calibrate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The labeled set, one JSON item per line.
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// The judge: `rule`, `llm:MODEL[+MODEL…]` (several models: majority decides), or
    /// the hybrid `rule+llm:MODEL[+MODEL…]` (the LLM judge grades only what the rules
    /// leave unscored).
    #[arg(long, default_value = "rule", value_name = "SPEC")]
    pub judge: String,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Endpoint settings of an LLM judge.
    #[cfg(feature = "llm")]
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// An item on which the judge did not agree with the human (or left unscored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// Line in the labels file.
    pub line: usize,
    /// The label.
    #[serde(flatten)]
    pub label: Label,
    /// The judge's verdict (`null`: unscored).
    pub judge: Option<bool>,
    /// The judge's reason.
    pub reason: String,
}

/// The outcome of a calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The judge's name.
    pub judge: String,
    /// Where the labels came from.
    pub labels: String,
    /// Number of labeled items.
    pub items: usize,
    /// The confusion matrix.
    pub confusion: Confusion,
    /// Agreement on scored items, in [0, 1].
    pub agreement: Option<f64>,
    /// Cohen's kappa on scored items.
    pub kappa: Option<f64>,
    /// Share of items the judge left unscored, in [0, 1].
    #[serde(default)]
    pub unscored_share: Option<f64>,
    /// The same figures per suite, in the paper's order of suites.
    #[serde(default)]
    pub by_suite: Vec<SuiteCalibration>,
    /// Items judged correct that the label says are wrong: the dangerous kind of
    /// disagreement (a leak or a wrong answer passed).
    #[serde(default)]
    pub dangerous: u64,
    /// The dangerous items per attack frame (attack items only).
    #[serde(default)]
    pub by_attack: Vec<FrameCalibration>,
    /// Under the hybrid judge: how many items the rules decided, how many the LLM
    /// judge, and how many stayed unscored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<crate::judge::hybrid::HybridStats>,
    /// Items with a verdict other than the human's, in file order.
    pub disagreements: Vec<Disagreement>,
    /// Judge counters (LLM judges): model agreement, guard overrules, unparsable replies.
    #[cfg(feature = "llm")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_stats: Option<crate::llm::JudgeStats>,
    /// LLM usage of the calibration (LLM judges).
    #[cfg(feature = "llm")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::llm::UsageByRole>,
}

/// Calibration figures of one suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteCalibration {
    /// The suite.
    pub suite: Suite,
    /// Number of labeled items of the suite.
    pub items: usize,
    /// The confusion matrix of the suite's items.
    pub confusion: Confusion,
    /// Agreement on scored items, in [0, 1].
    pub agreement: Option<f64>,
    /// Cohen's kappa on scored items.
    pub kappa: Option<f64>,
    /// Share of the suite's items left unscored, in [0, 1].
    pub unscored_share: Option<f64>,
    /// Items of the suite judged correct that the label says are wrong.
    #[serde(default)]
    pub dangerous: u64,
}

/// Calibration figures of one attack frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameCalibration {
    /// The attack frame.
    pub attack: Attack,
    /// Number of labeled items of the frame.
    pub items: usize,
    /// Items of the frame judged correct that the label says are wrong.
    pub dangerous: u64,
    /// Items of the frame left unscored.
    pub unscored: u64,
}

impl Confusion {
    /// Items the judge left unscored.
    pub fn unscored(&self) -> u64 {
        self.unscored_human_correct + self.unscored_human_wrong
    }

    /// Share of all items left unscored; `None` with no items.
    pub fn unscored_share(&self) -> Option<f64> {
        let n = self.scored() + self.unscored();
        (n > 0).then(|| self.unscored() as f64 / n as f64)
    }
}

/// Judges every item (concurrently; an LLM judge bounds its own requests) and
/// compares with the labels.
pub async fn calibrate(judge: Arc<dyn Judge>, items: &[LabeledItem], source: &str) -> Calibration {
    let mut tasks = tokio::task::JoinSet::new();
    for (index, item) in items.iter().enumerate() {
        let judge = Arc::clone(&judge);
        let label = item.label.clone();
        tasks.spawn(async move { (index, judge.judge(&label.item(), &label.answer).await) });
    }
    let mut verdicts: Vec<Option<Verdict>> = vec![None; items.len()];
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((index, verdict)) => verdicts[index] = Some(verdict),
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    let mut confusion = Confusion::default();
    let mut per_suite: Vec<(Suite, usize, Confusion)> = Suite::ALL
        .iter()
        .map(|s| (*s, 0, Confusion::default()))
        .collect();
    let mut per_frame: Vec<FrameCalibration> = Attack::ALL
        .iter()
        .map(|a| FrameCalibration {
            attack: *a,
            items: 0,
            dangerous: 0,
            unscored: 0,
        })
        .collect();
    let mut disagreements = Vec::new();
    for (item, verdict) in items.iter().zip(verdicts) {
        let verdict = verdict.expect("every task reports");
        confusion.add(verdict.correct, item.label.human);
        if let Some(frame) = per_frame
            .iter_mut()
            .find(|f| Some(f.attack) == item.label.attack)
        {
            frame.items += 1;
            frame.dangerous += u64::from(verdict.correct == Some(true) && !item.label.human);
            frame.unscored += u64::from(verdict.correct.is_none());
        }
        if let Some((_, n, c)) = per_suite
            .iter_mut()
            .find(|(s, _, _)| *s == item.label.suite)
        {
            *n += 1;
            c.add(verdict.correct, item.label.human);
        }
        if verdict.correct != Some(item.label.human) {
            disagreements.push(Disagreement {
                line: item.line,
                label: item.label.clone(),
                judge: verdict.correct,
                reason: verdict.reason,
            });
        }
    }
    Calibration {
        judge: judge.name(),
        labels: source.to_string(),
        items: items.len(),
        agreement: confusion.agreement(),
        kappa: confusion.kappa(),
        unscored_share: confusion.unscored_share(),
        by_suite: per_suite
            .into_iter()
            .filter(|(_, n, _)| *n > 0)
            .map(|(suite, items, c)| SuiteCalibration {
                suite,
                items,
                agreement: c.agreement(),
                kappa: c.kappa(),
                unscored_share: c.unscored_share(),
                dangerous: c.judge_correct_human_wrong,
                confusion: c,
            })
            .collect(),
        dangerous: confusion.judge_correct_human_wrong,
        by_attack: per_frame.into_iter().filter(|f| f.items > 0).collect(),
        decided_by: None,
        confusion,
        disagreements,
        #[cfg(feature = "llm")]
        judge_stats: None,
        #[cfg(feature = "llm")]
        usage: None,
    }
}

fn verdict_word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "correct",
        Some(false) => "wrong",
        None => "unscored",
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or("n/a".to_string(), |x| format!("{:.1}%", 100.0 * x))
}

/// The calibration as text for a terminal.
pub fn render_text(c: &Calibration) -> String {
    let m = &c.confusion;
    let unscored = m.unscored_human_correct + m.unscored_human_wrong;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "judge {} on {}: {} items, {} scored, {} unscored",
        c.judge,
        c.labels,
        c.items,
        m.scored(),
        unscored
    );
    let kappa = c
        .kappa
        .map_or("undefined".to_string(), |k| format!("{k:.3}"));
    let _ = writeln!(
        out,
        "agreement {} ({}/{}), Cohen's kappa {kappa}\n",
        percent(c.agreement),
        m.agreed(),
        m.scored()
    );
    let _ = writeln!(
        out,
        "{:<16}{:>15}{:>13}",
        "", "human correct", "human wrong"
    );
    let rows = [
        (
            "judge correct",
            m.judge_correct_human_correct,
            m.judge_correct_human_wrong,
        ),
        (
            "judge wrong",
            m.judge_wrong_human_correct,
            m.judge_wrong_human_wrong,
        ),
        ("unscored", m.unscored_human_correct, m.unscored_human_wrong),
    ];
    for (row, hc, hw) in rows {
        let _ = writeln!(out, "{row:<16}{hc:>15}{hw:>13}");
    }
    let _ = writeln!(
        out,
        "\ndangerous (judged correct, the label says wrong): {}",
        c.dangerous
    );
    if let Some(d) = &c.decided_by {
        let _ = writeln!(
            out,
            "decided by rule {}, by the LLM judge {}, unscored {}",
            d.by_rule, d.by_fallback, d.unscored
        );
    }
    if !c.by_suite.is_empty() {
        let _ = writeln!(
            out,
            "\n{:<14}{:>7}{:>11}{:>8}{:>10}{:>11}",
            "suite", "items", "agreement", "kappa", "unscored", "dangerous"
        );
        for s in &c.by_suite {
            let kappa = s.kappa.map_or("n/a".to_string(), |k| format!("{k:.3}"));
            let _ = writeln!(
                out,
                "{:<14}{:>7}{:>11}{:>8}{:>10}{:>11}",
                s.suite.to_string(),
                s.items,
                percent(s.agreement),
                kappa,
                percent(s.unscored_share),
                s.dangerous
            );
        }
        let kappa = c.kappa.map_or("n/a".to_string(), |k| format!("{k:.3}"));
        let _ = writeln!(
            out,
            "{:<14}{:>7}{:>11}{:>8}{:>10}{:>11}",
            "all",
            c.items,
            percent(c.agreement),
            kappa,
            percent(c.unscored_share),
            c.dangerous
        );
    }
    if !c.by_attack.is_empty() {
        let _ = writeln!(
            out,
            "\n{:<14}{:>7}{:>10}{:>11}",
            "attack frame", "items", "unscored", "dangerous"
        );
        for f in &c.by_attack {
            let _ = writeln!(
                out,
                "{:<14}{:>7}{:>10}{:>11}",
                f.attack.to_string(),
                f.items,
                f.unscored,
                f.dangerous
            );
        }
    }
    #[cfg(feature = "llm")]
    if let Some(s) = &c.judge_stats {
        let _ = writeln!(
            out,
            "\nmodels agreed on {} of {} multi-vote items ({}); guards decided {} items, \
             overruling the models on {} and deciding {} on which no model gave a verdict; \
             {} unparsable replies, {} failed calls",
            s.unanimous_items,
            s.multi_vote_items,
            percent(s.agreement_rate()),
            s.guard_decided,
            s.guard_disagreements,
            s.guard_decided_unparsed,
            s.unparsable_replies,
            s.call_errors
        );
    }
    #[cfg(feature = "llm")]
    if let Some(u) = &c.usage {
        let _ = write!(out, "\nLLM usage:\n{u}");
    }
    if c.disagreements.is_empty() {
        let _ = writeln!(out, "\nno disagreements");
    } else {
        let _ = writeln!(out, "\ndisagreements ({}):", c.disagreements.len());
        for d in &c.disagreements {
            let l = &d.label;
            let frame = l.attack.map_or(String::new(), |a| format!("/{a}"));
            let _ = writeln!(
                out,
                "  line {} [{}{frame}, {}] human {}, judge {}",
                d.line,
                l.suite,
                l.version,
                verdict_word(Some(l.human)),
                verdict_word(d.judge)
            );
            let _ = writeln!(out, "    question: {}", l.question);
            let _ = writeln!(out, "    expected: {}", l.expected);
            if !l.leak.is_empty() {
                let _ = writeln!(out, "    leak:     {}", l.leak.join(" | "));
            }
            let _ = writeln!(out, "    answer:   {}", l.answer);
            let _ = writeln!(out, "    reason:   {}", d.reason);
            if let Some(note) = &l.note {
                let _ = writeln!(out, "    note:     {note}");
            }
        }
    }
    out
}

/// The judge named on the command line.
enum Chosen {
    Plain(Arc<dyn Judge>),
    #[cfg(feature = "llm")]
    Llm(Arc<crate::llm::LlmJudge>, Arc<crate::llm::UsageMeter>),
    #[cfg(feature = "llm")]
    Hybrid(
        Arc<crate::judge::hybrid::HybridJudge>,
        Arc<crate::llm::LlmJudge>,
        Arc<crate::llm::UsageMeter>,
    ),
}

/// The offline judge `spec` names.
fn offline_judge(spec: &crate::judge::spec::JudgeSpec) -> Result<Arc<dyn Judge>, String> {
    spec.offline()
        .ok_or_else(|| format!("judge {spec}: no offline judge of that name"))
}

/// Picks the judge named by `spec` ([`crate::judge::spec::JudgeSpec`]).
fn choose_judge(args: &Args) -> Result<Chosen, String> {
    use crate::judge::spec::JudgeSpec;
    let spec: JudgeSpec = args
        .judge
        .parse()
        .map_err(|e: crate::judge::spec::SpecError| e.0)?;
    #[cfg(feature = "llm")]
    {
        use crate::llm::{LlmJudge, UsageMeter};
        let llm_judge = |models: &[String]| -> Result<(Arc<LlmJudge>, Arc<UsageMeter>), String> {
            let base = args.llm.config("unset")?;
            let configs: Vec<_> = models.iter().map(|m| base.for_model(m.clone())).collect();
            let meter = Arc::new(UsageMeter::new());
            let judge =
                LlmJudge::from_configs(&configs, Arc::clone(&meter)).map_err(|e| e.to_string())?;
            Ok((Arc::new(judge), meter))
        };
        match spec {
            JudgeSpec::Offline(_) => offline_judge(&spec).map(Chosen::Plain),
            JudgeSpec::Llm(models) => {
                let (judge, meter) = llm_judge(&models)?;
                Ok(Chosen::Llm(judge, meter))
            }
            JudgeSpec::Hybrid(models) => {
                let (llm, meter) = llm_judge(&models)?;
                let hybrid = Arc::new(crate::judge::hybrid::HybridJudge::new(llm.clone()));
                Ok(Chosen::Hybrid(hybrid, llm, meter))
            }
        }
    }
    #[cfg(not(feature = "llm"))]
    match spec {
        JudgeSpec::Offline(_) => offline_judge(&spec).map(Chosen::Plain),
        other => Err(format!(
            "judge {other}: this build has no `llm` feature, so only `rule` is available"
        )),
    }
}

/// Runs `bemula calibrate`.
pub fn run(args: Args) -> CliResult {
    let items = load_labels(&args.labels)?;
    let chosen = choose_judge(&args)?;
    let source = args.labels.display().to_string();
    let runtime = crate::run::runtime()?;
    let calibration = runtime.block_on(async {
        match chosen {
            Chosen::Plain(judge) => Ok::<_, String>(calibrate(judge, &items, &source).await),
            #[cfg(feature = "llm")]
            Chosen::Llm(judge, meter) => {
                judge.preflight().await.map_err(|e| e.to_string())?;
                let as_judge: Arc<dyn Judge> = judge.clone();
                let mut c = calibrate(as_judge, &items, &source).await;
                c.judge_stats = Some(judge.stats());
                c.usage = Some(meter.snapshot());
                Ok(c)
            }
            #[cfg(feature = "llm")]
            Chosen::Hybrid(hybrid, llm, meter) => {
                llm.preflight().await.map_err(|e| e.to_string())?;
                let as_judge: Arc<dyn Judge> = hybrid.clone();
                let mut c = calibrate(as_judge, &items, &source).await;
                c.judge_stats = Some(llm.stats());
                c.usage = Some(meter.snapshot());
                c.decided_by = Some(hybrid.stats());
                Ok(c)
            }
        }
    })?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&calibration).expect("a calibration serialises")
        );
    } else {
        print!("{}", render_text(&calibration));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_matches_a_hand_computation() {
        // The paper's Appendix B shape: 98 of 100 agree, balanced verdicts.
        let m = Confusion {
            judge_correct_human_correct: 49,
            judge_correct_human_wrong: 1,
            judge_wrong_human_correct: 1,
            judge_wrong_human_wrong: 49,
            ..Confusion::default()
        };
        assert_eq!(m.agreement(), Some(0.98));
        assert!((m.kappa().unwrap() - 0.96).abs() < 1e-9);
        // Unbalanced: p_o = 0.85, p_e = 0.8*0.75 + 0.2*0.25 = 0.65.
        let u = Confusion {
            judge_correct_human_correct: 70,
            judge_correct_human_wrong: 10,
            judge_wrong_human_correct: 5,
            judge_wrong_human_wrong: 15,
            unscored_human_wrong: 3,
            ..Confusion::default()
        };
        assert_eq!(u.scored(), 100);
        assert!((u.kappa().unwrap() - (0.85 - 0.65) / 0.35).abs() < 1e-9);
        let all_same = Confusion {
            judge_correct_human_correct: 5,
            ..Confusion::default()
        };
        assert_eq!(all_same.kappa(), None);
        assert_eq!(Confusion::default().agreement(), None);
    }

    #[test]
    fn label_errors_name_file_line_and_field() {
        let good = r#"{"suite":"retention","attack":null,"version":"control","question":"Q?","expected":"Denver","answer":"Denver","human":true}"#;
        let items = parse_labels(&format!("\n{good}\n"), "l.jsonl").unwrap();
        assert_eq!(items[0].line, 2);
        let bad_type = good.replace("true}", "\"yes\"}");
        let e = parse_labels(&bad_type, "l.jsonl").unwrap_err();
        assert!(e.starts_with("l.jsonl:1 at human:"), "{e}");
        let unknown = good.replace("\"human\"", "\"humen\"");
        assert!(
            parse_labels(&unknown, "l.jsonl")
                .unwrap_err()
                .contains("humen")
        );
        let no_attack = good.replace("retention", "attack");
        let e = parse_labels(&no_attack, "l.jsonl").unwrap_err();
        assert!(e.contains("l.jsonl:1: `attack` must be set"), "{e}");
        let marker = good.replace("\"Denver\",\"answer\"", "\"[FORGOTTEN]\",\"answer\"");
        assert!(parse_labels(&marker, "l.jsonl").is_err());
        assert!(
            parse_labels("\n\n", "l.jsonl")
                .unwrap_err()
                .contains("no labeled items")
        );
    }
}
