//! Every shader variant the crate can generate, compiled for real and run against the CPU
//! reference (tests/shaders.rs validates every one of them with naga): one test per kernel
//! family, so that they compile in parallel, each permute family batched into few
//! submissions. Every combination of a variant's other fields runs at ranks 1, 2 and
//! `MAX_RANK` and at one rank between, rotating with the combination, so that each family
//! runs every rank somewhere (checked).

#[path = "variants/boxes.rs"]
mod boxes;
mod common;
#[path = "variants/copies.rs"]
mod copies;
#[path = "variants/flat.rs"]
mod flat;
#[path = "variants/orders.rs"]
mod orders;
#[path = "variants/strips.rs"]
mod strips;
#[path = "variants/views.rs"]
mod views;
#[path = "variants/walks.rs"]
mod walks;

use std::collections::BTreeSet;

use common::sample::Sample;
use common::{MICRO, case, check_many, cpu_family, cpu_planned};
use strips::{blocks_for_run, column_runs_case, strip_case};
use views::{check_boxed_runs, check_padded, check_padded_micro, check_reversed, check_stacked};
use walks::walk_tiles_case;
use wgpu_permute::plan::tuning::{
    GENERIC_RUN, LANE_GROUP, MAX_SPECIALIZED, MICRO_SHORT_ROW_BYTES, MICRO_WORKGROUP,
    WALK_TILE_MIN_ROW_RUNS,
};
use wgpu_permute::plan::{ELEM_SIZES, MAX_RANK, Variant};
use wgpu_permute::{
    IndexMath, Kernel, Options, PermuteError, Permuter, Relayout, Request, shaders,
};

/// The families, one test each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Generic,
    Tiled,
    Micro,
    /// Padded variants (generic and micro), run as views.
    Padded,
    /// Reversed variants, run as views.
    Reversed,
}

fn family(v: &Variant) -> Family {
    match v.kernel() {
        _ if v.padded() => Family::Padded,
        _ if v.reverse() > 0 => Family::Reversed,
        Kernel::Tiled => Family::Tiled,
        Kernel::Micro => Family::Micro,
        _ => Family::Generic,
    }
}

/// How one variant is checked: a permute case (batched with the others of its family; a
/// specialised one on a permuter with room for its own pipeline), or a view, run alone.
enum Job {
    Permute { case: Relayout, specialized: bool },
    View(ViewCheck),
}

/// A view check, with its data, run on the shared permuter.
type ViewCheck = Box<dyn FnOnce(&Permuter) -> Result<(), String>>;

#[test]
fn generic_variants_run_and_match_the_reference() {
    run_family(Family::Generic);
}

#[test]
fn tiled_variants_run_and_match_the_reference() {
    run_family(Family::Tiled);
}

#[test]
fn micro_variants_run_and_match_the_reference() {
    run_family(Family::Micro);
}

#[test]
fn padded_variants_run_and_match_the_reference() {
    run_family(Family::Padded);
}

#[test]
fn reversed_variants_run_and_match_the_reference() {
    run_family(Family::Reversed);
}

