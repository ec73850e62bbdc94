//! The view checks of tests/variants.rs: padded variants (generic and micro) and reversed
//! innermost units, each planned as a view and materialised against the reference.

use wgpu_permute::plan::Variant;
use wgpu_permute::plan::tuning::{GENERIC_RUN, LANE_GROUP, PAGE_BYTES};
use wgpu_permute::{Bound, Kernel, Options, Permuter, Relayout, View, reference};

use super::common::test_bytes;

/// The padded variant: the permute of `shape` as a view, padded by one position before and
/// after along its first dim, against the reference; the plan must run `variant`.
pub fn check_padded(
    p: &Permuter,
    shape: &[usize],
    perm: &[usize],
    elem: usize,
    variant: Variant,
) -> Result<(), String> {
    let mut v = View::permuted(shape, perm).unwrap();
    v.offset -= v.strides[0];
    v.shape[0] += 2;
    v.bounds = vec![Bound {
        dims: vec![0],
        valid: 1..v.shape[0] - 1,
    }];
    if variant.strided() {
        // Into a larger destination, with gaps after each outermost slab; rows of 4
        // elements (whole words when packed), their second half padding.
        let last = v.shape.len() - 1;
        if last > 0 {
            v.shape[last] = 4;
            v.bounds.push(Bound {
                dims: vec![last],
                valid: 0..2,
            });
        }
        let mut dst = wgpu_permute::view::row_major(&v.shape);
        dst[0] = dst[0] * v.shape.get(1).map_or(2, |_| 1) + 4;
        v.dst_strides = Some(dst);
    }
    let options = Options {
        kernel: Some(Kernel::Generic),
        index: Some(variant.index()),
        access64: Some(variant.access64()),
        ..Options::default()
    };
    check_filled(p, &v, shape.iter().product(), elem, options, variant)
}

/// The padded micro variant: the permute of `shape` (rows and columns in whole blocks, the
/// perm reversed) as a view whose rows (input dim 0, the output's innermost) start early by
/// one block, or by a whole run of blocks for runs, in padding; from rank 3 its first batch
/// dim (input dim 1) ends one position late, in padding too (a second bound). A narrow
/// block's view starts a word into the source, so that wide blocks do not fit. The fill
/// shows wherever a row is read that should not be, or not read that should.
pub fn check_padded_micro(
    p: &Permuter,
    shape: &[usize],
    perm: &[usize],
    elem: usize,
    variant: Variant,
) -> Result<(), String> {
    let block = variant.block().expect("a micro variant has a block");
    let pad = block.side as usize * block.run as usize;
    let lead = if block.access_bytes == 16 {
        0
    } else {
        (4 / elem).max(1)
    };
    let mut v = View::permuted(shape, perm).unwrap();
    let rows = v.shape.len() - 1;
    v.offset += lead as isize - pad as isize * v.strides[rows];
    v.shape[rows] += pad;
    v.bounds = vec![Bound {
        dims: vec![rows],
        valid: pad..v.shape[rows],
    }];
    if rows >= 2 {
        v.shape[rows - 1] += 1;
        v.bounds.push(Bound {
            dims: vec![rows - 1],
            valid: 0..v.shape[rows - 1] - 1,
        });
    }
    let n = shape.iter().product::<usize>() + lead;
    let options = Options {
        kernel: Some(Kernel::Micro),
        access64: Some(variant.access64()),
        specialize: Some(variant.specialized()),
        ..Options::default()
    };
    check_filled(p, &v, n, elem, options, variant)
}

/// [`check_view`] of a padded view over `n` elements of test data, filled with `0x5A`
/// bytes outside its bounds.
fn check_filled(
    p: &Permuter,
    v: &View,
    n: usize,
    elem: usize,
    options: Options,
    variant: Variant,
) -> Result<(), String> {
    let data = test_bytes(n * elem, variant.rank() as u64);
    let fill = vec![0x5A; elem];
    check_view(p, v, (&data, n), elem, &fill, options, variant)
}

