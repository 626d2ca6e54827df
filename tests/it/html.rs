//! Integration tests: the HTML pages of results. `report.html` from `bemula run`, the
//! harness and the shared report writer, `index.html` over a run's systems, the page of
//! `bemula compare --html`; escaping of adversarial answers; and the pages opened in
//! headless Chromium (screenshots checked for drawn pixels, the DOM for the expected
//! rows and figure elements). The browser tests are skipped, saying how to enable
//! them, where no Chromium is installed.

use bemula::dataset::{Attack, RequestType, Suite, Tier, Version};
use bemula::metrics::BootstrapConfig;
use bemula::record::Record;
use bemula::report::{self, RunInfo, Summary};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first short instance of generator v1's Lite data (whose wording the pages'
/// expected passes and failures were written against), written once per test process.
fn sample() -> &'static str {
    static DIR: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    &DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let data = crate::small_data(dir.path(), 1);
        let path = data.to_str().unwrap().to_string();
        (dir, path)
    })
    .1
}

/// What an adversarial system answers: markup that would run if it were not escaped.
const HOSTILE: &str = "</script><svg onload=alert(1)> & <b>bold</b> a < b";

/// A record of the hand-written instance; preservation items probe no request, the
/// others probe `r1`.
fn record(
    suite: Suite,
    attack: Option<Attack>,
    version: Version,
    id: &str,
    answer: &str,
    correct: bool,
    conditioned_on: Option<&str>,
) -> Record {
    Record {
        instance: "short_900".into(),
        tier: Tier::Short,
        request: (suite != Suite::Preservation).then(|| "r1".to_string()),
        request_type: (suite != Suite::Preservation).then_some(RequestType::F1),
        suite,
        attack,
        version,
        question_id: id.into(),
        question: format!("What is my <employer>? ({id})"),
        expected: "Acme & Sons".into(),
        answer: Some(answer.into()),
        correct,
        error: None,
        unscored: false,
        conditioned_on: conditioned_on.map(str::to_string),
        judge: "rule".into(),
        reason: format!("judge saw {answer}"),
        restarts: 0,
        truncated_turns: 0,
        decided_by: None,
    }
}

/// One instance, one request whose efficacy item leaks under a hostile answer.
fn hostile_records() -> Vec<Record> {
    vec![
        record(
            Suite::Retention,
            None,
            Version::Control,
            "q_ret",
            "Acme & Sons",
            true,
            None,
        ),
        record(
            Suite::Efficacy,
            None,
            Version::Forget,
            "q_eff",
            HOSTILE,
            false,
            Some("q_ret"),
        ),
        record(
            Suite::Attack,
            Some(Attack::Boolean),
            Version::Control,
            "q_att",
            "yes",
            true,
            None,
        ),
        record(
            Suite::Attack,
            Some(Attack::Boolean),
            Version::Forget,
            "q_att",
            "no",
            true,
            Some("q_att"),
        ),
        record(
            Suite::Preservation,
            None,
            Version::Control,
            "q_pres",
            "Paris",
            true,
            None,
        ),
        record(
            Suite::Preservation,
            None,
            Version::Forget,
            "q_pres",
            "Paris",
            true,
            Some("q_pres"),
        ),
    ]
}

fn summary_of(records: &[Record], name: &str) -> Summary {
    let mut info = RunInfo {
        judge: "rule".into(),
        answerer: "extractive".into(),
        dataset: "hand-written <test> data".into(),
        dataset_checksum: "abc123".into(),
        ..RunInfo::default()
    };
    info.system.name = name.into();
    info.system
        .settings
        .insert("scope".into(), "<all> & more".into());
    Summary::build(
        records,
        info,
        &BootstrapConfig {
            resamples: 200,
            ..BootstrapConfig::default()
        },
    )
}

