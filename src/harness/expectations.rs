//! Expectations files: the known failures of a system, one test name a line.

use super::*;

/// Known failures: one test name a line; `#` starts a comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    failures: BTreeSet<String>,
}

impl Expectations {
    /// Reads an expectations file for a run: a missing file is an error, unless the run
    /// is to write it (`bless`), when it starts empty.
    pub fn read_or_bless(path: &Path, bless: bool) -> Result<Expectations, String> {
        if !path.exists() {
            if bless {
                return Ok(Expectations::default());
            }
            return Err(format!(
                "{}: the expectations file does not exist; create it from a run with BEMULA_BLESS=1 (or fix the path)",
                path.display()
            ));
        }
        Expectations::read(path)
    }

    /// The listed test names.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.failures.iter()
    }

    /// This list updated by a run's outcomes (pass or fail by test name): failing
    /// requests are listed, passing ones removed, others kept.
    pub fn blessed(&self, outcomes: &BTreeMap<String, bool>) -> Expectations {
        let mut updated = self.clone();
        for (name, passed) in outcomes {
            updated.set(name, !passed);
        }
        updated
    }

    /// Reads an expectations file; a missing file is an empty list (see
    /// [`Expectations::read_or_bless`] for a run's reading).
    pub fn read(path: &Path) -> Result<Expectations, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Expectations::default());
            }
            Err(e) => {
                return Err(format!(
                    "{}: cannot read the expectations file: {e}",
                    path.display()
                ));
            }
        };
        let mut failures = BTreeSet::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if line.split_whitespace().count() != 1 || line.split("::").count() != 3 {
                return Err(format!(
                    "{}:{}: expected one test name like `short_003::r2::F3_semantic`, got {line:?}",
                    path.display(),
                    n + 1
                ));
            }
            failures.insert(line.to_string());
        }
        Ok(Expectations { failures })
    }

    /// Whether `name` is a known failure.
    pub fn contains(&self, name: &str) -> bool {
        self.failures.contains(name)
    }

    /// Marks `name` as failing or not.
    pub fn set(&mut self, name: &str, failing: bool) {
        if failing {
            self.failures.insert(name.to_string());
        } else {
            self.failures.remove(name);
        }
    }

    /// Number of known failures.
    pub fn len(&self) -> usize {
        self.failures.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }

    /// Writes the file, sorted, with a header.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let mut text = String::from(
            "# bemula expectations: requests known to fail, one test name a line.\n# Rewrite from a run's results with BEMULA_BLESS=1.\n",
        );
        for name in &self.failures {
            text.push_str(name);
            text.push('\n');
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        report::write_file(path, text.as_bytes()).map_err(|e| e.to_string())
    }
}
