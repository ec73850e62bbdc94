//! The bench page (web/bench.html) in headless Chromium on SwiftShader: the benchmark's
//! suite as planned for GPUs, shrunk, runs to the end with every case's output checked and
//! timed against the copies (at the fastest destination offset of their pair); the page
//! as a user without a GPU opens it, full size, runs the suite planned for CPU adapters
//! there; and the committed suites (web/suite.js, web/suite-cpu.js) are the ones the code
//! makes now.

use wgpu_permute::web;

/// The suite with each case's outermost dim divided by `shrink`, as `wgpu-permute
/// web-suite [--cpu] --shrink` writes it.
fn suite(shrink: usize, made_by: &str, cpu: bool) -> String {
    web::suite_script(web::suite_cases(shrink, cpu).unwrap(), made_by, cpu)
}

#[test]
fn the_bench_page_runs_every_case_in_chromium() {
    let Some((root, _)) = super::web_setup("the bench page test") else {
        return;
    };
    let path = super::tempdir(&root, "page").join("suite.js");
    std::fs::write(
        &path,
        suite(64, "wgpu-permute web-suite --shrink 64", false),
    )
    .unwrap();
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

/// The page as a user without a GPU opens it (no options): Chromium's WebGPU runs on
/// SwiftShader, its fallback adapter, so the page runs the committed suite planned for CPU
/// adapters, full size, every case checked and timed.
#[test]
fn the_full_size_page_runs_the_cpu_suite_on_a_fallback_adapter() {
    let Some((root, _)) = super::web_setup("the full-size bench page test") else {
        return;
    };
    let report = super::bench_page(&root, "full-size", "");
    assert_eq!(report["cpu_adapter"], true, "{}", report["adapter"]);
    assert_eq!(report["suite_file"], "suite-cpu.js");
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 22 + 3, "{report}");
    for case in cases {
        assert_eq!(case["verified"], true, "{case}");
        assert!(
            case["vs_shader_copy"].as_f64().is_some_and(|r| r > 0.0),
            "{case}"
        );
    }
    eprintln!(
        "the full-size page ran {} cases on {} in {:.0} s",
        cases.len(),
        report["adapter"],
        report["seconds"].as_f64().unwrap_or(f64::NAN)
    );
}

#[test]
fn the_committed_suites_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, cpu, made_by) in [
        ("web/suite.js", false, "wgpu-permute web-suite"),
        ("web/suite-cpu.js", true, "wgpu-permute web-suite --cpu"),
    ] {
        let committed = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        assert!(
            committed == suite(1, made_by, cpu),
            "{file} is not what the code plans now: run `cargo run --release --features cli \
             -- {}` and commit it",
            &made_by["wgpu-permute ".len()..]
        );
    }
}