fn bemula(args: &[&str]) -> (i32, String, String) {
    let out = crate::bemula_command()
        .args(args)
        .env_remove("BEMULA_DATA")
        .output()
        .expect("bemula runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A `bemula run` of two systems on the sample instance, into a fresh directory.
fn run_two_systems() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap().to_string();
    let (code, stdout, stderr) = bemula(&[
        "run",
        "--data",
        sample(),
        "--system",
        "naive-rag",
        "--system",
        "scoped-forget",
        "--bootstrap",
        "200",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    (dir, stdout)
}

#[test]
fn a_hostile_answer_stays_text_in_the_report() {
    let records = hostile_records();
    let summary = summary_of(&records, "evil<system>");
    let page = report::html::render_report(&summary, &records);
    assert!(!page.contains("<script"), "no script element: {page}");
    assert!(
        !page.contains("<svg onload"),
        "the answer's markup is not markup"
    );
    assert!(!page.contains("<b>bold"), "nor is any other tag of it");
    assert!(!page.contains("evil<system>"));
    assert!(
        page.contains(
            "&lt;/script&gt;&lt;svg onload=alert(1)&gt; &amp; &lt;b&gt;bold&lt;/b&gt; a &lt; b"
        ),
        "the answer is shown, escaped"
    );
    assert!(
        page.contains("Acme &amp; Sons"),
        "expected values are escaped"
    );
    assert!(page.contains("What is my &lt;employer&gt;? (q_eff)"));
    assert!(
        page.contains("&lt;all&gt; &amp; more"),
        "system settings are escaped"
    );
    assert!(
        page.contains("Content-Security-Policy\" content=\"default-src 'none'"),
        "a policy forbids scripts even if something slipped through"
    );
    // Nothing is loaded from elsewhere.
    for external in ["src=\"http", "href=\"http", "<link", "url("] {
        assert!(!page.contains(external), "{external} in the page");
    }
}

#[test]
fn the_report_shows_every_figure_of_the_summary_without_recomputing() {
    let records = hostile_records();
    let mut summary = summary_of(&records, "mine");
    // A report renders what the summary says, even a figure its records would not give.
    summary.metrics.fe = Some(0.123);
    summary.breakdowns.by_type.get_mut("F1").unwrap().rpr = Some(0.777);
    let page = report::html::render_report(&summary, &records);
    assert!(page.contains("<td class=\"num\">12.3</td>"), "FE as given");
    assert!(
        page.contains(">77.7</text>"),
        "the RPR heatmap cell as given"
    );
    // Every metric appears with its full name and meaning.
    for doc in report::METRICS {
        assert!(
            page.contains(&format!(
                "<tr data-metric=\"{}\"><th>{}</th><td>{}</td>",
                doc.key, doc.key, doc.name
            )),
            "{} row",
            doc.key
        );
        assert!(
            page.contains(&doc.meaning.replace('&', "&amp;")),
            "{} meaning",
            doc.key
        );
    }
    for id in [
        "fig-tradeoff",
        "fig-rpr-by-type",
        "fig-fe-by-type",
        "fig-attacks",
        "fig-tiers",
    ] {
        assert!(page.contains(&format!("<figure id=\"{id}\">")), "{id}");
    }
    // The failing request opens to its failing sub-assertion.
    assert!(page.contains("<details class=\"request\" id=\"short_900::r1::F1_factual\">"));
    assert!(page.contains("<code>efficacy</code><br><code>q_eff</code>"));
    // The configuration.
    for text in [
        "abc123",
        "200 resamples, seed 42",
        "<code>rule</code>",
        "<code>extractive</code>",
    ] {
        assert!(page.contains(text), "{text}");
    }
}

#[test]
fn the_shared_report_writer_writes_report_html() {
    let records = hostile_records();
    let summary = summary_of(&records, "mine");
    let dir = tempfile::tempdir().unwrap();
    report::write_all(dir.path(), &records, &summary, &Default::default()).unwrap();
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("bemula results: mine"));
}

#[test]
fn bemula_run_writes_a_page_per_system_an_index_and_a_legend() {
    let (dir, stdout) = run_two_systems();
    for system in ["naive-rag", "scoped-forget"] {
        let page = std::fs::read_to_string(dir.path().join(system).join("report.html")).unwrap();
        assert!(page.contains(&format!("bemula results: {system}")));
        let md = std::fs::read_to_string(dir.path().join(system).join("summary.md")).unwrap();
        assert!(
            md.contains("- **FA** (forgetting ability): √(FE·AR)"),
            "{md}"
        );
        assert!(md.contains("| UG | usability guard |"), "{md}");
    }
    let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert_eq!(index.matches("<tr class=\"system\"").count(), 2);
    assert!(index.contains("<a href=\"naive-rag/report.html\">naive-rag</a>"));
    assert!(
        index.contains("href=\"naive-rag/report.html#short_001::"),
        "a failure links to its page"
    );
    let passing = std::fs::read_to_string(dir.path().join("scoped-forget/report.html")).unwrap();
    assert!(
        passing.contains("<li id=\"short_001::"),
        "passing requests are listed"
    );
    // The terminal table is followed by the spelled-out metrics.
    let table_end = stdout.find("scoped-forget ").expect("the table");
    let legend = stdout
        .find("FE     forgetting efficacy: ")
        .expect("the legend");
    assert!(legend > table_end, "{stdout}");
    assert!(stdout.contains("RPR    request pass rate: "), "{stdout}");
    assert!(stdout.contains("index.html"), "{stdout}");
}

#[test]
fn bemula_compare_html_draws_the_paired_differences() {
    let (dir, _) = run_two_systems();
    let page_path = dir.path().join("compare.html");
    let (a, b) = (
        dir.path().join("naive-rag"),
        dir.path().join("scoped-forget"),
    );
    let (code, stdout, stderr) = bemula(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--bootstrap",
        "200",
        "--html",
        page_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("scoped-forget − naive-rag"),
        "the table is still printed"
    );
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert_eq!(
        page.matches("<g class=\"difference\"").count(),
        9,
        "one row per metric"
    );
    assert_eq!(page.matches("<tr data-metric=").count(), 9);
    assert!(page.contains("<tr data-metric=\"FE\"><th>FE</th><td>forgetting efficacy</td>"));
    // The verdicts of the page are those of the terminal.
    let fe_line = stdout.lines().find(|l| l.starts_with("FE ")).unwrap();
    let verdict = fe_line.split("  ").last().unwrap().trim();
    let fe_row = &page[page.find("<tr data-metric=\"FE\">").unwrap()..];
    let fe_row = &fe_row[..fe_row.find("</tr>").unwrap()];
    assert!(
        fe_row.contains(&format!("<td>{verdict}</td>")),
        "{fe_row} vs {fe_line}"
    );
}

#[test]
fn the_harness_writes_report_html() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::bemula_command()
        .args(["test", "--system", "naive-rag", "--report-dir"])
        .arg(dir.path())
        .args(["--", "--test-threads", "1"])
        .env("BEMULA_DATA", sample())
        .env_remove("BEMULA_EXPECTATIONS")
        .env_remove("BEMULA_BLESS")
        .env_remove("BEMULA_MIN_RPR")
        .env_remove("NEXTEST_RUN_ID")
        .output()
        .unwrap();
    let page = std::fs::read_to_string(dir.path().join("report.html"))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(page.contains("bemula results: naive-rag"));
    assert!(page.contains("<details class=\"request\" id=\"short_001::"));
}

// ---------------------------------------------------------------------------------
// In a browser.

/// The Chromium to drive: `$BEMULA_CHROMIUM`, else `chromium`, `chromium-browser` or
/// `google-chrome` on the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("BEMULA_CHROMIUM").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| {
            ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name))
        })
        .find(|candidate| candidate.is_file())
}

