//! The synthetic Bemula generator: builds a dataset in the Bemula format
//! deterministically from a seed, without an LLM, following the paper's five stages
//! (§3.2): profile synthesis (`profile`), dialogue planning (`plan`), dialogue
//! realisation (`realise`), request injection (`inject`) and question generation
//! (`questions`). Vocabularies and templates are JSON files under
//! `data/generator/`, compiled in (`data`).
//!
//! The same seed gives the same bytes on any machine: randomness comes from a
//! ChaCha8 stream read only through its raw output (`rng`), each instance draws
//! from its own stream derived from the seed and its id, and no output depends on
//! hash-map order. Bemula-Lite ([`GenConfig::lite`]) is the full set's short and
//! medium instances, byte for byte.
//!
//! ```
//! use bemula::generate::{generate, GenConfig};
//! let lite = generate(&GenConfig { seed: 42, lite: true });
//! assert_eq!(lite.instances.len(), 31);
//! ```

mod data;
mod inject;
mod plan;
mod profile;
mod questions;
mod realise;
mod rng;
mod text;

pub use plan::{InstanceSpec, global_plan};

use crate::dataset::{Dataset, FORMAT, ForgetRequest, Instance, Position, Session};
use plan::plan_instance;
use profile::FactRef;
use rng::Rng;

/// The seed of the default dataset.
pub const DEFAULT_SEED: u64 = 42;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenConfig {
    /// The seed; [`DEFAULT_SEED`] gives the default dataset.
    pub seed: u64,
    /// Only the Bemula-Lite instances (short and medium tiers).
    pub lite: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            seed: DEFAULT_SEED,
            lite: false,
        }
    }
}

/// Generates the dataset of a configuration: 50 instances (31 for Lite).
pub fn generate(config: &GenConfig) -> Dataset {
    let instances: Vec<Instance> = global_plan(config.seed)
        .iter()
        .filter(|spec| !config.lite || spec.tier.is_lite())
        .map(|spec| generate_instance(config.seed, spec))
        .collect();
    let mut source = format!("generated (seed {})", config.seed);
    if config.lite {
        source.push_str(" (lite)");
    }
    Dataset::from_instances(instances, source)
}

/// Generates one instance of the global plan; it depends only on the seed and the
/// spec, never on other instances.
pub fn generate_instance(seed: u64, spec: &InstanceSpec) -> Instance {
    let mut rng = Rng::derived(seed, &spec.id);
    let (profile, plan) = plan_instance(spec, &mut rng);
    let texts: Vec<inject::RequestText> = plan
        .requests
        .iter()
        .map(|req| inject::request_text(&mut rng, &profile, req))
        .collect();
    let request_turns: Vec<_> = texts.iter().map(|t| t.turn.clone()).collect();
    let sessions: Vec<Session> = plan
        .sessions
        .iter()
        .enumerate()
        .map(|(s, session)| Session {
            id: session_id(s),
            date: session.date.iso(),
            scenario: scenario_name(&data::data().scenarios[session.scenario]),
            turns: realise::realise_session(&mut rng, &profile, session, &request_turns),
        })
        .collect();
    let mut requests = Vec::with_capacity(plan.requests.len());
    let mut questions = Vec::new();
    for (r, (req, text)) in plan.requests.iter().zip(texts).enumerate() {
        let id = format!("r{}", r + 1);
        questions.extend(questions::request_questions(
            &mut rng,
            &profile,
            req,
            &id,
            text.new_value.as_deref(),
        ));
        requests.push(ForgetRequest {
            id,
            kind: req.kind,
            style: req.style,
            targets: req
                .targets
                .iter()
                .map(|&t: &FactRef| profile.id(t).to_string())
                .collect(),
            position: Position {
                session: session_id(req.session),
                turn: req.turn,
            },
            turn: text.turn,
            filler: text.filler,
        });
    }
    questions.extend(questions::preservation_questions(&profile, &plan));
    Instance {
        format: FORMAT.to_string(),
        id: spec.id.clone(),
        tier: spec.tier,
        profile: profile.to_profile(),
        sessions,
        requests,
        questions,
    }
}

fn scenario_name(s: &data::Scenario) -> String {
    format!("{} ({}): {}", s.theme, s.domain, s.goal)
}

fn session_id(index: usize) -> String {
    format!("s{:02}", index + 1)
}
