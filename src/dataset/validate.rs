//! Validation of a dataset against the invariants the paper's verifier stages check:
//! ids, references, the pairing of the two dialogue versions, where targets may be
//! mentioned, what confirmations and fillers may say, usable golds, the shape of each
//! suite and request type, and dates.
//!
//! [`validate_instance`] checks one parsed instance and reports every problem it finds
//! (not just the first), each with the file, the JSON path of the offending value and a
//! reason a person can act on. [`check_path`] is what `bemula validate` runs: it parses
//! every file of a dataset, keeps going past files that do not parse, and validates the
//! rest, so that one run shows all problems at once. It also collects warnings:
//! findings that do not make the data invalid, such as a fact value that presupposes
//! what the persona's attributes contradict ([`consistency`]).

use super::{
    DataError, Dataset, FORGOTTEN, FORMAT, Fact, ForgetRequest, Instance, NO_LEAK, Question,
    RequestType, Suite, Turn,
};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

pub mod consistency;
mod questions;
mod requests;

/// One broken invariant: which file, where in it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The instance file (or the instance id when validating data held in memory).
    pub file: PathBuf,
    /// JSON path of the offending value, e.g. `.requests[1].targets[0]`.
    pub json_path: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: at {}: {}",
            self.file.display(),
            self.json_path,
            self.reason
        )
    }
}

/// All problems found in a dataset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    /// Whether no problem was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems, in the order they were found.
    pub fn iter(&self) -> std::slice::Iter<'_, Problem> {
        self.0.iter()
    }

    /// Number of distinct files the problems are in.
    pub fn file_count(&self) -> usize {
        self.0.iter().map(|p| &p.file).collect::<HashSet<_>>().len()
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// Checks every instance; `file` names each instance in the problems reported.
pub fn validate_files(instances: &[(PathBuf, Instance)]) -> Problems {
    let mut problems = Vec::new();
    for (file, instance) in instances {
        problems.extend(validate_instance(file, instance));
    }
    Problems(problems)
}

/// Checks a dataset held in memory; each instance is named `<id>.json` in the problems.
/// Two instances with the same id are a problem too.
pub fn validate(dataset: &Dataset) -> Problems {
    let mut problems = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, instance) in dataset.instances.iter().enumerate() {
        let file = PathBuf::from(super::file_name(&instance.id));
        if let Some(first) = seen.insert(&instance.id, i) {
            problems.push(Problem {
                file: file.clone(),
                json_path: ".id".into(),
                reason: format!(
                    "instance id {:?} is used by instances {first} and {i} of the dataset; \
                     instance ids must be unique",
                    instance.id
                ),
            });
        }
        problems.extend(validate_instance(&file, instance));
    }
    Problems(problems)
}

/// Checks one instance and returns every problem found, in document order of the checks
/// (facts, sessions, requests, questions).
pub fn validate_instance(file: &Path, instance: &Instance) -> Vec<Problem> {
    let mut checker = Checker::new(file, instance);
    checker.run();
    checker.problems
}

/// What [`check_path`] found: how much was read, and every problem.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// Instance files read.
    pub files: usize,
    /// Instances that parsed.
    pub instances: usize,
    /// Forget requests in the instances that parsed.
    pub requests: usize,
    /// Questions in the instances that parsed.
    pub questions: usize,
    /// Parse errors (one per file that does not parse), duplicate instance ids and
    /// broken invariants, in file order.
    pub problems: Problems,
    /// Findings that leave the data valid (persona consistency), in file order.
    pub warnings: Problems,
}

impl Checked {
    /// Whether the dataset is valid.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// The final line of `bemula validate`: `N problems in M instances` or
    /// `ok: N instances, R requests, Q questions`, followed by `; W warnings in V
    /// instances` when there are warnings.
    pub fn summary(&self) -> String {
        let main = self.main_summary();
        if self.warnings.is_empty() {
            return main;
        }
        let n = self.warnings.len();
        let m = self.warnings.file_count();
        format!(
            "{main}; {n} {} in {m} {}",
            plural(n, "warning", "warnings"),
            plural(m, "instance", "instances")
        )
    }

