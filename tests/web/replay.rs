//! Recorded work replayed in Chromium: operations planned for the WebGPU profile
//! ([`DeviceCaps::webgpu`], and the same profile on a CPU adapter, as SwiftShader is),
//! recorded ([`wgpu_permute::work::Recorded`]) into a page suite and run by the bench page
//! (web/replay.js), which checks each destination buffer, guard bytes around the region
//! included, against the checksum of the CPU reference's. Every kernel family, element
//! sizes 1-16, packed data, views with padding, strides and flips, windows over the binding
//! limit, edge tiles, offsets.

use wgpu_permute::plan::{DeviceCaps, Kernel, Options, View};
use wgpu_permute::{PermuteError, Relayout, web};

struct Case {
    label: String,
    op: Relayout,
    caps: DeviceCaps,
}

fn forced(kernel: Kernel) -> Options {
    Options {
        kernel: Some(kernel),
        ..Options::default()
    }
}

fn cases() -> Result<Vec<Case>, PermuteError> {
    let gpu = DeviceCaps::webgpu();
    let cpu = DeviceCaps {
        cpu: true,
        ..DeviceCaps::webgpu()
    };
    let mut ops: Vec<(String, Relayout, DeviceCaps)> = Vec::new();
    // Every family, every element size, edge tiles (sides that are no multiple of a tile).
    for elem in [1, 2, 4, 8, 16] {
        for (shape, perm) in [
            (&[33usize, 47][..], &[1usize, 0][..]),
            (&[5, 40, 3], &[2, 1, 0]),
            (&[3, 17, 19, 2], &[0, 2, 1, 3]),
            (&[2, 3, 4, 5, 6], &[4, 0, 3, 1, 2]),
        ] {
            let op = Relayout::permute(shape, perm, elem)?;
            ops.push((
                format!("{shape:?} {perm:?} {elem}B"),
                op.clone(),
                gpu.clone(),
            ));
            ops.push((
                format!("{shape:?} {perm:?} {elem}B cpu"),
                op.clone(),
                cpu.clone(),
            ));
            for kernel in [Kernel::Generic, Kernel::Tiled, Kernel::Micro] {
                let op = op.clone().with_options(forced(kernel));
                if op.plan(&gpu).is_ok() {
                    ops.push((
                        format!("{shape:?} {perm:?} {elem}B {kernel:?}"),
                        op,
                        gpu.clone(),
                    ));
                }
            }
        }
    }
    // Micro blocks, as a CPU adapter plans them: square blocks and strips of a short dim.
    for elem in [1, 2, 4, 8] {
        for (shape, perm) in [
            (&[32usize, 48][..], &[1usize, 0][..]),
            (&[4, 64, 24], &[0, 2, 1]),
            (&[100, 3], &[1, 0]),
            (&[3, 100], &[1, 0]),
        ] {
            let op = Relayout::permute(shape, perm, elem)?;
            ops.push((format!("{shape:?} {perm:?} {elem}B cpu"), op, cpu.clone()));
        }
    }
    // Tiles of a real size, a copy, a shape-specialised generic kernel.
    ops.push((
        "[256,320] tiled".into(),
        Relayout::permute(&[256, 320], &[1, 0], 4)?,
        gpu.clone(),
    ));
    ops.push((
        "[64,130] 1B".into(),
        Relayout::permute(&[64, 130], &[1, 0], 1)?,
        gpu.clone(),
    ));
    ops.push((
        "copy".into(),
        Relayout::permute(&[7, 1, 12], &[1, 0, 2], 4)?,
        gpu.clone(),
    ));
    let specialized = Options {
        specialize: Some(true),
        ..Options::default()
    };
    ops.push((
        "specialised".into(),
        Relayout::permute(&[8, 9, 10, 4], &[2, 0, 1, 3], 2)?.with_options(specialized),
        gpu.clone(),
    ));
    // Windows: bindings of at most 4 KiB, so each tensor moves in many dispatches.
    for (elem, kernel) in [
        (4, Kernel::Generic),
        (2, Kernel::Generic),
        (1, Kernel::Tiled),
    ] {
        let windowed = Options {
            binding_limit: Some(4096),
            kernel: Some(kernel),
            ..Options::default()
        };
        let op = Relayout::permute(&[40, 70, 3], &[1, 0, 2], elem)?.with_options(windowed);
        if op.plan(&gpu).is_ok() {
            ops.push((format!("windows {elem}B {kernel:?}"), op, gpu.clone()));
        }
    }
    // Views: slices with steps, flips, broadcasts, padding (NCHW -> NCHW4c and back).
    let base = View::contiguous(&[12, 18]);
    for elem in [1, 2, 4, 8] {
        let views = [
            (
                "slice",
                base.clone().slice(0, 1..11, 3)?.slice(1, 2..17, 2)?,
            ),
            ("flip", base.clone().invert_axis(1)?.permuted_axes(&[1, 0])?),
            ("broadcast", View::contiguous(&[1, 18]).broadcast(&[5, 18])?),
            ("pad", base.clone().pad(1, 3, 2)?),
        ];
        for (name, view) in views {
            let src_len = if name == "broadcast" { 18 } else { 12 * 18 };
            let op = Relayout::view(view, src_len, elem)?.with_fill(&vec![0x5A; elem]);
            ops.push((format!("view {name} {elem}B"), op.clone(), gpu.clone()));
            ops.push((format!("view {name} {elem}B cpu"), op, cpu.clone()));
        }
        let fill = vec![0x11; elem];
        let padded = Relayout::rearrange_padded(
            "n (cb c) h w -> n cb h w c",
            &[2, 6, 5, 8],
            &[("c", 4)],
            elem,
            &fill,
        )?;
        let back = Relayout::rearrange_cropped(
            "n cb h w c -> n (cb c) h w",
            padded.out_shape(),
            &[],
            elem,
            &[2, 6, 5, 8],
        )?;
        ops.push((format!("NCHW4c {elem}B"), padded, gpu.clone()));
        ops.push((format!("NCHW4c back {elem}B"), back, gpu.clone()));
    }
    // Conversions: the tiled kernel's strips both ways (GPU), quads and windows (generic),
    // the micro kernel (CPU).
    use wgpu_permute::convert::{Conversion, Dtype};
    for (from, to) in [
        (Dtype::U8, Dtype::F32),
        (Dtype::F32, Dtype::U8),
        (Dtype::F32, Dtype::F16),
        (Dtype::F16, Dtype::U8),
    ] {
        let c = Conversion::new(from, to)?;
        let name = |what: &str| format!("{what} {} -> {}", from.name(), to.name());
        for (shape, perm) in [
            (&[512usize, 3][..], &[1usize, 0][..]),
            (&[3, 512], &[1, 0]),
            (&[2, 260, 4], &[0, 2, 1]),
            (&[2, 4, 260], &[0, 2, 1]),
        ] {
            let op = Relayout::permute(shape, perm, from.size())?.with_conversion(c.clone())?;
            ops.push((name(&format!("strips {shape:?}")), op.clone(), gpu.clone()));
            ops.push((name(&format!("micro {shape:?}")), op, cpu.clone()));
        }
        let heads = Relayout::permute(&[2, 16, 4, 8], &[0, 2, 1, 3], from.size())?;
        ops.push((
            name("quads"),
            heads.with_conversion(c.clone())?,
            gpu.clone(),
        ));
        let windowed = Options {
            binding_limit: Some(4096),
            ..Options::default()
        };
        let big = Relayout::permute(&[40, 70, 3], &[1, 0, 2], from.size())?.with_options(windowed);
        ops.push((name("windows"), big.with_conversion(c)?, gpu.clone()));
    }
    // Offsets in both buffers.
    for (label, op, _) in ops.iter_mut() {
        if label.contains("2B") || label.contains("view slice") {
            *op = op.clone().with_offsets(36, 264);
            label.push_str(" offsets");
        }
    }
    Ok(ops
        .into_iter()
        .map(|(label, op, caps)| Case { label, op, caps })
        .collect())
}

