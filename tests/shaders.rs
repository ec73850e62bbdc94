//! Generated WGSL validates with naga, without a GPU: the GPU path's variants and the CPU
//! family's apart, each sampled by the rule the variant sweep runs them by
//! ([`common::sample`]); every variant is still generated and counted.

mod common;

use common::sample::Sample;
use wgpu_permute::plan::Variant;
use wgpu_permute::plan::tuning::{MICRO_RUNS, STRIP_MAX};
use wgpu_permute::plan::{ELEM_SIZES, IndexMath, Kernel, MAX_RANK};
use wgpu_permute::shaders;

fn validate(source: &str, capabilities: naga::valid::Capabilities) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    Ok(module)
}

#[test]
fn every_variant_is_listed_once() {
    let variants = shaders::all_variants();
    // Per unit and rank: generic (3 index widths x whole/boxed/padded/padded strided, but no
    // strided packed rank 1, + specialised), and from rank 2 tiled, plus micro with wide
    // blocks for every unit (2x2 for 16 bytes) and narrow ones for units up to 4 (each one or
    // MICRO_RUNS per invocation, plain or padded, each also specialised; column runs); runs
    // (plain and specialised) for unpacked units, and scattered ones and walks in tiles from
    // rank 3.
    let per_rank = |unit: usize, rank: usize| {
        let strided = 3 * (rank >= 2 || unit >= 4) as usize;
        // Column runs: each of MICRO_RUNS, plain and specialised, never padded; of 4-byte
        // units from rank 4 (two batch dims) also with the batch's innermost dim first.
        let column_runs = 2 * MICRO_RUNS.len() * (1 + (unit == 4 && rank >= 4) as usize);
        let micro = (4 * (1 + MICRO_RUNS.len()) + column_runs) * (1 + (unit <= 4) as usize);
        let runs = 2 * (unit >= 4) as usize;
        // Scattered runs and walks in tiles (each plain and specialised; the innermost dim
        // stays, so from rank 3), with and without 64-bit accesses for 8/16-byte units.
        let walks = 2 * 2 * (unit >= 4 && rank >= 3) as usize * (1 + (unit >= 8) as usize);
        // 64-bit accesses: the 7 unpacked 32-bit-index generic variants above, and the
        // wide micro blocks (each run, plain or padded, each also specialised).
        let access64 = 7 * (unit >= 8) as usize
            + (4 * (1 + MICRO_RUNS.len()) + column_runs) * (rank >= 2) as usize;
        // Reversed innermost dims: each smaller element size in units of whole words, on
        // the 3 index widths, and with 32-bit index math specialised, in runs and both, and
        // 64-bit accesses of the four 32-bit-index ones.
        let smaller = ELEM_SIZES.iter().filter(|&&e| e < unit).count() * (unit >= 4) as usize;
        let reversed = smaller * (6 + 4 * (unit >= 8) as usize);
        // Runs in boxes over binding windows (32-bit index math, never specialised), own and
        // lane-major; reversed units in boxes on the 3 index widths, and in runs both ways;
        // with 64-bit accesses for 8/16-byte units (the 32-bit-index ones).
        let boxed_runs = 2 * (unit >= 4) as usize * (1 + (unit >= 8) as usize);
        let boxed_reversed = smaller * (5 + 3 * (unit >= 8) as usize);
        // Wide stores: every plain runs variant of 4 and 8-byte units (plain, specialised,
        // reversed either way), with and without 64-bit accesses.
        let wide = 2 * (2 + 2 * smaller) * (unit == 4 || unit == 8) as usize;
        // Lane-major runs: every gathered runs variant (plain, specialised, reversed either
        // way, tiled walks from rank 3), and the plain ones stacked from rank 2, with and
        // without 64-bit accesses for 8/16-byte units.
        let plain_runs = 2 + 2 * smaller;
        let lane_major = (plain_runs * (1 + (rank >= 2) as usize) + 2 * (rank >= 3) as usize)
            * (unit >= 4) as usize
            * (1 + (unit >= 8) as usize);
        // Strips: each short extent that the wide side does not divide, either side whole,
        // one or each of MICRO_RUNS per invocation, columns whole also in lane-major runs
        // (plain and specialised) up to rank 4, with and without 64-bit accesses.
        let side = (16 / unit).max(2);
        let extents = (2..=STRIP_MAX as usize).filter(|n| n % side != 0).count();
        let strips = 4 * (1 + MICRO_RUNS.len() + (rank <= 4) as usize) * extents;
        // Flat strips: every short extent, columns whole for 4-byte units, rows whole for
        // units up to 4 at ranks 2 and 3, with and without 64-bit accesses, one block or
        // runs of 2 or 3 per invocation (never 4: runs of 2 come first); 4-byte planes read
        // also in pairs (with 64-bit accesses).
        let flat_kinds = (unit == 4) as usize + (unit <= 4 && rank <= 3) as usize;
        let pairs = (unit == 4 && rank <= 3) as usize;
        let flat = (2 * flat_kinds + pairs) * 3 * (STRIP_MAX as usize - 1);
        10 + strided
            + runs
            + walks
            + access64
            + reversed
            + boxed_runs
            + boxed_reversed
            + wide
            + lane_major
            + (rank >= 2) as usize * (1 + micro + strips + flat)
    };
    let expected: usize = ELEM_SIZES
        .iter()
        .map(|&u| (1..=MAX_RANK).map(|r| per_rank(u, r)).sum::<usize>())
        .sum();
    assert_eq!(variants.len(), expected);
    let distinct: std::collections::HashSet<_> = variants.iter().collect();
    assert_eq!(distinct.len(), variants.len(), "a variant is listed twice");
}

