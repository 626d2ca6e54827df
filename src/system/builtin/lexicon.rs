//! The scoped forgetter's small built-in lexicons, written from general knowledge of
//! everyday English: the category words a semantic forget request can name
//! ("all my financial information"), the words that put a sentence in a category, a
//! few predicate synonyms ("salary" is also what one "earns"), and the generic words
//! that surround a request's real target ("information", "anything", "detail").
//!
//! All lookups take stemmed terms ([`crate::text::stem`]); the lists are written as
//! plain words and stemmed once.

use crate::text::stem;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// One everyday category of personal information.
struct CategorySpec {
    /// Its name in reports.
    name: &'static str,
    /// Words a user names the category by ("financial", "money").
    names: &'static [&'static str],
    /// Words that put a sentence in the category.
    words: &'static [&'static str],
}

#[rustfmt::skip]
const CATEGORIES: &[CategorySpec] = &[
    CategorySpec {
        name: "health",
        names: &[
            "health", "medical", "medicine", "healthcare", "wellness", "wellbeing", "illness",
            "illnesses",
        ],
        words: &[
            "health", "medical", "doctor", "physician", "diagnosis", "diagnosed",
            "medication", "medicine", "prescription", "prescribed", "pill", "allergy",
            "allergic", "surgery", "surgeon", "operation", "clinic", "hospital", "symptom",
            "therapy", "therapist", "dentist", "dental", "checkup", "physical", "examination",
            "cholesterol", "diabetes", "asthma", "migraine", "injury", "injured", "illness",
            "sick", "disease", "treatment", "vaccine", "vaccination", "pharmacy", "insulin",
            "cancer", "infection", "fracture", "sprain", "anxiety", "depression", "mental",
            "chronic", "dermatologist", "cardiologist", "physiotherapy", "rehab", "inhaler",
            "antibiotic", "blood", "condition", "specialist", "pain", "eczema", "arthritis",
            "pregnancy", "mri", "scan",
        ],
    },
    CategorySpec {
        name: "finance",
        names: &[
            "finance", "finances", "financial", "money", "banking", "monetary", "wealth",
        ],
        words: &[
            "finance", "financial", "money", "bank", "banking", "salary", "income", "earn",
            "loan", "mortgage", "debt", "credit", "invest", "investment", "investing",
            "stock", "savings", "retirement", "401k", "ira", "pension", "budget", "tax",
            "paycheck", "insurance", "bonus", "dollar", "expense", "bill", "payment",
            "portfolio", "fund", "crypto", "bitcoin", "interest", "wage", "raise", "afford",
            "spending", "spend", "cost", "price", "checking", "deposit", "financially",
            "broker", "roth",
        ],
    },
    CategorySpec {
        name: "work",
        names: &[
            "work", "job", "jobs", "career", "professional", "employment", "occupation",
            "workplace",
        ],
        words: &[
            "work", "job", "career", "employer", "employed", "company", "office", "boss",
            "manager", "colleague", "coworker", "promotion", "promoted", "shift", "client",
            "workplace", "hired", "position", "resume", "interview", "profession", "contract",
            "startup", "team", "project", "deadline", "occupation", "employee", "firm",
            "department", "supervisor", "internship", "freelance",
        ],
    },
    CategorySpec {
        name: "education",
        names: &[
            "education", "educational", "school", "schooling", "academic", "academics",
            "studies",
        ],
        words: &[
            "education", "school", "college", "university", "degree", "major", "majored",
            "graduate", "graduated", "bachelor", "master", "phd", "course", "class",
            "student", "study", "studied", "teacher", "professor", "tuition", "scholarship",
            "gpa", "thesis", "diploma", "certification", "certificate", "semester", "campus",
            "undergraduate", "enrolled", "academic", "exam", "lecture", "homework",
        ],
    },
    CategorySpec {
        name: "family",
        names: &[
            "family", "relatives", "relationship", "relationships", "kids", "children",
            "parents",
        ],
        words: &[
            "family", "wife", "husband", "spouse", "partner", "son", "daughter", "child",
            "children", "kid", "mother", "mom", "father", "dad", "parent", "brother",
            "sister", "sibling", "grandmother", "grandma", "grandfather", "grandpa", "aunt",
            "uncle", "cousin", "niece", "nephew", "married", "marriage", "divorce",
            "divorced", "wedding", "baby", "pregnant", "fiance", "fiancee", "girlfriend",
            "boyfriend", "relative", "twins", "stepson", "stepdaughter", "anniversary",
        ],
    },
    CategorySpec {
        name: "home",
        names: &["home", "housing", "residence", "residential", "living"],
        words: &[
            "address", "street", "lane", "avenue", "road", "apartment", "house", "home",
            "neighborhood", "neighbourhood", "rent", "landlord", "moved", "live", "zip",
            "condo", "roommate", "suburb", "downtown", "lease", "backyard", "flat",
            "residence", "housing", "boulevard",
        ],
    },
    CategorySpec {
        name: "travel",
        names: &[
            "travel", "travels", "traveling", "travelling", "trip", "trips", "vacation",
            "vacations", "holidays",
        ],
        words: &[
            "trip", "travel", "traveled", "travelled", "vacation", "holiday", "flight",
            "flew", "airport", "hotel", "passport", "visa", "abroad", "tour", "itinerary",
            "destination", "cruise", "backpacking", "visited", "visit", "journey", "resort",
            "sightseeing", "airline", "roadtrip",
        ],
    },
    CategorySpec {
        name: "hobbies",
        names: &[
            "hobby", "hobbies", "leisure", "pastime", "pastimes", "interests", "free-time",
        ],
        words: &[
            "hobby", "painting", "guitar", "piano", "knitting", "gardening", "photography",
            "reading", "chess", "gaming", "baking", "hiking", "fishing", "camping", "crafts",
            "pottery", "woodworking", "drawing", "collecting", "sketching", "podcast", "band",
            "instrument", "violin", "singing", "choir", "puzzle", "birdwatching", "quilting",
            "sewing", "writing", "poetry", "game", "games",
        ],
    },
    CategorySpec {
        name: "food",
        names: &[
            "food", "foods", "diet", "dietary", "eating", "cuisine", "meals", "culinary",
        ],
        words: &[
            "food", "diet", "vegetarian", "vegan", "restaurant", "cuisine", "meal", "dish",
            "eat", "eating", "cook", "cooking", "recipe", "breakfast", "lunch", "dinner",
            "snack", "coffee", "tea", "pizza", "sushi", "gluten", "dairy", "keto", "spicy",
            "dessert", "chocolate", "cafe", "bakery", "takeout", "grocery", "groceries",
        ],
    },
    CategorySpec {
        name: "social",
        names: &[
            "social", "friends", "friendships", "friendship", "community", "socializing",
        ],
        words: &[
            "friend", "friends", "party", "club", "volunteer", "volunteering", "community",
            "neighbor", "neighbour", "meetup", "gathering", "group", "league", "church",
            "dating", "social", "buddy", "reunion", "hangout", "potluck",
        ],
    },
    CategorySpec {
        name: "fitness",
        names: &[
            "fitness", "sports", "sport", "exercise", "exercising", "athletic", "workouts",
        ],
        words: &[
            "gym", "workout", "running", "marathon", "yoga", "swim", "swimming", "cycling",
            "bike", "biking", "tennis", "soccer", "basketball", "football", "golf",
            "training", "exercise", "weights", "pilates", "triathlon", "climbing", "martial",
            "jogging", "race", "coach", "fitness", "sport", "volleyball", "rowing", "ski",
            "skiing",
        ],
    },
    CategorySpec {
        name: "technology",
        names: &[
            "technology", "tech", "devices", "device", "digital", "computer", "computers",
            "online", "apps", "app", "gadgets", "gadget", "electronics",
        ],
        words: &[
            "phone", "laptop", "computer", "email", "password", "app", "software", "username",
            "smartphone", "tablet", "code", "coding", "programming", "website", "github",
            "server", "device", "router", "wifi", "internet", "online", "python",
            "javascript", "database", "api", "gadget", "smart", "electronics", "tv", "console",
            "headphones", "camera", "streaming", "subscription",
        ],
    },
    CategorySpec {
        name: "routine",
        names: &["routine", "routines", "schedule", "schedules", "habits", "habit", "daily"],
        words: &[
            "routine", "schedule", "habit", "wake", "woke", "alarm", "bedtime", "bed", "sleep",
            "nap", "chore", "chores", "commute", "commuting", "weekday", "weekdays",
        ],
    },
    CategorySpec {
        name: "pets",
        names: &["pet", "pets", "animals", "animal"],
        words: &[
            "dog", "cat", "puppy", "kitten", "pet", "vet", "veterinarian", "bird", "parrot",
            "hamster", "rabbit", "aquarium", "leash", "breed", "adopted", "shelter",
        ],
    },
];

