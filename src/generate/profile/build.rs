//! Building a profile: its facts placed in time, given values, and the derived facts
//! computed from them.

use super::*;

impl GenProfile {
    pub(super) fn place_in_time(
        &mut self,
        rng: &mut Rng,
        selected: Vec<(usize, &'static FactTemplate)>,
    ) {
        let start = Month {
            year: self.start.year,
            month: self.start.month,
        };
        let birth = self.persona.birth;
        let age = self.persona.age;
        let mut used: BTreeSet<Month> = BTreeSet::new();
        let mut months: Vec<Option<Month>> = vec![None; selected.len()];
        let mut day: Vec<Option<u32>> = vec![None; selected.len()];
        // Graduation first: the job start depends on it.
        let grad = selected
            .iter()
            .position(|(_, t)| t.key == "graduation" && t.time == TimeKind::Date);
        let mut grad_month = None;
        if let Some(g) = grad {
            let grad_age = rng.range(21, 25).min(age.saturating_sub(2).max(1) as usize) as i32;
            let mut m = Month {
                year: birth.year + grad_age,
                month: *rng.pick(&[5u32, 6, 12]),
            };
            while m >= start.back(12) {
                m = m.back(12);
            }
            while used.contains(&m) || m.month == birth.month {
                m = m.back(1);
            }
            used.insert(m);
            months[g] = Some(m);
            grad_month = Some(m);
        }
        for (i, (_, t)) in selected.iter().enumerate() {
            if t.time != TimeKind::Date || Some(i) == grad {
                continue;
            }
            let [mut lo, mut hi] = t.months_back.unwrap_or([12, 120]);
            match t.key.as_str() {
                "move_in" => hi = hi.min(age.saturating_sub(18) * 12).max(lo),
                "wedding" => hi = hi.min(age.saturating_sub(21) * 12).max(lo),
                "job_start" => {
                    if let Some(g) = grad_month {
                        let since = start.since(g).max(2) as u32;
                        hi = hi.min(since - 1);
                        lo = lo.min(hi);
                    }
                }
                _ => {}
            }
            let m = free_month(rng, start, lo, hi, &used);
            used.insert(m);
            months[i] = Some(m);
        }
        // Events share a small pool of months so that a month can hold 1–3 facts.
        let events: Vec<usize> = (0..selected.len())
            .filter(|&i| selected[i].1.time == TimeKind::Event)
            .collect();
        let candidates: Vec<Month> = (EVENT_RANGE[0]..=EVENT_RANGE[1])
            .map(|k| start.back(k))
            .filter(|m| !used.contains(m))
            .collect();
        let pool_size = ((events.len() * 2).div_ceil(3)).max(2);
        let mut pool = rng.sample(&candidates, pool_size);
        let mut per_month: BTreeMap<Month, usize> = BTreeMap::new();
        for &i in &events {
            let open: Vec<Month> = pool
                .iter()
                .copied()
                .filter(|m| per_month.get(m).copied().unwrap_or(0) < 3)
                .collect();
            let m = if open.is_empty() {
                let spare: Vec<Month> = candidates
                    .iter()
                    .copied()
                    .filter(|m| !pool.contains(m))
                    .collect();
                let m = if spare.is_empty() {
                    start.back(EVENT_RANGE[1] + 1 + pool.len() as u32)
                } else {
                    *rng.pick(&spare)
                };
                pool.push(m);
                m
            } else {
                *rng.pick(&open)
            };
            *per_month.entry(m).or_insert(0) += 1;
            months[i] = Some(m);
            if rng.chance(1, 2) {
                day[i] = Some(rng.range(1, 28) as u32);
            }
        }
        for (i, (category, template)) in selected.into_iter().enumerate() {
            let (timestamp, when) = match (months[i], day[i]) {
                (Some(m), Some(d)) => {
                    let date = Date {
                        year: m.year,
                        month: m.month,
                        day: d,
                    };
                    (Some(date.iso()), Some(format!("on {}", date.long())))
                }
                (Some(m), None) => (Some(m.iso()), Some(format!("in {}", m.long()))),
                (None, _) => (None, None),
            };
            self.facts.push(AtomicFact {
                id: String::new(),
                category,
                template,
                value: String::new(),
                month: months[i],
                timestamp,
                when: if template.time == TimeKind::Event {
                    when
                } else {
                    None
                },
            });
        }
    }

    pub(super) fn assign_values(&mut self, rng: &mut Rng) {
        // The persona's strings and the values so far, in lower case.
        let mut taken: Vec<String> = self
            .persona
            .reserved()
            .iter()
            .map(|r| r.to_lowercase())
            .collect();
        let mut keep = Vec::with_capacity(self.facts.len());
        for i in 0..self.facts.len() {
            let t = self.facts[i].template;
            let value = if t.time == TimeKind::Date {
                self.facts[i].month.map(Month::long)
            } else if t.value == "{birthdate}" {
                Some(self.persona.birth.long())
            } else {
                (0..20)
                    .map(|_| self.generate(&t.value, rng, None))
                    .find(|v| {
                        let v = v.to_lowercase();
                        !taken.iter().any(|t| overlap(t, &v))
                    })
            };
            match value {
                Some(v) => {
                    taken.push(v.to_lowercase());
                    self.facts[i].value = v;
                    keep.push(true);
                }
                None => keep.push(false),
            }
        }
        let mut flags = keep.into_iter();
        self.facts.retain(|_| flags.next().unwrap_or(false));
        // Id order: category, then the template's place in the data.
        self.facts.sort_by_key(|f| {
            let cat = &data().facts.categories[f.category];
            let pos = cat
                .templates
                .iter()
                .position(|t| std::ptr::eq(t, f.template))
                .unwrap_or(0);
            (f.category, pos)
        });
        for (i, f) in self.facts.iter_mut().enumerate() {
            f.id = format!("f{:02}", i + 1);
        }
    }

    pub(super) fn derive(&mut self, rng: &mut Rng, min_derived: usize) {
        let rules: Vec<&'static DerivedTemplate> = data()
            .facts
            .derived
            .iter()
            .filter(|d| d.sources.iter().all(|k| self.find(k).is_some()))
            .collect();
        let wanted = (rng.weighted(&[55, 40, 5]) + 1).max(min_derived);
        let mut chosen = rng.sample(&rules, wanted);
        chosen.sort_by_key(|d| rules.iter().position(|r| std::ptr::eq(*r, *d)));
        for template in chosen {
            let sources: Vec<usize> = template
                .sources
                .iter()
                .filter_map(|k| self.find(k))
                .collect();
            let Some(number) = self.apply(template.rule, &sources) else {
                continue;
            };
            let value = derived_value(template.unit, number);
            if self.facts.iter().any(|f| clashes(&f.value, &value)) {
                continue;
            }
            self.derived.push(DerivedFact {
                id: format!("d{}", self.derived.len() + 1),
                template,
                value,
                number,
                sources,
                vars: Vec::new(),
            });
        }
    }

    pub(super) fn apply(&self, rule: Rule, sources: &[usize]) -> Option<u32> {
        let [a, b] = sources else { return None };
        let (a, b) = (&self.facts[*a], &self.facts[*b]);
        match rule {
            Rule::YearsSince => {
                let m = b.month?;
                u32::try_from(self.start.year - m.year)
                    .ok()
                    .filter(|&n| n >= 1)
            }
            Rule::Product => {
                let sessions: u32 = a.value.split(' ').next()?.parse().ok()?;
                let hours = word_number(b.value.split(' ').next()?)?;
                Some(sessions * hours).filter(|&n| n >= 2)
            }
            Rule::AgeAt => {
                let birth = self.persona.birth;
                let m = b.month?;
                let before_birthday = m.month < birth.month;
                u32::try_from(m.year - birth.year - i32::from(before_birthday)).ok()
            }
            // Generator v2's rules (`v2::derive`); v1's data names none of them.
            _ => None,
        }
    }
}
