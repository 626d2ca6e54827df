//! Stage 2, dialogue planning: the global plan of the 50 instances (tiers, request
//! counts, types and styles with the paper's exact composition) and, per instance,
//! the sessions, their dates and scenarios, where each request stands, its targets,
//! and which turn discloses which fact.

use super::data::{TimeKind, data};
use super::profile::{FactRef, GenProfile};
use super::rng::Rng;
use super::text::{Date, Month};
use crate::dataset::{RequestType, Style, Tier};
use std::collections::BTreeMap;

/// What the global plan fixes for one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceSpec {
    /// Instance id, e.g. `short_001`.
    pub id: String,
    /// Length tier.
    pub tier: Tier,
    /// Type and style of each request, in dialogue order.
    pub requests: Vec<(RequestType, Style)>,
}

/// Instances per tier in the full set.
pub const TIER_SIZES: [(Tier, usize); 4] = [
    (Tier::Short, 15),
    (Tier::Medium, 16),
    (Tier::Long, 16),
    (Tier::Xlong, 3),
];

/// Requests per type in the full set (the paper's composition).
pub const TYPE_COUNTS: [(RequestType, usize); 6] = [
    (RequestType::F1, 32),
    (RequestType::F2, 23),
    (RequestType::F3, 26),
    (RequestType::F4, 13),
    (RequestType::F5, 20),
    (RequestType::F6, 21),
];

/// Request counts per instance of each tier: `(count, instances)`; 135 in all.
const REQUESTS_PER_TIER: [&[(usize, usize)]; 4] = [
    &[(2, 8), (1, 7)],
    &[(3, 8), (2, 8)],
    &[(4, 9), (3, 7)],
    &[(6, 1), (5, 1), (4, 1)],
];

/// Sessions and turns per tier (inclusive ranges).
pub fn tier_ranges(tier: Tier) -> ((usize, usize), (usize, usize)) {
    match tier {
        Tier::Short => ((5, 8), (96, 164)),
        Tier::Medium => ((10, 15), (334, 472)),
        Tier::Long => ((17, 25), (916, 1464)),
        Tier::Xlong => ((27, 36), (2688, 3500)),
    }
}

/// The plan of the whole set: which instance gets which requests. Depends on the
/// seed only, so the Lite subset sees exactly the full set's specs.
pub fn global_plan(seed: u64) -> Vec<InstanceSpec> {
    let mut rng = Rng::derived(seed, "global-plan");
    let mut specs: Vec<(String, Tier, usize)> = Vec::new();
    for (t, &(tier, size)) in TIER_SIZES.iter().enumerate() {
        let mut counts: Vec<usize> = REQUESTS_PER_TIER[t]
            .iter()
            .flat_map(|&(count, n)| std::iter::repeat_n(count, n))
            .collect();
        debug_assert_eq!(counts.len(), size);
        rng.shuffle(&mut counts);
        for (i, count) in counts.into_iter().enumerate() {
            specs.push((format!("{}_{:03}", tier.name(), i + 1), tier, count));
        }
    }
    // Types: weighted by what is left, distinct within an instance where possible;
    // instances with more requests choose first.
    let mut left: Vec<usize> = TYPE_COUNTS.iter().map(|&(_, n)| n).collect();
    let mut order: Vec<usize> = (0..specs.len()).collect();
    rng.shuffle(&mut order);
    order.sort_by_key(|&i| std::cmp::Reverse(specs[i].2));
    let mut types: Vec<Vec<RequestType>> = vec![Vec::new(); specs.len()];
    for &i in &order {
        let mut mine: Vec<usize> = Vec::new();
        for _ in 0..specs[i].2 {
            let weights: Vec<usize> = (0..left.len())
                .map(|t| if mine.contains(&t) { 0 } else { left[t] })
                .collect();
            let t = if weights.iter().sum::<usize>() > 0 {
                rng.weighted(&weights)
            } else {
                rng.weighted(&left)
            };
            left[t] = left[t].saturating_sub(1);
            mine.push(t);
        }
        types[i] = mine.into_iter().map(|t| TYPE_COUNTS[t].0).collect();
    }
    // Styles: an equal share of each, dealt in instance order.
    let total: usize = specs.iter().map(|s| s.2).sum();
    let mut styles: Vec<Style> = (0..total).map(|i| Style::ALL[i % 5]).collect();
    rng.shuffle(&mut styles);
    let mut styles = styles.into_iter();
    specs
        .into_iter()
        .zip(types)
        .map(|((id, tier, _), kinds)| InstanceSpec {
            id,
            tier,
            requests: kinds
                .into_iter()
                .map(|k| (k, styles.next().unwrap_or(Style::Direct)))
                .collect(),
        })
        .collect()
}

