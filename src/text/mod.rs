//! The language layer: shared text utilities of the built-in systems, the readers and
//! the judges, below all of them: a tokenizer, an English stop-word list, a light
//! suffix-stripping stemmer, a sentence splitter and a BM25 index; dates and periods
//! ([`dates`]); the typed values a sentence holds ([`values`]); the part of a question
//! that asks ([`question`]); and the readers' lexicon of plain equivalents ([`lexicon`]).
//!
//! Everything here is plain, deterministic and language-rule based; nothing is learnt
//! from or tuned to any dataset.

pub mod dates;
pub(crate) mod fold;
pub(crate) mod lexicon;
pub(crate) mod normalize;
pub(crate) mod question;
pub(crate) mod values;

use std::collections::{HashMap, HashSet};

/// English month names, lower case, January first.
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// English number words for 0 to 19.
pub const NUMBERS_UNDER_TWENTY: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// English words for the tens from twenty to ninety.
pub const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Splits text into lower-case word tokens.
///
/// Letters and digits form words; every other character separates them, except that
/// an apostrophe between letters stays in the word (`don't`, `i'd`) with the curly
/// apostrophe folded to `'`, and a possessive `'s` is dropped (`anna's` → `anna`).
/// Digit groups joined by `,` or `.` stay one token (`85,000` → `85000`, `3.5`).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    each_token(text, |t| tokens.push(t.to_string()));
    tokens
}

/// Calls `emit` with each token of `text`, as [`tokenize`] makes them, without
/// allocating one.
fn each_token(text: &str, mut emit: impl FnMut(&str)) {
    let mut word = String::new();
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if (c == '\'' || c == '\u{2019}')
            && prev.is_some_and(char::is_alphabetic)
            && next.is_some_and(char::is_alphabetic)
            && !word.is_empty()
        {
            word.push('\'');
        } else if (c == ',' || c == '.')
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit())
            && !word.is_empty()
        {
            if c == '.' {
                word.push('.');
            }
        } else {
            flush_word(&mut word, &mut emit);
        }
        prev = Some(c);
    }
    flush_word(&mut word, &mut emit);
}

/// Emits the word (without a possessive `'s`) unless nothing is left, and empties it.
fn flush_word(word: &mut String, emit: &mut impl FnMut(&str)) {
    let w = word.strip_suffix("'s").unwrap_or(word);
    if !w.is_empty() {
        emit(w);
    }
    word.clear();
}

/// English function words and conversational filler that carry no content.
#[rustfmt::skip]
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "actually", "after", "again", "against", "ah", "all", "already",
    "also", "although", "always", "am", "among", "an", "and", "another", "any", "anyway",
    "are", "aren't", "around", "as", "at", "be", "became", "because", "been", "before",
    "being", "below", "between", "both", "but", "by", "can", "can't", "cannot", "could",
    "couldn't", "did", "didn't", "do", "does", "doesn't", "doing", "don't", "done", "down",
    "during", "each", "either", "else", "enough", "even", "ever", "every", "few", "for",
    "from", "further", "get", "gets", "getting", "go", "goes", "going", "gone", "got",
    "gotten", "had", "hadn't", "has", "hasn't", "have", "haven't", "having", "he", "he'd",
    "he'll", "hello", "her", "here", "hers", "herself", "hey", "hi", "him", "himself", "his",
    "how", "however", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "into", "is", "isn't",
    "it", "it'd", "it'll", "its", "itself", "just", "let", "let's", "lot", "lots", "many",
    "may", "maybe", "me", "might", "mine", "more", "most", "much", "must", "my", "myself",
    "no", "nor", "not", "of", "off", "oh", "ok", "okay", "on", "once", "one", "only", "or",
    "other", "others", "our", "ours", "ourselves", "out", "over", "own", "perhaps", "please",
    "pretty", "quite", "rather", "really", "same", "she", "she'd", "she'll", "should",
    "shouldn't", "so", "some", "something", "such", "sure", "than", "thank", "thanks", "that",
    "the", "their", "theirs", "them", "themselves", "then", "there", "there're", "these",
    "they", "they'd", "they'll", "they're", "they've", "thing", "things", "this", "those",
    "though", "through", "to", "too", "um", "under", "until", "up", "upon", "us", "used",
    "very", "was", "wasn't", "we", "we'd", "we'll", "we're", "we've", "well", "were",
    "weren't", "what", "what're", "whatever", "when", "where", "whether", "which", "while",
    "who", "whom", "whose", "why", "will", "with", "within", "without", "won't", "would",
    "wouldn't", "yeah", "yes", "yet", "you", "you'd", "you'll", "you're", "you've", "your",
    "yours", "yourself", "yourselves",
];