/// Runs the sampled variants of `family`, checks that each ran as the variant it was meant
/// for and that the family ran every rank it has, and fails once with every bad case.
/// Planned as a CPU adapter plans on every adapter ([`cpu_family`]): every variant, the
/// CPU family's included, can be forced there, and a variant is the same shader whichever
/// device planned it.
fn run_family(family_run: Family) {
    let Some(p) = cpu_family() else { return };
    let mut jobs = Vec::new();
    for variant in shaders::all_variants() {
        let needs64 = variant.index() == IndexMath::U64 || variant.access64();
        if family(&variant) != family_run || (needs64 && !p.caps().int64) {
            continue;
        }
        if let Some(job) = job(p, variant) {
            jobs.push((variant, job));
        }
    }
    if !p.caps().int64 {
        eprintln!("device lacks SHADER_INT64: u64 and 64-bit access variants not run");
    }
    // The combinations with middle ranks, numbered in order (strips sample their own).
    let strip = |v: &Variant| v.block().is_some_and(|b| b.strip.is_some());
    let sample = Sample::new(jobs.iter().map(|(v, _)| v).filter(|v| !strip(v)));
    let has: BTreeSet<usize> = jobs.iter().map(|(v, _)| v.rank()).collect();
    let mut ran = BTreeSet::new();
    let (mut shared, mut specialized, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    let mut views_fresh: Option<(Permuter, usize)> = None;
    let mut total = 0;
    for (variant, job) in jobs {
        if !strip(&variant) && !sample.takes(&variant) {
            continue;
        }
        ran.insert(variant.rank());
        total += 1;
        match job {
            Job::Permute {
                case,
                specialized: true,
            } => specialized.push((case, variant)),
            Job::Permute { case, .. } => shared.push((case, variant)),
            // A specialised view on a permuter with room for its own pipeline.
            Job::View(check) if variant.specialized() => {
                if views_fresh
                    .as_ref()
                    .is_none_or(|(_, n)| *n == MAX_SPECIALIZED)
                {
                    views_fresh = Some((cpu_planned(p), 0));
                }
                let (fresh, n) = views_fresh.as_mut().expect("made above");
                *n += 1;
                if let Err(m) = check(fresh) {
                    failures.push(m);
                }
            }
            Job::View(check) => {
                if let Err(m) = check(p) {
                    failures.push(m);
                }
            }
        }
    }
    if family_run == Family::Generic {
        // The copy path.
        for &elem in &ELEM_SIZES {
            let case = case(&[4, 6], &[0, 1], elem, Options::default(), (8, 4));
            total += 1;
            match check_many(p, &[case]).remove(0) {
                Ok(plan) => assert_eq!(plan.kernel(), Kernel::Copy, "{plan}"),
                Err(m) => failures.push(m),
            }
        }
    }
    // A permuter compiles at most MAX_SPECIALIZED shapes: a fresh one per that many.
    let mut batches = vec![(p, shared)];
    let fresh: Vec<Permuter> = specialized
        .chunks(MAX_SPECIALIZED)
        .map(|_| cpu_planned(p))
        .collect();
    for (chunk, permuter) in specialized.chunks(MAX_SPECIALIZED).zip(&fresh) {
        batches.push((permuter, chunk.to_vec()));
    }
    for (permuter, jobs) in batches {
        let cases: Vec<Relayout> = jobs.iter().map(|(c, _)| c.clone()).collect();
        for (result, (_, variant)) in check_many(permuter, &cases).into_iter().zip(&jobs) {
            match result {
                Ok(plan) => assert_eq!(plan.variant(), Some(*variant), "{plan}"),
                Err(m) => failures.push(m),
            }
        }
    }
    eprintln!(
        "{family_run:?}: {total} variants run, {} combinations with middle ranks",
        sample.combinations()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} {family_run:?} variants failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        ran, has,
        "{family_run:?}: ranks run and ranks the family has"
    );
}

