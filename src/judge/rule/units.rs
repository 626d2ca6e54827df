//! Quantities in other units and rates restated over another period: how an answer can
//! give a value away without any of its spellings ("around 150 pounds" for `68 kg`,
//! "over a year that came to 19,200" for `$1,600 a month`).
//!
//! A quantity is a number followed by a unit of mass (kg, lb, stone), length (cm, m,
//! feet and inches) or temperature (°C, °F), read into one base unit per kind. Two
//! quantities of one kind in different units name the same value when they differ by
//! at most 2% (mass, length) or 1 °C: the rounding of an ordinary conversion.

/// The kind of a quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Mass,
    Length,
    Temperature,
}

/// A quantity: its kind, its value in the base unit (kg, m, °C), its unit word and
/// the token its number was read from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Quantity {
    kind: Kind,
    base: f64,
    unit: &'static str,
    /// The normalised token holding the number (`68`, or `68kg` when glued).
    pub(crate) token: String,
}

/// The unit a word names: kind, canonical unit, and its value in base units per one.
fn unit(word: &str) -> Option<(Kind, &'static str)> {
    Some(match word {
        "kg" | "kgs" | "kilo" | "kilos" | "kilogram" | "kilograms" | "kilogramme"
        | "kilogrammes" => (Kind::Mass, "kg"),
        "lb" | "lbs" | "pound" | "pounds" => (Kind::Mass, "lb"),
        "stone" | "stones" | "st" => (Kind::Mass, "stone"),
        "cm" | "centimetre" | "centimetres" | "centimeter" | "centimeters" => (Kind::Length, "cm"),
        "m" | "metre" | "metres" | "meter" | "meters" => (Kind::Length, "m"),
        "ft" | "foot" | "feet" => (Kind::Length, "ft"),
        "in" | "inch" | "inches" => (Kind::Length, "in"),
        "c" | "celsius" | "centigrade" => (Kind::Temperature, "c"),
        "f" | "fahrenheit" => (Kind::Temperature, "f"),
        _ => return None,
    })
}

fn to_base(value: f64, unit: &str) -> f64 {
    match unit {
        "lb" => value * 0.453_592_37,
        "stone" => value * 6.350_293_18,
        "cm" => value / 100.0,
        "ft" => value * 0.3048,
        "in" => value * 0.0254,
        "f" => (value - 32.0) * 5.0 / 9.0,
        _ => value,
    }
}

/// A number and the unit word glued to it (`68kg`), or a plain number.
fn split_number(token: &str) -> Option<(f64, Option<&str>)> {
    let end = token
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(token.len(), |(i, _)| i);
    let value = token[..end].parse::<f64>().ok()?;
    let rest = &token[end..];
    Some((value, (!rest.is_empty()).then_some(rest)))
}

/// The quantities of normalised `tokens`. Feet followed by inches make one length; a
/// bare `in` counts as inches only right after feet or in a value of its own.
pub(crate) fn quantities(tokens: &[String]) -> Vec<Quantity> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some((value, glued)) = split_number(&tokens[i]) else {
            i += 1;
            continue;
        };
        let (word, used) = match glued {
            Some(w) => (Some(w), 1),
            None => (tokens.get(i + 1).map(String::as_str), 2),
        };
        let Some((kind, name)) = word.and_then(unit) else {
            i += 1;
            continue;
        };
        if name == "in" && word == Some("in") && tokens.len() > i + 2 {
            // "5 in the morning": a bare "in" inside a sentence is a preposition.
            i += 1;
            continue;
        }
        let mut base = to_base(value, name);
        let mut step = used;
        if name == "ft"
            && let Some((inches, None)) = tokens.get(i + used).and_then(|t| split_number(t))
            && tokens
                .get(i + used + 1)
                .and_then(|t| unit(t))
                .is_some_and(|(_, u)| u == "in")
        {
            base += to_base(inches, "in");
            step += 2;
        }
        out.push(Quantity {
            kind,
            base,
            unit: name,
            token: tokens[i].clone(),
        });
        i += step;
    }
    out
}