/// What one turn of the dialogue does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Scenario small talk.
    Talk,
    /// Discloses an atomic fact (index into the profile's facts).
    Mention(usize),
    /// A forget request (index in dialogue order).
    Request(usize),
}

/// A planned session.
pub struct SessionPlan {
    /// Its date.
    pub date: Date,
    /// Index of its scenario in the pool.
    pub scenario: usize,
    /// What each turn does.
    pub slots: Vec<Slot>,
}

/// A planned request.
pub struct RequestPlan {
    /// Type.
    pub kind: RequestType,
    /// Style.
    pub style: Style,
    /// Its targets.
    pub targets: Vec<FactRef>,
    /// Session index.
    pub session: usize,
    /// Turn index within the session.
    pub turn: usize,
    /// The month of an F5 request.
    pub month: Option<Month>,
    /// The category of an F3 request.
    pub category: Option<usize>,
}

/// The plan of one instance.
pub struct InstancePlan {
    /// Sessions in order.
    pub sessions: Vec<SessionPlan>,
    /// Requests in dialogue order.
    pub requests: Vec<RequestPlan>,
    /// The three preservation facts (atomic indices): claimed by no request and
    /// mentioned only before the first request.
    pub preservation: Vec<usize>,
}

/// Plans one instance: sessions and dates, the profile, request positions and
/// targets, and the mention schedule.
pub fn plan_instance(spec: &InstanceSpec, rng: &mut Rng) -> (GenProfile, InstancePlan) {
    plan_instance_with(spec, rng, GenProfile::synthesize)
}

/// A profile stage: synthesises a profile for a dialogue starting on the date, with
/// at least the given number of derived facts.
pub type Synthesize = fn(&mut Rng, Date, usize) -> GenProfile;

