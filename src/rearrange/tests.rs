//! The planner on einops' usual examples, on padding, on every error, and on garbage.

use proptest::prelude::*;

use super::*;

mod errors;

fn ok(pattern: &str, shape: &[usize], axes: &[(&str, usize)]) -> Rearrangement {
    rearrange(pattern, shape, axes, false).unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
}

fn padded(pattern: &str, shape: &[usize], axes: &[(&str, usize)]) -> Rearrangement {
    rearrange(pattern, shape, axes, true).unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
}

fn err(pattern: &str, shape: &[usize], axes: &[(&str, usize)], pad: bool) -> RearrangeError {
    match rearrange(pattern, shape, axes, pad) {
        Ok(r) => panic!("{pattern:?} on {shape:?}: expected an error, got {r:?}"),
        Err(e) => e,
    }
}

/// The byte position of the syntax error `pattern` must give.
fn syntax_at(pattern: &str) -> usize {
    match err(pattern, &[1, 1], &[], false) {
        E::Syntax { position, .. } => position,
        e => panic!("{pattern:?}: expected a syntax error, got {e:?}"),
    }
}

/// (split_shape, perm, out_shape), the parts most examples check.
fn parts(r: &Rearrangement) -> (&[usize], &[usize], &[usize]) {
    (&r.split_shape, &r.perm, &r.out_shape)
}

#[test]
fn rearrange_transposes_named_axes() {
    let r = ok("b c h w -> b h w c", &[2, 3, 4, 5], &[]);
    assert_eq!(
        parts(&r),
        (&[2, 3, 4, 5][..], &[0, 2, 3, 1][..], &[2, 4, 5, 3][..])
    );
    assert_eq!(r.names, ["b", "c", "h", "w"]);
    assert!(!r.is_identity());
}

#[test]
fn rearrange_splits_heads() {
    let r = ok("b s (h d) -> b h s d", &[2, 5, 64], &[("h", 8)]);
    assert_eq!(
        parts(&r),
        (&[2, 5, 8, 8][..], &[0, 2, 1, 3][..], &[2, 8, 5, 8][..])
    );
    let dim = SplitDim {
        axes: 2..4,
        extent: 64,
        padded_extent: 64,
    };
    assert_eq!(r.input_dims[2], dim);
}

#[test]
fn rearrange_unflattens_an_image() {
    let r = ok("b (h w) c -> b c h w", &[2, 1024, 3], &[("h", 32)]);
    assert_eq!(
        parts(&r),
        (&[2, 32, 32, 3][..], &[0, 3, 1, 2][..], &[2, 3, 32, 32][..])
    );
}

#[test]
fn rearrange_merges_heads() {
    let r = ok("b h s d -> b s (h d)", &[2, 8, 5, 4], &[]);
    assert_eq!(
        parts(&r),
        (&[2, 8, 5, 4][..], &[0, 2, 1, 3][..], &[2, 5, 32][..])
    );
}

#[test]
fn rearrange_ellipsis_takes_the_leading_dims() {
    let r = ok("... h w -> ... w h", &[2, 3, 4, 5], &[]);
    assert_eq!(
        parts(&r),
        (&[2, 3, 4, 5][..], &[0, 1, 3, 2][..], &[2, 3, 5, 4][..])
    );
    assert_eq!(r.names, ["…0", "…1", "h", "w"]);
    // A grouped ellipsis on the right merges its dims, into one dim of 1 when there are none.
    assert_eq!(ok("a ... -> (... a)", &[2, 3, 4], &[]).out_shape, [24]);
    assert_eq!(ok("a ... -> (... a)", &[2], &[]).out_shape, [2]);
    assert_eq!(ok("... -> (...)", &[], &[]).out_shape, [1]);
    assert_eq!(ok("... -> ...", &[], &[]).out_shape, [] as [usize; 0]);
}

#[test]
fn rearrange_flattens_without_moving_data() {
    let r = ok("b c h w -> b (c h w)", &[2, 3, 4, 5], &[]);
    assert_eq!(
        parts(&r),
        (&[2, 3, 4, 5][..], &[0, 1, 2, 3][..], &[2, 60][..])
    );
    assert!(r.is_identity());
    assert!(ok("a b c -> a b c", &[2, 3, 4], &[]).is_identity());
    assert!(ok(" ->  ", &[], &[]).is_identity());
}