/// The check of `variant`, or `None` where it is not run here (see each case).
fn job(p: &Permuter, variant: Variant) -> Option<Job> {
    let elem = variant.unit() as usize;
    if variant.block().is_some_and(|b| b.flat) {
        let options = Options {
            access64: Some(variant.access64()),
            ..MICRO
        };
        let (shape, perm, offsets) = flat::flat_case(variant, options, p.caps())?;
        let case = case(&shape, &perm, elem, options, offsets);
        return Some(Job::Permute {
            case,
            specialized: false,
        });
    }
    if variant.block().is_some_and(|b| b.strip.is_some()) {
        let (shape, perm) = strip_case(variant)?;
        let options = Options {
            access64: Some(variant.access64()),
            specialize: Some(variant.specialized()),
            ..MICRO
        };
        let case = case(&shape, &perm, elem, options, (16, 32));
        return Some(Job::Permute {
            case,
            specialized: variant.specialized(),
        });
    }
    // Stacked runs are a CPU-device layout, as views (tests/variants/views.rs) of 8 rows of
    // a page under dims of 2: 8 MiB at rank 10.
    if variant.stacked() {
        let run = variant.rank() <= 10;
        return run.then(|| Job::View(Box::new(move |p| check_stacked(p, variant))));
    }
    // Lane-major runs' rows hold whole SIMD groups' runs: up to rank 6 (walks in tiles, whose
    // cases grow faster, at rank 3 only: tiled_walks_are_chosen_and_match_the_reference
    // runs more), as shapes past that outgrow the sweep.
    let group = (LANE_GROUP * GENERIC_RUN) as usize;
    let lane_major_max = if variant.walks() { 3 } else { 6 };
    if variant.lane_major() && variant.rank() > lane_major_max {
        return None;
    }
    if variant.walks() {
        // Walks in tiles: offsets of one element keep the units the elements, without wide
        // stores.
        let row = match variant.lane_major() {
            true => group,
            false => (WALK_TILE_MIN_ROW_RUNS * GENERIC_RUN as u64) as usize,
        };
        let (shape, perm) = walk_tiles_case(variant.rank(), elem, row);
        let options = Options {
            kernel: Some(Kernel::Generic),
            specialize: Some(variant.specialized()),
            access64: Some(variant.access64()),
            walk_tiles: Some(true),
            ..Options::default()
        };
        let offsets = (elem as u64, 3 * elem as u64);
        return Some(Job::Permute {
            case: case(&shape, &perm, elem, options, offsets),
            specialized: variant.specialized(),
        });
    }
    if variant.reverse() > 0 {
        return Some(Job::View(Box::new(move |p| {
            check_reversed(p, elem, variant)
        })));
    }
    if variant.boxed() && variant.runs() {
        return Some(Job::View(Box::new(move |p| check_boxed_runs(p, variant))));
    }
    if variant.padded() && variant.kernel() == Kernel::Generic {
        let (shape, perm) = unmergeable(variant.rank());
        let check = move |p: &Permuter| check_padded(p, &shape, &perm, elem, variant);
        return Some(Job::View(Box::new(check)));
    }
    let (mut shape, mut perm) = unmergeable(variant.rank());
    let mut offsets = (0, 0);
    if variant.scatter() {
        // Scattered runs: the innermost dim stays innermost, two runs long (the second
        // starts inside the row), after dims that do not merge; offsets of whole units
        // (elements, so the units stay elements), different on each side.
        (shape, perm) = unmergeable(variant.rank() - 1);
        shape.push(16);
        perm.push(variant.rank() - 1);
        offsets = (elem as u64, 3 * elem as u64);
    } else if variant.runs() {
        // Runs are the CPU-device layout: the innermost output dim (input dim 0 here)
        // in whole runs. A rank-1 run is a view's (a flip; tests/views/): a permute
        // of rank 1 is a copy.
        if variant.rank() == 1 {
            return None;
        }
        shape[0] = if variant.lane_major() { group } else { 8 };
    }
    let last = shape.len() - 1;
    let small = variant.rank() <= 6;
    match variant.block() {
        // Column runs (offsets as below).
        Some(b) if b.column_runs => {
            (shape, perm) = column_runs_case(b, variant.rank(), elem, small);
            offsets = match b.access_bytes {
                16 => (16, 32),
                _ => (4, 4),
            };
        }
        // Wide blocks: sides of whole blocks, offsets of whole 16 bytes.
        // (Rows, here shape[0], of whole runs of blocks for runs.)
        Some(b) if b.access_bytes == 16 => {
            let side = b.side as usize;
            (shape[0], shape[last]) = if small {
                (2 * side, 3 * side)
            } else {
                (side, side)
            };
            shape[0] = side * blocks_for_run(b.run, variant.padded(), small);
            offsets = (16, 32);
        }
        // Narrow blocks: what wide ones cannot take (sides, or offsets of 4 bytes).
        Some(b) => {
            (shape[0], shape[last]) = if small { (20, 36) } else { (4, 8) };
            shape[0] = b.side as usize * blocks_for_run(b.run, variant.padded(), small);
            offsets = (4, 4);
        }
        // Tile sides divisible by 4 (packed data), with partial edge tiles while small.
        None if variant.kernel() == Kernel::Tiled => {
            (shape[0], shape[last]) = if small { (20, 36) } else { (4, 8) };
        }
        None => {}
    }
    // Wide blocks of 2/4-byte units over up to two batch dims (ranks up to 4) run fewer
    // blocks over input rows of up to `MICRO_SHORT_ROW_BYTES`: these get rows just past it.
    if let Some(b) = variant.block()
        && variant.rank() <= 4
        && b.run > 1
        && b.access_bytes == 16
        && b.strip.is_none()
        && !b.column_runs
        && !variant.padded()
        && (2..=4).contains(&elem)
    {
        let side = b.side as usize;
        shape[last] = side * (MICRO_SHORT_ROW_BYTES as usize / (side * elem) + 1);
    }
    // Specialised padded blocks at ranks 2 and 3 only: their bounds are the padded
    // variants' (run at every rank), their shape words the specialised ones' (likewise),
    // and each compile of a pipeline costs the test run time.
    if variant.padded() && variant.specialized() && variant.rank() > 3 {
        return None;
    }
    if variant.padded() {
        let check = move |p: &Permuter| check_padded_micro(p, &shape, &perm, elem, variant);
        return Some(Job::View(Box::new(check)));
    }
    // Boxed variants need tensors larger than one binding window can be, whose outermost
    // dim no 2 to 6 boxes cut equally (those would run plain).
    if variant.boxed() {
        let rest: usize = shape[1..].iter().product();
        shape[0] = views::prime_at_least((400 / rest).max(7));
    }
    // Boxed variants: a binding limit that splits even the smallest of these tensors.
    let bytes = (shape.iter().product::<usize>() * elem) as u64;
    let align = p.caps().storage_offset_alignment as u64;
    let options = Options {
        kernel: Some(variant.kernel()),
        index: Some(variant.index()),
        binding_limit: variant
            .boxed()
            .then(|| align + 4 + (bytes / 2).max(elem as u64)),
        specialize: Some(variant.specialized()),
        access64: Some(variant.access64()),
        wide_stores: Some(variant.wide_stores()),
        scatter: Some(variant.scatter()),
        walk_tiles: Some(false),
        column_runs: Some(variant.block().is_some_and(|b| b.column_runs)),
        row_copies: Some(false),
    };
    Some(Job::Permute {
        case: case(&shape, &perm, elem, options, offsets),
        specialized: variant.specialized(),
    })
}

