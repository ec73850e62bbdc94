//! What makes a shape its own (`ShapeKey`): a view's strides and bounds, and a conversion,
//! each a pipeline of its own for a specialised plan, counted by the budget.

use super::*;

#[test]
fn views_with_other_strides_are_shapes_of_their_own() {
    // Two transposing views of the same dims, their rows 2048 and 4096 elements apart, on
    // micro blocks: a specialised pipeline bakes a view's strides in, so each view is a shape
    // of its own (its pipeline, counted by the budget; its bytes; its traces).
    let caps = cpu();
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let plan_for = |pitch: usize, learned: &Learned| {
        let view = View {
            shape: vec![1024, 256],
            strides: vec![1, pitch as isize],
            offset: 0,
            bounds: vec![],
            dst_strides: None,
        };
        let mut req = ViewRequest::new(&view, 4, 256 * pitch, 1024 * 256);
        req.options = on;
        plan::plan_view(&req, &caps, learned).unwrap()
    };
    let mut learned = Learned {
        max_specialized: 1,
        ..Learned::default()
    };
    let narrow = plan_for(2048, &learned);
    assert_eq!(narrow.kernel, Kernel::Micro);
    assert_eq!(
        (narrow.specialized, narrow.reasons.specialize),
        (true, Some(SpecializeReason::Forced))
    );
    learned.specialized.insert(narrow.shape_key());
    let wide = plan_for(4096, &learned);
    assert_eq!(wide.dims, narrow.dims);
    assert_ne!(wide.shape_key(), narrow.shape_key());
    assert_ne!(wide.shape_class(), narrow.shape_class());
    assert_eq!(
        (wide.specialized, wide.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent))
    );
    assert_eq!(
        plan_for(2048, &learned).reasons.specialize,
        Some(SpecializeReason::Compiled)
    );
    // A view that is a plain permute but for its offset is the permute's shape (one
    // pipeline: offsets are uniforms).
    let permute = plan::plan(&Request::new(&[256, 1024], &[1, 0], 4), &caps).unwrap();
    let view = View {
        offset: 64,
        ..View::permuted(&[256, 1024], &[1, 0]).unwrap()
    };
    let req = ViewRequest::new(&view, 4, 64 + 256 * 1024, 1024 * 256);
    let offset = plan::plan_view(&req, &caps, &learned).unwrap();
    assert!(offset.view.is_some(), "{offset}");
    assert_eq!(offset.shape_key(), permute.shape_key());
}

#[test]
fn padded_views_with_other_bounds_are_shapes_of_their_own() {
    // `n (cb c) hw -> n cb hw c` with 6 or 5 valid channels: a specialised micro pipeline
    // compiles the bounds in, so each range is a shape of its own, counted by the budget.
    use crate::plan::Bound;
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let plan_for = |channels: usize, learned: &Learned| {
        let view = View {
            shape: vec![4, 2, 64, 4],
            strides: vec![6 * 64, 4 * 64, 1, 64],
            offset: 0,
            bounds: vec![Bound {
                dims: vec![1, 3],
                valid: 0..channels,
            }],
            dst_strides: None,
        };
        let mut req = ViewRequest::new(&view, 4, 4 * 6 * 64, 4 * 2 * 64 * 4);
        req.options = on;
        req.fill = &[0; 4];
        plan::plan_view(&req, &cpu(), learned).unwrap()
    };
    let mut learned = Learned {
        max_specialized: 1,
        ..Learned::default()
    };
    let six = plan_for(6, &learned);
    assert_eq!(
        (six.kernel, six.specialized),
        (Kernel::Micro, true),
        "{six}"
    );
    learned.specialized.insert(six.shape_key());
    let five = plan_for(5, &learned);
    assert_ne!(five.shape_key(), six.shape_key());
    assert_eq!(
        (five.specialized, five.reasons.specialize),
        (false, Some(SpecializeReason::BudgetSpent)),
        "{five}"
    );
    assert_eq!(
        plan_for(6, &learned).reasons.specialize,
        Some(SpecializeReason::Compiled)
    );
}

#[test]
fn conversions_are_part_of_the_shape() {
    use crate::convert::{Conversion, Dtype};
    let (to_f32, to_f16) = (
        Conversion::new(Dtype::U8, Dtype::F32).unwrap(),
        Conversion::new(Dtype::U8, Dtype::F16).unwrap(),
    );
    let key = |c: Option<&Conversion>| {
        let mut req = Request::new(&[32, 224, 224, 3], &[0, 3, 1, 2], 1);
        req.conversion = c;
        plan::plan(&req, &cpu()).unwrap().shape_key()
    };
    // One kernel text each, so one pipeline each: the budget counts them apart.
    let keys = [key(None), key(Some(&to_f32)), key(Some(&to_f16))];
    assert_ne!(keys[0], keys[1]);
    assert_ne!(keys[1], keys[2]);
    assert_eq!(keys[0].dims, keys[1].dims);
}

/// Generic views that gather into a whole output compile for their shape as permutes do
/// (forced here), and so do their reversed units; padded views and strided outputs have no
/// such variants. Reversed views of the same units and strides but other elements are
/// shapes of their own (their shaders differ).
#[test]
fn generic_views_specialise_where_they_gather_into_a_whole_output() {
    let on = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let (rows, row) = (16usize, 1024usize);
    let flip = |elem: usize, cols: usize, strides: [isize; 2], offset: usize| {
        let view = View {
            shape: vec![rows, cols],
            strides: strides.to_vec(),
            offset: offset as isize,
            bounds: vec![],
            dst_strides: None,
        };
        let mut req = ViewRequest::new(&view, elem, 2 * rows * cols, rows * cols);
        req.options = on;
        plan::plan_view(&req, &cpu(), &Learned::default()).unwrap()
    };
    let (r, half) = (row as isize, row / 2);
    let rows_flipped = flip(4, row, [-r, 1], (rows - 1) * row);
    let words_reversed = flip(4, row, [r, -1], row - 1);
    for p in [&rows_flipped, &words_reversed] {
        assert_eq!(p.kernel, Kernel::Generic, "{p}");
        assert_eq!(
            (p.specialized, p.reasons.specialize),
            (true, Some(SpecializeReason::Forced)),
            "{p}"
        );
    }
    // The same 16-byte units and strides, of 8-byte elements reversed.
    let longs_reversed = flip(8, half, [half as isize, -1], half - 1);
    assert_eq!(
        (longs_reversed.unit, &longs_reversed.dims),
        (words_reversed.unit, &words_reversed.dims)
    );
    assert_ne!(longs_reversed.shape_key(), words_reversed.shape_key());
    // A padded view, and a strided output.
    let padded = View {
        shape: vec![rows, row],
        strides: vec![row as isize, 1],
        offset: 0,
        bounds: vec![Bound {
            dims: vec![1],
            valid: 0..row - 8,
        }],
        dst_strides: None,
    };
    let strided = View {
        dst_strides: Some(vec![2 * row, 1]),
        bounds: vec![],
        ..padded.clone()
    };
    let zero = [0u8; 4];
    for (view, dst_len, fill) in [
        (&padded, rows * row, &zero[..]),
        (&strided, 2 * rows * row, &[][..]),
    ] {
        let mut req = ViewRequest::new(view, 4, rows * row, dst_len).with_fill(fill);
        req.options = on;
        let p = plan::plan_view(&req, &cpu(), &Learned::default()).unwrap();
        assert_eq!(p.kernel, Kernel::Generic, "{p}");
        assert_eq!(
            (p.specialized, p.reasons.specialize),
            (false, Some(SpecializeReason::NotApplicable)),
            "{p}"
        );
    }
}