#[test]
fn rearrange_patchifies() {
    let pattern = "b c (h p1) (w p2) -> b (h w) (p1 p2 c)";
    let r = ok(pattern, &[2, 3, 8, 6], &[("p1", 2), ("p2", 2)]);
    assert_eq!(r.names, ["b", "c", "h", "p1", "w", "p2"]);
    assert_eq!(r.split_shape, [2, 3, 4, 2, 3, 2]);
    assert_eq!(r.perm, [0, 2, 4, 3, 5, 1]);
    assert_eq!(r.out_shape, [2, 12, 12]);
}

#[test]
fn rearrange_unit_axes_drop_and_insert() {
    let r = ok("b 1 c -> b c", &[2, 1, 3], &[]);
    assert_eq!(parts(&r), (&[2, 3][..], &[0, 1][..], &[2, 3][..]));
    let unit = SplitDim {
        axes: 1..1,
        extent: 1,
        padded_extent: 1,
    };
    assert_eq!(r.input_dims[1], unit);
    assert!(r.is_identity());

    let r = ok("b c -> b 1 c", &[2, 3], &[]);
    assert_eq!(parts(&r), (&[2, 3][..], &[0, 1][..], &[2, 1, 3][..]));
    let r = ok("() h w -> h w", &[1, 4, 5], &[]);
    assert_eq!(parts(&r), (&[4, 5][..], &[0, 1][..], &[4, 5][..]));
    // `1` inside parentheses is nothing; `01` is `1`, as in einops.
    assert_eq!(ok("(1 a) -> a", &[3], &[]).split_shape, [3]);
    assert_eq!(ok("01 a -> a ()", &[1, 3], &[]).out_shape, [3, 1]);
    assert_eq!(ok("a b -> (a 1 b)", &[2, 3], &[]).out_shape, [6]);
}

#[test]
fn rearrange_tolerates_spacing() {
    let tight = ok("a(b c)->(c a)b", &[2, 6], &[("b", 3)]);
    let loose = ok("  a  ( b  c )  ->  ( c a )  b ", &[2, 6], &[("b", 3)]);
    assert_eq!(tight, loose);
    assert_eq!(parts(&tight), (&[2, 3, 2][..], &[2, 0, 1][..], &[4, 3][..]));
}

#[test]
fn rearrange_handles_zero_extents() {
    // The other axes fix the inferred one at 0.
    let r = ok("(a b) -> b a", &[0], &[("a", 2)]);
    assert_eq!(parts(&r), (&[2, 0][..], &[1, 0][..], &[0, 2][..]));
    // Given sizes may multiply to 0.
    assert_eq!(
        ok("(a b) -> a b", &[0], &[("a", 0), ("b", 5)]).out_shape,
        [0, 5]
    );
}

#[test]
fn rearrange_pads_a_group_that_does_not_divide() {
    let r = padded("n (cb c) h w -> n cb h w c", &[2, 6, 5, 5], &[("c", 4)]);
    assert_eq!(r.split_shape, [2, 2, 4, 5, 5]);
    let dim = SplitDim {
        axes: 1..3,
        extent: 6,
        padded_extent: 8,
    };
    assert_eq!(r.input_dims[1], dim);
    assert!(r.input_dims[1].is_padded() && !r.input_dims[0].is_padded());
    assert_eq!(r.perm, [0, 1, 3, 4, 2]);
    assert_eq!(r.out_shape, [2, 2, 5, 5, 4]);
    assert!(r.is_padded() && !r.is_identity());
}

#[test]
fn rearrange_pads_given_sizes_larger_than_the_dim() {
    let r = padded("(a b) -> a b", &[6], &[("a", 2), ("b", 4)]);
    assert_eq!(r.split_shape, [2, 4]);
    assert_eq!(r.input_dims[0].padded_extent, 8);
    // The identity order does not make a padded result free.
    assert!(!r.is_identity());
    assert_eq!(padded("a -> a", &[3], &[("a", 5)]).out_shape, [5]);
}

/// The padded input, made by hand: each padded dim grown to its padded extent, the tail
/// filled with `fill`; then the plain permute of its split. The view must give the same.
fn padded_by_hand(r: &Rearrangement, shape: &[usize], data: &[u16], fill: u16) -> Vec<u16> {
    let padded: Vec<usize> = r.input_dims.iter().map(|d| d.padded_extent).collect();
    let n: usize = padded.iter().product();
    let grown: Vec<u16> = (0..n)
        .map(|mut i| {
            let (mut src, mut stride, mut inside) = (0, 1, true);
            for d in (0..shape.len()).rev() {
                let c = i % padded[d];
                i /= padded[d];
                inside &= c < shape[d];
                src += c * stride;
                stride *= shape[d];
            }
            if inside { data[src] } else { fill }
        })
        .collect();
    crate::reference::permute_slice(&grown, &r.split_shape, &r.perm).unwrap()
}