    fn main_summary(&self) -> String {
        if self.is_ok() {
            format!(
                "ok: {} instances, {} requests, {} questions",
                self.instances, self.requests, self.questions
            )
        } else {
            let n = self.problems.len();
            let m = self.problems.file_count();
            format!(
                "{n} {} in {m} {}",
                plural(n, "problem", "problems"),
                plural(m, "instance", "instances")
            )
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Parses every instance file under `path` (a directory or one file) and validates those
/// that parse. A file that cannot be read or parsed becomes one problem and the others
/// are still checked.
///
/// Fails only when `path` itself cannot be read or holds no instance files.
pub fn check_path(path: &Path) -> Result<Checked, DataError> {
    let files = super::instance_files(path)?;
    let mut checked = Checked {
        files: files.len(),
        ..Checked::default()
    };
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    let limit = super::max_file_bytes()?;
    for file in files {
        let bytes = match super::read_instance_file(&file, limit) {
            Ok(bytes) => bytes,
            Err(err) => {
                checked.problems.0.push(parse_problem(err));
                continue;
            }
        };
        match super::parse_instance(&file, &bytes) {
            Ok(instance) => {
                if let Some(other) = seen.get(&instance.id) {
                    checked.problems.0.push(Problem {
                        file: file.clone(),
                        json_path: ".id".into(),
                        reason: format!(
                            "instance id {:?} is already used by {}",
                            instance.id,
                            other.display()
                        ),
                    });
                } else {
                    seen.insert(instance.id.clone(), file.clone());
                }
                checked.instances += 1;
                checked.requests += instance.requests.len();
                checked.questions += instance.questions.len();
                checked
                    .problems
                    .0
                    .extend(validate_instance(&file, &instance));
                checked
                    .warnings
                    .0
                    .extend(consistency::check(&file, &instance));
                checked
                    .warnings
                    .0
                    .extend(consistency::check_dialogue(&file, &instance));
            }
            Err(err) => checked.problems.0.push(parse_problem(err)),
        }
    }
    Ok(checked)
}

/// Turns a loader error about one file into a [`Problem`] of the same shape as the
/// validator's (`FILE: at PATH: REASON`).
pub fn parse_problem(err: DataError) -> Problem {
    match err {
        DataError::Parse {
            path,
            json_path,
            line,
            column,
            reason,
        } => Problem {
            file: path,
            json_path,
            reason: format!("{reason} (line {line}, column {column})"),
        },
        DataError::Io { path, source } => Problem {
            file: path,
            json_path: ".".into(),
            reason: format!("cannot read: {source}"),
        },
        DataError::DuplicateInstance { path, id, other } => Problem {
            file: path,
            json_path: ".id".into(),
            reason: format!("instance id {id:?} is already used by {}", other.display()),
        },
        DataError::NoInstances { dir } => Problem {
            file: dir,
            json_path: ".".into(),
            reason: format!("no instance files (*.json other than {})", super::MANIFEST),
        },
        DataError::TooLarge { path, message } => Problem {
            file: path,
            json_path: ".".into(),
            reason: message,
        },
        DataError::Invalid(problems) => Problem {
            file: PathBuf::new(),
            json_path: ".".into(),
            reason: problems.to_string(),
        },
    }
}

/// Where a turn stands in the dialogue: session index, then turn index.
type Order = (usize, usize);

/// A fact found by id.
#[derive(Clone, Copy)]
struct FactRef<'a> {
    fact: &'a Fact,
    derived: bool,
}

/// The state of one instance's check: lookup maps built once, and the problems found.
struct Checker<'a> {
    file: &'a Path,
    inst: &'a Instance,
    problems: Vec<Problem>,
    facts: HashMap<&'a str, FactRef<'a>>,
    sessions: HashMap<&'a str, usize>,
    requests: HashMap<&'a str, usize>,
    questions: HashMap<&'a str, usize>,
    /// Per atomic fact: the last turn that mentions it, and the JSON path of that mention.
    last_mention: HashMap<&'a str, (Order, String)>,
}

impl<'a> Checker<'a> {
    fn new(file: &'a Path, inst: &'a Instance) -> Self {
        Checker {
            file,
            inst,
            problems: Vec::new(),
            facts: HashMap::new(),
            sessions: HashMap::new(),
            requests: HashMap::new(),
            questions: HashMap::new(),
            last_mention: HashMap::new(),
        }
    }

