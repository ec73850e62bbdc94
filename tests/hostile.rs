//! Hostile inputs against the checks that keep writes inside the caller's region: views'
//! true destination extent and overlap, parts of one output, sizes near 2^63. No GPU here
//! (the GPU side of the same promises is in `tests/regions.rs`).

use std::collections::HashSet;

use proptest::prelude::*;
use wgpu_permute::plan;
use wgpu_permute::view::parts;
use wgpu_permute::{DeviceCaps, PermuteError, View, ViewRequest, reference};

/// Every destination element a view's positions write, in position order.
fn destinations(v: &View) -> Vec<usize> {
    let mut at = vec![0usize; v.shape.len()];
    let mut out = Vec::new();
    if v.is_empty() {
        return out;
    }
    loop {
        out.push(v.destination(&at));
        let Some(k) = (0..at.len()).rev().find(|&k| at[k] + 1 < v.shape[k]) else {
            return out;
        };
        at[k] += 1;
        at[k + 1..].fill(0);
    }
}

/// A view of a 0-filled source (broadcast: every source stride 0) with these destination
/// strides.
fn strided(shape: &[usize], dst: &[usize]) -> View {
    View {
        strides: vec![0; shape.len()],
        dst_strides: Some(dst.to_vec()),
        ..View::contiguous(shape)
    }
}

fn small_view() -> impl Strategy<Value = (View, usize)> {
    (1usize..=4)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(0usize..=4, rank),
                proptest::collection::vec(0usize..=13, rank),
                0usize..=90,
            )
        })
        .prop_map(|(shape, dst, len)| (strided(&shape, &dst), len))
}

