use super::*;

#[test]
fn roman_numerals_are_a_reading_in_digits() {
    assert_eq!(roman_value("XII"), Some(12));
    assert_eq!(roman_value("XIV"), Some(14));
    assert_eq!(roman_value("MCMXC"), Some(1990));
    assert_eq!(roman_value("IIII"), None);
    assert_eq!(roman_value("IC"), None);
    assert_eq!(roman_value("I"), None);
    assert_eq!(roman_value("Xii"), None);
    let text = Text::new("Chapter XII, I think.");
    assert!(text.contains(&Text::value("12")));
    assert!(text.contains(&Text::value("chapter XII")));
    assert!(!Text::new("Chapter XI.").contains(&Text::value("12")));
}

/// Hand-written texts for the fast paths: clock times and dates in many forms,
/// numbers in words, odd spacing, hyphens, signs, Roman numerals, and text that is
/// not ASCII (accents, curly quotes, fullwidth forms, look-alike letters, digits of
/// other scripts, letters whose case maps to more than one character).
const FAST_PATH_TEXTS: &[&str] = &[
    "Lunch is at 12:30 p.m. on the 5th, not 12:30 a.m.",
    "I get up at 6 in the morning and sleep at 10 at night.",
    "She leaves at 7 o'clock in the evening, back by 23:45.",
    "The meeting moved to 06:15:30am, then to 18:00, then 7:5.",
    "Born 2024-06-05; moved 2024/06; left 12024-06 and 2024-13.",
    "Rent went up on 5/11/1993, or was it 11/5/93? Since 12/2024 it's 3-4 weeks late.",
    "Call 555-0142 or 020 7946 0958, extension 4-4-1-7.",
    "A score of 10-2, a ratio of 3/4 and 1/2/3/4.",
    "Chapter XII of Book MCMXC, not IIII or MD, and XIV is fine.",
    "I, Claudius; I am OK. DC is a city, CD a disc, MIX a verb.",
    "Twenty-one years, three hundred and five days, nineteen ninety-one.",
    "seventy-two point five kilos, one point two five litres, forty grand",
    "I sleep seven and a half hours, 7 hrs 10 mins, an hour and a half on Sundays.",
    "It's half past 2, quarter to 7, 10 to 6 in the morning.",
    "June 5th, 2024 and 5 June 2024 and the 5th of June, may I add, in Sept 2023.",
    "I may march in March; Jan said so in jan.",
    "  Lots   of\tspaces\n\nand   tabs\t\t here  ",
    "well-known, riza-triptan, O-ring, B-movie, x-ray, re-enter",
    "Blood type AB+ (not O-), grade b- and A+B",
    "`Backticks` and 'quotes' and \"double quotes\"",
    "I m o g e n, I-m-o-g-e-n, 4 4 1 7, 44 17, 403(b), 221 B",
    "don't, can't, cannot, won't, let's, rock'n'roll, David's, it's",
    "6pm, 68k, 1.5k, $3,500, 3.5 km, 50%, salt & pepper",
    "the 1990s and the '80s, 2020-2024, 2 hours each day, weekly, annually",
    "Temperatures of -5 and +3, 4 - 2 = 2",
    "ONE TWO THREE FOUR, Twelve Thirty PM",
    "Café Zoë at 6:15 p.m. \u{2014} naïve crème brûlée",
    "It\u{2019}s 6\u{2013}7 km \u{201C}far\u{201D}, isn\u{2019}t it?",
    "Ｉｍｏｇｅｎ paid ¾ of 10½ pounds",
    "\u{0406}m\u{043E}g\u{0435}n lives in Москва, since 2024\u{2011}06\u{2011}05",
    "Zero\u{200B}width, soft\u{00AD}hyphen, no\u{00A0}break space at 7:05",
    "B\u{2212} is negative; AB\u{FF0B}?",
    "\u{1F44D}\u{1F3FD} at 9:00, \u{274C} at 21:00",
    "ＸＩＩ and \u{216B}",
    "\u{01C5} \u{0130}stanbul \u{1E9E} \u{212B} \u{212A}",
    "\u{0661}\u{0662}:\u{0663}\u{0660} and \u{096D} and \u{00B2}",
    "",
    "-",
    "12:00",
];

