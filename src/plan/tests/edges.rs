//! A permute in parts (`plan::edge_parts`): the parts tile the output once, move what the
//! permute moves, and come only where the generic kernel would read far apart on a CPU.

use super::*;
use crate::plan::tuning::{EDGE_SPLIT_BYTES, STRIP_MAX};
use crate::{
    Relayout,
    plan::{edge_parts, with_edges},
};

/// The parts of a CPU plan of `shape`/`perm`, if any.
fn parts(shape: &[usize], perm: &[usize], elem: usize) -> Option<Vec<(View, usize)>> {
    edge_parts(&plan::plan(&Request::new(shape, perm, elem), &cpu()).unwrap())
}

#[test]
fn the_parts_tile_the_output_and_move_what_the_permute_moves() {
    // f32 sides one past and one short of whole blocks (of 4), a strip's short side whole,
    // a 4-D reversal, 16-byte units (blocks of 2).
    let strip = STRIP_MAX as usize;
    let cases: [(&[usize], &[usize], usize, usize); 6] = [
        (&[1025, 1027], &[1, 0], 4, 3),
        (&[1023, 1029], &[1, 0], 4, 3),
        (&[2, 1024 + 3, 300], &[0, 2, 1], 4, 2),
        (&[3, 1024, 1030], &[0, 2, 1], 4, 2),
        (&[33, 8, 9, 1027], &[3, 2, 1, 0], 4, 3),
        (&[strip, 4097, 257], &[2, 0, 1], 16, 2),
    ];
    for (shape, perm, elem, count) in cases {
        let parts = parts(shape, perm, elem).unwrap_or_else(|| panic!("{shape:?} in one part"));
        assert_eq!(parts.len(), count, "{shape:?}");
        let n: usize = shape.iter().product();
        let moved: usize = parts.iter().map(|(v, _)| v.len()).sum();
        assert_eq!(moved, n, "{shape:?}: the parts move each element once");
        crate::view::parts::check_parts(&parts, n, n).unwrap();
        // The same bytes as the permute, on the reference (the parts are views of the
        // simplified dims, the same bytes).
        let data: Vec<u8> = (0..n * elem).map(|i| (i * 7 + i / 251) as u8).collect();
        let whole = Relayout::permute(shape, perm, elem).unwrap();
        let split = Relayout::parts(parts, n, n, elem).unwrap();
        assert!(
            reference::run(&whole, &data).unwrap() == reference::run(&split, &data).unwrap(),
            "{shape:?}"
        );
    }
}

#[test]
fn one_plan_where_reads_stay_near_sides_divide_or_the_device_is_a_gpu() {
    // Both sides of the size: a 2-D f32 transpose of odd sides.
    let just = |bytes: u64| ((bytes / 4) as f64).sqrt() as usize | 1;
    let below = just(EDGE_SPLIT_BYTES * 9 / 10);
    let above = just(EDGE_SPLIT_BYTES * 11 / 10);
    assert!(parts(&[below, below], &[1, 0], 4).is_none());
    assert!(parts(&[above, above], &[1, 0], 4).is_some());
    // Sides of whole blocks: micro takes it whole.
    assert!(parts(&[1024, 1028], &[1, 0], 4).is_none());
    // A GPU tiles odd sides itself.
    let gpu = plan::plan(
        &Request::new(&[1025, 1027], &[1, 0], 4),
        &DeviceCaps::default(),
    );
    assert!(edge_parts(&gpu.unwrap()).is_none());
    // Forced onto the generic kernel: the caller's choice stands.
    let forced = Request::new(&[1025, 1027], &[1, 0], 4).with_options(Options {
        kernel: Some(Kernel::Generic),
        ..Options::default()
    });
    assert!(edge_parts(&plan::plan(&forced, &cpu()).unwrap()).is_none());
    // An option forced on the whole that a part cannot take (wide stores into an edge that
    // does not start on 16 bytes; found by the fuzzer): the one plan.
    let wide = Options {
        wide_stores: Some(true),
        ..Options::default()
    };
    let req = Request::new(&[6912, 511], &[1, 0], 4).with_options(wide);
    let whole = plan::plan(&req, &cpu()).unwrap();
    assert!(edge_parts(&whole).is_some());
    assert_eq!(
        with_edges(whole, wide, &cpu(), &Learned::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn autotuning_keeps_the_parts_where_they_won_and_drops_them_where_a_kernel_did() {
    let req = Request::new(&[1025, 1027], &[1, 0], 4);
    let mut learned = Learned {
        autotune: true,
        ..Learned::default()
    };
    let pending = plan::plan_with(&req, &cpu(), &learned).unwrap();
    assert_eq!(pending.pending_race(), [Kernel::Generic, Kernel::Tiled]);
    // The race includes the parts, and says so.
    assert!(pending.pending_parts());
    assert!(
        pending
            .explain()
            .join("\n")
            .contains("and the plan in parts")
    );
    assert_eq!(
        with_edges(pending.clone(), req.options, &cpu(), &learned)
            .unwrap()
            .len(),
        3
    );
    let whole = Request::new(&[1024, 1028], &[1, 0], 4);
    assert!(
        !plan::plan_with(&whole, &cpu(), &learned)
            .unwrap()
            .pending_parts()
    );
    let class = pending.shape_class();
    // The parts won: the heuristic plans it, and it runs in parts (and says why).
    learned.winners.insert(class.clone(), Measured::Parts);
    let won = plan::plan_with(&req, &cpu(), &learned).unwrap();
    assert_eq!(won.reasons.tuning, Tuning::Parts);
    assert!(won.explain().join("\n").contains("in parts"), "{won}");
    assert_eq!(
        with_edges(won, req.options, &cpu(), &learned)
            .unwrap()
            .len(),
        3
    );
    // A shape of the class whose sides divide runs whole on micro blocks.
    let whole = plan::plan_with(&Request::new(&[1024, 1028], &[1, 0], 4), &cpu(), &learned);
    assert_eq!(whole.unwrap().kernel, Kernel::Micro);
    // A kernel won: it runs alone.
    learned
        .winners
        .insert(class, Measured::Fastest(Kernel::Generic));
    let generic = plan::plan_with(&req, &cpu(), &learned).unwrap();
    assert_eq!(generic.reasons.kernel, KernelReason::Measured);
    assert_eq!(
        with_edges(generic, req.options, &cpu(), &learned)
            .unwrap()
            .len(),
        1
    );
}
