//! The Bemula dataset format: one [`Instance`] per JSON file.
//!
//! `data/SCHEMA.md` documents every field for people; `data/bemula-instance.schema.json`
//! is the same format as a JSON Schema. The types here are the reference: they reject
//! unknown fields so that a misspelt key is an error, not a silently ignored value.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The format tag written into every instance file.
pub const FORMAT: &str = "bemula-instance/1";

/// Marker gold answer of an efficacy question: the system must say it does not know.
pub const FORGOTTEN: &str = "[FORGOTTEN]";
/// Marker gold answer of an attack question: the answer must reveal no leak value.
pub const NO_LEAK: &str = "[NO_LEAK]";

/// One dialogue instance: a profile, a multi-session dialogue (forget version), its
/// forget requests (each with the filler that replaces it in the control version) and
/// the test questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    /// Format tag, [`FORMAT`]. Optional on input.
    #[serde(default = "default_format")]
    pub format: String,
    /// Unique id of the instance, e.g. `short_003`. Used in test names and namespaces,
    /// so it may hold only ASCII letters, digits, `_`, `-` and `.`.
    pub id: String,
    /// Length tier.
    pub tier: Tier,
    /// The synthetic user.
    pub profile: Profile,
    /// The dialogue, forget version, in order.
    pub sessions: Vec<Session>,
    /// The forget requests, in dialogue order.
    pub requests: Vec<ForgetRequest>,
    /// The test questions of all five suites.
    pub questions: Vec<Question>,
}

fn default_format() -> String {
    FORMAT.to_string()
}

/// Length tier of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// About 100–160 turns.
    Short,
    /// About 330–470 turns.
    Medium,
    /// About 900–1,500 turns.
    Long,
    /// About 2,700–3,500 turns.
    Xlong,
}

impl Tier {
    /// All tiers, shortest first.
    pub const ALL: [Tier; 4] = [Tier::Short, Tier::Medium, Tier::Long, Tier::Xlong];

    /// The lower-case name used in files and test names.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Short => "short",
            Tier::Medium => "medium",
            Tier::Long => "long",
            Tier::Xlong => "xlong",
        }
    }

    /// Whether the tier belongs to Bemula-Lite (short and medium).
    pub fn is_lite(self) -> bool {
        matches!(self, Tier::Short | Tier::Medium)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The synthetic persona behind an instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Display name of the persona.
    pub name: String,
    /// Seed attributes (age, occupation, family, …) as free text.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// Atomic facts: each may be mentioned in the dialogue.
    pub facts: Vec<Fact>,
    /// Derived facts: never stated, inferable from at least two atomic facts.
    #[serde(default)]
    pub derived_facts: Vec<Fact>,
}

/// A fact about the user: a (subject, predicate, value) triple with its metadata.
/// Derived facts use the same shape and list their sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    /// Unique id within the instance (atomic and derived facts share one id space).
    pub id: String,
    /// Whom the fact is about, usually `user`.
    pub subject: String,
    /// What the fact says of the subject, e.g. `home address`.
    pub predicate: String,
    /// The value, e.g. `14 Alder Lane`. This is what a leak reveals.
    pub value: String,
    /// One of the profile's categories, e.g. `health`.
    pub category: String,
    /// How sensitive the fact is.
    pub sensitivity: Sensitivity,
    /// When the fact happened or started, as `YYYY-MM` or `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The fact as one sentence in the first person.
    pub statement: String,
    /// For a derived fact: the ids of the ≥2 atomic facts it follows from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

/// Sensitivity label of a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sensitivity {
    /// Everyday detail.
    Low,
    /// Personal detail a user may want kept private.
    Medium,
    /// Health, money, exact location and the like.
    High,
}

/// One session of the dialogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// Unique id within the instance, e.g. `s04`.
    pub id: String,
    /// Date of the session, `YYYY-MM-DD`.
    pub date: String,
    /// The scenario (theme and user goal) the session was planned from.
    pub scenario: String,
    /// The turns, forget version (request exchanges included).
    pub turns: Vec<Turn>,
}

/// One exchange: a user utterance and the assistant's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// What the user said.
    pub user: String,
    /// What the assistant replied.
    pub assistant: String,
    /// Ids of the facts this turn discloses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
}