/// [`plan_instance`] with another profile stage.
pub fn plan_instance_with(
    spec: &InstanceSpec,
    rng: &mut Rng,
    synthesize: Synthesize,
) -> (GenProfile, InstancePlan) {
    let ((s_lo, s_hi), (t_lo, t_hi)) = tier_ranges(spec.tier);
    let n_sessions = rng.range(s_lo, s_hi);
    let total = rng.range(t_lo, t_hi);
    let lens = split_turns(rng, total, n_sessions);
    let dates = session_dates(rng, n_sessions);
    let f4 = spec
        .requests
        .iter()
        .filter(|(k, _)| *k == RequestType::F4)
        .count();
    let profile = synthesize(rng, dates[0], f4);

    let starts: Vec<usize> = lens
        .iter()
        .scan(0, |acc, &l| {
            let s = *acc;
            *acc += l;
            Some(s)
        })
        .collect();
    let positions = request_positions(rng, &lens, &starts, spec.requests.len());
    let mut requests: Vec<RequestPlan> = spec
        .requests
        .iter()
        .zip(&positions)
        .map(|(&(kind, style), &(session, turn))| RequestPlan {
            kind,
            style,
            targets: Vec::new(),
            session,
            turn,
            month: None,
            category: None,
        })
        .collect();
    let claimed = choose_targets(rng, &profile, &mut requests);

    // The mention schedule, over global turn indices.
    let mut slots: Vec<Slot> = vec![Slot::Talk; total];
    for (r, req) in requests.iter().enumerate() {
        slots[starts[req.session] + req.turn] = Slot::Request(r);
    }
    // Preservation facts: untouched by every request, and mentioned only before the
    // first one, so that a system deleting more than asked loses them for good.
    // Each gets one turn now, while every turn before the first request is free,
    // and maybe more after the targets have theirs.
    let first_request = requests
        .iter()
        .map(|req| starts[req.session] + req.turn)
        .min()
        .unwrap_or(total);
    let unclaimed: Vec<usize> = (0..profile.facts.len()).filter(|&i| !claimed[i]).collect();
    let preservation = rng.sample(&unclaimed, 3);
    let early: Vec<usize> = (0..first_request)
        .filter(|&g| slots[g] == Slot::Talk)
        .collect();
    for (&fact, g) in preservation
        .iter()
        .zip(rng.sample(&early, preservation.len()))
    {
        slots[g] = Slot::Mention(fact);
    }
    for req in &requests {
        let position = starts[req.session] + req.turn;
        let disclosed: Vec<usize> = req
            .targets
            .iter()
            .flat_map(|t| match *t {
                FactRef::Atomic(i) => vec![i],
                FactRef::Derived(d) => profile.derived[d].sources.clone(),
            })
            .collect();
        let free: Vec<usize> = (0..position).filter(|&g| slots[g] == Slot::Talk).collect();
        let wanted = rng.weighted(&[20, 35, 25, 12, 8]) + 1;
        let each = wanted.min((free.len() / disclosed.len().max(1)).max(1));
        let mut pool = free;
        for &fact in &disclosed {
            for g in rng.sample(&pool, each) {
                slots[g] = Slot::Mention(fact);
                pool.retain(|&x| x != g);
            }
        }
    }
    let mut early: Vec<usize> = (0..first_request)
        .filter(|&g| slots[g] == Slot::Talk)
        .collect();
    for &fact in &preservation {
        for _ in 0..rng.below(3) {
            if early.is_empty() {
                break;
            }
            let k = rng.below(early.len());
            slots[early.swap_remove(k)] = Slot::Mention(fact);
        }
    }
    // Distractors: the other facts no request claims, spread over the whole dialogue.
    let budget: usize = lens.iter().map(|&l| (l / 5).clamp(3, 10)).sum();
    let mut free: Vec<usize> = (0..total).filter(|&g| slots[g] == Slot::Talk).collect();
    let mut distractors: Vec<usize> = unclaimed
        .into_iter()
        .filter(|f| !preservation.contains(f))
        .collect();
    rng.shuffle(&mut distractors);
    let mut left = budget;
    'rounds: for _ in 0..4 {
        for &f in &distractors {
            if left == 0 || free.is_empty() {
                break 'rounds;
            }
            let k = rng.below(free.len());
            let g = free.swap_remove(k);
            slots[g] = Slot::Mention(f);
            left -= 1;
        }
    }

    let mut sessions = Vec::with_capacity(n_sessions);
    let mut previous = usize::MAX;
    for s in 0..n_sessions {
        let mut scenario = rng.below(data().scenarios.len());
        if scenario == previous {
            scenario = (scenario + 1) % data().scenarios.len();
        }
        previous = scenario;
        sessions.push(SessionPlan {
            date: dates[s],
            scenario,
            slots: slots[starts[s]..starts[s] + lens[s]].to_vec(),
        });
    }
    (
        profile,
        InstancePlan {
            sessions,
            requests,
            preservation,
        },
    )
}

/// Splits `total` turns over `n` sessions of varied length.
fn split_turns(rng: &mut Rng, total: usize, n: usize) -> Vec<usize> {
    let weights: Vec<usize> = (0..n).map(|_| rng.range(70, 130)).collect();
    let sum: usize = weights.iter().sum();
    let mut lens: Vec<usize> = weights.iter().map(|w| total * w / sum).collect();
    let mut rest = total - lens.iter().sum::<usize>();
    let mut i = 0;
    while rest > 0 {
        lens[i % n] += 1;
        rest -= 1;
        i += 1;
    }
    lens
}

/// Non-decreasing session dates spanning 10–114 days (mean about 49).
fn session_dates(rng: &mut Rng, n: usize) -> Vec<Date> {
    let start = Date {
        year: 2025,
        month: 1,
        day: 6,
    }
    .plus_days(rng.range(0, 180) as i64);
    let span = if rng.chance(4, 5) {
        rng.range(10, 70)
    } else {
        rng.range(71, 114)
    };
    let mut offsets: Vec<usize> = (0..n.saturating_sub(2))
        .map(|_| rng.range(0, span))
        .collect();
    offsets.push(0);
    offsets.push(span);
    offsets.sort_unstable();
    offsets.truncate(n.max(1));
    offsets
        .into_iter()
        .map(|o| start.plus_days(o as i64))
        .collect()
}