/// A shape whose simplified form has exactly `rank` dims: reversing dims of extent 2 or 3
/// leaves nothing to merge, and an odd innermost extent keeps the movement size at one element.
fn unmergeable(rank: usize) -> (Vec<usize>, Vec<usize>) {
    let shape = (0..rank)
        .map(|d| if d + 1 == rank { 3 } else { 2 })
        .collect();
    let perm = (0..rank).rev().collect();
    (shape, perm)
}

#[test]
fn unmergeable_helper_really_keeps_the_rank() {
    for rank in 1..=MAX_RANK {
        let (shape, perm) = unmergeable(rank);
        let plan = wgpu_permute::plan(&Request::new(&shape, &perm, 4), &Default::default());
        // Pure planning: runs without a GPU.
        let plan = plan.unwrap();
        assert_eq!(plan.dims().len(), rank, "{plan}");
        match plan.variant() {
            // Rank 1 is the identity: a buffer copy, no shader.
            None => assert_eq!((rank, plan.kernel()), (1, Kernel::Copy), "{plan}"),
            Some(v) => assert_eq!((v.rank(), v.unit()), (rank, 4), "{plan}"),
        }
    }
}

/// The micro kernel's bands (`MICRO_BAND_ROWS` rows per band with 64-bit components; with
/// 32-bit ones `MICRO_BAND_BLOCKS` where the row pitch aliases in L1 sets, as `[1024, 512]`'s
/// does, `MICRO_BAND_BLOCKS_SPREAD` or `MICRO_BAND_SPAN` where it spreads; the last band
/// shorter): several bands of several column blocks in several batches, every element
/// size, in one binding and across windows, each output element once and in its place;
/// column runs (CPU adapters' runs) likewise.
#[test]
fn micro_bands_cover_every_block() {
    let Some(p) = cpu_family() else { return };
    let (mut cases, mut refused) = (Vec::new(), Vec::new());
    // The bands differ with the access width (see `MICRO_BAND_ROWS`): both where the device
    // has 64-bit integers.
    let widths: &[bool] = match p.caps().int64 {
        true => &[false, true],
        false => &[false],
    };
    for &elem in &[1usize, 2, 4, 8, 16] {
        for (shape, perm) in [
            (&[3usize, 4096, 48][..], &[0usize, 2, 1][..]),
            (&[4096, 32], &[1, 0]),
            (&[2, 4000, 48], &[0, 2, 1]), // a shorter last band
            (&[1024, 512], &[1, 0]),      // rows 512 elements apart
        ] {
            for (&access64, &column_runs) in widths
                .iter()
                .flat_map(|a| [false, true].iter().map(move |c| (a, c)))
            {
                let micro = Options {
                    access64: Some(access64),
                    column_runs: Some(column_runs),
                    ..MICRO
                };
                cases.push(case(shape, perm, elem, micro, (0, 0)));
                let bytes = (shape.iter().product::<usize>() * elem) as u64;
                let windowed = Options {
                    binding_limit: Some(bytes / 2 + 64),
                    ..micro
                };
                let windowed = case(shape, perm, elem, windowed, (16, 32));
                // Column runs' boxes hold whole runs of columns: where those do not fit,
                // they are refused.
                if column_runs && let Err(e) = p.prepare(&windowed) {
                    assert!(matches!(e, PermuteError::ForcedChoice { .. }), "{e}");
                    refused.push((shape, elem));
                    continue;
                }
                cases.push(windowed);
            }
        }
    }
    // Short output rows back to back, input rows far apart: bands one run tall with
    // 64-bit components on CPU devices (`Plan::one_run_bands`), of 16 and 8 row blocks, in
    // one binding and across windows.
    for (shape, windowed) in [(&[3usize, 64, 1024][..], false), (&[2, 32, 1000], false)]
        .into_iter()
        .chain([(&[3usize, 64, 1024][..], true), (&[2, 32, 1000], true)])
    {
        let bytes = (shape.iter().product::<usize>() * 4) as u64;
        let options = Options {
            column_runs: Some(false),
            access64: p.caps().int64.then_some(true),
            binding_limit: windowed.then_some(bytes / 2 + 64),
            ..MICRO
        };
        let op = case(shape, &[0, 2, 1], 4, options, (16, 32));
        let plan = p.prepare(&op).unwrap().plans()[0].clone();
        let run = plan.variant().and_then(|v| v.block()).unwrap().run as u64;
        if plan.cpu().access64 {
            assert_eq!(plan.micro_band(), Some(run), "{plan}");
        }
        cases.push(op);
    }
    // `[4096,32]` of u8 and u16 only: all 32 columns are one run (2 blocks of 16, or 4
    // of 8), whose 32 output rows of a block's rows need twice the window.
    let only: &[usize] = &[4096, 32];
    let expected = 2 * widths.len();
    assert_eq!(refused.len(), expected, "{refused:?}");
    assert!(
        refused.iter().all(|&(s, e)| s == only && e <= 2),
        "{refused:?}"
    );
    for (result, case) in check_many(p, &cases).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plan.kernel(), Kernel::Micro, "{plan}");
        assert_eq!(
            Some(plan.cpu().column_runs),
            case.options().column_runs,
            "{plan}"
        );
    }
}