/// Words that stand around a request's real target and are no part of it.
#[rustfmt::skip]
const GENERIC: &[&str] = &[
    "information", "info", "detail", "details", "data", "stuff", "everything", "anything",
    "whatever", "related", "relating", "regarding", "concerning", "category", "categories",
    "topic", "topics", "area", "subject", "mention", "mentions", "mentioned", "record",
    "records", "memory", "memories", "note", "notes", "fact", "facts", "part", "bit", "piece",
    "pieces", "kind", "type", "sort", "told", "tell", "said", "say", "shared", "share",
    "know", "knew", "keep", "kept", "remember", "remembered", "store", "stored", "retain",
    "retained", "save", "saved", "immediately", "right", "away", "permanently", "completely",
    "entirely", "forever", "anymore", "longer", "also", "altogether", "now", "please", "file",
    "files", "system", "history", "matters", "matter", "side", "issues", "whole", "entire",
    "totally", "fully", "mind", "delete", "forget", "erase", "remove", "wipe", "purge",
    "clear", "possible", "asap", "thank", "thanks", "okay", "ok", "kindly", "trace", "traces",
    "reference", "references", "conversation", "conversations", "chat", "chats", "earlier",
    "previously", "ago", "before", "ever", "anywhere", "either", "going", "forward", "onward",
    "onwards", "moving", "there", "think", "would", "rather", "don't", "personal", "private",
    "sensitive", "specific", "specifically", "exactly", "around", "preference",
    "preferences", "version", "things", "life", "time",
];