    fn report(&mut self, json_path: impl Into<String>, reason: impl Into<String>) {
        self.problems.push(Problem {
            file: self.file.to_path_buf(),
            json_path: json_path.into(),
            reason: reason.into(),
        });
    }

    fn non_empty(&mut self, path: impl Into<String>, field: &str, text: &str) {
        if text.trim().is_empty() {
            self.report(path, format!("{field} is empty; write the text"));
        }
    }

    fn run(&mut self) {
        self.check_header();
        self.check_facts();
        self.check_sessions();
        self.index_requests_and_questions();
        self.check_requests();
        self.check_f4_values();
        self.check_questions();
    }

    fn check_header(&mut self) {
        let inst = self.inst;
        if inst.format != FORMAT {
            self.report(
                ".format",
                format!(
                    "unknown format {:?}; this version of bemula reads {FORMAT:?}",
                    inst.format
                ),
            );
        }
        if inst.id.is_empty() {
            self.report(".id", "the instance id is empty");
        } else if inst.id.chars().all(|c| c == '.') {
            self.report(
                ".id",
                format!(
                    "instance id {:?} names a directory, not an instance; {} (they name files, \
                     test cases and namespaces)",
                    inst.id,
                    super::ID_RULE
                ),
            );
        } else if let Some(c) = inst
            .id
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            self.report(
                ".id",
                format!(
                    "instance id {:?} holds {c:?}; {} (they name files, test cases and \
                     namespaces)",
                    inst.id,
                    super::ID_RULE
                ),
            );
        }
        self.non_empty(".profile.name", "the profile name", &inst.profile.name);
    }

    fn check_facts(&mut self) {
        let inst = self.inst;
        let lists = [
            ("facts", &inst.profile.facts, false),
            ("derived_facts", &inst.profile.derived_facts, true),
        ];
        // First pass: the id space shared by atomic and derived facts.
        for (list, facts, derived) in lists {
            for (i, fact) in facts.iter().enumerate() {
                let path = format!(".profile.{list}[{i}]");
                if fact.id.trim().is_empty() {
                    self.report(format!("{path}.id"), "the fact id is empty");
                    continue;
                }
                if self.facts.contains_key(fact.id.as_str()) {
                    self.report(
                        format!("{path}.id"),
                        format!(
                            "fact id {:?} is used twice; atomic and derived facts share one id \
                             space, so every fact id must be unique",
                            fact.id
                        ),
                    );
                } else {
                    self.facts.insert(&fact.id, FactRef { fact, derived });
                }
            }
        }
        // Second pass: fields, timestamps and sources.
        for (list, facts, derived) in lists {
            for (i, fact) in facts.iter().enumerate() {
                let path = format!(".profile.{list}[{i}]");
                for (field, text) in [
                    ("subject", &fact.subject),
                    ("predicate", &fact.predicate),
                    ("value", &fact.value),
                    ("category", &fact.category),
                    ("statement", &fact.statement),
                ] {
                    self.non_empty(format!("{path}.{field}"), &format!("the {field}"), text);
                }
                if let Some(ts) = &fact.timestamp
                    && !is_timestamp(ts)
                {
                    self.report(
                        format!("{path}.timestamp"),
                        format!(
                            "timestamp {ts:?} is not a real date written as YYYY-MM or YYYY-MM-DD"
                        ),
                    );
                }
                if derived {
                    self.check_sources(&path, fact);
                } else if !fact.sources.is_empty() {
                    self.report(
                        format!("{path}.sources"),
                        format!(
                            "atomic fact {:?} lists sources; only derived facts (in \
                             profile.derived_facts) have sources",
                            fact.id
                        ),
                    );
                }
            }
        }
    }