/// The six forget request types of the paper (§3.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RequestType {
    /// Remove one atomic fact.
    F1,
    /// Remove a combination of atomic facts.
    F2,
    /// Remove a whole category.
    F3,
    /// Remove a derived fact that the dialogue never states.
    F4,
    /// Remove what belongs to a time period.
    F5,
    /// Replace a fact's value with a new one.
    F6,
}

impl RequestType {
    /// All types in order.
    pub const ALL: [RequestType; 6] = [
        RequestType::F1,
        RequestType::F2,
        RequestType::F3,
        RequestType::F4,
        RequestType::F5,
        RequestType::F6,
    ];

    /// `F1` … `F6`.
    pub fn code(self) -> &'static str {
        match self {
            RequestType::F1 => "F1",
            RequestType::F2 => "F2",
            RequestType::F3 => "F3",
            RequestType::F4 => "F4",
            RequestType::F5 => "F5",
            RequestType::F6 => "F6",
        }
    }

    /// The paper's name of the type, lower case: `factual`, `compositional`, …
    pub fn name(self) -> &'static str {
        match self {
            RequestType::F1 => "factual",
            RequestType::F2 => "compositional",
            RequestType::F3 => "semantic",
            RequestType::F4 => "inferential",
            RequestType::F5 => "temporal",
            RequestType::F6 => "replacement",
        }
    }

    /// Whether requests of this type get a relearning question (all but F6).
    pub fn has_relearning(self) -> bool {
        self != RequestType::F6
    }
}

impl fmt::Display for RequestType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// How a forget request is phrased, from direct to implicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// "Please forget that …"
    Direct,
    /// "Sorry to bother you, but would you mind forgetting …"
    Polite,
    /// "Delete … immediately."
    Imperative,
    /// "I'd rather you didn't keep anything about …"
    Indirect,
    /// "I've moved on from … those days might as well never have happened."
    Implicit,
}

impl Style {
    /// All styles, most direct first.
    pub const ALL: [Style; 5] = [
        Style::Direct,
        Style::Polite,
        Style::Imperative,
        Style::Indirect,
        Style::Implicit,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Style::Direct => "direct",
            Style::Polite => "polite",
            Style::Imperative => "imperative",
            Style::Indirect => "indirect",
            Style::Implicit => "implicit",
        }
    }
}

/// Where a request exchange stands in the dialogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Id of the session holding the request.
    pub session: String,
    /// Index of the request exchange among that session's turns, from 0.
    pub turn: usize,
}

/// A forget request, as injected into the forget version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForgetRequest {
    /// Unique id within the instance, e.g. `r2`.
    pub id: String,
    /// Request type.
    #[serde(rename = "type")]
    pub kind: RequestType,
    /// Expression style.
    pub style: Style,
    /// The fact ids the request asks to forget (a derived fact for F4; for F6 the fact
    /// whose value is replaced).
    pub targets: Vec<String>,
    /// Where the request exchange stands in the forget version.
    pub position: Position,
    /// The request exchange itself, exactly as it stands in the forget version.
    pub turn: Turn,
    /// The neutral exchange that replaces it in the control version.
    pub filler: Turn,
}

/// The five probe suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// Was the target stored? Scored on the control version.
    Retention,
    /// Is the target forgotten? Scored on the forget version.
    Efficacy,
    /// Are unrelated facts kept? Asked on both versions.
    Preservation,
    /// Can a new value of the same kind still be learned?
    Relearning,
    /// Can the forgotten value be extracted? Asked on both versions.
    Attack,
}

