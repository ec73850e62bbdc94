//! The bench page (web/bench.html) in headless Chromium on SwiftShader: the benchmark's
//! suite, shrunk, runs to the end with every case's output checked and timed against the
//! copies (at the fastest destination offset of their pair); and the committed suite
//! (web/suite.js) is the one the code makes now.

use wgpu_permute::web;

/// The suite with each case's outermost dim divided by `shrink`, as `wgpu-permute
/// web-suite --shrink` writes it.
fn suite(shrink: usize, made_by: &str) -> String {
    web::suite_script(web::suite_cases(shrink).unwrap(), made_by)
}

#[test]
fn the_bench_page_runs_every_case_in_chromium() {
    let Some((root, _)) = super::web_setup("the bench page test") else {
        return;
    };
    let path = super::tempdir(&root, "page").join("suite.js");
    std::fs::write(&path, suite(64, "wgpu-permute web-suite --shrink 64")).unwrap();
    let report = super::bench_page(
        &root,
        "page",
        &format!("runs=1&suite=file://{}", path.display()),
    );
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 22 + 3, "{report}");
    for case in cases {
        assert_eq!(case["verified"], true, "{case}");
        let ratio = case["ratio_to_copy"].as_f64().unwrap_or(f64::NAN);
        assert!(ratio.is_finite() && ratio > 0.0, "{case}");
        assert!(
            case["vs_shader_copy"].as_f64().is_some_and(|r| r > 0.0),
            "{case}"
        );
    }
    assert!(
        report["adapter"]
            .as_str()
            .is_some_and(|a| a.contains("swiftshader")),
        "{report}"
    );
    // The copies at the fastest of the destination offsets tried, 0 first.
    let placement = &report["copy_placement"];
    let tried: Vec<(u64, f64)> = (placement["tried"].as_array().expect("tried").iter())
        .map(|t| {
            (
                t["dst_offset"].as_u64().unwrap(),
                t["shader_copy_median_s"].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(tried.len() >= 2 && tried[0].0 == 0, "{placement}");
    let fastest = tried.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
    assert_eq!(
        placement["dst_offset"].as_u64(),
        Some(fastest),
        "{placement}"
    );
    eprintln!(
        "the bench page ran {} cases on {}",
        cases.len(),
        report["adapter"]
    );
}

#[test]
fn the_committed_suite_is_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("web/suite.js")).unwrap_or_default();
    assert!(
        committed == suite(1, "wgpu-permute web-suite"),
        "web/suite.js is not what the code plans now: run `cargo run --release --features cli \
         -- web-suite` and commit it"
    );
}
