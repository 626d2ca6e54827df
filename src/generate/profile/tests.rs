use super::*;

fn start() -> Date {
    Date {
        year: 2025,
        month: 3,
        day: 10,
    }
}

#[test]
fn profiles_meet_the_paper_shape_for_many_seeds() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let p = GenProfile::synthesize(&mut rng, start(), 1);
        let n = p.facts.len();
        assert!((56..=64).contains(&n), "seed {seed}: {n} facts");
        let cats: BTreeSet<usize> = p.facts.iter().map(|f| f.category).collect();
        assert_eq!(cats.len(), 12, "seed {seed}");
        let timed = p.facts.iter().filter(|f| f.timestamp.is_some()).count();
        assert!(timed >= 8, "seed {seed}: {timed} timestamped");
        assert!((1..=3).contains(&p.derived.len()), "seed {seed}");
        for (i, a) in p.facts.iter().enumerate() {
            for b in &p.facts[i + 1..] {
                assert!(!clashes(&a.value, &b.value), "{} vs {}", a.value, b.value);
            }
            if let Some(m) = a.month {
                assert!(
                    m < Month {
                        year: 2025,
                        month: 3
                    },
                    "seed {seed}: future {m:?}"
                );
            }
        }
        // Each month holds at most three facts; date-valued facts are alone.
        let mut per: BTreeMap<Month, Vec<&AtomicFact>> = BTreeMap::new();
        for f in &p.facts {
            if let Some(m) = f.month {
                per.entry(m).or_default().push(f);
            }
        }
        for fs in per.values() {
            assert!(fs.len() <= 3);
            if fs.iter().any(|f| f.template.time == TimeKind::Date) {
                assert_eq!(fs.len(), 1, "seed {seed}: date fact shares its month");
            }
        }
    }
}

#[test]
fn derived_values_follow_from_their_sources() {
    for seed in 0..100 {
        let mut rng = Rng::new(seed);
        let p = GenProfile::synthesize(&mut rng, start(), 3);
        for d in &p.derived {
            let src: Vec<&AtomicFact> = d.sources.iter().map(|&s| &p.facts[s]).collect();
            let expected = match d.template.key.as_str() {
                "home_tenure" | "job_tenure" => 2025 - src[1].month.unwrap().year,
                "weekly_training" => {
                    let a: i32 = src[0].value.split(' ').next().unwrap().parse().unwrap();
                    let b = word_number(src[1].value.split(' ').next().unwrap()).unwrap();
                    a * b as i32
                }
                "graduation_age" => {
                    let m = src[1].month.unwrap();
                    let b = p.persona.birth;
                    m.year - b.year - i32::from(m.month < b.month)
                }
                other => panic!("unknown rule {other}"),
            };
            assert_eq!(d.number as i32, expected, "seed {seed} {}", d.template.key);
            assert!(d.sources.len() >= 2);
        }
    }
}

#[test]
fn new_values_differ_from_old_ones() {
    let mut rng = Rng::new(3);
    let p = GenProfile::synthesize(&mut rng, start(), 2);
    for r in p.all_refs() {
        let v = p.new_value(r, &mut rng);
        assert!(!clashes(&v, p.value(r)), "{v} vs {}", p.value(r));
    }
}