/// Lane-major runs of column strips across every edge of their carry into the batch: row
/// blocks per image one short of a step (`LANE_GROUP`), a step, one past it, fewer
/// than a step (1, 3, 4: each step crosses images), the same around a workgroup, and a
/// multiple of the step; one batch dim and two (a crop's); 1 and 4-byte units, each plan
/// specialised and not, against the reference with guard bytes; the last workgroup ends
/// part way.
#[test]
fn lane_major_runs_carry_into_the_batch_at_every_edge() {
    let Some(p) = cpu_family() else { return };
    let mut cases = Vec::new();
    let steps = [
        1,
        3,
        4,
        LANE_GROUP - 1,
        LANE_GROUP,
        LANE_GROUP + 1,
        MICRO_WORKGROUP - 1,
        MICRO_WORKGROUP,
        MICRO_WORKGROUP + 1,
        32,
    ];
    for along in steps {
        for elem in [1, 4] {
            for specialize in [false, true] {
                let side = 16 / elem;
                let images = 16_500usize.div_ceil(along as usize);
                let options = Options {
                    specialize: Some(specialize),
                    ..MICRO
                };
                let pixels = side * along as usize;
                cases.push(case(
                    &[images, pixels, 3],
                    &[0, 2, 1],
                    elem,
                    options,
                    (16, 32),
                ));
                // Two batch dims that do not merge.
                let halves = [2, images.div_ceil(2), pixels, 3];
                cases.push(case(&halves, &[1, 0, 3, 2], elem, options, (16, 32)));
            }
        }
    }
    // A permuter of its own: room for its own pipelines (`MAX_SPECIALIZED`).
    let fresh = cpu_planned(p);
    for (result, op) in check_many(&fresh, &cases).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        let block = plan.variant().and_then(|v| v.block()).unwrap();
        assert!(block.lane_major, "{plan}");
        assert_eq!(Some(plan.specialized()), op.options().specialize, "{plan}");
    }
}