/// Each variant of `variants` generates, validates shipped and traced, names its entry
/// point after its kernel, and holds no trace code when shipped.
fn validate_variants(variants: &[Variant]) {
    for &v in variants {
        let source = shaders::source(&v).unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert!(!source.contains("{{"), "unfilled placeholder in {v:?}");
        assert!(
            source.starts_with(&shaders::PRELUDE_WGSL[..20]),
            "{v:?} does not start with the prelude"
        );
        // Only the u64 index and 64-bit access variants may need a feature: moving 16-bit
        // data needs no SHADER_F16.
        let caps = if v.index() == IndexMath::U64 || v.access64() {
            naga::valid::Capabilities::SHADER_INT64
        } else {
            naga::valid::Capabilities::empty()
        };
        // Pipeline constants get values at pipeline creation; naga validates them as such.
        let module = validate(&source, caps).unwrap_or_else(|e| panic!("{v:?}:\n{e}"));
        // Trace mode validates too, and the shipped source holds no trace code.
        assert!(
            !source.contains("@binding(3)") && !source.contains("record("),
            "{v:?}"
        );
        for padding in [true, false] {
            let traced = shaders::traced_source(&v, padding).unwrap();
            validate(&traced, caps).unwrap_or_else(|e| panic!("{v:?} traced:\n{e}"));
        }
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, [v.kernel().name()], "{v:?}");
    }
}

/// The sampled variants of a list, of the GPU path or the CPU family.
fn sampled(variants: Vec<Variant>, cpu_family: bool) -> Vec<Variant> {
    let family: Vec<Variant> = variants
        .into_iter()
        .filter(|v| v.cpu_family() == cpu_family)
        .collect();
    let sample = Sample::new(&family);
    let taken: Vec<Variant> = family.into_iter().filter(|v| sample.takes(v)).collect();
    assert!(!taken.is_empty());
    taken
}

#[test]
fn the_gpu_paths_variants_validate() {
    validate_variants(&sampled(shaders::all_variants(), false));
}

#[test]
fn the_cpu_familys_variants_validate() {
    validate_variants(&sampled(shaders::all_variants(), true));
}

#[test]
fn the_gpu_paths_conversion_variants_validate() {
    validate_variants(&sampled(shaders::convert_variants(), false));
}

#[test]
fn the_cpu_familys_conversion_variants_validate() {
    validate_variants(&sampled(shaders::convert_variants(), true));
}

/// A GPU's plans, for the WebGPU profile and a big desktop GPU, pick only the GPU path's
/// variants: the suites, at two sizes (the bench's, with the CLI's feature).
#[cfg(feature = "cli")]
#[test]
fn gpu_plans_pick_only_the_gpu_paths_variants() {
    let caps = [
        wgpu_permute::web::profile_caps(false),
        wgpu_permute::plan::DeviceCaps {
            max_workgroups_per_dim: 65535,
            max_workgroup_storage: 49152,
            max_invocations: 1024,
            max_storage_binding: 4 << 30,
            storage_offset_alignment: 16,
            int64: true,
            cpu: false,
            access64_faster: false,
        },
    ];
    let mut planned = 0;
    for scale in [1, 4] {
        let ops = wgpu_permute::bench::default_suite(scale)
            .into_iter()
            .chain(wgpu_permute::bench::view_suite(scale))
            .map(|c| c.op)
            .chain(
                wgpu_permute::bench::convert_suite(scale)
                    .into_iter()
                    .map(|c| c.fused),
            );
        for op in ops {
            for caps in &caps {
                for plan in op.plan(caps).unwrap() {
                    if let Some(v) = plan.variant() {
                        assert!(!v.cpu_family(), "{plan}");
                        planned += 1;
                    }
                }
            }
        }
    }
    assert!(planned > 50, "{planned}");
}