/// Destination strides that nest by construction: a random order of the dims, each
/// stride the span of the ones inside it plus a random gap.
fn nested_view() -> impl Strategy<Value = View> {
    (1usize..=4)
        .prop_flat_map(|rank| {
            (
                proptest::collection::vec(1usize..=4, rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                proptest::collection::vec(0usize..=3, rank),
            )
        })
        .prop_map(|(shape, order, gaps)| {
            let mut dst = vec![0; shape.len()];
            let mut span = 1;
            // `order` lists the dims from the innermost out.
            for (&d, gap) in order.iter().zip(gaps) {
                dst[d] = span + gap;
                span += dst[d] * (shape[d] - 1);
            }
            strided(&shape, &dst)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// What `check` accepts writes distinct elements inside the destination; whatever
    /// puts two positions on one element, or reaches past the end, is refused.
    #[test]
    fn check_agrees_with_every_destination_offset((v, dst_len) in small_view()) {
        let offsets = destinations(&v);
        let distinct = offsets.iter().collect::<HashSet<_>>().len() == offsets.len();
        let inside = offsets.iter().all(|&o| o < dst_len);
        match v.check(1, dst_len) {
            Ok(_) => prop_assert!(distinct && inside, "accepted {v:?} into {dst_len}: {offsets:?}"),
            Err(PermuteError::OverlappingOutput) => {}
            Err(PermuteError::ViewOutOfBounds { which: "destination", highest, .. }) => {
                prop_assert!(!inside, "{v:?} into {dst_len} refused as outside");
                prop_assert_eq!(Some(highest as usize), offsets.iter().max().copied());
            }
            Err(e) => prop_assert!(false, "{v:?}: unexpected {e}"),
        }
        if !distinct {
            prop_assert_eq!(v.check(1, usize::MAX), Err(PermuteError::OverlappingOutput));
        }
    }

    /// Nested strides are accepted exactly when the highest offset fits, and the span is
    /// that offset plus one.
    #[test]
    fn nested_destination_strides_are_accepted(v in nested_view()) {
        let offsets = destinations(&v);
        let highest = *offsets.iter().max().unwrap();
        prop_assert_eq!(v.dst_span(), Ok(highest + 1));
        prop_assert!(v.check(1, highest + 1).is_ok(), "{v:?}");
        prop_assert!(v.check(1, highest).is_err(), "{v:?}");
    }

    /// Parts of one output are accepted exactly when each fits and no element is written
    /// twice; spread out (every position times 2^16) they are checked as sorted runs
    /// instead of a bitmap, with the same answers.
    #[test]
    fn parts_are_refused_exactly_when_they_share_an_element(
        parts in proptest::collection::vec((nested_view(), 0usize..40), 0..4),
        scale in prop::sample::select(vec![1usize, 1 << 16]),
    ) {
        let dst_len = 60;
        let mut seen = HashSet::new();
        let mut sound = true;
        for (v, first) in &parts {
            for o in destinations(v) {
                sound &= first + o < dst_len && seen.insert(first + o);
            }
        }
        let spread: Vec<(View, usize)> = parts
            .iter()
            .map(|(v, first)| {
                let dst = v.dst_strides.as_ref().unwrap().iter().map(|s| s * scale);
                (strided(&v.shape, &dst.collect::<Vec<_>>()), first * scale)
            })
            .collect();
        let got = parts::check_parts(&spread, 1, dst_len * scale);
        prop_assert_eq!(got.is_ok(), sound, "{:?}: {:?}", spread, got);
        // The reference refuses the same parts.
        if scale == 1 {
            let cpu = reference::materialize_parts(&[0; 4], &parts, 4, &[], dst_len);
            prop_assert_eq!(cpu.is_ok(), sound);
        }
    }
}

#[test]
fn the_span_of_the_inner_dims_counts() {
    // (1, 0, 0) and (0, 1, 1) both land on element 3: each stride covers the dim just
    // inside it, not the two (the old check looked at neighbours only, and accepted it).
    let v = strided(&[2, 2, 2], &[3, 2, 1]);
    assert_eq!(v.check(1, 100), Err(PermuteError::OverlappingOutput));
    assert_eq!(v.check(1, usize::MAX), Err(PermuteError::OverlappingOutput));
    // Rows of 3 at stride 3 reach element 3 + 2 = 5: a destination of 5 is too small (the
    // old check counted 3 + 1).
    let v = strided(&[2, 3], &[3, 1]);
    assert_eq!(
        v.check(1, 5),
        Err(PermuteError::ViewOutOfBounds {
            which: "destination",
            lowest: 0,
            highest: 5,
            have: 5
        })
    );
    assert!(v.check(1, 6).is_ok());
    // Rows of 4 at stride 3 overlap their neighbours.
    let v = strided(&[3, 4], &[3, 1]);
    assert_eq!(v.check(1, 100), Err(PermuteError::OverlappingOutput));
    // Interleaved strides are refused even where they happen not to collide.
    let v = strided(&[3, 2], &[2, 3]);
    assert_eq!(v.check(1, 100), Err(PermuteError::OverlappingOutput));
}

#[test]
fn parts_that_overlap_or_repeat_are_refused() {
    let part = |shape: &[usize], dst: &[usize], first| (strided(shape, dst), first);
    // Two rows of a 4 x 6 output: columns 0..4 and 4..6 are disjoint.
    let left = part(&[4, 4], &[6, 1], 0);
    let right = part(&[4, 2], &[6, 1], 4);
    assert_eq!(
        parts::check_parts(&[left.clone(), right.clone()], 1, 24),
        Ok(())
    );
    // The same part twice, or a right part one column too wide.
    assert_eq!(
        parts::check_parts(&[left.clone(), left.clone()], 1, 24),
        Err(PermuteError::OverlappingOutput)
    );
    let wide = part(&[4, 3], &[6, 1], 3);
    assert_eq!(
        parts::check_parts(&[left, wide], 1, 24),
        Err(PermuteError::OverlappingOutput)
    );
    // Empty parts overlap nothing.
    let empty = part(&[0, 3], &[6, 1], 0);
    assert_eq!(
        parts::check_parts(&[empty.clone(), empty, right], 1, 24),
        Ok(())
    );
    // Parts whose spans meet, far too large to prove disjoint (2^30 runs each over 2^40
    // elements; these two are disjoint): refused at once, typed, nothing allocated.
    let huge = 1usize << 40;
    let column = |first| part(&[1 << 30, 2], &[1 << 10, 1], first);
    assert!(matches!(
        parts::check_parts(&[column(0), column(2)], 1, huge),
        Err(PermuteError::PartsTooLarge { .. })
    ));
    // A concat along the last axis of two [2^28, 1] columns: 2^29 one-element runs, within
    // the bitmap's budget (64 MiB), so accepted; one column shifted onto the other refused.
    let half = |first| part(&[1 << 28], &[2], first);
    assert_eq!(parts::check_parts(&[half(0), half(1)], 1, 1 << 29), Ok(()));
    assert_eq!(
        parts::check_parts(&[half(0), half(2)], 1, (1 << 29) + 2),
        Err(PermuteError::OverlappingOutput)
    );
    // Spans that do not meet need no marking at all, however large.
    let band = |first| part(&[1 << 20, 1 << 18], &[1 << 18, 1], first);
    assert_eq!(
        parts::check_parts(&[band(0), band(1 << 38)], 1, 1 << 39),
        Ok(())
    );
}

/// Near 2^62-2^64: every size the planner derives from these is checked, never wrapped.
#[test]
fn sizes_near_two_to_the_63_are_refused_not_wrapped() {
    let caps = DeviceCaps::default();
    let plan = |req: &ViewRequest| plan::plan_view(req, &caps, &Default::default());
    let big = 1usize << 62;
    // The destination span fits usize, its bytes do not.
    let v = strided(&[2], &[big]);
    assert_eq!(v.dst_span(), Ok(big + 1));
    assert_eq!(
        plan(&ViewRequest::new(&v, 4, 1, big + 1)),
        Err(PermuteError::SizeOverflow)
    );
    // A span past usize.
    let v = strided(&[3, 2], &[big, 1]);
    assert_eq!(v.dst_span(), Ok(2 * big + 2));
    let v = strided(&[5, 2], &[big, 1]);
    assert_eq!(v.dst_span(), Err(PermuteError::SizeOverflow));
    assert_eq!(v.check(1, usize::MAX), Err(PermuteError::SizeOverflow));
    // Region offsets at the top of the address space.
    let v = View {
        strides: vec![-1],
        offset: 3,
        ..View::contiguous(&[4])
    };
    let mut req = ViewRequest::new(&v, 4, 4, 4);
    req.src_offset = u64::MAX - 3;
    assert_eq!(plan(&req), Err(PermuteError::SizeOverflow));
    let mut req = ViewRequest::new(&v, 4, 4, 4);
    req.dst_offset = u64::MAX - 3;
    assert_eq!(plan(&req), Err(PermuteError::SizeOverflow));
    // Parts: the output's bytes, and a part's first byte.
    let v = View::contiguous(&[2]);
    assert_eq!(
        reference::materialize_parts(&[0; 8], &[(v.clone(), 0)], 4, &[], big),
        Err(PermuteError::SizeOverflow)
    );
    assert_eq!(
        reference::materialize_parts(&[0; 8], &[], 4, &[], usize::MAX),
        Err(PermuteError::SizeOverflow)
    );
}

#[test]
fn a_flip_left_at_offset_zero_names_the_elements_it_reaches() {
    let v = View {
        strides: vec![-1],
        ..View::contiguous(&[4])
    };
    let err = v.check(20, 4).unwrap_err();
    assert_eq!(
        err,
        PermuteError::ViewOutOfBounds {
            which: "source",
            lowest: -3,
            highest: 0,
            have: 20
        }
    );
    assert_eq!(
        err.to_string(),
        "the view reaches source elements -3 to 0, but the source region holds 20 elements"
    );
}

#[test]
fn parts_with_a_bad_element_size_are_refused_even_when_there_are_none() {
    assert_eq!(
        reference::materialize_parts(&[], &[], 3, &[], 0),
        Err(PermuteError::ElemSize(3))
    );
}
