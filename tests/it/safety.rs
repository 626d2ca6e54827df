//! Integration tests: safety. Files bemula writes or deletes stay inside the directory
//! it was given and never follow links; API keys reach no output; reports stay valid
//! whatever a system answers; adapter text cannot drive the terminal; a closed stdout
//! ends a command quietly; redirects are refused.

use super::bemula;
use std::path::Path;

fn generate_into(out: &Path) -> (i32, String, String) {
    bemula(&[
        "generate",
        "--lite",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// Rewrites the manifest of a generated directory so that it lists `extra` ids too.
fn add_to_manifest(out: &Path, extra: &[&str]) {
    let path = out.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let list = manifest["instances"].as_array_mut().unwrap();
    for id in extra {
        list.push(serde_json::Value::String(id.to_string()));
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn generate_deletes_nothing_outside_out_for_a_tampered_manifest() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let victim_dir = root.path().join("victim");
    std::fs::create_dir(&victim_dir).unwrap();
    let relative = victim_dir.join("important.json");
    let absolute = victim_dir.join("absolute.json");
    std::fs::write(&relative, "keep me").unwrap();
    std::fs::write(&absolute, "keep me too").unwrap();
    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    let absolute_id = victim_dir.join("absolute");
    add_to_manifest(
        &out,
        &["../victim/important", absolute_id.to_str().unwrap()],
    );

    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&relative).unwrap(), "keep me");
    assert_eq!(std::fs::read_to_string(&absolute).unwrap(), "keep me too");
    assert!(
        stderr.contains("\"../victim/important\"") && stderr.contains("not a valid instance id"),
        "the suspicious entry is reported: {stderr}"
    );
    assert!(stderr.contains(absolute_id.to_str().unwrap()), "{stderr}");
}

#[test]
fn generate_still_removes_a_stale_instance_file_inside_out() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    assert_eq!(generate_into(&out).0, 0);
    std::fs::write(out.join("gone_001.json"), "{}").unwrap();
    add_to_manifest(&out, &["gone_001"]);
    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert!(!out.join("gone_001.json").exists());
    bemula::dataset::Dataset::load(&out).expect("the directory is a clean dataset again");
}

#[cfg(unix)]
#[test]
fn generate_replaces_a_planted_link_instead_of_writing_through_it() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    assert_eq!(generate_into(&out).0, 0);
    let victim = root.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let first = bemula::dataset::instance_files(&out).unwrap()[0].clone();
    std::fs::remove_file(&first).unwrap();
    std::os::unix::fs::symlink(&victim, &first).unwrap();
    // A stale entry that is a link to a file outside is left alone too.
    let stale = out.join("stale_001.json");
    std::os::unix::fs::symlink(&victim, &stale).unwrap();
    add_to_manifest(&out, &["stale_001"]);

    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(&first).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was replaced by a file"
    );
    assert!(std::fs::read_to_string(&first).unwrap().contains("\"id\""));
    assert!(
        std::fs::symlink_metadata(&stale).unwrap().is_symlink(),
        "a link is never deleted as a stale instance"
    );
    assert!(stderr.contains("not a plain file"), "{stderr}");
}