fn stop_words() -> &'static HashSet<&'static str> {
    static SET: std::sync::LazyLock<HashSet<&'static str>> =
        std::sync::LazyLock::new(|| STOP_WORDS.iter().copied().collect());
    &SET
}

/// Whether a token (as [`tokenize`] writes it) is an English stop-word.
pub fn is_stop_word(token: &str) -> bool {
    stop_words().contains(token)
}

/// A light stemmer: strips plural `-s`/`-es`/`-ies`, `-ing` and `-ed`, undoubles a
/// final consonant (`running` → `run`) and drops a final `e` (`lives`, `lived`,
/// `living` → `liv`), so that the inflections of one word meet. Tokens of three
/// characters or fewer and tokens holding digits are kept as they are.
pub fn stem(token: &str) -> String {
    stem_owned(token.to_string())
}

/// [`stem`] of a token already owned, in place.
fn stem_owned(mut s: String) -> String {
    if s.len() <= 3 || !s.is_ascii() || s.bytes().any(|c| c.is_ascii_digit()) {
        return s;
    }
    if s.ends_with("ies") && s.len() > 4 {
        s.truncate(s.len() - 3);
        s.push('y');
    } else if s.ends_with("sses") {
        s.truncate(s.len() - 2);
    } else if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s.truncate(s.len() - 1);
    }
    if s.ends_with("ing") && s.len() >= 6 {
        s.truncate(s.len() - 3);
        undouble(&mut s);
    } else if s.ends_with("ied") && s.len() > 4 {
        s.truncate(s.len() - 3);
        s.push('y');
    } else if s.ends_with("ed") && s.len() >= 5 {
        s.truncate(s.len() - 2);
        undouble(&mut s);
    }
    if s.ends_with('e') && s.len() > 3 {
        s.truncate(s.len() - 1);
    }
    s
}

fn undouble(s: &mut String) {
    let b = s.as_bytes();
    if b.len() >= 3 {
        let last = b[b.len() - 1];
        if last == b[b.len() - 2] && !b"aeioulsz".contains(&last) && last.is_ascii_alphabetic() {
            s.truncate(s.len() - 1);
        }
    }
}

/// The content terms of a text: its tokens without stop-words, stemmed, in order
/// (repeats kept).
pub fn content_terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    each_token(text, |t| {
        if !is_stop_word(t) {
            terms.push(stem_owned(t.to_string()));
        }
    });
    terms
}

/// The distinct content terms of a text, in order of first appearance.
pub fn distinct_terms(text: &str) -> Vec<String> {
    dedup(content_terms(text))
}

/// Removes repeats from a list of terms, keeping the first of each.
pub fn dedup(terms: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    terms
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// Abbreviations after which a full stop does not end a sentence.
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &[
    "dr", "mr", "mrs", "ms", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "no", "prof",
    "mt", "ave", "apt",
];

/// Splits text into sentences at `.`, `!`, `?` followed by a space or the end, and at
/// line breaks. A full stop after a common abbreviation (`Dr.`, `e.g.`) or inside a
/// number (`3.5`) does not split. Sentences are trimmed; empty ones are dropped.
pub fn split_sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut sentences = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' || c == '\r' {
            push_sentence(&mut current, &mut sentences);
            i += 1;
            continue;
        }
        current.push(c);
        if matches!(c, '.' | '!' | '?' | '…') {
            // Take a run of closing punctuation and quotes with the sentence.
            while i + 1 < chars.len()
                && matches!(chars[i + 1], '.' | '!' | '?' | '"' | '\'' | ')' | '”' | '’')
            {
                i += 1;
                current.push(chars[i]);
            }
            let at_end = i + 1 >= chars.len() || chars[i + 1].is_whitespace();
            if at_end && !(c == '.' && ends_with_abbreviation(&current)) {
                push_sentence(&mut current, &mut sentences);
            }
        }
        i += 1;
    }
    push_sentence(&mut current, &mut sentences);
    sentences
}

fn ends_with_abbreviation(sentence: &str) -> bool {
    let body = sentence.trim_end_matches('.');
    let last = body
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_lowercase();
    ABBREVIATIONS.contains(&last.as_str())
        || (last.chars().count() == 1 && last.chars().all(char::is_alphabetic))
}

fn push_sentence(current: &mut String, sentences: &mut Vec<String>) {
    let s = current.trim();
    if s.chars().any(char::is_alphanumeric) {
        sentences.push(s.to_string());
    }
    current.clear();
}

/// Identifier of a document in a [`Bm25`] index.
pub type DocId = u64;