fn skip(test: &str) {
    eprintln!(
        "{test}: skipped, no Chromium found: run scripts/install-chromium.sh (Debian's `chromium` \
         package) or set BEMULA_CHROMIUM to a Chromium or Chrome binary to enable it"
    );
}

/// Runs headless Chromium on a page file with extra flags; its stdout. Killed after
/// two minutes.
fn headless(browser: &Path, page: &Path, flags: &[&str]) -> Vec<u8> {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.display());
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
            "--disable-extensions",
            "--allow-file-access-from-files",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(flags)
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
    });
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium on {url} exited with {status}");
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium on {url} did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap().unwrap()
}

/// The DOM of a page after Chromium has parsed and laid it out.
fn dump_dom(browser: &Path, page: &Path) -> String {
    String::from_utf8(headless(browser, page, &["--dump-dom"])).unwrap()
}

/// A screenshot of a page, decoded: (width, height, RGB pixels).
fn screenshot(browser: &Path, page: &Path, width: u32, height: u32) -> (u32, u32, Vec<[u8; 3]>) {
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("shot.png");
    headless(
        browser,
        page,
        &[
            &format!("--screenshot={}", png_path.display()),
            &format!("--window-size={width},{height}"),
        ],
    );
    let file = std::fs::File::open(&png_path).expect("a screenshot was written");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| match channels {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    (info.width, info.height, pixels)
}

/// Checks that a screenshot shows a drawn page: varied pixels, ink on a good share of
/// them, and saturated colours (the charts), not a blank or text-only page.
fn assert_drawn(what: &str, (width, height, pixels): &(u32, u32, Vec<[u8; 3]>)) {
    assert_eq!(pixels.len(), (*width * *height) as usize);
    let luminance: Vec<f64> = pixels
        .iter()
        .map(|[r, g, b]| 0.2126 * f64::from(*r) + 0.7152 * f64::from(*g) + 0.0722 * f64::from(*b))
        .collect();
    let mean = luminance.iter().sum::<f64>() / luminance.len() as f64;
    let variance =
        luminance.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / luminance.len() as f64;
    let ink = luminance.iter().filter(|l| **l < 200.0).count() as f64 / luminance.len() as f64;
    let colourful = pixels
        .iter()
        .filter(|[r, g, b]| {
            let (max, min) = (*r.max(g).max(b), *r.min(g).min(b));
            max > 60 && u32::from(max - min) * 100 > u32::from(max) * 45
        })
        .count() as f64
        / pixels.len() as f64;
    eprintln!(
        "{what}: {width}x{height}, luminance variance {variance:.0}, ink {:.1}%, colourful {:.2}%",
        ink * 100.0,
        colourful * 100.0
    );
    assert!(
        variance > 300.0,
        "{what}: pixel variance {variance:.0}: a blank page?"
    );
    assert!(
        ink > 0.02,
        "{what}: only {:.2}% of pixels carry ink",
        ink * 100.0
    );
    assert!(
        colourful > 0.003,
        "{what}: only {:.3}% colourful pixels: no chart drawn?",
        colourful * 100.0
    );
}

#[test]
fn the_pages_render_in_chromium_with_their_figures_and_rows() {
    let Some(browser) = chromium() else {
        return skip("the_pages_render_in_chromium_with_their_figures_and_rows");
    };
    let (dir, _) = run_two_systems();
    let index = dir.path().join("index.html");
    let dom = dump_dom(&browser, &index);
    assert_eq!(
        dom.matches("<tr class=\"system\"").count(),
        2,
        "one row per system"
    );
    for id in [
        "fig-tradeoff",
        "fig-rpr-by-type",
        "fig-fe-by-type",
        "fig-attacks",
        "fig-tiers",
    ] {
        let at = dom
            .find(&format!("<figure id=\"{id}\">"))
            .unwrap_or_else(|| panic!("{id}"));
        assert!(
            dom[at..].starts_with(&format!("<figure id=\"{id}\"><svg")),
            "{id} holds an SVG"
        );
    }
    assert_eq!(
        dom.matches("<g class=\"point\"").count(),
        2,
        "a point per system"
    );
    assert_eq!(
        dom.matches("<g class=\"panel\"").count(),
        7,
        "a tier panel per metric"
    );
    assert!(dom.contains("<table class=\"matrix\">"));
    assert!(dom.contains("<dt>UG</dt><dd><b>usability guard</b>"));
    assert!(!dom.contains("<script"));
    assert_drawn("index.html", &screenshot(&browser, &index, 1200, 2400));

    let report = dir.path().join("naive-rag").join("report.html");
    let dom = dump_dom(&browser, &report);
    assert_eq!(
        dom.matches("<tr data-metric=").count(),
        9,
        "a row per metric"
    );
    assert!(dom.contains("<details class=\"request\" id=\"short_001::"));
    // Drawn: the report of the system whose figures are above zero, so that its
    // charts have bars (naive-rag forgets nothing: its FE and AR bars are empty).
    let drawn = dir.path().join("scoped-forget").join("report.html");
    assert_drawn("report.html", &screenshot(&browser, &drawn, 1200, 3000));
}

#[test]
fn a_hostile_answer_stays_text_in_chromium() {
    let Some(browser) = chromium() else {
        return skip("a_hostile_answer_stays_text_in_chromium");
    };
    let records = hostile_records();
    let summary = summary_of(&records, "mine");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    std::fs::write(&page, report::html::render_report(&summary, &records)).unwrap();
    let dom = dump_dom(&browser, &page);
    assert!(!dom.contains("<svg onload"), "the answer became an element");
    assert!(!dom.contains("<b>bold</b>"), "the answer became an element");
    assert!(dom.contains(
        "&lt;/script&gt;&lt;svg onload=alert(1)&gt; &amp; &lt;b&gt;bold&lt;/b&gt; a &lt; b"
    ));
}