/// Words showing that a category request names a scope, not a single fact.
#[rustfmt::skip]
const SCOPE: &[&str] = &[
    "all", "any", "everything", "anything", "information", "info", "stuff", "details",
    "detail", "data", "history", "records", "matters", "related", "category", "topic",
    "whatever", "area", "side", "life", "aspects", "things",
];

/// Words that mark an inference rather than a stated fact.
#[rustfmt::skip]
const INFERENCE: &[&str] = &[
    "inferred", "infer", "inference", "inferences", "deduce", "deduced", "deduction",
    "derived", "derive", "conclude", "concluded", "conclusion", "conclusions", "assumption",
    "assume", "assumed", "guess", "guessed", "calculated", "calculate", "calculation",
    "reasoned", "reasoning", "implied", "imply", "figured",
];

/// Predicate synonyms: a request naming the key also means sentences using a value.
#[rustfmt::skip]
const SYNONYMS: &[(&str, &[&str])] = &[
    (
        "address",
        &[
            "live", "street", "lane", "avenue", "road", "apartment", "drive", "boulevard",
        ],
    ),
    ("age", &["old", "born", "birthday"]),
    ("birthday", &["born"]),
    ("salary", &["earn", "income", "pay", "paid"]),
    ("income", &["earn", "salary", "pay", "paid"]),
    (
        "job",
        &["work", "employed", "employer", "position", "role", "career"],
    ),
    ("career", &["work", "job", "profession"]),
    ("employer", &["work", "company"]),
    ("major", &["study", "studied", "degree"]),
    ("allergy", &["allergic"]),
    ("diagnosis", &["diagnosed"]),
    ("medication", &["prescribed", "prescription", "pill"]),
    ("hometown", &["grew", "born", "raised"]),
    ("phone", &["number", "cell", "mobile"]),
    (
        "partner",
        &["wife", "husband", "girlfriend", "boyfriend", "spouse"],
    ),
    ("spouse", &["wife", "husband", "married"]),
    ("pet", &["dog", "cat"]),
    ("favorite", &["love", "like", "enjoy", "favourite"]),
    ("favourite", &["love", "like", "enjoy", "favorite"]),
    (
        "like",
        &["love", "enjoy", "prefer", "favorite", "favourite"],
    ),
    ("prefer", &["like", "love", "favorite", "favourite"]),
    ("hobby", &["enjoy", "love", "like"]),
    ("commute", &["drive", "bus", "train", "bike"]),
    ("annual", &["year", "yearly"]),
];