/// Where the requests stand: distinct sessions after the first, past the first
/// fifth of the dialogue, never the first or last turn of a session where possible.
fn request_positions(
    rng: &mut Rng,
    lens: &[usize],
    starts: &[usize],
    k: usize,
) -> Vec<(usize, usize)> {
    let total: usize = lens.iter().sum();
    let lo = (total / 5).max(lens[0]);
    let candidates: Vec<usize> = (1..lens.len())
        .filter(|&s| starts[s] + lens[s] > lo + 1)
        .collect();
    let mut chosen = if candidates.len() >= k {
        rng.sample(&candidates, k)
    } else {
        (0..k)
            .map(|i| {
                candidates
                    .get(i % candidates.len().max(1))
                    .copied()
                    .unwrap_or(lens.len() - 1)
            })
            .collect()
    };
    chosen.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(k);
    for s in chosen {
        let first = lo.saturating_sub(starts[s]).max(1);
        let last = lens[s].saturating_sub(2).max(first);
        let mut turn = rng.range(first, last).min(lens[s] - 1);
        while out.contains(&(s, turn)) && turn + 1 < lens[s] {
            turn += 1;
        }
        out.push((s, turn));
    }
    out
}

fn priority(kind: RequestType) -> usize {
    match kind {
        RequestType::F4 => 0,
        RequestType::F5 => 1,
        RequestType::F3 => 2,
        RequestType::F6 => 3,
        RequestType::F2 => 4,
        RequestType::F1 => 5,
    }
}