#[test]
fn a_padded_rearrangement_is_one_view_of_the_input() {
    type Case<'a> = (&'a str, &'a [usize], &'a [(&'a str, usize)]);
    let cases: [Case; 5] = [
        ("n (cb c) h w -> n cb h w c", &[2, 6, 3, 5], &[("c", 4)]),
        ("(a b) -> b a", &[7], &[("b", 3)]),
        ("a (b c) -> (c a) b", &[3, 10], &[("b", 4)]),
        ("(x p) (y q) -> x y (p q)", &[5, 7], &[("p", 2), ("q", 3)]),
        ("a -> a", &[3], &[("a", 5)]),
    ];
    for (pattern, shape, axes) in cases {
        let r = padded(pattern, shape, axes);
        assert!(r.is_padded(), "{pattern}");
        let n: usize = shape.iter().product();
        let data: Vec<u16> = (0..n as u16).map(|i| i + 1).collect();
        let strides = crate::view::row_major(shape);
        let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
        let view = r.view(&strides).unwrap();
        assert_eq!(view.check(n, view.len()), Ok(0..n), "{pattern}");
        let fill = 0xdead_u16;
        let got = crate::reference::materialize_bytes(
            bytemuck::cast_slice(&data),
            &view,
            2,
            &fill.to_le_bytes(),
            view.len(),
        )
        .unwrap();
        let want = padded_by_hand(&r, shape, &data, fill);
        assert_eq!(got, bytemuck::cast_slice::<u16, u8>(&want), "{pattern}");
        assert_eq!(view.len(), r.out_shape.iter().product::<usize>());
    }
}

#[test]
fn rearrange_pads_only_when_needed() {
    let r = padded("(a b) -> a b", &[8], &[("b", 4)]);
    assert!(!r.is_padded() && r.is_identity());
    // An empty dim stays empty: 0 rounds up to 0.
    assert_eq!(
        padded("(a b) -> a b", &[0], &[("b", 4)]).split_shape,
        [0, 4]
    );
}

/// Pattern-like text: the pieces of patterns, in any order.
fn garbage() -> impl Strategy<Value = String> {
    let pieces = [
        "a", "b", "c", "d", " ", " ", "(", ")", "1", "()", "...", "->", " -> ", "2", "_", ".",
        "01", "é", "…", "\t", "-", ">",
    ];
    let text = proptest::collection::vec(proptest::sample::select(pieces.to_vec()), 0..16);
    prop_oneof![text.prop_map(|p| p.concat()), any::<String>()]
}

fn dims() -> impl Strategy<Value = Vec<usize>> {
    let dim = prop_oneof![8 => 0usize..7, 1 => Just(usize::MAX), 1 => Just(usize::MAX / 2 + 1)];
    proptest::collection::vec(dim, 0..6)
}

fn sizes() -> impl Strategy<Value = Vec<(&'static str, usize)>> {
    let name = proptest::sample::select(vec!["a", "b", "c", "d", "…0", ""]);
    let size = prop_oneof![8 => 0usize..5, 1 => Just(usize::MAX)];
    proptest::collection::vec((name, size), 0..4)
}

/// The product of `sizes`, zero-aware as in the module.
fn total(sizes: &[usize]) -> Option<usize> {
    product(sizes.iter().copied())
}

/// What every result must satisfy, whatever the pattern.
fn check_invariants(r: &Rearrangement, shape: &[usize], pad: bool) {
    let n = r.split_shape.len();
    assert_eq!((r.names.len(), r.perm.len()), (n, n));
    let mut sorted = r.perm.clone();
    sorted.sort_unstable();
    assert!(sorted.iter().copied().eq(0..n), "perm {:?}", r.perm);
    assert_eq!(r.input_dims.len(), shape.len());
    let mut next = 0;
    for (d, &extent) in r.input_dims.iter().zip(shape) {
        assert_eq!((d.axes.start, d.extent), (next, extent));
        next = d.axes.end;
        assert_eq!(total(&r.split_shape[d.axes.clone()]), Some(d.padded_extent));
        assert!(d.padded_extent == extent || (pad && d.padded_extent > extent));
    }
    assert_eq!(next, n);
    assert_eq!(total(&r.out_shape), total(&r.split_shape));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any pattern, shape and sizes give a result or an error, never a panic.
    #[test]
    fn garbage_never_panics(pattern in garbage(), shape in dims(), axes in sizes(), pad: bool) {
        if let Ok(r) = rearrange(&pattern, &shape, &axes, pad) {
            check_invariants(&r, &shape, pad);
        }
    }

    /// Well-formed patterns over random shapes: results keep their invariants.
    #[test]
    fn results_are_consistent(
        pattern in proptest::sample::select(vec![
            "a (b c) -> c b a", "(a b) ... -> ... (b a)", "a ... (b c) -> (c ...) a b",
            "(a b c) -> (c a) b", "a 1 (b c) -> () c (a b)",
        ]),
        shape in dims(),
        axes in sizes(),
        pad: bool,
    ) {
        if let Ok(r) = rearrange(pattern, &shape, &axes, pad) {
            check_invariants(&r, &shape, pad);
        }
    }
}

#[test]
fn a_cropped_rearrangement_fills_its_output_once_from_boxes() {
    type Case<'a> = (
        &'a str,
        &'a [usize],
        &'a [(&'a str, usize)],
        &'a [usize],
        usize,
    );
    let cases: [Case; 6] = [
        // NCHW4c back to NCHW with 6 channels: cb = 0 whole, then cb = 1 with c < 2.
        (
            "n cb h w c -> n (cb c) h w",
            &[2, 2, 3, 5, 4],
            &[],
            &[2, 6, 3, 5],
            2,
        ),
        (
            "n cb h w c -> n (cb c) h w",
            &[2, 3, 3, 5, 4],
            &[],
            &[2, 10, 3, 5],
            2,
        ),
        ("a b c -> (a b c)", &[3, 4, 5], &[], &[47], 3),
        ("a b c -> (c a) b", &[3, 4, 5], &[], &[11, 3], 2),
        ("a b -> b a", &[4, 5], &[], &[5, 4], 1),
        ("a b -> b 1 a", &[4, 5], &[], &[2, 1, 3], 1),
    ];
    for (pattern, shape, axes, crop, n_boxes) in cases {
        let r = ok(pattern, shape, axes);
        let n: usize = shape.iter().product();
        let data: Vec<u32> = (1..=n as u32).collect();
        let strides = crate::view::row_major(shape);
        let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
        let views = r.cropped_views(&strides, crop).unwrap();
        assert_eq!(views.len(), n_boxes, "{pattern} {crop:?}");
        // By hand: the whole output, then its leading box of extents `crop`.
        let whole = crate::reference::permute_slice(&data, &r.split_shape, &r.perm).unwrap();
        let len: usize = crop.iter().product();
        let mut want = vec![0u32; len];
        for (i, w) in want.iter_mut().enumerate() {
            let (mut rem, mut at, mut stride) = (i, 0, 1);
            for d in (0..crop.len()).rev() {
                at += (rem % crop[d]) * stride;
                rem /= crop[d];
                stride *= r.out_shape[d];
            }
            *w = whole[at];
        }
        let mut got = vec![0u32; len];
        let mut writes = vec![0u32; len];
        for (v, first) in &views {
            let room = len - first;
            assert_eq!(v.check(n, room).map(|_| ()), Ok(()), "{pattern} {v:?}");
            let mut at = vec![0usize; v.shape.len()];
            for _ in 0..v.len() {
                let d = first + v.destination(&at);
                got[d] = data[v.source(&at) as usize];
                writes[d] += 1;
                for k in (0..at.len()).rev() {
                    at[k] += 1;
                    if at[k] < v.shape[k] {
                        break;
                    }
                    at[k] = 0;
                }
            }
        }
        assert!(
            writes.iter().all(|&w| w == 1),
            "{pattern} {crop:?}: {writes:?}"
        );
        assert_eq!(got, want, "{pattern} {crop:?}");
    }
    let r = ok("a b -> b a", &[4, 5], &[]);
    let strides = [5, 1];
    assert_eq!(
        r.cropped_views(&strides, &[5]),
        Err(E::CropRank { got: 1, rank: 2 })
    );
    assert_eq!(
        r.cropped_views(&strides, &[6, 4]),
        Err(E::CropTooLarge {
            dim: 0,
            extent: 5,
            crop: 6
        })
    );
    assert_eq!(r.cropped_views(&strides, &[0, 4]), Ok(Vec::new()));
    let p = padded("(a b) -> a b", &[7], &[("b", 4)]);
    assert_eq!(p.cropped_views(&[1], &[2, 3]), Err(E::CropPadded));
}