/// The conversions' variants: every pair of types, with and without the affine, at every
/// index width element by element, in runs and in quads (and runs of them), ranks 1-3 and
/// 16, runs of quads scattered at ranks 3 and 16, the quads with 32-bit index math also
/// with 64-bit accesses where a side's quad is 8 or 16 bytes (all pairs but the two
/// byte-to-`u8`); boxes over windows and views' padded modes at ranks 2 and 3; and 12 kinds of micro block at ranks 2 and 3
/// (the 11 wide ones, runs of 4, 3 and 2 and two lane-major strips among them, also with
/// 64-bit accesses; the 5 column strips at rank 4 too; the lane-major strips also
/// specialised, each way), 4 kinds of
/// flat strip likewise (2 where the planes are read, 2 more where f32 planes are written;
/// 4-byte planes read also in pairs, with 64-bit accesses), and 22 kinds of the tiled kernel's strips
/// at ranks 2 and 3; each validates, shipped and traced.
#[test]
fn every_conversion_variant_is_listed() {
    let variants = shaders::convert_variants();
    assert_eq!(
        variants.len(),
        9 * 4 * (2 * (3 + 1 + 3 + 1) * 4 + 2 * 2 + 3 * 3 * 4 + 12 * 2 + 11 + 5 + 2 * 4 + 22 * 2)
            + 9 * (12 + 3 * 6)
            + (9 * 4 - 2) * 2 * (4 + 6)
            + 3 * 4 * 2
    );
}

#[test]
fn u64_variants_really_need_int64() {
    let v = shaders::all_variants()
        .into_iter()
        .find(|v| v.index() == IndexMath::U64)
        .unwrap();
    let source = shaders::source(&v).unwrap();
    assert!(validate(&source, naga::valid::Capabilities::empty()).is_err());
}

/// A copy and an empty plan run no shader: they have no variant (the type has none to give).
#[test]
fn kernels_without_shaders_have_no_variant() {
    let caps = wgpu_permute::DeviceCaps::default();
    for shape in [[4, 6], [0, 6]] {
        let plan = wgpu_permute::plan(&wgpu_permute::Request::new(&shape, &[0, 1], 4), &caps);
        let plan = plan.unwrap();
        assert!(
            matches!(plan.kernel(), Kernel::Copy | Kernel::Empty),
            "{plan}"
        );
        assert_eq!(plan.variant(), None);
    }
}

#[test]
fn shader_files_are_named_after_their_kernels() {
    for (kernel, text) in [
        (Kernel::Generic, shaders::GENERIC_WGSL),
        (Kernel::Tiled, shaders::TILED_WGSL),
        (Kernel::Micro, shaders::MICRO_WGSL),
    ] {
        // The CPU family's kernels say so: `// micro (CPU adapters):`.
        let name = kernel.name();
        assert!(
            text.starts_with(&format!("// {name}:"))
                || text.starts_with(&format!("// {name} (CPU adapters):")),
            "{name}"
        );
        assert!(text.contains(&format!("fn {name}(")), "{name}");
    }
    assert!(shaders::VEC4_COPY_WGSL.starts_with("// vec4_copy:"));
}

#[test]
fn the_benchmark_copy_shader_validates() {
    // 32-bit components, and 64-bit ones (CPU devices with SHADER_INT64).
    for (access64, caps) in [
        (false, naga::valid::Capabilities::empty()),
        (true, naga::valid::Capabilities::SHADER_INT64),
    ] {
        let module = validate(&shaders::vec4_copy_source(access64).unwrap(), caps)
            .unwrap_or_else(|e| panic!("vec4_copy (access64 {access64}):\n{e}"));
        assert_eq!(module.entry_points[0].name, "vec4_copy");
    }
}