#[test]
fn the_fast_paths_give_what_the_full_passes_give() {
    for &text in FAST_PATH_TEXTS {
        if text.is_ascii() {
            assert_eq!(lower_ascii(text), lower_unicode(text), "{text:?}");
        }
        // Lower-casing as it was written before its fast paths.
        let full = rewrite_times(
            &lower_unicode(text)
                .replace("a.m.", "am")
                .replace("p.m.", "pm")
                .replace("a.m", "am")
                .replace("p.m", "pm"),
        );
        assert_eq!(lower(text), full, "{text:?}");
        // A pass skipped by its check would have left the text as it is.
        for t in [text, full.as_str()] {
            if !may_hold_time(t) {
                assert_eq!(rewrite_times(t), t);
            }
            if !digit_before_separator(t) {
                assert_eq!(rewrite_iso_dates(t), t);
                for order in [DateOrder::MonthFirst, DateOrder::DayFirst] {
                    assert_eq!(rewrite_numeric_dates(t, order), t);
                }
            }
            if !may_hold_roman_numeral(t) {
                assert_eq!(roman_numerals(t), None);
            }
        }
        for t in [text, full.as_str()] {
            if t.is_ascii() {
                assert_eq!(split_ascii(t), split_unicode(t), "{t:?}");
            }
        }
        let mut expanded = Vec::new();
        for word in split_words(&full) {
            expand(word, &mut expanded);
        }
        for tokens in [&numbers(expanded), &normalize(text)] {
            if !names_a_month(tokens) {
                assert_eq!(&dates(tokens), tokens, "{text:?}");
            }
            if !counts_hours(tokens) {
                assert_eq!(&durations(tokens), tokens, "{text:?}");
            }
        }
    }
    // The texts reach both sides of every check.
    let lowered: Vec<String> = FAST_PATH_TEXTS.iter().map(|t| lower_unicode(t)).collect();
    let both = |check: &dyn Fn(&str) -> bool, texts: &[&str]| {
        texts.iter().any(|t| check(t)) && texts.iter().any(|t| !check(t))
    };
    let lowered: Vec<&str> = lowered.iter().map(String::as_str).collect();
    assert!(both(&|t| t.is_ascii(), FAST_PATH_TEXTS));
    assert!(both(&may_hold_time, &lowered));
    assert!(both(&digit_before_separator, &lowered));
    assert!(both(&may_hold_roman_numeral, FAST_PATH_TEXTS));
    assert!(both(&|t| names_a_month(&normalize(t)), FAST_PATH_TEXTS));
    assert!(both(&|t| counts_hours(&normalize(t)), FAST_PATH_TEXTS));
}

fn norm(text: &str) -> String {
    normalize(text).join(" ")
}

fn found(hay: &str, needle: &str) -> bool {
    Text::new(hay).contains(&Text::new(needle))
}

#[test]
fn case_quotes_dashes_and_punctuation_fold() {
    assert_eq!(norm("  “Hello”,   WORLD! "), "hello world");
    assert_eq!(norm("Hike\u{2013}and\u{2014}Bike"), "hike and bike");
    assert_eq!(norm("it\u{2019}s"), "it is");
    assert_eq!(norm("Café Zoë"), "cafe zoe");
}

#[test]
fn contractions_and_possessives_expand() {
    assert_eq!(norm("I don't know"), "i do not know");
    assert_eq!(
        norm("I can't recall; I cannot say"),
        "i can not recall i can not say"
    );
    assert_eq!(norm("I won't"), "i will not");
    assert_eq!(norm("I'm sure you've"), "i am sure you have");
    assert_eq!(norm("David's bike"), "david bike");
    assert_eq!(norm("that's right"), "that is right");
}

#[test]
fn lengths_of_time_in_hours_and_minutes_fold_to_one_form() {
    assert_eq!(norm("seven and a half hours"), "7.5 hours");
    assert_eq!(norm("7 hours 30 minutes"), "7.5 hours");
    assert_eq!(norm("Seven hours and thirty minutes."), "7.5 hours");
    assert_eq!(
        norm("about 7 hrs and 30 mins of sleep"),
        "about 7.5 hours of sleep"
    );
    assert_eq!(norm("an hour and a half"), "1.5 hours");
    assert_eq!(norm("8 hours and a half"), "8.5 hours");
    assert_eq!(norm("6 hours 45 minutes"), "6.75 hours");
    assert_eq!(norm("2 hours 0 minutes"), "2 hours");
    assert_eq!(norm("seven hours and ten minutes"), "7 hours 10 minutes");
    assert_eq!(norm("7 hrs 10 min"), "7 hours 10 minutes");
    // Nothing else changes: plain hours, minutes alone.
    assert_eq!(norm("3 hours a week"), "3 hours per week");
    assert_eq!(norm("40 minutes each way"), "40 minutes each way");
    assert_eq!(
        norm("the 5 hour flight and 90 minutes"),
        "the 5 hour flight and 90 minutes"
    );
    assert!(found(
        "I sleep 7 hours 30 minutes most nights",
        "seven and a half hours"
    ));
    assert!(!found(
        "I sleep 7 hours most nights",
        "seven and a half hours"
    ));
}

