//! The extractive reader's small lexicon of everyday English: words that say the same
//! thing ("physician" and "doctor", "allergic" and "allergy") and general words with
//! the more specific words they cover ("pet" covers "dog" and "cat", "instrument"
//! covers "violin"), so that a question worded differently from the sentence that
//! disclosed a fact still finds it.
//!
//! Written from general knowledge of English, not from any data set. Synonyms match
//! both ways; a general word and each of its specific words match both ways too
//! ("What's my pet called?" finds "our dog", "What's my dog called?" finds "my pet"),
//! but two specific words of one general word never match each other ("dog" does not
//! find "cat"). All lookups take stemmed terms ([`crate::text::stem`]); the lists are
//! written as plain words and stemmed once.

use crate::text::stem;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Sets of words used for one another in everyday speech about oneself.
#[rustfmt::skip]
const SYNONYMS: &[&[&str]] = &[
    &["job", "work", "works", "worked", "working", "employer", "employed", "employs", "career",
      "occupation", "profession", "workplace"],
    &["doctor", "physician", "gp", "dr"],
    &["move", "moved", "relocate", "relocated", "live", "lived", "lives", "living", "reside",
      "resides", "settled"],
    &["partner", "spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee",
      "fiancé", "fiancée"],
    &["kid", "kids", "child", "children"],
    &["car", "drive", "drives", "drove", "driving", "vehicle"],
    &["allergic", "allergy", "allergies"],
    &["born", "birthday", "birth"],
    &["salary", "earn", "earns", "income", "paid", "wage", "wages", "pay"],
    &["study", "studied", "studying", "major", "majored", "degree"],
    &["friend", "buddy", "pal", "mate"],
    &["mother", "mom", "mum", "mommy", "mummy"],
    &["father", "dad", "daddy"],
    &["phone", "mobile", "smartphone", "cellphone"],
    &["laptop", "computer", "notebook"],
    &["medication", "medicine", "meds", "pill", "pills", "prescription", "prescribed"],
    &["surgery", "operation", "operated"],
    &["diagnosed", "diagnosis", "condition"],
    &["exercise", "workout", "workouts", "train", "training", "gym"],
    &["trip", "travel", "travelled", "traveled", "vacation", "holiday", "visit", "visited"],
    &["wedding", "married", "marry", "marriage"],
    &["commute", "commuting"],
    &["wake", "woke", "waking", "alarm"],
    &["sleep", "bed", "bedtime"],
    &["favorite", "favourite"],
    &["neighbor", "neighbour", "neighbors", "neighbours"],
    &["neighborhood", "neighbourhood", "area", "district"],
    &["color", "colour"],
    &["city", "town"],
    &["buy", "bought", "purchase", "purchased", "got"],
    &["school", "college", "university", "uni"],
    &["teacher", "professor", "tutor"],
    &["boss", "manager", "supervisor"],
    &["colleague", "coworker", "co-worker"],
    &["house", "home", "apartment", "flat", "condo"],
    &["food", "eat", "eating", "ate", "cuisine", "dish", "meal"],
    &["vet", "veterinarian"],
    &["hobby", "pastime"],
    &["read", "reading", "book", "books", "novel"],
    &["name", "named", "called", "call"],
    &["start", "started", "began", "begin", "joined"],
];

/// Irregular verbs: the base form with its past forms, which the suffix stemmer cannot
/// join ("grew up" answers "where did I grow up").
#[rustfmt::skip]
const IRREGULAR: &[&[&str]] = &[
    &["grow", "grew", "grown"], &["go", "went", "gone"], &["buy", "bought"],
    &["teach", "taught"], &["meet", "met"], &["run", "ran"], &["see", "saw", "seen"],
    &["write", "wrote", "written"], &["make", "made"], &["take", "took", "taken"],
    &["give", "gave", "given"], &["leave", "left"], &["keep", "kept"], &["fly", "flew", "flown"],
    &["drive", "drove", "driven"], &["begin", "began", "begun"], &["break", "broke", "broken"],
    &["choose", "chose", "chosen"], &["come", "came"], &["find", "found"], &["feel", "felt"],
    &["hold", "held"], &["lose", "lost"], &["pay", "paid"], &["sell", "sold"],
    &["spend", "spent"], &["win", "won"], &["wear", "wore", "worn"], &["sing", "sang", "sung"],
    &["swim", "swam", "swum"], &["speak", "spoke", "spoken"], &["fall", "fell", "fallen"],
    &["know", "knew", "known"], &["build", "built"], &["send", "sent"], &["lend", "lent"],
    &["catch", "caught"], &["bring", "brought"], &["stand", "stood"], &["sleep", "slept"],
    &["eat", "ate", "eaten"], &["drink", "drank", "drunk"], &["ride", "rode", "ridden"],
    &["tear", "tore", "torn"], &["think", "thought"], &["tell", "told"], &["sit", "sat"],
    &["lead", "led"], &["hear", "heard"], &["rise", "rose", "risen"], &["forget", "forgot"],
];