/// Representative variants' WGSL, pinned as insta snapshots (tests/snapshots): a change to
/// the generated code shows in review. `INSTA_UPDATE=always cargo test --test shaders`
/// rewrites them after a deliberate change.
#[test]
fn representative_variants_generate_the_pinned_wgsl() {
    for name in [
        "generic rank 3 unit 4 u32",
        "generic rank 2 unit 1 u32 padded strided",
        "tiled rank 2 unit 2 u32",
        "micro rank 2 unit 4 u32 block 4x4 by 16 B, 4 per run",
    ] {
        let source = shaders::source(&variant(name)).unwrap();
        let snapshot: String = name
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('_'),
                ',' => None,
                c => Some(c),
            })
            .collect();
        insta::assert_snapshot!(snapshot, source);
    }
}

/// Packed units on 64-bit components build each half of a store whole, never a byte at a
/// time: 3-channel pixels to planes from pairs of words (`p0`), squares of bytes and
/// strips of 4 or 3 planes by two 4x4 transposes at once (`q0_0_0`; 3 planes with a zero
/// fourth, their pixels then packed 3 bytes apart); 3 planes of u16, whose two words of a
/// half gather differently, word by word.
#[test]
fn packed_stores_on_64_bit_components_are_built_in_halves() {
    let block_move = |name: &str| {
        let source = shaders::source(&variant(name)).unwrap();
        let at = source.find("let first_in").unwrap();
        source[at..].to_string()
    };
    for (name, built) in [
        (
            "micro rank 3 unit 1 u32 block 16x3 strip by 16 B, 4 per run access64",
            "let p0 = ",
        ),
        (
            "micro rank 3 unit 2 u32 block 8x8 by 16 B, 4 per run access64",
            "let p0 = ",
        ),
        (
            "micro rank 3 unit 1 u32 block 16x16 by 16 B, 4 per run access64",
            "let q0_0_0 = ",
        ),
        (
            "micro rank 3 unit 1 u32 block 4x16 strip by 16 B, 4 per run access64",
            "let q0_0_0 = ",
        ),
        (
            "micro rank 3 unit 1 u32 block 3x16 strip by 16 B, 4 per run access64",
            "let q0_0_0 = ",
        ),
    ] {
        let body = block_move(name);
        assert!(body.contains(built), "{name}:\n{body}");
        assert!(
            !body.contains("lane(") && !body.contains("u64(u32("),
            "{name}:\n{body}"
        );
    }
    let body = block_move("micro rank 3 unit 2 u32 block 3x8 strip by 16 B, 4 per run access64");
    assert!(
        body.contains("lane(") && !body.contains("let p0 = "),
        "{body}"
    );
}

/// The variant of this name (its `Display`).
fn variant(name: &str) -> wgpu_permute::plan::Variant {
    shaders::all_variants()
        .into_iter()
        .find(|v| v.to_string() == name)
        .unwrap_or_else(|| panic!("no variant is named {name}"))
}

/// `wgpu-permute shader` prints the plan, the variant and that variant's WGSL, which
/// validates; a plan without a kernel says so.
#[cfg(feature = "cli")]
#[test]
fn the_shader_command_prints_the_variant_a_request_runs() {
    let shader = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_wgpu-permute"))
            .arg("shader")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = shader(&["--shape", "64,48", "--perm", "1,0", "--no-device"]);
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap().starts_with("// wgpu-permute plan: "),
        "{text}"
    );
    let name = lines.next().unwrap().strip_prefix("// variant: ").unwrap();
    let wgsl: String = lines.flat_map(|l| [l, "\n"]).collect();
    assert_eq!(wgsl, shaders::source(&variant(name)).unwrap());
    validate(&wgsl, naga::valid::Capabilities::all()).unwrap();
    let copy = shader(&["--shape", "64,48", "--perm", "0,1", "--no-device"]);
    assert!(
        copy.ends_with("// no shader: this plan runs no kernel\n"),
        "{copy}"
    );
}

/// Column runs that take the batch first decode its innermost extent (the last batch
/// word: `BATCH + 3u` at rank 6, with 3 batch dims) with the row blocks; plain column runs
/// decode no batch digit there.
#[test]
fn column_runs_with_the_batch_first_read_the_innermost_batch_extent() {
    let inner = |name: &str| {
        let source = shaders::source(&variant(name)).unwrap();
        let line = source.lines().find(|l| l.contains("let inner = "));
        line.map(|l| l.trim().to_string())
    };
    let name = "micro rank 6 unit 4 u32 block 4x4 by 16 B, 4 per run column runs";
    assert_eq!(inner(name), None);
    let first = format!("{name} batch first");
    assert_eq!(inner(&first).unwrap(), "let inner = shape(BATCH + 3u);");
    assert_eq!(
        inner(&format!("{first} specialized")).unwrap(),
        "let inner = shape(BATCH + 3u);"
    );
}