struct Tables {
    names: Vec<HashSet<String>>,
    words: Vec<HashSet<String>>,
    generic: HashSet<String>,
    scope: HashSet<String>,
    inference: HashSet<String>,
    synonyms: HashMap<String, Vec<String>>,
}

fn stems(words: &[&str]) -> HashSet<String> {
    words.iter().map(|w| stem(&w.to_lowercase())).collect()
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| Tables {
    names: CATEGORIES.iter().map(|c| stems(c.names)).collect(),
    words: CATEGORIES
        .iter()
        .map(|c| {
            let mut s = stems(c.words);
            s.extend(stems(c.names));
            s
        })
        .collect(),
    generic: stems(GENERIC),
    scope: stems(SCOPE),
    inference: stems(INFERENCE),
    synonyms: SYNONYMS
        .iter()
        .map(|(k, v)| (stem(k), v.iter().map(|w| stem(w)).collect()))
        .collect(),
});

/// A category of the built-in lexicon, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Category(usize);

impl Category {
    /// The category's name, e.g. `health`.
    pub fn name(self) -> &'static str {
        CATEGORIES[self.0].name
    }

    /// Whether a sentence with these stemmed terms belongs to the category.
    pub fn covers(self, terms: &[String]) -> bool {
        let words = &TABLES.words[self.0];
        terms.iter().any(|t| words.contains(t))
    }
}

/// The categories a stemmed term names ("financ" → finance), if it is a category name.
pub fn categories_named(term: &str) -> Vec<Category> {
    TABLES
        .names
        .iter()
        .enumerate()
        .filter(|(_, names)| names.contains(term))
        .map(|(i, _)| Category(i))
        .collect()
}

/// Whether a stemmed term is a generic request word (not part of a target).
pub fn is_generic(term: &str) -> bool {
    TABLES.generic.contains(term)
}

/// Whether a stemmed term widens a request to a scope ("all", "anything", "history").
pub fn is_scope_word(term: &str) -> bool {
    TABLES.scope.contains(term)
}

/// Whether a stemmed term marks an inference ("inferred", "deduce").
pub fn is_inference_word(term: &str) -> bool {
    TABLES.inference.contains(term)
}

/// The synonyms a stemmed request term also stands for.
pub fn synonyms(term: &str) -> &'static [String] {
    TABLES.synonyms.get(term).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::content_terms;

    #[test]
    fn category_names_and_coverage() {
        let finance = categories_named(&stem("financial"));
        assert_eq!(finance.len(), 1);
        assert_eq!(finance[0].name(), "finance");
        assert!(finance[0].covers(&content_terms("My salary went up last year")));
        assert!(!finance[0].covers(&content_terms("I adopted a kitten")));
        let health = categories_named(&stem("health"))[0];
        assert!(health.covers(&content_terms("I was diagnosed with asthma")));
        assert!(categories_named(&stem("penicillin")).is_empty());
        assert_eq!(CATEGORIES.len(), 14);
        let routine = categories_named(&stem("routine"))[0];
        assert!(routine.covers(&content_terms("I wake up at 6:40 most days")));
    }

    #[test]
    fn word_classes() {
        assert!(is_generic(&stem("information")));
        assert!(!is_generic(&stem("salary")));
        assert!(is_scope_word(&stem("everything")));
        assert!(is_inference_word(&stem("inferred")));
        assert!(synonyms(&stem("salary")).contains(&stem("earn")));
        assert!(synonyms(&stem("penicillin")).is_empty());
    }
}
