//! Host round trips and GPU buffers against hand-computed layouts and the reference;
//! identities; pattern errors.

use super::*;

#[test]
fn host_rearranges_match_hand_computed_results_and_the_reference() {
    let Some(p) = gpu() else { return };
    for case in known_cases() {
        let r = rearrange(case.pattern, case.shape, case.axes, false).unwrap();
        let n: usize = case.shape.iter().product();
        for elem in [1, 2, 4, 8] {
            let data = test_bytes(n * elem, n as u64 + elem as u64);
            let (out, shape) = run(
                p,
                Relayout::rearrange(case.pattern, case.shape, case.axes, elem),
                &data,
            )
            .unwrap_or_else(|e| panic!("{} ({elem} B): {e}", case.pattern));
            assert_eq!(shape, case.out_shape, "{}", case.pattern);
            let want = gathered(&data, &case.gather, elem);
            assert!(out == want, "{} ({elem} B) differs by hand", case.pattern);
            let reference = reference::permute_bytes(&data, &r.split_shape, &r.perm, elem).unwrap();
            assert!(out == reference, "{} ({elem} B) differs", case.pattern);
        }
        // Typed, with values that are their own input index.
        let data: Vec<u32> = (0..n as u32).collect();
        let (out, shape) = run(
            p,
            Relayout::rearrange(case.pattern, case.shape, case.axes, elem_of(&data)),
            &data,
        )
        .unwrap();
        assert_eq!(shape, case.out_shape);
        let want: Vec<u32> = case.gather.iter().map(|&i| i as u32).collect();
        assert_eq!(out, want, "{}", case.pattern);
        let halves: Vec<u16> = data.iter().map(|&v| v as u16 ^ 0xA500).collect();
        let (out, _) = run(
            p,
            Relayout::rearrange(case.pattern, case.shape, case.axes, elem_of(&halves)),
            &halves,
        )
        .unwrap();
        let want: Vec<u16> = case.gather.iter().map(|&i| halves[i]).collect();
        assert_eq!(out, want, "{}", case.pattern);
    }
}

#[test]
fn gpu_buffers_are_rearranged_in_one_permute() {
    let Some(p) = gpu() else { return };
    for case in known_cases() {
        let n: usize = case.shape.iter().product();
        for elem in [1, 2, 4, 8] {
            let data = test_bytes(n * elem, 7 * n as u64 + elem as u64);
            let [src, dst, readback] = buffers(p, &data);
            let (mut plans, shape) = submit(
                p,
                &src,
                &dst,
                Relayout::rearrange(case.pattern, case.shape, case.axes, elem),
            )
            .unwrap_or_else(|e| panic!("{} ({elem} B): {e}", case.pattern));
            let plan = plans.remove(0);
            assert_eq!(shape, case.out_shape);
            let r = rearrange(case.pattern, case.shape, case.axes, false).unwrap();
            assert_eq!(
                (plan.shape(), plan.perm()),
                (&r.split_shape[..], &r.perm[..])
            );
            // An identity still copies, when the bytes are whole words.
            if r.is_identity() && (n * elem).is_multiple_of(4) {
                assert_eq!(plan.kernel(), Kernel::Copy, "{}", case.pattern);
            }
            let mut encoder = p.device().create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, readback.size());
            p.queue().submit([encoder.finish()]);
            let out = read_buffer(p.device(), &readback, (n * elem) as u64).unwrap();
            assert!(
                out == gathered(&data, &case.gather, elem),
                "{} ({elem} B): {plan}",
                case.pattern
            );
        }
    }
}

#[test]
fn identity_returns_the_data_after_the_same_checks() {
    let Some(p) = gpu() else { return };
    let data = [1.0f32, 2., 3., 4., 5., 6.];
    let (out, shape) = run(
        p,
        Relayout::rearrange("a b -> (a b)", &[2, 3], &[], elem_of(&data)),
        &data,
    )
    .unwrap();
    assert_eq!((out.as_slice(), shape.as_slice()), (&data[..], &[6][..]));
    // What a permute of the data would refuse, the skipped permute refuses too.
    assert_eq!(
        run(
            p,
            Relayout::rearrange("a b -> a b", &[2, 3], &[], elem_of(&data[..5])),
            &data[..5]
        ),
        Err(PermuteError::DataLength { need: 6, have: 5 })
    );
    assert_eq!(
        run(p, Relayout::rearrange("a -> a", &[2], &[], 3), &[0; 6]),
        Err(PermuteError::ElemSize(3))
    );
    let (empty, shape) =
        run::<u32>(p, Relayout::rearrange("a b -> b a", &[0, 3], &[], 4), &[]).unwrap();
    assert_eq!((empty.len(), shape), (0, vec![3, 0]));
}

#[test]
fn pattern_errors_are_typed_and_name_the_axis() {
    let Some(p) = gpu() else { return };
    let data = [0u16; 12];
    let err = |pattern: &str, shape: &[usize], axes: &[(&str, usize)]| {
        run(
            p,
            Relayout::rearrange(pattern, shape, axes, elem_of(&data)),
            &data,
        )
        .unwrap_err()
    };
    let e = err("a b -> a q", &[3, 4], &[]);
    assert_eq!(
        e,
        PermuteError::Rearrange(RearrangeError::UnknownAxis { axis: "q".into() })
    );
    assert!(e.to_string().contains("`q`"), "{e}");
    let e = err("a (b p) -> a b p", &[3, 4], &[("p", 3)]);
    assert!(
        matches!(&e, PermuteError::Rearrange(RearrangeError::NotDivisible { axis, extent: 4, known: 3, .. }) if axis == "b"),
        "{e:?}"
    );
    assert!(e.to_string().contains("`b`"), "{e}");
    let e = err("a b c -> c b a", &[3, 4], &[]);
    assert!(
        matches!(
            e,
            PermuteError::Rearrange(RearrangeError::RankMismatch {
                expected: 3,
                rank: 2,
                ..
            })
        ),
        "{e:?}"
    );
    let e = err("a b -> b a", &[3, 4], &[("z", 2)]);
    assert_eq!(
        e,
        PermuteError::Rearrange(RearrangeError::UnusedSize { axis: "z".into() })
    );
    // The same from the buffer API, before any GPU work.
    let [src, dst, _] = buffers(p, &[0; 24]);
    let e = submit(
        p,
        &src,
        &dst,
        Relayout::rearrange("a b -> a", &[3, 4], &[], 2),
    )
    .unwrap_err();
    assert_eq!(
        e,
        PermuteError::Rearrange(RearrangeError::MissingAxis { axis: "b".into() })
    );
}
