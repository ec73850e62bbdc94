//! The shader variants a WebGPU device can run, compiled by Tint and Dawn (sampled by the
//! variant sweep's rule, `common::sample`: every combination at ranks 1, 2 and 16 and one
//! rank between), and one of each combination of their other fields built into a pipeline
//! on SwiftShader: WGSL that naga accepts can still fail in a browser. A WebGPU device has no `SHADER_INT64`, so the
//! variants with native 64-bit index math or accesses are not among them (the planner never
//! chooses them without the feature).

use std::collections::HashMap;
use std::path::Path;

use wgpu_permute::convert::Dtype;
use wgpu_permute::plan::{GenericVariant, IndexMath, MicroVariant, TiledVariant, Variant};
use wgpu_permute::shaders;

/// The variants a device without `SHADER_INT64` (any WebGPU device) can be planned to run.
fn webgpu_variants() -> Vec<Variant> {
    shaders::all_variants()
        .into_iter()
        .chain(shaders::convert_variants())
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
        if v.rank() <= 3 {
            ranks.push(i);
        }
    }
    let mut chosen = vec![false; variants.len()];
    for (k, combination) in order.iter().enumerate() {
        let ranks = &by_combination[combination];
        if !ranks.is_empty() {
            chosen[ranks[k % ranks.len()]] = true;
        }
    }
    // Conversions: the pipelines of one pair per pair of element sizes (the conversion
    // functions are compiled for every pair by the front end); of the tiled kernel's strips
    // and the micro kernel's (CPU adapters; never planned for the WebGPU profile: unrolled
    // blocks of up to 256 conversions, which SwiftShader compiles slowly), the image pair's
    // only.
    let representative = representative_pairs();
    for (i, v) in variants.iter().enumerate() {
        let pair = match v {
            Variant::Generic(GenericVariant {
                convert: Some(c), ..
            }) => (c.from, c.to),
            Variant::Tiled(TiledVariant { strip: Some(s), .. }) => {
                let image = [(Dtype::U8, Dtype::F32), (Dtype::F32, Dtype::U8)];
                chosen[i] &= image.contains(&(s.convert.key.from, s.convert.key.to));
                continue;
            }
            Variant::Micro(MicroVariant {
                convert: Some(c), ..
            }) => {
                let image = [(Dtype::U8, Dtype::F32), (Dtype::F32, Dtype::U8)];
                chosen[i] &= image.contains(&(c.key.from, c.key.to));
                continue;
            }
            _ => continue,
        };
        chosen[i] &= representative.contains(&pair);
    }
    chosen
}

/// The first pair of types (in [`conversions`]' order) of each pair of element sizes.
fn representative_pairs() -> Vec<(Dtype, Dtype)> {
    let mut sizes = Vec::new();
    conversions()
        .into_iter()
        .filter(|(from, to)| {
            let size = (from.size(), to.size());
            let first = !sizes.contains(&size);
            sizes.push(size);
            first
        })
        .collect()
}

/// Every (source, destination) pair of element types a conversion takes.
fn conversions() -> Vec<(Dtype, Dtype)> {
    Dtype::ALL
        .into_iter()
        .flat_map(|from| Dtype::DESTINATIONS.map(|to| (from, to)))
        .collect()
}

/// Shaders per run of `web/tint.mjs`: dawn.node 0.6.2 on SwiftShader aborted or hung in one
/// process of 3,755 modules (4 of 4 runs), never in runs of 3,143 or fewer.
const PER_RUN: usize = 500;

/// The manifests `web/tint.mjs` reads, [`PER_RUN`] shaders each: each variant's file, entry
/// point, label, whether to build its pipeline and, for a shape-specialised one, its
/// pipeline constants (any values compile); then the conversions of every pair of types
/// (no entry point: the front end only).
fn write_shaders(dir: &Path, variants: &[Variant]) -> Vec<std::path::PathBuf> {
    let pipelined = pipelined(variants);
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut entries = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let file = format!("{i}.wgsl");
        std::fs::write(dir.join(&file), shaders::source(v).unwrap()).unwrap();
        let constants: serde_json::Map<String, serde_json::Value> = shaders::constant_names(v)
            .into_iter()
            .map(|name| (name, 1.into()))
            .collect();
        entries.push(serde_json::json!({
            "file": file,
            "entry": v.kernel().name(),
            "label": v.to_string(),
            "pipeline": pipelined[i],
            "constants": constants,
        }));
    }
    for (i, (from, to)) in conversions().into_iter().enumerate() {
        let file = format!("convert-{i}.wgsl");
        std::fs::write(dir.join(&file), shaders::convert_source(from, to).unwrap()).unwrap();
        entries.push(serde_json::json!({
            "file": file,
            "entry": "",
            "label": format!("convert {} -> {}", from.name(), to.name()),
            "pipeline": false,
            "constants": {},
        }));
    }
    entries
        .chunks(PER_RUN)
        .enumerate()
        .map(|(k, chunk)| {
            let path = dir.join(format!("manifest-{k}.json"));
            std::fs::write(&path, serde_json::to_string(chunk).unwrap()).unwrap();
            path
        })
        .collect()
}

