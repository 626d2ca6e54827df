//! Time expressions resolved against a session's date: "last October", "back in
//! March", "last month", "in June last year", seasons, so that a disclosure or a
//! request places an event the way people do rather than always as "Month YYYY".

use crate::generate::rng::Rng;
use crate::generate::text::{Date, MONTHS, Month};

/// The month of a date.
pub fn month_of(date: Date) -> Month {
    Month {
        year: date.year,
        month: date.month,
    }
}

fn name(m: Month) -> &'static str {
    MONTHS[(m.month.clamp(1, 12) - 1) as usize]
}

/// Ways to say "in month `m`" from a conversation held on `today`, each naming
/// exactly that month. Always holds the absolute form ("in March 2024").
pub fn month_phrases(m: Month, today: Date) -> Vec<String> {
    let now = month_of(today);
    let diff = now.since(m);
    let mut out = vec![format!("in {}", m.long())];
    if diff == 1 {
        out.push("last month".to_string());
    }
    if (1..12).contains(&diff) {
        if m.year == now.year {
            out.push(format!("back in {}", name(m)));
            out.push(format!("this past {}", name(m)));
        } else {
            out.push(format!("last {}", name(m)));
            out.push(format!("in {} last year", name(m)));
        }
    } else if (12..24).contains(&diff) && m.year == now.year - 1 {
        out.push(format!("in {} last year", name(m)));
    }
    out
}

/// The event's time as said on `today`: `when` is the profile's form ("in March
/// 2024", "on March 4, 2024"); a day is kept, a year dropped when it is this year's.
pub fn relative_when(rng: &mut Rng, month: Month, day: Option<u32>, today: Date) -> String {
    match day {
        Some(d) => {
            let now = month_of(today);
            if month.year == now.year {
                format!("on {} {d}", name(month))
            } else if month.year == now.year - 1 && rng.chance(1, 2) {
                format!("on {} {d} last year", name(month))
            } else {
                format!("on {} {d}, {}", name(month), month.year)
            }
        }
        None => {
            let options = month_phrases(month, today);
            options[rng.below(options.len())].clone()
        }
    }
}

/// The season a month falls in (northern hemisphere), when the season lies within
/// one calendar year: spring (March–May), summer (June–August), autumn
/// (September–November). Winter spans two years and is left out.
pub fn season(m: Month) -> Option<(&'static str, [u32; 3])> {
    match m.month {
        3..=5 => Some(("spring", [3, 4, 5])),
        6..=8 => Some(("summer", [6, 7, 8])),
        9..=11 => Some(("autumn", [9, 10, 11])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(year: i32, month: u32, day: u32) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn month_phrases_name_exactly_the_month() {
        let today = d(2025, 6, 10);
        let march = Month {
            year: 2025,
            month: 3,
        };
        let got = month_phrases(march, today);
        assert!(got.contains(&"in March 2025".to_string()));
        assert!(got.contains(&"back in March".to_string()));
        assert!(!got.iter().any(|p| p.contains("last March")));
        let october = Month {
            year: 2024,
            month: 10,
        };
        let got = month_phrases(october, today);
        assert!(got.contains(&"last October".to_string()));
        let may = Month {
            year: 2025,
            month: 5,
        };
        assert!(month_phrases(may, today).contains(&"last month".to_string()));
        // A year and more back: never "last June", which would mean 2024's June only
        // by accident of today's month.
        let june = Month {
            year: 2024,
            month: 6,
        };
        let got = month_phrases(june, today);
        assert!(got.contains(&"in June last year".to_string()));
        assert!(!got.contains(&"last June".to_string()));
        let old = Month {
            year: 2022,
            month: 6,
        };
        assert_eq!(month_phrases(old, today), vec!["in June 2022".to_string()]);
    }

    #[test]
    fn days_keep_the_year_unless_it_is_this_one() {
        let mut rng = Rng::new(1);
        let m = Month {
            year: 2025,
            month: 2,
        };
        assert_eq!(
            relative_when(&mut rng, m, Some(4), d(2025, 6, 1)),
            "on February 4"
        );
        let old = Month {
            year: 2023,
            month: 2,
        };
        assert_eq!(
            relative_when(&mut rng, old, Some(4), d(2025, 6, 1)),
            "on February 4, 2023"
        );
    }

    #[test]
    fn seasons_stay_within_a_year() {
        let m = |month| Month { year: 2024, month };
        assert_eq!(season(m(4)).map(|s| s.0), Some("spring"));
        assert_eq!(season(m(10)).map(|s| s.0), Some("autumn"));
        assert_eq!(season(m(1)), None);
        assert_eq!(season(m(12)), None);
    }
}