#[test]
fn numbers_in_words_become_digits() {
    assert_eq!(norm("three twelve-hour shifts"), "3 12 hour shifts");
    assert_eq!(norm("twenty-five"), "25");
    assert_eq!(norm("ninety nine"), "99");
    assert_eq!(norm("one hundred and five"), "105");
    assert_eq!(norm("three thousand five hundred"), "3500");
    assert_eq!(norm("two thousand twenty four"), "2024");
    assert_eq!(norm("nineteen ninety-five"), "19 95");
    assert_eq!(norm("3,500 dollars"), "3500 dollars");
    assert_eq!(norm("3.5 km"), "3.5 km");
    assert_eq!(norm("one, two"), "1 2");
    assert_eq!(norm("fifty percent"), "50 percent");
    assert_eq!(norm("50%"), "50 percent");
}

#[test]
fn decimals_and_grand_in_words_become_digits() {
    assert_eq!(norm("seventy-two point five kilos"), "72.5 kilos");
    assert_eq!(norm("one point two five"), "1.25");
    assert_eq!(norm("3 point 8 litres"), "3.8 litres");
    assert_eq!(norm("about forty grand a year"), "about 40000 per year");
    assert_eq!(norm("1.5 grand"), "1500");
    // Not numbers: "point" and "grand" without a number before them.
    assert_eq!(norm("the point is"), "the point is");
    assert_eq!(norm("a grand piano"), "a grand piano");
    assert_eq!(norm("on point"), "on point");
    assert!(found("It was roughly sixty-one point four grand.", "61400"));
}

#[test]
fn ordinals_become_digits() {
    assert_eq!(norm("5th"), "5");
    assert_eq!(norm("the 21st and 22nd and 3rd"), "the 21 and 22 and 3");
    assert_eq!(norm("twenty-first"), "21");
    assert_eq!(norm("fifth floor"), "5 floor");
    assert_eq!(norm("the twelfth"), "the 12");
}

#[test]
fn dates_take_one_order() {
    let day = "2024 june 5";
    assert_eq!(norm("2024-06-05"), day);
    assert_eq!(norm("2024/06/05"), day);
    assert_eq!(norm("June 5, 2024"), day);
    assert_eq!(norm("June 5th, 2024"), day);
    assert_eq!(norm("5 June 2024"), day);
    assert_eq!(norm("5th of June, 2024"), day);
    assert_eq!(norm("Jun 5 2024"), day);
    assert_eq!(norm("June fifth, 2024"), day);
    let month = "2024 june";
    assert_eq!(norm("2024-06"), month);
    assert_eq!(norm("June 2024"), month);
    assert_eq!(norm("Jun 2024"), month);
    assert_eq!(norm("June of 2024"), month);
    assert_eq!(norm("in Sept 2023."), "in 2023 september");
    assert_eq!(norm("December 12"), "december 12");
}

#[test]
fn iso_rewrite_needs_a_real_date() {
    assert_eq!(norm("2024-13"), "2024 13");
    assert_eq!(norm("12024-06"), "12024 06");
    assert_eq!(norm("2024-06x"), "2024 06x");
}

#[test]
fn times_join() {
    assert_eq!(norm("7:30 a.m."), "7 30 am");
}

#[test]
fn matching_is_on_word_boundaries() {
    assert!(found("Your name is Ann.", "Ann"));
    assert!(!found("The Annual report", "Ann"));
    assert!(!found("Annie", "Ann"));
    assert!(found("You live at 14 Alder Lane, right?", "14 alder lane"));
    assert!(!found("You live at 114 Alder Lane", "14 Alder Lane"));
    assert!(!found("You live on Alder Lane", "14 Alder Lane"));
}

#[test]
fn matching_folds_forms() {
    assert!(found("It was in Jun 2024.", "2024-06"));
    assert!(found("On 5 June 2024 you flew.", "2024-06"));
    assert!(found("On June 5th, 2024 you flew.", "2024-06-05"));
    assert!(!found("In June 2024 you flew.", "2024-06-05"));
    assert!(found("It cost $3,500.", "3500"));
    assert!(found(
        "You work three 12-hour shifts each week",
        "three twelve-hour shifts each week"
    ));
    assert!(found("You have 2 cats", "two cats"));
    assert!(found("a golden retriever", "the Golden Retriever"));
    assert!(found("Blood type: A", "A"));
    assert!(!found("", "A"));
    assert!(!found("anything", "..."));
}
