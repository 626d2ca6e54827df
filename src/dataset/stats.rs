//! Statistics of a dataset, in the shape of the paper's Tables 4 and 5: size by tier with
//! min–max ranges, requests by type, tier and style, questions by suite and attack type,
//! how often targets are mentioned before their request, and the facts of the profiles.
//!
//! [`compute`] works on any [`Dataset`] (loaded or generated); [`Stats`] serialises to
//! the JSON that `bemula stats --json` prints and [`render_text`] draws the tables.

use super::{Attack, Dataset, Instance, RequestType, Sensitivity, Style, Suite, Tier};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::HashMap;
use std::fmt::Write;

/// Named values in a fixed order (the paper's order, not the alphabet's); serialises as
/// a JSON object with the keys in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<V> Ordered<V> {
    /// The value under `key`, if present.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn zeros<V: Default>(keys: impl IntoIterator<Item = &'static str>) -> Ordered<V> {
    Ordered(
        keys.into_iter()
            .map(|k| (k.to_string(), V::default()))
            .collect(),
    )
}

/// A quantity summed over instances, with its per-instance range and mean.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Sum over the instances.
    pub total: usize,
    /// Smallest value of one instance (0 when there are none).
    pub min: usize,
    /// Largest value of one instance.
    pub max: usize,
    /// Mean per instance (0 when there are none).
    pub mean: f64,
}

impl Spread {
    fn of(values: &[usize]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        let total: usize = values.iter().sum();
        Spread {
            total,
            min: values.iter().copied().min().unwrap_or(0),
            max: values.iter().copied().max().unwrap_or(0),
            mean: total as f64 / values.len() as f64,
        }
    }

    fn range(&self) -> String {
        if self.min == self.max {
            thousands(self.min)
        } else {
            format!("{}–{}", thousands(self.min), thousands(self.max))
        }
    }
}

/// One length tier (a row of Table 5).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct TierStats {
    /// Instances in the tier.
    pub instances: usize,
    /// Sessions per instance.
    pub sessions: Spread,
    /// Turns per instance (one version; both have the same count).
    pub turns: Spread,
    /// Approximate tokens per instance: characters of user and assistant text of the
    /// forget version, divided by 4.
    pub tokens: Spread,
    /// Forget requests per instance.
    pub requests: Spread,
    /// Questions per instance.
    pub questions: Spread,
}

/// How often each request target is mentioned before its request.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct MentionStats {
    /// Atomic targets counted (a fact targeted by two requests counts twice). Derived
    /// (F4) targets are never stated and are left out.
    pub targets: usize,
    /// Fewest turns mentioning one target before its request.
    pub min: usize,
    /// Mean number of turns mentioning a target before its request.
    pub mean: f64,
    /// Most turns mentioning one target before its request.
    pub max: usize,
    /// Atomic targets never mentioned before their request.
    pub never_mentioned: usize,
    /// Derived targets (F4), left out of the figures above.
    pub derived_targets: usize,
    /// Requests that target more than one fact.
    pub multi_target_requests: usize,
    /// Target facts over all requests.
    pub total_targets: usize,
}

/// The facts of the profiles.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FactStats {
    /// Atomic facts.
    pub atomic: usize,
    /// Derived facts.
    pub derived: usize,
    /// Atomic and derived facts by sensitivity (`low`, `medium`, `high`).
    pub by_sensitivity: Ordered<usize>,
    /// Facts with a timestamp.
    pub timestamped: usize,
    /// Atomic and derived facts per profile.
    pub per_profile: Spread,
    /// Distinct categories of atomic facts per profile.
    pub categories_per_profile: Spread,
}

/// The statistics of a dataset.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Where the data came from.
    pub source: String,
    /// Instances.
    pub instances: usize,
    /// Sessions over all instances.
    pub sessions: usize,
    /// Turns per version over all instances.
    pub turns: usize,
    /// Approximate tokens (characters / 4) of the forget version over all instances.
    pub tokens: usize,
    /// Forget requests.
    pub requests: usize,
    /// Questions.
    pub questions: usize,
    /// Size by tier, `short` to `xlong` (every tier listed, empty ones with zeros).
    pub tiers: Ordered<TierStats>,
    /// Requests by type, `F1` to `F6`.
    pub requests_by_type: Ordered<usize>,
    /// Requests by tier, then by type.
    pub requests_by_tier_and_type: Ordered<Ordered<usize>>,
    /// Requests by expression style.
    pub requests_by_style: Ordered<usize>,
    /// Questions by suite: retention, efficacy, preservation, relearning, attack.
    pub questions_by_suite: Ordered<usize>,
    /// Attack questions by attack type.
    pub attacks_by_type: Ordered<usize>,
    /// Mentions of targets before their request.
    pub mentions: MentionStats,
    /// Facts of the profiles.
    pub facts: FactStats,
    /// Days from the first to the last session of an instance (instances whose session
    /// dates all parse).
    pub dialogue_days: Spread,
}

