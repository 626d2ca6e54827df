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

/// The top-level modules of `src/` that each module's code (tests and comments left
/// out) names as `crate::NAME`, by module.
fn module_uses() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut uses: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for path in all {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy().into_owned();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let entry = uses.entry(module.clone()).or_default();
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or_default();
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    entry.insert(name);
                }
                // `use crate::{a, b::c}`.
                if let Some(list) = rest.strip_prefix('{') {
                    for item in list.split(['}', ',']) {
                        let name = item.trim().split("::").next().unwrap_or_default();
                        if !name.is_empty() && name != module && name != "self" {
                            entry.insert(name.to_string());
                        }
                    }
                }
            }
        }
    }
    uses
}

/// The README's layout lists the modules from the bottom layer up, and says a module
/// uses only those below it: every `crate::` use in the code agrees, so there is no
/// circle and no arrow running back up.
#[test]
fn every_module_uses_only_the_layers_the_readme_lists_below_it() {
    let readme = readme();
    let layout = readme
        .split("Layout, from the bottom layer up")
        .nth(1)
        .expect("the README has its layout section")
        .split("- `conformance/`")
        .next()
        .unwrap();
    let uses = module_uses();
    // Each module's layer: the index of the first bullet naming `src/NAME`.
    let bullets: Vec<&str> = layout.split("\n- ").skip(1).collect();
    let layer = |module: &str| {
        bullets.iter().position(|b| {
            b.contains(&format!("`src/{module}`"))
                || b.contains(&format!("`src/{module}/`"))
                || b.contains(&format!("`src/{module}.rs`"))
        })
    };
    let mut problems = std::collections::BTreeSet::new();
    for (module, used) in &uses {
        let Some(mine) = layer(module) else {
            problems.insert(format!("src/{module} is not in the README's layout"));
            continue;
        };
        for other in used {
            match layer(other) {
                Some(theirs) if theirs <= mine => {}
                Some(_) => {
                    problems.insert(format!(
                        "src/{module} uses crate::{other}, listed above it in the README"
                    ));
                }
                None if uses.contains_key(other) => {
                    problems.insert(format!("src/{other} is not in the README's layout"));
                }
                None => {}
            }
        }
    }
    assert!(
        uses.len() > 15 && uses["run"].contains("system"),
        "the code was read: {uses:?}"
    );
    let problems: Vec<String> = problems.into_iter().collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
