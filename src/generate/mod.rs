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
//! Two generators exist ([`Generator`]): `v1`, the first one, kept byte for byte
//! (its seed-42 checksum is pinned by a test), and `v2`, whose dialogue, requests,
//! confirmations and questions are composed from larger inventories (`v2`). Every
//! phrasing inventory of v2 is split into two disjoint halves ([`Phrasing`]): tune a
//! system on `dev` and measure it on `test`, whose wordings it has never seen.
//!
//! ```
//! use bemula::generate::{generate, GenConfig};
//! let lite = generate(&GenConfig { seed: 42, lite: true, ..GenConfig::default() });
//! assert_eq!(lite.instances.len(), 31);
//! ```

pub(crate) mod cache;
mod data;
mod inject;
#[cfg(feature = "llm")]
pub mod llm_realise;
mod plan;
mod profile;
mod questions;
mod realise;
mod rng;
mod text;
pub(crate) mod v2;

pub use plan::{InstanceSpec, global_plan};
pub use text::accepted_spellings;

use crate::dataset::{
    Dataset, FORMAT, ForgetRequest, Instance, Position, Session, encode_instance,
};
use plan::plan_instance;
use profile::{FactRef, GenProfile};
use rng::Rng;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The seed of the default dataset.
pub const DEFAULT_SEED: u64 = 42;

/// Which generator writes the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum Generator {
    /// The first generator, kept byte for byte: small sentence pools, requests that
    /// name the attribute, one fixed confirmation pool, a single phrasing inventory.
    V1,
    /// The default: compositional dialogue, requests in the paper's manner (some
    /// restating the value), confirmations composed per request, questions worded as
    /// people ask them, and a dev/test split of every phrasing inventory.
    #[default]
    V2,
}

impl Generator {
    /// Every generator, oldest first.
    pub const ALL: [Generator; 2] = [Generator::V1, Generator::V2];

    /// The name used on the command line and in `manifest.json`: `v1`, `v2`.
    pub fn name(self) -> &'static str {
        match self {
            Generator::V1 => "v1",
            Generator::V2 => "v2",
        }
    }
}

impl std::fmt::Display for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Generator {
    type Err = String;
    fn from_str(s: &str) -> Result<Generator, String> {
        Generator::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown generator {s:?}: expected v1 or v2"))
    }
}

/// Which half of v2's phrasing inventories the data draws from. Each inventory
/// (request wordings, confirmations, questions, attack paraphrases, ways of
/// disclosing a fact) is split into two disjoint halves; the facts, the plan and the
/// composition are the same in every phrasing of a seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum Phrasing {
    /// The development half: tune a system on it.
    Dev,
    /// The held-out half: measure on it.
    Test,
    /// Both halves.
    #[default]
    All,
}

impl Phrasing {
    /// Every phrasing.
    pub const ALL: [Phrasing; 3] = [Phrasing::Dev, Phrasing::Test, Phrasing::All];

    /// The name used on the command line and in `manifest.json`.
    pub fn name(self) -> &'static str {
        match self {
            Phrasing::Dev => "dev",
            Phrasing::Test => "test",
            Phrasing::All => "all",
        }
    }
}

impl std::fmt::Display for Phrasing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Phrasing {
    type Err = String;
    fn from_str(s: &str) -> Result<Phrasing, String> {
        Phrasing::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown phrasing {s:?}: expected dev, test or all"))
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenConfig {
    /// The seed; [`DEFAULT_SEED`] gives the default dataset.
    pub seed: u64,
    /// Only the Bemula-Lite instances (short and medium tiers).
    pub lite: bool,
    /// Which generator writes the data.
    pub generator: Generator,
    /// Which half of v2's phrasing inventories to draw from (ignored by v1).
    pub phrasing: Phrasing,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            seed: DEFAULT_SEED,
            lite: false,
            generator: Generator::default(),
            phrasing: Phrasing::default(),
        }
    }
}

impl GenConfig {
    /// Checks that the settings go together: v1 has one phrasing inventory, so only
    /// `all` applies to it.
    pub fn check(&self) -> Result<(), String> {
        if self.generator == Generator::V1 && self.phrasing != Phrasing::All {
            return Err(format!(
                "phrasing {} needs generator v2: v1 has a single phrasing inventory \
                 (use --generator v2, or --phrasing all)",
                self.phrasing
            ));
        }
        Ok(())
    }

    /// How the data is described in reports: "generated (seed 42)", with the
    /// generator and phrasing when they are not v1's.
    pub fn source(&self) -> String {
        let mut source = match self.generator {
            Generator::V1 => format!("generated (seed {})", self.seed),
            _ => format!(
                "generated (seed {}, generator {}, phrasing {})",
                self.seed, self.generator, self.phrasing
            ),
        };
        if self.lite {
            source.push_str(" (lite)");
        }
        source
    }
}

/// Generates the dataset of a configuration: 50 instances (31 for Lite).
pub fn generate(config: &GenConfig) -> Dataset {
    let specs: Vec<InstanceSpec> = global_plan(config.seed)
        .into_iter()
        .filter(|spec| !config.lite || spec.tier.is_lite())
        .collect();
    let encoded = in_parallel(&specs, |spec| {
        let instance = generate_instance_with(config, spec);
        let bytes = encode_instance(&instance);
        (instance, bytes)
    });
    Dataset::from_encoded(encoded, config.source())
}

/// `make` applied to every spec on as many threads as there are cores, the results
/// in the specs' order. An instance depends only on the configuration and its spec,
/// so the bytes are those of making the instances one after the other. The longest
/// tiers go first, so that no thread is left with a long instance at the end.
fn in_parallel<T: Send>(
    specs: &[InstanceSpec],
    make: impl Fn(&InstanceSpec) -> T + Sync,
) -> Vec<T> {
    let mut order: Vec<usize> = (0..specs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(specs[i].tier));
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(specs.len());
    let mut slots: Vec<Option<T>> = (0..specs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((i, make(&specs[i])));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (i, made) in done {
                slots[i] = Some(made);
            }
        }
    });
    slots
        .into_iter()
        .map(|made| made.expect("every spec is taken by one thread"))
        .collect()
}

/// Generates one instance of the global plan with the configuration's generator and
/// phrasing; it depends only on those, the seed and the spec.
pub fn generate_instance_with(config: &GenConfig, spec: &InstanceSpec) -> Instance {
    match config.generator {
        Generator::V1 => generate_instance(config.seed, spec),
        Generator::V2 => v2::generate_instance(config.seed, spec, config.phrasing),
    }
}

/// Generates one instance of the global plan with generator v1; it depends only on
/// the seed and the spec, never on other instances.
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
        requests.push(forget_request(&profile, req, id, text));
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

/// The forget request of a planned request and its realised exchange (both generators).
fn forget_request(
    profile: &GenProfile,
    req: &plan::RequestPlan,
    id: String,
    text: inject::RequestText,
) -> ForgetRequest {
    ForgetRequest {
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
    }
}