/// Computes the statistics of a dataset. Works on any parsed data, valid or not:
/// references that do not resolve are skipped.
pub fn compute(dataset: &Dataset) -> Stats {
    let instances = &dataset.instances;
    let mut tiers: Ordered<TierStats> = zeros(Tier::ALL.map(Tier::name));
    let mut requests_by_type: Ordered<usize> = zeros(RequestType::ALL.map(RequestType::code));
    let mut requests_by_tier_and_type = Ordered(
        Tier::ALL
            .iter()
            .map(|t| (t.name().to_string(), requests_by_type.clone()))
            .collect(),
    );
    let mut requests_by_style: Ordered<usize> = zeros(Style::ALL.map(Style::name));
    let mut questions_by_suite: Ordered<usize> = zeros(Suite::ALL.map(Suite::name));
    let mut attacks_by_type: Ordered<usize> = zeros(Attack::ALL.map(Attack::name));

    for tier in Tier::ALL {
        let of_tier: Vec<&Instance> = instances.iter().filter(|i| i.tier == tier).collect();
        let spread = |f: &dyn Fn(&Instance) -> usize| {
            Spread::of(&of_tier.iter().map(|i| f(i)).collect::<Vec<_>>())
        };
        if let Some(row) = tiers.get_mut(tier.name()) {
            *row = TierStats {
                instances: of_tier.len(),
                sessions: spread(&|i| i.sessions.len()),
                turns: spread(&|i| i.turn_count()),
                tokens: spread(&approx_tokens),
                requests: spread(&|i| i.requests.len()),
                questions: spread(&|i| i.questions.len()),
            };
        }
    }

    for instance in instances {
        for request in &instance.requests {
            bump(&mut requests_by_type, request.kind.code());
            bump(&mut requests_by_style, request.style.name());
            if let Some(row) = requests_by_tier_and_type.get_mut(instance.tier.name()) {
                bump(row, request.kind.code());
            }
        }
        for question in &instance.questions {
            bump(&mut questions_by_suite, question.suite.name());
            if let Some(attack) = question.attack
                && question.suite == Suite::Attack
            {
                bump(&mut attacks_by_type, attack.name());
            }
        }
    }

    let all = |f: &dyn Fn(&Instance) -> usize| instances.iter().map(f).sum::<usize>();
    let days: Vec<usize> = instances.iter().filter_map(dialogue_days).collect();
    Stats {
        source: dataset.source.clone(),
        instances: instances.len(),
        sessions: all(&|i| i.sessions.len()),
        turns: all(&|i| i.turn_count()),
        tokens: all(&approx_tokens),
        requests: all(&|i| i.requests.len()),
        questions: all(&|i| i.questions.len()),
        tiers,
        requests_by_type,
        requests_by_tier_and_type,
        requests_by_style,
        questions_by_suite,
        attacks_by_type,
        mentions: mention_stats(instances),
        facts: fact_stats(instances),
        dialogue_days: Spread::of(&days),
    }
}

fn bump(counts: &mut Ordered<usize>, key: &str) {
    if let Some(n) = counts.get_mut(key) {
        *n += 1;
    }
}

/// Characters of user and assistant text of the forget version, divided by 4.
pub fn approx_tokens(instance: &Instance) -> usize {
    let chars: usize = instance
        .sessions
        .iter()
        .flat_map(|s| &s.turns)
        .map(|t| t.user.chars().count() + t.assistant.chars().count())
        .sum();
    chars / 4
}

