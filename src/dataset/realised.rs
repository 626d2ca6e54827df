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

    /// The realised instances keep the generator's plan (profile, sessions' ids, dates,
    /// scenarios and turn counts, which turn mentions which fact, the requests but
    /// their text, the questions) and replace its dialogue.
    #[test]
    fn the_realised_instances_keep_the_plan_and_replace_the_text() {
        if FILES.is_empty() {
            return;
        }
        let dataset = load().expect("the realised data loads and validates");
        let plan = generate::generate(&GenConfig {
            lite: true,
            ..GenConfig::default()
        });
        let lite: BTreeSet<&str> = plan.instances.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(lite.len(), PLANNED);
        for realised in &dataset.instances {
            let planned = plan
                .instance(&realised.id)
                .unwrap_or_else(|| panic!("{} is not a Lite instance", realised.id));
            let id = &realised.id;
            assert_eq!(
                serde_json::to_value(&realised.profile).unwrap(),
                serde_json::to_value(&planned.profile).unwrap(),
                "{id}: profile"
            );
            assert_eq!(
                serde_json::to_value(&realised.questions).unwrap(),
                serde_json::to_value(&planned.questions).unwrap(),
                "{id}: questions"
            );
            assert_eq!(realised.sessions.len(), planned.sessions.len(), "{id}");
            let (mut turns, mut same) = (0, 0);
            for (r, p) in realised.sessions.iter().zip(&planned.sessions) {
                assert_eq!((&r.id, &r.date, &r.scenario), (&p.id, &p.date, &p.scenario));
                assert_eq!(r.turns.len(), p.turns.len(), "{id} {}", r.id);
                for (rt, pt) in r.turns.iter().zip(&p.turns) {
                    assert_eq!(rt.mentions, pt.mentions, "{id} {}", r.id);
                    turns += 1;
                    same += usize::from(rt.user == pt.user);
                }
            }
            assert_eq!(
                same, 0,
                "{id}: {same} of {turns} user turns are the generator's"
            );
            assert_eq!(realised.requests.len(), planned.requests.len());
            for (r, p) in realised.requests.iter().zip(&planned.requests) {
                assert_eq!(
                    (&r.id, r.kind, r.style, &r.targets, &r.position),
                    (&p.id, p.kind, p.style, &p.targets, &p.position),
                    "{id}"
                );
                assert_ne!(
                    r.turn.user, p.turn.user,
                    "{id} {}: the generator's request",
                    r.id
                );
            }
        }
    }
}
