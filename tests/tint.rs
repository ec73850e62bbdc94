//! Every shader variant a WebGPU device can run, compiled by Tint and Dawn (Chrome's WGSL
//! compiler and WebGPU implementation, through the npm package `webgpu`), and one of each
//! combination of its other fields built into a pipeline on SwiftShader: WGSL that naga
//! accepts can still fail in a browser. A WebGPU device has no
//! `SHADER_INT64`, so the variants with native 64-bit index math or accesses are not among
//! them (the planner never chooses them without the feature).
//!
//! Needs Node.js, `web/node_modules` (`npm ci --prefix web`, which scripts/setup.sh runs)
//! and SwiftShader's Vulkan driver (Debian's `chromium`). Without them the test fails with
//! instructions, unless `WGPU_PERMUTE_SKIP_WEB=1` says to skip it (it then says so).

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

use wgpu_permute::plan::{IndexMath, Variant};
use wgpu_permute::shaders;

/// Chromium's SwiftShader Vulkan driver, unless `VK_ICD_FILENAMES` names another.
const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// The variants a device without `SHADER_INT64` (any WebGPU device) can be planned to run.
fn webgpu_variants() -> Vec<Variant> {
    shaders::all_variants()
        .into_iter()
        .filter(|v| v.index() != IndexMath::U64 && !v.access64())
        .collect()
}

/// Which variants are also built into pipelines (Tint's back end, then the driver's
/// compile): one of each combination of a variant's other fields, at rank 1, 2 or 3 in turn
/// (its lowest three). Higher ranks are left to the front end: SwiftShader took minutes for
/// a few rank-16 pipelines (five did not finish in two minutes), where ranks 1-3 take 60 ms.
fn pipelined(variants: &[Variant]) -> Vec<bool> {
    let mut by_combination: HashMap<Variant, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let ranks = by_combination.entry(v.with_rank(0)).or_default();
        if ranks.is_empty() {
            order.push(v.with_rank(0));
        }
        ranks.push(i);
    }
    let mut chosen = vec![false; variants.len()];
    for (k, combination) in order.iter().enumerate() {
        let ranks = &by_combination[combination];
        chosen[ranks[k % ranks.len().min(3)]] = true;
    }
    chosen
}

/// The manifest `web/tint.mjs` reads: each variant's file, entry point, label, whether to
/// build its pipeline and, for a shape-specialised one, its pipeline constants (any values
/// compile).
fn write_shaders(dir: &Path, variants: &[Variant]) -> std::path::PathBuf {
    let pipelined = pipelined(variants);
    std::fs::create_dir_all(dir).unwrap();
    let mut manifest = String::from("[\n");
    for (i, v) in variants.iter().enumerate() {
        let file = format!("{i}.wgsl");
        std::fs::write(dir.join(&file), shaders::source(v).unwrap()).unwrap();
        let constants: Vec<String> = match v.specialized() {
            true => (0..v.rank())
                .flat_map(|d| [format!("\"D{d}\": 1"), format!("\"S{d}\": 1")])
                .collect(),
            false => Vec::new(),
        };
        let _ = writeln!(
            manifest,
            "  {{\"file\": \"{file}\", \"entry\": \"{}\", \"label\": \"{v}\", \"pipeline\": {}, \"constants\": {{{}}}}}{}",
            v.kernel().name(),
            pipelined[i],
            constants.join(", "),
            if i + 1 < variants.len() { "," } else { "" }
        );
    }
    manifest.push(']');
    let path = dir.join("manifest.json");
    std::fs::write(&path, manifest).unwrap();
    path
}

#[test]
fn every_webgpu_variant_compiles_under_tint_and_dawn() {
    if std::env::var("WGPU_PERMUTE_SKIP_WEB").is_ok_and(|v| v == "1") {
        eprintln!("skipped: WGPU_PERMUTE_SKIP_WEB=1 is set, Tint test not run");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let icd = std::env::var("VK_ICD_FILENAMES").unwrap_or_else(|_| SWIFTSHADER_ICD.into());
    assert!(
        root.join("web/node_modules/webgpu").is_dir() && Path::new(&icd).is_file(),
        "the Tint test needs Node.js, `npm ci --prefix web` and SwiftShader's Vulkan driver \
         ({icd}; apt-get install chromium), as scripts/setup.sh installs them; or set \
         WGPU_PERMUTE_SKIP_WEB=1 to skip it"
    );
    let variants = webgpu_variants();
    let dir = root.join("target/tint-variants");
    let manifest = write_shaders(&dir, &variants);
    let out = Command::new("node")
        .arg(root.join("web/tint.mjs"))
        .arg(&manifest)
        .env("VK_ICD_FILENAMES", &icd)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "Tint or Dawn refused variants ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let summary = stdout
        .lines()
        .find_map(|l| l.strip_prefix("TINT-JSON "))
        .expect("the runner's summary line");
    let pipelines = pipelined(&variants).iter().filter(|&&p| p).count();
    let counts = format!("\"compiled\":{},\"pipelines\":{pipelines},", variants.len());
    assert!(summary.contains(&counts), "{summary}");
    eprintln!(
        "{} WebGPU variants compiled by Tint, {pipelines} of them into pipelines on Dawn",
        variants.len()
    );
}