/// One search result: a document and its BM25 score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The document.
    pub id: DocId,
    /// Its BM25 score for the query (always above zero).
    pub score: f64,
}

/// An Okapi BM25 index over term lists, with removal.
///
/// Scores use `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, which is never negative,
/// and the usual `tf · (k1 + 1) / (tf + k1 · (1 - b + b · len / avglen))`.
///
/// Terms are interned once (a term's postings are found by its number), and each
/// posting list is a vector sorted by document id, so adding a document in id order
/// appends to each of its terms' lists without allocating a key.
#[derive(Debug, Clone)]
pub struct Bm25 {
    k1: f64,
    b: f64,
    /// Every term ever added, to its number (the index into `postings`).
    vocabulary: HashMap<Box<str>, u32>,
    /// Per term number: (document, term frequency), sorted by document.
    postings: Vec<Vec<(DocId, u32)>>,
    /// Per document: its length in terms and its distinct term numbers.
    docs: HashMap<DocId, (usize, Box<[u32]>)>,
    total_len: usize,
}

impl Default for Bm25 {
    /// The standard parameters, `k1 = 1.2`, `b = 0.75`.
    fn default() -> Bm25 {
        Bm25::new(1.2, 0.75)
    }
}

impl Bm25 {
    /// An empty index with the given parameters.
    pub fn new(k1: f64, b: f64) -> Bm25 {
        Bm25 {
            k1,
            b,
            vocabulary: HashMap::new(),
            postings: Vec::new(),
            docs: HashMap::new(),
            total_len: 0,
        }
    }