/// Whether `a` and `b` are one value given in different units.
pub(crate) fn converted(a: &Quantity, b: &Quantity) -> bool {
    if a.kind != b.kind || a.unit == b.unit {
        return false;
    }
    let same_system = |u: &str| matches!(u, "kg" | "cm" | "m" | "c");
    if same_system(a.unit) == same_system(b.unit) && a.kind != Kind::Temperature {
        // cm and m, or feet and inches: a rewrite within one system is a format, not a
        // conversion; the literal matching handles it where it can.
        return (a.base - b.base).abs() <= 0.005 * a.base.abs().max(b.base.abs());
    }
    match a.kind {
        Kind::Temperature => (a.base - b.base).abs() <= 1.0,
        _ => (a.base - b.base).abs() <= 0.02 * a.base.abs().max(b.base.abs()),
    }
}

/// Whether `a` and `b` are one value: the same quantity in the same unit however it
/// is spelled (`68 kilograms` for `68 kg`), or [`converted`] from another unit.
pub(crate) fn same_value(a: &Quantity, b: &Quantity) -> bool {
    if a.kind != b.kind {
        return false;
    }
    if a.unit == b.unit {
        return (a.base - b.base).abs() <= 1e-9 * a.base.abs().max(b.base.abs()).max(1.0);
    }
    converted(a, b)
}

/// Whether `answer`'s quantities give `gold`'s value: one of them is the same value
/// and none of the same kind is another value ("68 or 75 kg" gives none).
pub(crate) fn gives_value<'a>(gold: &Quantity, answer: &'a [Quantity]) -> Option<&'a Quantity> {
    let same_kind: Vec<&Quantity> = answer.iter().filter(|q| q.kind == gold.kind).collect();
    if same_kind.iter().all(|q| same_value(gold, q)) {
        same_kind.first().copied()
    } else {
        None
    }
}

/// The total a rate comes to over another period, as whole numbers: a monthly amount
/// over a year (×12) and a weekly one over a year (×52); a yearly one per month (÷12,
/// when whole).
pub(crate) fn restated_totals(amount: f64, period: &str) -> Vec<f64> {
    match period {
        "month" => vec![amount * 12.0],
        "week" => vec![amount * 52.0, amount * 52.0 / 12.0],
        "year" => vec![amount / 12.0, amount / 52.0],
        _ => Vec::new(),
    }
}

/// The period of a rate a text names (`per month`, `monthly`, `a year`), if one.
pub(crate) fn period(tokens: &[String]) -> Option<&'static str> {
    tokens.iter().find_map(|t| match t.as_str() {
        "month" | "monthly" | "months" => Some("month"),
        "week" | "weekly" | "weeks" => Some("week"),
        "year" | "yearly" | "annual" | "annually" | "years" => Some("year"),
        _ => None,
    })
}

/// The plain numbers of `tokens`.
pub(crate) fn numbers(tokens: &[String]) -> Vec<f64> {
    tokens
        .iter()
        .filter_map(|t| split_number(t))
        .filter(|(_, glued)| glued.is_none())
        .map(|(v, _)| v)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize::normalize;

    fn q(text: &str) -> Vec<Quantity> {
        quantities(&normalize(text))
    }

    #[test]
    fn quantities_in_other_units_are_the_same_value() {
        let kg = &q("68 kg")[0];
        assert!(converted(kg, &q("around 150 pounds")[0]));
        assert!(converted(kg, &q("10.7 stone")[0]));
        assert!(!converted(kg, &q("170 pounds")[0]));
        let cm = &q("178 cm")[0];
        assert!(converted(cm, &q("5 feet 10 inches")[0]));
        assert!(!converted(cm, &q("6 feet")[0]));
        assert!(converted(&q("19°C")[0], &q("about 66 °F")[0]));
        assert!(q("I wake at 5 in the morning").is_empty());
        assert!(converted(&q("68kg")[0], &q("150lbs")[0]));
    }

    #[test]
    fn a_value_is_given_by_one_quantity_of_its_size_and_no_other() {
        let kg = &q("68 kg")[0];
        assert!(same_value(kg, &q("68 kilograms")[0]));
        assert!(!same_value(kg, &q("69 kilograms")[0]));
        assert!(gives_value(kg, &q("about 150 lb")).is_some());
        assert!(gives_value(kg, &q("150 lb, or was it 165 lb")).is_none());
        assert!(gives_value(kg, &q("no number here")).is_none());
        assert_eq!(gives_value(kg, &q("68 kilos")).unwrap().token, "68");
    }
}