impl Suite {
    /// All suites in the paper's order.
    pub const ALL: [Suite; 5] = [
        Suite::Retention,
        Suite::Efficacy,
        Suite::Preservation,
        Suite::Relearning,
        Suite::Attack,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Retention => "retention",
            Suite::Efficacy => "efficacy",
            Suite::Preservation => "preservation",
            Suite::Relearning => "relearning",
            Suite::Attack => "attack",
        }
    }

    /// The version on which items of this suite are scored.
    pub fn scored_on(self) -> Version {
        match self {
            Suite::Retention => Version::Control,
            _ => Version::Forget,
        }
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The five fixed attack frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attack {
    /// Asks for the target without naming it.
    Indirect,
    /// Wraps the question in an authoritative role.
    RolePlay,
    /// Prefixes an instruction override.
    Jailbreak,
    /// Turns extraction into a yes/no guess of the value.
    Boolean,
    /// Reconstructs the target from related facts.
    MultiHop,
}

impl Attack {
    /// All attack types in the paper's order.
    pub const ALL: [Attack; 5] = [
        Attack::Indirect,
        Attack::RolePlay,
        Attack::Jailbreak,
        Attack::Boolean,
        Attack::MultiHop,
    ];

    /// snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Attack::Indirect => "indirect",
            Attack::RolePlay => "role_play",
            Attack::Jailbreak => "jailbreak",
            Attack::Boolean => "boolean",
            Attack::MultiHop => "multi_hop",
        }
    }
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The two dialogue versions of an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    /// Requests replaced by their fillers.
    Control,
    /// Requests in place.
    Forget,
}

impl Version {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Version::Control => "control",
            Version::Forget => "forget",
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A test question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Unique id within the instance.
    pub id: String,
    /// The suite it belongs to.
    pub suite: Suite,
    /// The attack frame, for attack questions only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<Attack>,
    /// The request it probes; `null` for preservation questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// The fact it is about.
    pub fact: String,
    /// The question as the user asks it.
    pub text: String,
    /// Gold answer on the version the question is scored on: a value, or one of the
    /// markers [`FORGOTTEN`] and [`NO_LEAK`].
    pub gold: String,
    /// Other accepted spellings of a gold value (not of a marker).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<String>,
    /// Values whose appearance in an answer counts as a leak (for marker golds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leak: Vec<String>,
    /// The question whose control-version answer conditions this one: the retention
    /// question for efficacy, the question itself for preservation and attack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditioned_on: Option<String>,
    /// Gold answer when this question is asked on the control version as a control
    /// probe (preservation: the value; attack: the target value, which the control
    /// version must reveal). `null` for questions not asked on the control version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_gold: Option<String>,
    /// For relearning questions: the short dialogue ingested right before the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relearn: Option<Vec<Turn>>,
}

impl Question {
    /// Whether the gold answer is a marker rather than a value.
    pub fn gold_is_marker(&self) -> bool {
        self.gold == FORGOTTEN || self.gold == NO_LEAK
    }

    /// Whether the question is asked on the given version.
    pub fn asked_on(&self, version: Version) -> bool {
        match version {
            Version::Control => self.suite == Suite::Retention || self.control_gold.is_some(),
            Version::Forget => self.suite != Suite::Retention,
        }
    }

    /// The gold answer on the given version, if the question is asked there.
    pub fn gold_on(&self, version: Version) -> Option<&str> {
        match version {
            Version::Control if self.suite == Suite::Retention => Some(&self.gold),
            Version::Control => self.control_gold.as_deref(),
            Version::Forget if self.suite == Suite::Retention => None,
            Version::Forget => Some(&self.gold),
        }
    }
}

impl Instance {
    /// The dialogue of one version, session by session.
    ///
    /// The forget version is [`Instance::sessions`] as stored; the control version is
    /// the same with each request exchange replaced by its filler.
    pub fn dialogue(&self, version: Version) -> Vec<Session> {
        let mut sessions = self.sessions.clone();
        if version == Version::Control {
            for request in &self.requests {
                if let Some(session) = sessions
                    .iter_mut()
                    .find(|s| s.id == request.position.session)
                    && let Some(turn) = session.turns.get_mut(request.position.turn)
                {
                    *turn = request.filler.clone();
                }
            }
        }
        sessions
    }

    /// Number of turns in one version (both versions have the same number).
    pub fn turn_count(&self) -> usize {
        self.sessions.iter().map(|s| s.turns.len()).sum()
    }

    /// Looks a fact up by id among atomic and derived facts.
    pub fn fact(&self, id: &str) -> Option<&Fact> {
        self.profile
            .facts
            .iter()
            .chain(&self.profile.derived_facts)
            .find(|f| f.id == id)
    }

    /// Looks a request up by id.
    pub fn request(&self, id: &str) -> Option<&ForgetRequest> {
        self.requests.iter().find(|r| r.id == id)
    }

    /// Looks a question up by id.
    pub fn question(&self, id: &str) -> Option<&Question> {
        self.questions.iter().find(|q| q.id == id)
    }
}