/// The reversed variant: `x[..., ::-1]` of a tensor whose outer dims (extent 2) are
/// reversed in order, so that none merge, and whose innermost row is 3 units of `unit`
/// bytes, or 8 (a run) for runs; the view starts one unit into the source where the unit is
/// narrower than 16 bytes, so that no wider unit fits. Boxed variants: more rows (or, at
/// rank 1, a longer row), so that windows of half the tensor split it (`boxes`).
pub fn check_reversed(p: &Permuter, unit_elem: usize, variant: Variant) -> Result<(), String> {
    let (unit, elem) = (unit_elem, variant.reverse() as usize);
    // Lane-major runs: rows of whole SIMD groups' runs.
    let units = match (variant.runs(), variant.lane_major()) {
        (true, true) => (LANE_GROUP * GENERIC_RUN) as usize,
        (true, false) => 8,
        (false, _) => 3,
    };
    let rank = variant.rank();
    let mut shape = vec![2; rank];
    shape[rank - 1] = units * unit / elem;
    let bytes = units * unit * 2usize.pow(rank as u32 - 1);
    shape[0] = outermost(variant, &shape, units, unit / elem, bytes);
    let row = shape[rank - 1];
    let perm: Vec<usize> = (0..rank - 1).rev().chain([rank - 1]).collect();
    let mut v = View::permuted(&shape, &perm).unwrap();
    let lead = if unit < 16 { unit / elem } else { 0 };
    v.offset += lead as isize + (row as isize - 1);
    v.strides[rank - 1] = -1;
    let n = shape.iter().product::<usize>() + lead;
    let data = test_bytes(n * elem, rank as u64 + 77);
    let options = Options {
        index: Some(variant.index()),
        specialize: Some(variant.specialized()),
        access64: Some(variant.access64()),
        wide_stores: Some(variant.wide_stores()),
        scatter: Some(variant.scatter()),
        binding_limit: boxes(p, variant, n * elem),
        ..Options::default()
    };
    check_view(p, &v, (&data, n), elem, &[], options, variant)
}

/// How many times a boxed variant's tensor of `bytes` grows along its outermost dim, so that
/// windows of half of it are smaller than it whatever the device's offset alignment (up to
/// 256 bytes): a prime of at least 7, so that no 2 to 6 boxes cut it equally (boxes of one
/// shape that are contiguous in the output run plain, `Plan::plain_boxes`), and odd, so
/// that a row of rank 1 stays an odd number of runs (not lane-major unless its runs were);
/// 1 for others.
fn many(variant: Variant, bytes: usize) -> usize {
    match variant.boxed() {
        true => prime_at_least(2048usize.div_ceil(bytes).max(7)),
        false => 1,
    }
}

/// The least prime of at least `n`.
pub fn prime_at_least(n: usize) -> usize {
    let prime = |k: &usize| {
        (2..*k)
            .take_while(|d| d * d <= *k)
            .all(|d| !k.is_multiple_of(d))
    };
    (n.max(2)..).find(prime).unwrap()
}

/// The outermost extent of a tensor whose outer dims are 2 (rank 2 or more) or whose row is
/// `units` units of `per_unit` elements (rank 1), for a boxed variant: a prime count of
/// them ([`many`]), of the row's runs where it has runs (as the boxes cut it).
fn outermost(
    variant: Variant,
    shape: &[usize],
    units: usize,
    per_unit: usize,
    bytes: usize,
) -> usize {
    let m = many(variant, bytes);
    match (variant.boxed(), shape.len()) {
        (false, _) => shape[0],
        (true, 1) if variant.runs() => shape[0] * m,
        (true, 1) => prime_at_least(units * m) * per_unit,
        (true, _) => m,
    }
}

/// For a boxed variant, a binding limit that splits a tensor of `bytes` into windows of
/// about half of it.
fn boxes(p: &Permuter, variant: Variant, bytes: usize) -> Option<u64> {
    let align = p.caps().storage_offset_alignment as u64;
    variant.boxed().then(|| align + 4 + bytes as u64 / 2)
}

