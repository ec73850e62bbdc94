//! Every shader variant a WebGPU device can run, compiled by Tint and Dawn, and one of each
//! combination of its other fields built into a pipeline on SwiftShader: WGSL that naga
//! accepts can still fail in a browser. A WebGPU device has no `SHADER_INT64`, so the
//! variants with native 64-bit index math or accesses are not among them (the planner never
//! chooses them without the feature).

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use wgpu_permute::plan::{IndexMath, Variant};
use wgpu_permute::shaders;

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
    let Some((root, icd)) = super::web_setup("the Tint test") else {
        return;
    };
    let variants = webgpu_variants();
    let manifest = write_shaders(&root.join("target/tint-variants"), &variants);
    let summary = super::node(&root, "tint.mjs", &manifest, &icd, "TINT-JSON ");
    let pipelines = pipelined(&variants).iter().filter(|&&p| p).count();
    let counts = format!("\"compiled\":{},\"pipelines\":{pipelines},", variants.len());
    assert!(summary.contains(&counts), "{summary}");
    eprintln!(
        "{} WebGPU variants compiled by Tint, {pipelines} of them into pipelines on Dawn",
        variants.len()
    );
}