    fn check_sources(&mut self, path: &str, fact: &'a Fact) {
        let mut atomic = HashSet::new();
        for (j, source) in fact.sources.iter().enumerate() {
            match self.facts.get(source.as_str()) {
                None => self.report(
                    format!("{path}.sources[{j}]"),
                    format!("source {source:?} is not a fact id of this instance"),
                ),
                Some(r) if r.derived => self.report(
                    format!("{path}.sources[{j}]"),
                    format!(
                        "source {source:?} is a derived fact; a derived fact follows from \
                         atomic facts only"
                    ),
                ),
                Some(_) => {
                    if !atomic.insert(source.as_str()) {
                        self.report(
                            format!("{path}.sources[{j}]"),
                            format!("source {source:?} is listed twice"),
                        );
                    }
                }
            }
        }
        if atomic.len() < 2 {
            self.report(
                format!("{path}.sources"),
                format!(
                    "derived fact {:?} has {} distinct atomic source(s); it must follow from \
                     at least 2 atomic facts",
                    fact.id,
                    atomic.len()
                ),
            );
        }
    }

    fn check_sessions(&mut self) {
        let inst = self.inst;
        let mut previous_date: Option<(&str, (u32, u32, u32))> = None;
        for (si, session) in inst.sessions.iter().enumerate() {
            let path = format!(".sessions[{si}]");
            if session.id.trim().is_empty() {
                self.report(format!("{path}.id"), "the session id is empty");
            } else if self.sessions.contains_key(session.id.as_str()) {
                self.report(
                    format!("{path}.id"),
                    format!("session id {:?} is used twice", session.id),
                );
            } else {
                self.sessions.insert(&session.id, si);
            }
            match parse_date(&session.date) {
                None => self.report(
                    format!("{path}.date"),
                    format!(
                        "date {:?} is not a real calendar date written as YYYY-MM-DD",
                        session.date
                    ),
                ),
                Some(date) => {
                    if let Some((before, prev)) = previous_date
                        && date < prev
                    {
                        self.report(
                            format!("{path}.date"),
                            format!(
                                "date {} is earlier than the previous session's date {before}; \
                                 session dates must not decrease",
                                session.date
                            ),
                        );
                    }
                    previous_date = Some((&session.date, date));
                }
            }
            self.non_empty(
                format!("{path}.scenario"),
                "the scenario",
                &session.scenario,
            );
            if session.turns.is_empty() {
                self.report(
                    format!("{path}.turns"),
                    format!("session {:?} has no turns", session.id),
                );
            }
            for (ti, turn) in session.turns.iter().enumerate() {
                let tpath = format!("{path}.turns[{ti}]");
                self.check_turn_text(&tpath, turn);
                for (mi, id) in turn.mentions.iter().enumerate() {
                    let mpath = format!("{tpath}.mentions[{mi}]");
                    match self.facts.get(id.as_str()) {
                        None => self.report(
                            mpath,
                            format!("mentions {id:?}, which is not a fact id of this instance"),
                        ),
                        Some(r) if r.derived => self.report(
                            mpath,
                            format!(
                                "mentions derived fact {id:?}; derived facts are never stated in \
                                 the dialogue, so only atomic facts may be mentioned"
                            ),
                        ),
                        Some(_) => {
                            self.last_mention.insert(id, ((si, ti), mpath));
                        }
                    }
                }
            }
        }
    }

    fn check_turn_text(&mut self, path: &str, turn: &Turn) {
        self.non_empty(format!("{path}.user"), "the user text", &turn.user);
        self.non_empty(
            format!("{path}.assistant"),
            "the assistant text",
            &turn.assistant,
        );
    }

    fn index_requests_and_questions(&mut self) {
        let inst = self.inst;
        for (i, request) in inst.requests.iter().enumerate() {
            let path = format!(".requests[{i}].id");
            if request.id.trim().is_empty() {
                self.report(path, "the request id is empty");
            } else if self.requests.contains_key(request.id.as_str()) {
                self.report(path, format!("request id {:?} is used twice", request.id));
            } else {
                self.requests.insert(&request.id, i);
            }
        }
        for (i, question) in inst.questions.iter().enumerate() {
            let path = format!(".questions[{i}].id");
            if question.id.trim().is_empty() {
                self.report(path, "the question id is empty");
            } else if self.questions.contains_key(question.id.as_str()) {
                self.report(path, format!("question id {:?} is used twice", question.id));
            } else {
                self.questions.insert(&question.id, i);
            }
        }
    }
}