#[test]
fn the_webgpu_variants_compile_under_tint_and_dawn() {
    let Some((root, icd)) = super::web_setup("the Tint test") else {
        return;
    };
    // The sampled variants, and the one of each combination built into a pipeline.
    let all = webgpu_variants();
    let sample = crate::common::sample::Sample::new(&all);
    let built = pipelined(&all);
    let variants: Vec<Variant> = (all.iter().zip(built))
        .filter(|(v, built)| *built || sample.takes(v))
        .map(|(v, _)| *v)
        .collect();
    let (mut compiled, mut pipelines) = (0, 0);
    let dir = root.join("target/tint-variants");
    let manifests = write_shaders(&dir, &variants);
    // One run of dawn.node per core: Tint compiles on one thread (on 2 cores this test took
    // 131 s with one run at a time, 67 s so).
    let summaries = crate::common::per_core(&manifests, |manifest| {
        super::node(&root, "tint.mjs", manifest, &icd, "TINT-JSON ")
    });
    for summary in summaries {
        let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
        assert_eq!(summary["refused"], serde_json::json!([]), "{summary}");
        compiled += summary["compiled"].as_u64().unwrap() as usize;
        pipelines += summary["pipelines"].as_u64().unwrap() as usize;
    }
    assert_eq!(compiled, variants.len() + conversions().len());
    assert_eq!(
        pipelines,
        pipelined(&variants).iter().filter(|&&p| p).count()
    );
    // Kept only for a failure to read: the ~15,000 files take 200 MB.
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        "{} WebGPU variants and {} conversion pairs compiled by Tint, {pipelines} variants into pipelines on Dawn",
        variants.len(),
        conversions().len()
    );
}

/// Every plan for the WebGPU profile runs one of the variants compiled above, within
/// WebGPU's default limits: grids of at most 65,535 workgroups per dimension, binding
/// windows of at most 128 MiB starting at multiples of 256 bytes. Permutes and views of
/// every element size, small and past the binding limit (planning is pure: nothing is
/// allocated); views past it are refused with `DeviceLimit`, never planned past it.
#[test]
fn webgpu_plans_run_compiled_variants_within_the_limits() {
    use wgpu_permute::{DeviceCaps, PermuteError, Relayout, View};
    let caps = DeviceCaps::webgpu();
    let compiled: std::collections::HashSet<Variant> = webgpu_variants().into_iter().collect();
    let shapes: [(&[usize], &[usize]); 7] = [
        (&[33, 47], &[1, 0]),
        (&[4096, 4096], &[1, 0]),
        (&[64, 512, 512], &[0, 2, 1]),
        (&[8, 512, 16, 64], &[0, 2, 1, 3]),
        (&[2, 3, 4, 5, 6, 7], &[5, 3, 1, 0, 2, 4]),
        (&[40_000, 4_000], &[1, 0]),
        (&[3, 9000, 9000], &[2, 1, 0]),
    ];
    let mut planned = 0;
    for elem in [1, 2, 4, 8, 16] {
        for (shape, perm) in shapes {
            let n: usize = shape.iter().product();
            let flipped = View::contiguous(shape).invert_axis(0).unwrap();
            // Views past one binding are a documented limit for now (`DeviceLimit`).
            let view = Relayout::view(flipped.permuted_axes(perm).unwrap(), n, elem).unwrap();
            let view_plans = match view.plan(&caps) {
                Err(PermuteError::DeviceLimit { .. }) if n * elem > 128 << 20 => Vec::new(),
                other => other.unwrap(),
            };
            let permute = Relayout::permute(shape, perm, elem).unwrap();
            for plan in permute.plan(&caps).unwrap().into_iter().chain(view_plans) {
                planned += 1;
                if let Some(variant) = plan.variant() {
                    assert!(
                        compiled.contains(&variant),
                        "{variant} is not compiled: {plan}"
                    );
                }
                for chunk in plan.chunks() {
                    assert!(chunk.workgroups.iter().all(|&g| g <= 65_535), "{plan}");
                    for (offset, size) in [chunk.src_window, chunk.dst_window] {
                        assert!(size <= 128 << 20 && offset % 256 == 0, "{plan}");
                    }
                }
            }
        }
    }
    eprintln!("{planned} plans for the WebGPU profile, each within its limits");
}