/// Runs in boxes over binding windows (`GenericLayout::Boxed` with runs): rows of one run,
/// or of a SIMD group's runs lane-major, under dims in reverse order (none merge), every
/// other slab of a source twice as long (`x[::2]`; at rank 1 every other unit), starting one
/// unit in where the unit is narrower than 16 bytes (no wider unit fits), large enough to
/// split into windows of half of it.
pub fn check_boxed_runs(p: &Permuter, variant: Variant) -> Result<(), String> {
    let (unit, rank) = (variant.unit() as usize, variant.rank());
    let row = match variant.lane_major() {
        true => (LANE_GROUP * GENERIC_RUN) as usize,
        false => GENERIC_RUN as usize,
    };
    let mut shape = vec![2; rank];
    shape[rank - 1] = row;
    let bytes = row * unit * 2usize.pow(rank as u32 - 1);
    shape[0] = outermost(variant, &shape, row, 1, bytes);
    let perm: Vec<usize> = (0..rank - 1).rev().chain([rank - 1]).collect();
    let mut v = View::permuted(&shape, &perm).unwrap();
    // Every other slab of the source's outermost dim.
    let outer = perm.iter().position(|&d| d == 0).unwrap();
    v.strides[outer] *= 2;
    let lead = (unit < 16) as usize;
    v.offset += lead as isize;
    let n = 2 * shape.iter().product::<usize>() + lead;
    let data = test_bytes(n * unit, rank as u64 + 55);
    let options = Options {
        index: Some(variant.index()),
        access64: Some(variant.access64()),
        binding_limit: boxes(p, variant, n * unit),
        ..Options::default()
    };
    check_view(p, &v, (&data, n), unit, &[], options, variant)
}

/// The stacked variant (`Plan::stacked_runs`): a stack of 8 rows of a page (the view's
/// output's second innermost dim, source dim 0) under dims of 2 in reverse order, so that
/// none merge; of rank 2, every other row (`x[::2]`). Units of whole elements (the view
/// starts one element in where they are narrower than 16 bytes), reversed ones for a
/// reversing variant (`x[..., ::-1]`).
pub fn check_stacked(p: &Permuter, variant: Variant) -> Result<(), String> {
    let (unit, rank) = (variant.unit() as usize, variant.rank());
    let elem = match variant.reverse() {
        0 => unit,
        e => e as usize,
    };
    let row = (PAGE_BYTES as usize / unit).max(LANE_GROUP as usize * GENERIC_RUN as usize);
    let row_elems = row * unit / elem;
    let mut shape = vec![2; rank];
    (shape[0], shape[rank - 1]) = (GENERIC_RUN as usize, row_elems);
    let perm: Vec<usize> = (0..rank - 1).rev().chain([rank - 1]).collect();
    let mut v = View::permuted(&shape, &perm).unwrap();
    let mut n = shape.iter().product::<usize>();
    if rank == 2 {
        v.strides[0] *= 2;
        n *= 2;
    }
    let lead = if unit < 16 { unit / elem } else { 0 };
    v.offset += lead as isize;
    n += lead;
    if variant.reverse() > 0 {
        v.offset += row_elems as isize - 1;
        v.strides[rank - 1] = -1;
    }
    let data = test_bytes(n * elem, rank as u64 + 91);
    let options = Options {
        specialize: Some(variant.specialized()),
        access64: Some(variant.access64()),
        wide_stores: Some(false),
        scatter: Some(false),
        walk_tiles: Some(false),
        ..Options::default()
    };
    check_view(p, &v, (&data, n), elem, &[], options, variant)
}

/// Plans `v` of `data` (`src_len` elements) with `options`, checks that it runs `variant`,
/// and materialises it against the reference (fill `fill` outside its bounds).
fn check_view(
    p: &Permuter,
    v: &View,
    (data, src_len): (&[u8], usize),
    elem: usize,
    fill: &[u8],
    options: Options,
    variant: Variant,
) -> Result<(), String> {
    let op = Relayout::view(v.clone(), src_len, elem)
        .map(|op| op.with_fill(fill).with_options(options))
        .and_then(|op| p.prepare(&op))
        .map_err(|e| format!("{variant}: {e}"))?;
    let plan = &op.plans()[0];
    assert_eq!(plan.variant(), Some(variant), "{plan}");
    let want = reference::materialize_bytes(data, v, elem, fill, v.dst_span().unwrap()).unwrap();
    match p.run::<_, u8>(&op, data) {
        Ok(got) if got == want => Ok(()),
        Ok(_) => Err(format!("{plan}: differs from the reference")),
        Err(e) => Err(format!("{plan}: {e}")),
    }
}