#[test]
fn recorded_work_matches_the_reference_in_chromium() {
    let Some((root, _)) = super::web_setup("the replay test") else {
        return;
    };
    let cases = cases().unwrap();
    let suite: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            web::case(serde_json::json!({"label": c.label}), &c.op, &c.caps)
                .unwrap_or_else(|e| panic!("{}: {e}", c.label))
        })
        .collect();
    let dir = super::tempdir(&root, "replay");
    let path = dir.join("suite.js");
    std::fs::write(
        &path,
        web::suite_script(suite, "tests/web/replay.rs", false),
    )
    .unwrap();
    let report = super::bench_page(
        &root,
        "replay",
        &format!("runs=0&suite=file://{}", path.display()),
    );
    let results = report["cases"].as_array().expect("cases");
    assert_eq!(results.len(), cases.len(), "{report}");
    let wrong: Vec<String> = results
        .iter()
        .filter(|r| r["verified"] != true)
        .map(|r| format!("{}: {}", r["label"], r["error"]))
        .collect();
    assert!(
        wrong.is_empty(),
        "on {}, not as the reference:\n{}",
        report["adapter"],
        wrong.join("\n")
    );
    let kernels = |k: Kernel| {
        cases
            .iter()
            .flat_map(|c| c.op.plan(&c.caps).unwrap())
            .filter(|p| p.kernel() == k)
            .count()
    };
    for kernel in [Kernel::Generic, Kernel::Tiled, Kernel::Micro, Kernel::Copy] {
        assert!(kernels(kernel) > 0, "no case ran {kernel:?}");
    }
    eprintln!(
        "{} recorded cases matched the reference on {} (Chromium); plans per kernel: generic {}, tiled {}, micro {}, copy {}",
        cases.len(),
        report["adapter"],
        kernels(Kernel::Generic),
        kernels(Kernel::Tiled),
        kernels(Kernel::Micro),
        kernels(Kernel::Copy),
    );
}
