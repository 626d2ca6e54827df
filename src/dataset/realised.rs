//! The hand-realised edition of Bemula-Lite: the generator's plan for the 31 Lite
//! instances of seed 42 (profile, facts, schedule, request positions, types, styles,
//! questions) with every session's dialogue written by hand, as the paper's pipeline
//! realises its plan. The files are `data/realised/lite/<id>.json`, compiled into
//! bemula so that `--data realised` (and `BEMULA_DATA=realised`) works wherever bemula
//! runs; `scripts/realise-lite.py` makes the worksheets and assembles and checks the
//! hand-written sessions.

use super::{DataError, Dataset};
use std::path::PathBuf;

/// The name that selects this data: `--data realised`, `BEMULA_DATA=realised`.
pub const NAME: &str = "realised";

/// How many instances the edition has when complete: every Lite instance.
pub const PLANNED: usize = 31;

/// Where the files live in the source tree (for messages and paths in problems).
pub const DIR: &str = "data/realised/lite";

macro_rules! files {
    ($($id:literal),* $(,)?) => {
        &[$(($id, include_str!(concat!("../../data/realised/lite/", $id, ".json")))),*]
    };
}

/// The realised instances shipped so far, by id.
const FILES: &[(&str, &str)] = files![
    "medium_001",
    "medium_002",
    "medium_003",
    "medium_004",
    "medium_005",
    "medium_006",
    "medium_007",
    "medium_008",
    "medium_009",
    "medium_010",
    "medium_011",
    "medium_012",
    "medium_013",
    "medium_014",
    "medium_015",
    "medium_016",
    "short_001",
    "short_002",
    "short_003",
    "short_004",
    "short_005",
    "short_006",
    "short_007",
    "short_008",
    "short_009",
    "short_010",
    "short_011",
    "short_012",
    "short_013",
    "short_014",
    "short_015",
];

/// The ids of the instances shipped so far.
pub fn ids() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(id, _)| *id)
}

/// Loads the realised data, checked as any dataset directory is (format, invariants).
/// Until every Lite instance is realised, the dataset holds those that are, and its
/// source says how many of [`PLANNED`].
pub fn load() -> Result<Dataset, DataError> {
    if FILES.is_empty() {
        return Err(DataError::NoInstances {
            dir: PathBuf::from(DIR),
        });
    }
    let files = FILES
        .iter()
        .map(|(id, text)| (PathBuf::from(format!("{DIR}/{id}.json")), text.as_bytes()))
        .collect();
    let source = if FILES.len() == PLANNED {
        "realised Lite (hand-written dialogue)".to_string()
    } else {
        format!(
            "realised Lite (hand-written dialogue; {} of {PLANNED} instances so far)",
            FILES.len()
        )
    };
    Dataset::from_files(files, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{self, GenConfig};
    use std::collections::BTreeSet;

    /// Every realised file in the source tree is compiled in, and nothing else.
    #[test]
    fn every_file_of_the_directory_is_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
        let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.strip_suffix(".json").map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let listed: BTreeSet<String> = ids().map(str::to_string).collect();
        assert_eq!(
            on_disk, listed,
            "data/realised/lite/*.json and FILES differ"
        );
        assert!(listed.len() <= PLANNED);
    }

    /// The plan of an instance: everything but the dialogue's words (profile, sessions'
    /// ids, dates, scenarios and turn counts, which turn mentions which fact, the
    /// requests but their text, the questions), as JSON.
    fn plan_of(instance: &crate::dataset::Instance) -> serde_json::Value {
        let sessions: Vec<_> = instance
            .sessions
            .iter()
            .map(|s| {
                let mentions: Vec<_> = s.turns.iter().map(|t| &t.mentions).collect();
                serde_json::json!([s.id, s.date, s.scenario, mentions])
            })
            .collect();
        let requests: Vec<_> = instance
            .requests
            .iter()
            .map(|r| serde_json::json!([r.id, r.kind, r.style, r.targets, r.position]))
            .collect();
        serde_json::json!({
            "id": instance.id,
            "profile": instance.profile,
            "sessions": sessions,
            "requests": requests,
            "questions": instance.questions,
        })
    }

    /// SHA-256 of the plans of `instances`, in id order.
    fn fingerprint<'a>(instances: impl Iterator<Item = &'a crate::dataset::Instance>) -> String {
        use sha2::{Digest, Sha256};
        let mut plans: Vec<_> = instances.map(plan_of).collect();
        plans.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        let bytes = serde_json::to_vec(&plans).expect("a plan serialises");
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The plan the edition was realised against: generator v2's Lite plan for seed
    /// 42 as it stood until 2026-12-06 (commit 652ecf7 proved the two equal), with the
    /// identifying values (names of people and pets, door codes, frequent flyer
    /// numbers) that v2 draws since 2026-12-07 so that no value is in more than two
    /// profiles: each old value was replaced by the new one wherever the instance
    /// said it, and nothing else changed. Fingerprinted with [`fingerprint`]. The
    /// generator's text has changed since (its dialogue draws from streams of its own,
    /// which moves the turns that carry a second fact and the questions' wording) and
    /// may change again; the realised edition is data of record and keeps this plan.
    const PLAN_SHA256: &str = "41fe37fa29f3517fa34a8fd62d0af9280c0e115841f968b24652a25bf4c270a0";

    /// The realised instances keep the plan they were realised against (the pin
    /// above).
    #[test]
    fn the_realised_instances_keep_the_plan_they_were_written_to() {
        let dataset = load().expect("the realised data loads and validates");
        assert_eq!(dataset.instances.len(), PLANNED);
        assert_eq!(
            fingerprint(dataset.instances.iter()),
            PLAN_SHA256,
            "the plan of data/realised/lite changed (profile, sessions, mentions, requests or questions)"
        );
    }

    /// The generator still plans the Lite instances as it did: the profiles, the
    /// sessions' dates, scenarios and lengths and the requests (all drawn before any
    /// text) are the realised edition's.
    #[test]
    fn the_generator_still_makes_the_plan_of_the_realised_instances() {
        let dataset = load().expect("the realised data loads and validates");
        let generated = generate::generate(&GenConfig {
            lite: true,
            ..GenConfig::default()
        });
        for realised in &dataset.instances {
            let id = &realised.id;
            let planned = generated
                .instance(id)
                .unwrap_or_else(|| panic!("{id} is not a Lite instance"));
            assert_eq!(
                serde_json::to_value(&realised.profile).unwrap(),
                serde_json::to_value(&planned.profile).unwrap(),
                "{id}: profile"
            );
            let shape = |i: &crate::dataset::Instance| -> Vec<_> {
                i.sessions
                    .iter()
                    .map(|s| {
                        (
                            s.id.clone(),
                            s.date.clone(),
                            s.scenario.clone(),
                            s.turns.len(),
                        )
                    })
                    .collect()
            };
            assert_eq!(shape(realised), shape(planned), "{id}: sessions");
            let requests = |i: &crate::dataset::Instance| -> Vec<_> {
                i.requests
                    .iter()
                    .map(|r| serde_json::json!([r.id, r.kind, r.style, r.targets, r.position]))
                    .collect()
            };
            assert_eq!(requests(realised), requests(planned), "{id}: requests");
        }
    }
}