    /// The number of `term`, interning it if new.
    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&n) = self.vocabulary.get(term) {
            return n;
        }
        let n = u32::try_from(self.postings.len()).expect("fewer than 2^32 distinct terms");
        self.vocabulary.insert(term.into(), n);
        self.postings.push(Vec::new());
        n
    }

    /// The posting list of `term`, if it was ever added.
    fn posting(&self, term: &str) -> Option<&[(DocId, u32)]> {
        self.vocabulary
            .get(term)
            .map(|&n| self.postings[n as usize].as_slice())
    }

    /// Adds a document made of `terms` (replacing any document with the same id).
    pub fn add(&mut self, id: DocId, terms: &[String]) {
        self.remove(id);
        let mut numbers: Vec<u32> = terms.iter().map(|t| self.intern(t)).collect();
        numbers.sort_unstable();
        let mut distinct = Vec::with_capacity(numbers.len());
        for run in numbers.chunk_by(|a, b| a == b) {
            let (n, tf) = (run[0], run.len() as u32);
            let posting = &mut self.postings[n as usize];
            match posting.last() {
                Some(&(last, _)) if last > id => {
                    let at = posting.partition_point(|&(d, _)| d < id);
                    posting.insert(at, (id, tf));
                }
                _ => posting.push((id, tf)),
            }
            distinct.push(n);
        }
        self.docs
            .insert(id, (terms.len(), distinct.into_boxed_slice()));
        self.total_len += terms.len();
    }

    /// Removes a document; returns whether it was there.
    pub fn remove(&mut self, id: DocId) -> bool {
        let Some((len, numbers)) = self.docs.remove(&id) else {
            return false;
        };
        self.total_len -= len;
        for n in numbers.iter() {
            let posting = &mut self.postings[*n as usize];
            if let Ok(at) = posting.binary_search_by_key(&id, |&(d, _)| d) {
                posting.remove(at);
            }
        }
        true
    }

    /// Removes every document.
    pub fn clear(&mut self) {
        *self = Bm25::new(self.k1, self.b);
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Number of documents holding `term`.
    pub fn df(&self, term: &str) -> usize {
        self.posting(term).map_or(0, <[_]>::len)
    }

    /// The inverse document frequency of `term`.
    pub fn idf(&self, term: &str) -> f64 {
        let n = self.len() as f64;
        let df = self.df(term) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `k` best documents for the query terms, best first; only documents sharing
    /// at least one term with the query. Equal scores rank the later-added (higher id)
    /// document first. Repeated query terms count once.
    pub fn search(&self, query: &[String], k: usize) -> Vec<Hit> {
        self.search_where(query, k, |_| true)
    }

    /// Like [`Bm25::search`], restricted to documents for which `keep` holds.
    pub fn search_where(
        &self,
        query: &[String],
        k: usize,
        keep: impl Fn(DocId) -> bool,
    ) -> Vec<Hit> {
        if self.is_empty() || k == 0 {
            return Vec::new();
        }
        let avg = (self.total_len as f64 / self.len() as f64).max(1.0);
        // Each document's score is summed in the query's term order, whatever the map.
        let mut scores: HashMap<DocId, f64> = HashMap::new();
        let mut seen = HashSet::new();
        for term in query {
            if !seen.insert(term.as_str()) {
                continue;
            }
            let Some(posting) = self.posting(term) else {
                continue;
            };
            let idf = self.idf(term);
            for &(id, tf) in posting {
                if !keep(id) {
                    continue;
                }
                let tf = f64::from(tf);
                let len = self.docs[&id].0 as f64;
                let norm = tf + self.k1 * (1.0 - self.b + self.b * len / avg);
                *scores.entry(id).or_default() += idf * tf * (self.k1 + 1.0) / norm;
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .filter(|(_, s)| *s > 0.0)
            .map(|(id, score)| Hit { id, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
        hits.truncate(k);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tokenize_splits_punctuation_and_keeps_contractions() {
        assert_eq!(
            tokenize("Don't forget: I live at 14 Alder-Lane, Anna's place!"),
            strings(&[
                "don't", "forget", "i", "live", "at", "14", "alder", "lane", "anna", "place"
            ])
        );
        assert_eq!(
            tokenize("I earn $85,000 (3.5% raise)"),
            strings(&["i", "earn", "85000", "3.5", "raise"])
        );
        assert_eq!(tokenize("I\u{2019}m here"), strings(&["i'm", "here"]));
        assert!(tokenize("  ...  ").is_empty());
    }

    #[test]
    fn stop_words_are_function_words() {
        assert!(is_stop_word("the"));
        assert!(is_stop_word("i'd"));
        assert!(!is_stop_word("salary"));
        assert!(!is_stop_word("like"));
    }

    #[test]
    fn stemmer_meets_inflections() {
        for group in [
            &["live", "lives", "lived", "living"][..],
            &["nurse", "nurses", "nursing"],
            &["run", "running"],
            &["study", "studies", "studied", "studying"],
            &["restaurant", "restaurants"],
            &["hike", "hiking", "hiked"],
        ] {
            let first = stem(group[0]);
            for w in group {
                assert_eq!(stem(w), first, "{w} vs {}", group[0]);
            }
        }
        assert_eq!(stem("glasses"), "glass");
        assert_eq!(stem("2024"), "2024");
        assert_eq!(stem("bus"), "bus");
        assert_ne!(stem("movie"), stem("move"));
    }

    #[test]
    fn content_terms_drop_stop_words_and_stem() {
        assert_eq!(
            content_terms("I have been living in Denver"),
            strings(&["liv", "denver"])
        );
        assert_eq!(distinct_terms("cats and cats"), strings(&["cat"]));
    }

    #[test]
    fn sentences_split_on_end_punctuation_not_abbreviations() {
        let s =
            split_sentences("I saw Dr. Patel today. It cost $3.50! Was it fine?\nYes e.g. mostly");
        assert_eq!(
            s,
            strings(&[
                "I saw Dr. Patel today.",
                "It cost $3.50!",
                "Was it fine?",
                "Yes e.g. mostly"
            ])
        );
        assert!(split_sentences(" \n ").is_empty());
    }

    #[test]
    fn bm25_ranks_removes_and_breaks_ties_by_recency() {
        let mut index = Bm25::default();
        index.add(1, &content_terms("I live in Denver near the park"));
        index.add(2, &content_terms("My sister lives in Boston"));
        index.add(3, &content_terms("I adopted a cat named Miso"));
        let hits = index.search(&content_terms("where do I live? Denver?"), 5);
        assert_eq!(hits[0].id, 1);
        assert!(hits.iter().all(|h| h.id != 3));
        assert!(index.remove(1));
        assert!(!index.remove(1));
        assert_eq!(index.search(&content_terms("Denver"), 5), vec![]);
        assert_eq!(index.df("liv"), 1);
        index.add(4, &content_terms("My brother lives in Boston"));
        let hits = index.search(&content_terms("Boston"), 5);
        assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![4, 2]);
        let hits = index.search_where(&content_terms("Boston"), 5, |id| id != 4);
        assert_eq!(hits.len(), 1);
        index.clear();
        assert!(index.is_empty());
    }

    #[test]
    fn bm25_prefers_rarer_terms() {
        let mut index = Bm25::default();
        index.add(1, &content_terms("work meeting work schedule"));
        index.add(2, &content_terms("work lunch"));
        index.add(3, &content_terms("penicillin allergy"));
        index.add(4, &content_terms("work travel"));
        let hits = index.search(&content_terms("work penicillin"), 2);
        assert_eq!(hits[0].id, 3);
    }
}