/// A general word and the specific words it covers.
#[rustfmt::skip]
const KINDS: &[(&str, &[&str])] = &[
    ("pet", &["dog", "puppy", "pup", "cat", "kitten", "hamster", "rabbit", "parrot", "budgie",
              "goldfish", "tortoise", "guinea"]),
    ("dog", &["puppy", "pup"]),
    ("cat", &["kitten"]),
    ("child", &["son", "daughter", "boy", "boys", "girl", "girls", "baby", "toddler", "teenager"]),
    ("sibling", &["brother", "sister"]),
    ("parent", &["mother", "father", "mom", "dad", "mum"]),
    ("relative", &["aunt", "uncle", "cousin", "niece", "nephew", "grandmother", "grandfather",
                   "grandma", "grandpa"]),
    ("instrument", &["piano", "guitar", "violin", "cello", "drums", "drum", "trumpet", "flute",
                     "saxophone", "clarinet", "ukulele", "bass", "harp", "banjo"]),
    ("sport", &["football", "soccer", "tennis", "basketball", "baseball", "cricket", "rugby",
                "golf", "hockey", "volleyball", "badminton", "swimming", "running", "cycling",
                "climbing", "bouldering"]),
    ("car", &["truck", "suv", "van", "hatchback", "sedan"]),
    ("drink", &["coffee", "tea", "juice", "beer", "wine"]),
    ("language", &["spanish", "french", "german", "italian", "japanese", "mandarin", "chinese",
                   "portuguese", "arabic", "korean"]),
    ("injury", &["sprain", "sprained", "fracture", "fractured", "broke", "broken", "torn",
                 "tore"]),
    ("bank", &["account", "credit"]),
];

/// Idioms whose last word means something else in them: ("for a living") stands for
/// a job, not for where one lives.
const IDIOMS: &[(&[&str], &str)] = &[(&["for", "a", "living"], "job")];

/// Rewrites the idioms of a token stream ([`crate::text::tokenize`]) to the plain word
/// they stand for, in place: "I teach for a living" reads as "I teach for a job".
pub fn plain_idioms(tokens: &mut [String]) {
    for (idiom, plain) in IDIOMS {
        let n = idiom.len();
        for i in 0..tokens.len().saturating_sub(n - 1) {
            if tokens[i..i + n].iter().zip(*idiom).all(|(t, w)| t == w) {
                tokens[i + n - 1] = plain.to_string();
            }
        }
    }
}

/// Every stemmed word with the stemmed words it also matches.
static ALTERNATIVES: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut map: HashMap<String, Vec<String>> = HashMap::new();
    let mut link = |a: &str, b: &str| {
        let (a, b) = (stem(a), stem(b));
        if a != b {
            let entry = map.entry(a).or_default();
            if !entry.contains(&b) {
                entry.push(b);
            }
        }
    };
    for set in SYNONYMS.iter().chain(IRREGULAR) {
        for a in *set {
            for b in *set {
                link(a, b);
            }
        }
    }
    for (general, specifics) in KINDS {
        for specific in *specifics {
            link(general, specific);
            link(specific, general);
        }
    }
    map
});

/// The other stemmed words that match a stemmed term (none for most words).
pub fn alternatives(term: &str) -> &'static [String] {
    ALTERNATIVES.get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(a: &str, b: &str) -> bool {
        alternatives(&stem(a)).contains(&stem(b))
    }

    #[test]
    fn synonyms_match_both_ways() {
        assert!(matches("physician", "doctor"));
        assert!(matches("doctor", "physician"));
        assert!(matches("allergy", "allergic"));
        assert!(matches("employer", "work"));
        assert!(matches("relocated", "lives"));
    }

    #[test]
    fn a_general_word_and_its_specific_words_match_but_siblings_do_not() {
        assert!(matches("pet", "dog"));
        assert!(matches("dog", "pet"));
        assert!(matches("instrument", "violin"));
        assert!(matches("daughter", "child"));
        assert!(!matches("dog", "cat"));
        assert!(!matches("son", "daughter"));
    }

    #[test]
    fn irregular_past_forms_meet_their_verb() {
        assert!(matches("grew", "grow"));
        assert!(matches("grow", "grown"));
        assert!(matches("taught", "teaching"));
    }

    #[test]
    fn idioms_read_as_the_word_they_stand_for() {
        let mut tokens = crate::text::tokenize("What do I do for a living?");
        plain_idioms(&mut tokens);
        assert_eq!(tokens.last().map(String::as_str), Some("job"));
        let mut tokens = crate::text::tokenize("I'm living in Leeds");
        plain_idioms(&mut tokens);
        assert_eq!(tokens.last().map(String::as_str), Some("leeds"));
    }

    #[test]
    fn most_words_have_no_alternatives() {
        assert!(alternatives(&stem("spreadsheet")).is_empty());
        assert!(alternatives("").is_empty());
    }
}