/// "an efficacy question", "a retention question", "an F6 efficacy question", …
fn a_question(suite: Suite, f6: bool) -> String {
    match suite {
        Suite::Efficacy if f6 => "an F6 efficacy question".into(),
        Suite::Efficacy | Suite::Attack => format!("an {suite} question"),
        _ => format!("a {suite} question"),
    }
}

fn describe_position(request: &ForgetRequest) -> String {
    format!(
        "session {:?}, turn {}",
        request.position.session, request.position.turn
    )
}

fn eq_ci(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

fn contains_ci(list: &[String], value: &str) -> bool {
    list.iter().any(|x| eq_ci(x, value))
}

/// `YYYY-MM-DD` as (year, month, day) when it is a real calendar date.
pub(crate) fn parse_date(text: &str) -> Option<(u32, u32, u32)> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month) = parse_month(&text[..7])?;
    let day = digits(&text[8..10])?;
    (day >= 1 && day <= days_in_month(year, month)).then_some((year, month, day))
}

/// `YYYY-MM` as (year, month) with a month from 1 to 12.
fn parse_month(text: &str) -> Option<(u32, u32)> {
    let b = text.as_bytes();
    if b.len() != 7 || b[4] != b'-' {
        return None;
    }
    let year = digits(&text[..4])?;
    let month = digits(&text[5..7])?;
    (1..=12).contains(&month).then_some((year, month))
}

/// A fact timestamp: `YYYY-MM` or `YYYY-MM-DD`, a real date.
fn is_timestamp(text: &str) -> bool {
    parse_month(text).is_some() || parse_date(text).is_some()
}

fn digits(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        _ => 28,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_calendar_dates() {
        assert_eq!(parse_date("2024-02-29"), Some((2024, 2, 29)));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_date("1900-02-29"), None);
        assert_eq!(parse_date("2000-02-29"), Some((2000, 2, 29)));
        assert_eq!(parse_date("2024-04-31"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("2024-00-10"), None);
        assert_eq!(parse_date("2024-1-10"), None);
        assert_eq!(parse_date("2024/01/10"), None);
        assert_eq!(parse_date("2024-01-1x"), None);
        assert_eq!(parse_date("+024-01-10"), None);
        assert_eq!(parse_date("２０２４-01-10"), None);
        // Multi-byte characters where digits belong: no panic on slicing.
        assert_eq!(parse_date("2é4-01-10"), None);
        assert_eq!(parse_date("2024-0é-1"), None);
        assert!(!is_timestamp("2é4-01"));
    }

    #[test]
    fn timestamps_take_a_month_or_a_day() {
        assert!(is_timestamp("2024-06"));
        assert!(is_timestamp("2024-06-30"));
        assert!(!is_timestamp("2024-06-31"));
        assert!(!is_timestamp("2024"));
        assert!(!is_timestamp("June 2024"));
        assert!(!is_timestamp("2024-6"));
    }

    #[test]
    fn summary_reads_well() {
        let mut checked = Checked {
            files: 2,
            instances: 2,
            requests: 5,
            questions: 40,
            problems: Problems::default(),
            warnings: Problems::default(),
        };
        assert_eq!(
            checked.summary(),
            "ok: 2 instances, 5 requests, 40 questions"
        );
        checked.warnings.0.push(Problem {
            file: "c.json".into(),
            json_path: ".profile.facts[0].value".into(),
            reason: "x".into(),
        });
        assert!(checked.is_ok(), "a warning leaves the data valid");
        assert_eq!(
            checked.summary(),
            "ok: 2 instances, 5 requests, 40 questions; 1 warning in 1 instance"
        );
        checked.warnings.0.clear();
        for file in ["a.json", "a.json", "b.json"] {
            checked.problems.0.push(Problem {
                file: file.into(),
                json_path: ".id".into(),
                reason: "x".into(),
            });
        }
        assert_eq!(checked.summary(), "3 problems in 2 instances");
        checked.problems.0.truncate(1);
        assert_eq!(checked.summary(), "1 problem in 1 instance");
    }
}
