//! Integration tests: what the README says about the command line agrees with what
//! `bemula … --help` says, for the flags whose wording has drifted before.

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

fn help(subcommand: &str) -> String {
    let out = crate::bemula_command()
        .args([subcommand, "--help"])
        .env_remove("BEMULA_CACHE")
        .env_remove("BEMULA_LLM_BASE_URL")
        .output()
        .expect("bemula runs");
    assert!(out.status.success(), "bemula {subcommand} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The README's flag-table row that starts with `` | `FLAG ``, split into cells.
fn readme_row(flag: &str) -> Vec<String> {
    let readme = readme();
    let row = readme
        .lines()
        .find(|l| l.starts_with(&format!("| `{flag}")))
        .unwrap_or_else(|| panic!("README has no table row for {flag}"));
    row.trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_string())
        .collect()
}

/// The help text of one flag: from `--flag` to the next flag, whitespace collapsed.
fn flag_help(help: &str, flag: &str) -> String {
    let start = help
        .find(&format!("{flag} <"))
        .unwrap_or_else(|| panic!("no {flag} in help:\n{help}"));
    let rest = &help[start + flag.len()..];
    let end = rest
        .find("\n      --")
        .or_else(|| rest.find("\n  -"))
        .unwrap_or(rest.len());
    rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `llm:MODEL…` form in a text: from `llm:M` to the closing backtick or space.
fn llm_form(text: &str) -> String {
    let start = text
        .find("llm:M")
        .unwrap_or_else(|| panic!("no llm:M… form in {text:?}"));
    text[start..]
        .split(['`', ' ', ')'])
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn the_judge_syntax_reads_the_same_in_every_help_and_the_readme() {
    let row = readme_row("--judge ");
    let documented = llm_form(&row[0]);
    for subcommand in ["run", "test", "calibrate"] {
        let help = flag_help(&help(subcommand), "--judge");
        assert_eq!(
            llm_form(&help),
            documented,
            "`bemula {subcommand} --help` and the README's --judge row differ"
        );
    }
    // The README's example of several judges uses the documented separator.
    let readme = readme();
    let example = readme
        .lines()
        .find(|l| l.contains("--judge llm:") && l.contains("--base-url http://localhost"))
        .expect("the README's multi-judge example");
    let models = example.split("--judge llm:").nth(1).unwrap();
    let models = models.split_whitespace().next().unwrap();
    let separator = documented
        .trim_start_matches("llm:MODEL[")
        .chars()
        .next()
        .unwrap();
    assert!(
        models.contains(separator),
        "the example {models:?} does not separate models with {separator:?}"
    );
}

#[cfg(feature = "llm")]
#[test]
fn the_documented_judge_separators_are_the_ones_the_parser_takes() {
    let base = bemula::llm::LlmConfig::new("http://127.0.0.1:9/v1".to_string(), "");
    for spec in ["llm:a+b", "llm:a,b"] {
        match bemula::llm::parse_judge_spec(spec, &base).unwrap() {
            bemula::llm::JudgeSpec::Llm(models) => assert_eq!(models.len(), 2, "{spec}"),
            bemula::llm::JudgeSpec::Rule => panic!("{spec} parsed as the rule judge"),
        }
    }
    let row = readme_row("--judge ");
    assert!(
        row[2].contains("`,`"),
        "the README names the other separator: {row:?}"
    );
}

#[cfg(feature = "llm")]
#[test]
fn the_cache_default_reads_the_same_in_help_and_readme() {
    let strip = |s: &str| s.replace(['`', '$'], "").trim().to_string();
    let row = readme_row("--cache ");
    let readme_places: Vec<String> = row[1].split(", else ").map(strip).collect();
    let help = flag_help(&help("run"), "--cache");
    let default = help
        .split("[default: ")
        .nth(1)
        .and_then(|d| d.split(']').next())
        .unwrap_or_else(|| panic!("no [default: …] in {help:?}"));
    let mut help_places = Vec::new();
    if help.contains("[env: BEMULA_CACHE") {
        help_places.push("BEMULA_CACHE".to_string());
    }
    help_places.extend(default.split(", else ").map(strip));
    assert_eq!(
        readme_places, help_places,
        "the README's --cache default and `bemula run --help` name different places"
    );
}

#[test]
fn the_crate_docs_open_with_the_test_harness() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let first_example = lib
        .split("//! ```")
        .nth(1)
        .expect("the crate docs have an example");
    assert!(
        first_example.contains("Harness::from_fn") && first_example.contains("impl MemorySystem"),
        "the first example of the crate docs is not the harness:\n{first_example}"
    );
}

#[test]
fn the_readme_dependency_resolves_without_a_published_crate() {
    let readme = readme();
    let toml = readme
        .split("```toml")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the README's Cargo.toml block");
    let line = toml
        .lines()
        .find(|l| l.starts_with("bemula ="))
        .expect("a bemula dependency line");
    assert!(
        line.contains("path =") || line.contains("git ="),
        "bemula is not on crates.io: {line:?} does not resolve"
    );
    assert!(
        line.contains("default-features = false"),
        "in-process users need no HTTP or LLM parts: {line:?}"
    );
    assert!(
        readme.contains("cargo install --path ."),
        "how to install the command"
    );
}