/// Chooses each request's targets so that no fact is claimed twice (an F4 request
/// claims its sources too). Returns which atomic facts are claimed.
fn choose_targets(rng: &mut Rng, profile: &GenProfile, requests: &mut [RequestPlan]) -> Vec<bool> {
    let n = profile.facts.len();
    let mut claimed = vec![false; n];
    let mut derived_claimed = vec![false; profile.derived.len()];
    let mut order: Vec<usize> = (0..requests.len()).collect();
    order.sort_by_key(|&r| priority(requests[r].kind));
    let categories = data().facts.categories.len();
    let weight = |i: usize| match profile.facts[i].template.sensitivity {
        crate::dataset::Sensitivity::Low => 1,
        _ => 3,
    };
    for r in order {
        let free =
            |claimed: &Vec<bool>| -> Vec<usize> { (0..n).filter(|&i| !claimed[i]).collect() };
        let req = &mut requests[r];
        match req.kind {
            RequestType::F4 => {
                let options: Vec<usize> = (0..profile.derived.len())
                    .filter(|&d| {
                        !derived_claimed[d]
                            && profile.derived[d].sources.iter().all(|&s| !claimed[s])
                    })
                    .collect();
                let pick = if options.is_empty() {
                    (0..profile.derived.len())
                        .find(|&d| !derived_claimed[d])
                        .unwrap_or(0)
                } else {
                    *rng.pick(&options)
                };
                if profile.derived.is_empty() {
                    continue;
                }
                derived_claimed[pick] = true;
                for &s in &profile.derived[pick].sources {
                    claimed[s] = true;
                }
                req.targets = vec![FactRef::Derived(pick)];
            }
            RequestType::F5 => {
                let mut by_month: BTreeMap<Month, Vec<usize>> = BTreeMap::new();
                for (i, f) in profile.facts.iter().enumerate() {
                    if let Some(m) = f.month {
                        by_month.entry(m).or_default().push(i);
                    }
                }
                let eligible: Vec<Month> = by_month
                    .iter()
                    .filter(|(_, fs)| fs.len() <= 3 && fs.iter().all(|&i| !claimed[i]))
                    .map(|(m, _)| *m)
                    .collect();
                let month = if eligible.is_empty() {
                    // Degenerate profile: any month with an unclaimed fact.
                    by_month
                        .iter()
                        .find(|(_, fs)| fs.iter().any(|&i| !claimed[i]))
                        .map(|(m, _)| *m)
                } else {
                    Some(*rng.pick(&eligible))
                };
                let Some(month) = month else { continue };
                let targets: Vec<usize> = by_month[&month]
                    .iter()
                    .copied()
                    .filter(|&i| !claimed[i])
                    .collect();
                for &t in &targets {
                    claimed[t] = true;
                }
                req.month = Some(month);
                req.targets = targets.into_iter().map(FactRef::Atomic).collect();
            }
            RequestType::F3 => {
                let members = |c: usize| -> Vec<usize> {
                    (0..n).filter(|&i| profile.facts[i].category == c).collect()
                };
                let eligible: Vec<usize> = (0..categories)
                    .filter(|&c| {
                        let m = members(c);
                        (3..=5).contains(&m.len()) && m.iter().all(|&i| !claimed[i])
                    })
                    .collect();
                let category = if eligible.is_empty() {
                    (0..categories).find(|&c| members(c).iter().any(|&i| !claimed[i]))
                } else {
                    Some(*rng.pick(&eligible))
                };
                let Some(c) = category else { continue };
                let targets: Vec<usize> = members(c).into_iter().filter(|&i| !claimed[i]).collect();
                for &t in &targets {
                    claimed[t] = true;
                }
                req.category = Some(c);
                req.targets = targets.into_iter().map(FactRef::Atomic).collect();
            }
            RequestType::F6 => {
                let all = free(&claimed);
                let mutable: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let t = profile.facts[i].template;
                        t.mutable && t.time == TimeKind::None
                    })
                    .collect();
                let pool = if mutable.is_empty() { all } else { mutable };
                if pool.is_empty() {
                    continue;
                }
                let weights: Vec<usize> = pool.iter().map(|&i| weight(i)).collect();
                let t = pool[rng.weighted(&weights)];
                claimed[t] = true;
                req.targets = vec![FactRef::Atomic(t)];
            }
            RequestType::F1 | RequestType::F2 => {
                let k = if req.kind == RequestType::F1 {
                    1
                } else {
                    2 + usize::from(rng.chance(2, 5))
                };
                let mut targets: Vec<usize> = Vec::new();
                for _ in 0..k {
                    let pool: Vec<usize> = free(&claimed)
                        .into_iter()
                        .filter(|&i| {
                            !targets
                                .iter()
                                .any(|&t| profile.facts[t].category == profile.facts[i].category)
                        })
                        .collect();
                    let pool = if pool.is_empty() {
                        free(&claimed)
                    } else {
                        pool
                    };
                    if pool.is_empty() {
                        break;
                    }
                    let weights: Vec<usize> = pool.iter().map(|&i| weight(i)).collect();
                    let t = pool[rng.weighted(&weights)];
                    claimed[t] = true;
                    targets.push(t);
                }
                req.targets = targets.into_iter().map(FactRef::Atomic).collect();
            }
        }
    }
    claimed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_plan_has_the_papers_composition() {
        for seed in [42, 7, 1234] {
            let specs = global_plan(seed);
            assert_eq!(specs.len(), 50);
            let requests: Vec<&(RequestType, Style)> =
                specs.iter().flat_map(|s| &s.requests).collect();
            assert_eq!(requests.len(), 135);
            for (kind, n) in TYPE_COUNTS {
                assert_eq!(requests.iter().filter(|r| r.0 == kind).count(), n, "{kind}");
            }
            for style in Style::ALL {
                assert_eq!(requests.iter().filter(|r| r.1 == style).count(), 27);
            }
            for s in &specs {
                let range = match s.tier {
                    Tier::Short => 1..=2,
                    Tier::Medium => 2..=3,
                    Tier::Long => 3..=4,
                    Tier::Xlong => 4..=6,
                };
                assert!(range.contains(&s.requests.len()), "{}", s.id);
            }
        }
    }

    #[test]
    fn dates_span_the_papers_range() {
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let d = session_dates(&mut rng, 6);
            let span = d[5].days() - d[0].days();
            assert!((10..=114).contains(&span));
            assert!(d.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
