//! Views: slices, flips, broadcasts, padding and strided outputs, materialised on the GPU and
//! checked against the CPU reference; the planner's invariants for them.

#[path = "../common/mod.rs"]
mod common;
mod padding;
mod random;
mod tiles;

use common::{gpu, materialize, test_bytes};
use proptest::prelude::*;
use wgpu_permute::plan::{self, GenericLayout, IndexMath, KernelReason, Strip};
use wgpu_permute::{
    Bound, DeviceCaps, Kernel, Options, PermuteError, Relayout, Request, View, ViewRequest,
    reference,
};

fn request<'a>(v: &'a View, elem: usize, src_len: usize, fill: &'a [u8]) -> ViewRequest<'a> {
    ViewRequest::new(v, elem, src_len, v.len()).with_fill(fill)
}

fn plan_of(v: &View, elem: usize, src_len: usize) -> wgpu_permute::Plan {
    plan::plan_view(
        &request(v, elem, src_len, &[]),
        &DeviceCaps::default(),
        &Default::default(),
    )
    .unwrap()
}

/// Materialises on the GPU and compares with the reference.
fn check(v: &View, elem: usize, src_len: usize, fill: &[u8]) {
    let Some(p) = gpu() else { return };
    check_on(p, v, elem, src_len, fill, Options::default());
}

/// [`check`] compiled for its shape where the view can be (`plan::specialize`: every
/// generic view that gathers into a whole output, in one binding), on a permuter of its own
/// (with a budget of pipelines of its own).
fn check_specialized(v: &View, elem: usize, src_len: usize, fill: &[u8]) {
    let Some(p) = gpu() else { return };
    let fresh = common::fresh(p);
    let options = Options {
        specialize: Some(true),
        ..Options::default()
    };
    let request = request(v, elem, src_len, fill).with_options(options);
    let plan = plan::plan_view(&request, p.caps(), &Default::default()).unwrap();
    let gathers = plan.kernel() == Kernel::Generic && plan.generic_layout() == GenericLayout::Plain;
    if gathers && plan.index() == IndexMath::U32 {
        assert!(plan.specialized(), "{plan}");
    }
    check_on(&fresh, v, elem, src_len, fill, options);
}

fn check_on(
    p: &wgpu_permute::Permuter,
    v: &View,
    elem: usize,
    src_len: usize,
    fill: &[u8],
    options: Options,
) {
    let data = test_bytes(src_len * elem, (v.shape.len() * 31 + elem) as u64);
    let want = reference::materialize_bytes(&data, v, elem, fill, v.len()).unwrap();
    let got =
        materialize(p, &data, v, elem, fill, options).unwrap_or_else(|e| panic!("{v:?}: {e}"));
    assert!(
        got == want,
        "{v:?} ({elem} B, {options:?}): GPU differs from the reference"
    );
}

#[test]
fn a_permuted_view_plans_exactly_as_the_permute() {
    let caps = DeviceCaps::default();
    for (shape, perm, elem) in [
        (&[64usize, 512, 512][..], &[0usize, 2, 1][..], 4usize),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 2),
        (&[3, 1000, 7], &[2, 0, 1], 1),
        (&[2, 1, 5], &[2, 1, 0], 8),
    ] {
        let v = View::permuted(shape, perm).unwrap();
        let n = v.len();
        let viewed = plan_of(&v, elem, n);
        let permuted = plan::plan(&Request::new(shape, perm, elem), &caps).unwrap();
        assert_eq!(
            (
                viewed.kernel(),
                viewed.unit(),
                &viewed.dims(),
                &viewed.dims_perm()
            ),
            (
                permuted.kernel(),
                permuted.unit(),
                &permuted.dims(),
                &permuted.dims_perm()
            ),
            "{shape:?} {perm:?}"
        );
        assert!(viewed.view().is_none());
    }
}

#[test]
fn a_slice_of_rows_is_row_copies_at_the_widest_unit() {
    // Every other row of a [64, 48] f32 tensor, columns 8..40: rows of 128 bytes.
    let v = View {
        shape: vec![32, 32],
        strides: vec![96, 1],
        offset: 8,
        ..View::contiguous(&[])
    };
    let p = plan_of(&v, 4, 64 * 48);
    assert_eq!(
        (p.kernel(), p.unit(), p.reasons().kernel),
        (Kernel::Generic, 16, KernelReason::View)
    );
    assert_eq!(p.dims(), [32, 8]);
    check(&v, 4, 64 * 48, &[]);
    // A contiguous run of a tensor is one buffer copy.
    let run = View {
        offset: 96,
        ..View::contiguous(&[10, 48])
    };
    assert_eq!(plan_of(&run, 4, 64 * 48).kernel(), Kernel::Copy);
    check(&run, 4, 64 * 48, &[]);
}

/// `np.pad(x, ((1, 2), (0, 3)), constant_values=fill)` of a [4, 5] tensor.
fn padded_4x5() -> View {
    View {
        shape: vec![7, 8],
        strides: vec![5, 1],
        offset: -5,
        bounds: vec![
            Bound {
                dims: vec![0],
                valid: 1..5,
            },
            Bound {
                dims: vec![1],
                valid: 0..5,
            },
        ],
        dst_strides: None,
    }
}