fn dialogue_days(instance: &Instance) -> Option<usize> {
    let days: Option<Vec<i64>> = instance
        .sessions
        .iter()
        .map(|s| super::validate::parse_date(&s.date).map(|(y, m, d)| day_number(y, m, d)))
        .collect();
    let days = days?;
    let first = days.iter().min()?;
    let last = days.iter().max()?;
    usize::try_from(last - first).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn day_number(year: u32, month: u32, day: u32) -> i64 {
    let (y, m, d) = (i64::from(year), i64::from(month), i64::from(day));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn mention_stats(instances: &[Instance]) -> MentionStats {
    let mut counts = Vec::new();
    let mut stats = MentionStats::default();
    for instance in instances {
        let session_index: HashMap<&str, usize> = instance
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let mut mentioned_at: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        for (si, session) in instance.sessions.iter().enumerate() {
            for (ti, turn) in session.turns.iter().enumerate() {
                let mut seen: Vec<&str> = Vec::new();
                for id in &turn.mentions {
                    if !seen.contains(&id.as_str()) {
                        seen.push(id);
                        mentioned_at.entry(id).or_default().push((si, ti));
                    }
                }
            }
        }
        let atomic: HashMap<&str, ()> = instance
            .profile
            .facts
            .iter()
            .map(|f| (f.id.as_str(), ()))
            .collect();
        for request in &instance.requests {
            stats.total_targets += request.targets.len();
            if request.targets.len() > 1 {
                stats.multi_target_requests += 1;
            }
            let order = session_index
                .get(request.position.session.as_str())
                .map(|&si| (si, request.position.turn));
            for target in &request.targets {
                if !atomic.contains_key(target.as_str()) {
                    stats.derived_targets += usize::from(
                        instance
                            .profile
                            .derived_facts
                            .iter()
                            .any(|f| f.id == *target),
                    );
                    continue;
                }
                let Some(order) = order else { continue };
                let before = mentioned_at
                    .get(target.as_str())
                    .map_or(0, |at| at.iter().filter(|&&o| o < order).count());
                counts.push(before);
            }
        }
    }
    let spread = Spread::of(&counts);
    MentionStats {
        targets: counts.len(),
        min: spread.min,
        mean: spread.mean,
        max: spread.max,
        never_mentioned: counts.iter().filter(|&&n| n == 0).count(),
        ..stats
    }
}

fn fact_stats(instances: &[Instance]) -> FactStats {
    let mut stats = FactStats {
        by_sensitivity: zeros(["low", "medium", "high"]),
        ..FactStats::default()
    };
    let mut per_profile = Vec::new();
    let mut categories = Vec::new();
    for instance in instances {
        let profile = &instance.profile;
        stats.atomic += profile.facts.len();
        stats.derived += profile.derived_facts.len();
        per_profile.push(profile.facts.len() + profile.derived_facts.len());
        let mut seen: Vec<&str> = profile.facts.iter().map(|f| f.category.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        categories.push(seen.len());
        for fact in profile.facts.iter().chain(&profile.derived_facts) {
            let key = match fact.sensitivity {
                Sensitivity::Low => "low",
                Sensitivity::Medium => "medium",
                Sensitivity::High => "high",
            };
            bump(&mut stats.by_sensitivity, key);
            stats.timestamped += usize::from(fact.timestamp.is_some());
        }
    }
    stats.per_profile = Spread::of(&per_profile);
    stats.categories_per_profile = Spread::of(&categories);
    stats
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Lays out rows as columns: the first left-aligned, the others right-aligned.
pub(super) fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..columns).map(width).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c].saturating_sub(cell.chars().count());
            if c == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn counts_table(title: &str, counts: &Ordered<usize>) -> String {
    let mut header = vec![title.to_string()];
    let mut row = vec!["count".to_string()];
    for (k, v) in &counts.0 {
        header.push(k.clone());
        row.push(thousands(*v));
    }
    header.push("total".into());
    row.push(thousands(counts.0.iter().map(|(_, v)| v).sum()));
    table(&[header, row])
}

/// The statistics as plain-text tables (Table 5 by tier, then the breakdowns).
pub fn render_text(stats: &Stats) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Dataset: {}", stats.source);
    let _ = writeln!(
        out,
        "{} instances, {} sessions, {} turns per version, ~{} tokens (forget version, chars/4), \
         {} requests, {} questions\n",
        thousands(stats.instances),
        thousands(stats.sessions),
        thousands(stats.turns),
        thousands(stats.tokens),
        thousands(stats.requests),
        thousands(stats.questions)
    );

    let mut rows = vec![
        [
            "tier",
            "instances",
            "sessions",
            "turns",
            "tokens (approx)",
            "requests",
            "questions",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (name, t) in &stats.tiers.0 {
        let cell = |s: &Spread| {
            if t.instances == 0 {
                "–".to_string()
            } else {
                s.range()
            }
        };
        rows.push(vec![
            name.clone(),
            thousands(t.instances),
            cell(&t.sessions),
            cell(&t.turns),
            cell(&t.tokens),
            cell(&t.requests),
            cell(&t.questions),
        ]);
    }
    rows.push(vec![
        "total".into(),
        thousands(stats.instances),
        thousands(stats.sessions),
        thousands(stats.turns),
        thousands(stats.tokens),
        thousands(stats.requests),
        thousands(stats.questions),
    ]);
    let _ = writeln!(
        out,
        "By tier (min–max per instance; total on the last row)\n{}",
        table(&rows)
    );

    let mut rows = vec![vec!["type".to_string()]];
    rows[0].extend(stats.requests_by_tier_and_type.keys().map(String::from));
    rows[0].push("total".into());
    for kind in RequestType::ALL {
        let mut row = vec![format!("{} {}", kind.code(), kind.name())];
        for (_, by_type) in &stats.requests_by_tier_and_type.0 {
            row.push(thousands(by_type.get(kind.code()).copied().unwrap_or(0)));
        }
        row.push(thousands(
            stats
                .requests_by_type
                .get(kind.code())
                .copied()
                .unwrap_or(0),
        ));
        rows.push(row);
    }
    let _ = writeln!(out, "Requests by type and tier\n{}", table(&rows));
    let _ = writeln!(
        out,
        "Requests by style\n{}",
        counts_table("style", &stats.requests_by_style)
    );
    let _ = writeln!(
        out,
        "Questions by suite\n{}",
        counts_table("suite", &stats.questions_by_suite)
    );
    let _ = writeln!(
        out,
        "Attack questions by type\n{}",
        counts_table("attack", &stats.attacks_by_type)
    );

    let m = &stats.mentions;
    let _ = writeln!(
        out,
        "Target mentions before their request: min {}, mean {:.1}, max {} over {} atomic \
         targets ({} never mentioned); {} derived (F4) targets are never stated; {} of {} \
         requests target more than one fact ({} targets in all)",
        m.min,
        m.mean,
        m.max,
        thousands(m.targets),
        thousands(m.never_mentioned),
        thousands(m.derived_targets),
        thousands(m.multi_target_requests),
        thousands(stats.requests),
        thousands(m.total_targets)
    );
    let f = &stats.facts;
    let sensitivity: Vec<String> = f
        .by_sensitivity
        .0
        .iter()
        .map(|(k, v)| format!("{k} {}", thousands(*v)))
        .collect();
    let _ = writeln!(
        out,
        "Facts: {} atomic, {} derived ({} in all; {} per profile, mean {:.1}); sensitivity {}; \
         {} timestamped; {} categories per profile",
        thousands(f.atomic),
        thousands(f.derived),
        thousands(f.atomic + f.derived),
        f.per_profile.range(),
        f.per_profile.mean,
        sensitivity.join(", "),
        thousands(f.timestamped),
        f.categories_per_profile.range()
    );
    if stats.instances > 0 {
        let d = &stats.dialogue_days;
        let _ = writeln!(
            out,
            "Dialogue span: {} days (mean {:.0})",
            d.range(),
            d.mean
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(36_900), "36,900");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn day_numbers_count_calendar_days() {
        assert_eq!(day_number(1970, 1, 1), 0);
        assert_eq!(day_number(2000, 3, 1) - day_number(2000, 2, 28), 2);
        assert_eq!(day_number(2025, 1, 1) - day_number(2024, 1, 1), 366);
    }

    #[test]
    fn spreads_and_ordered_maps() {
        let s = Spread::of(&[3, 1, 8]);
        assert_eq!((s.total, s.min, s.max), (12, 1, 8));
        assert!((s.mean - 4.0).abs() < 1e-9);
        assert_eq!(s.range(), "1–8");
        assert_eq!(Spread::of(&[]), Spread::default());
        let o = Ordered(vec![("b".to_string(), 1), ("a".to_string(), 2)]);
        assert_eq!(serde_json::to_string(&o).unwrap(), r#"{"b":1,"a":2}"#);
        assert_eq!(o.get("a"), Some(&2));
    }

    #[test]
    fn tables_align_columns() {
        let t = table(&[
            vec!["a".into(), "1".into()],
            vec!["long".into(), "100".into()],
        ]);
        assert_eq!(t, "a       1\nlong  100\n");
    }
}
