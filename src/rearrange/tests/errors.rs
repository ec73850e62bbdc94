//! Every `RearrangeError`, from a pattern that leads to it.

use super::*;

#[test]
fn error_syntax_gives_the_position() {
    assert_eq!(syntax_at("a b"), 3);
    assert_eq!(syntax_at("a -> a -> a"), 7);
    assert_eq!(syntax_at("a b -> b a)"), 10);
    assert_eq!(syntax_at("((a)) -> a"), 1);
    assert_eq!(syntax_at("(a b -> a b"), 0);
    assert_eq!(syntax_at("a . b -> a b"), 2);
    assert_eq!(syntax_at(".... -> ...."), 0);
    assert_eq!(syntax_at("a... -> a..."), 1);
    assert_eq!(syntax_at("... a -> ...a"), 9);
    assert_eq!(syntax_at("2 a -> a"), 0);
    assert_eq!(syntax_at("a 0 -> a"), 2);
    assert_eq!(syntax_at("_a -> _a"), 0);
    assert_eq!(syntax_at("a b_ -> a b_"), 2);
    assert_eq!(syntax_at("1a -> 1a"), 0);
    assert_eq!(syntax_at("a\tb -> b a"), 1);
    assert_eq!(syntax_at("a - b -> a b"), 2);
    // ASCII only: einops would take `é`, and `…` as an ellipsis.
    assert_eq!(syntax_at("é -> é"), 0);
    assert_eq!(syntax_at("… a -> … a"), 0);
}

#[test]
fn error_unknown_axis() {
    let e = err("a -> a b", &[2], &[], false);
    assert_eq!(e, E::UnknownAxis { axis: "b".into() });
}

#[test]
fn error_missing_axis() {
    let e = err("a b -> a", &[2, 3], &[], false);
    assert_eq!(e, E::MissingAxis { axis: "b".into() });
}

#[test]
fn error_repeated_axis() {
    let (axis, side) = ("a".to_string(), Side::Left);
    assert_eq!(
        err("a (b a) -> a b", &[2, 3], &[], false),
        E::RepeatedAxis { axis, side }
    );
    let (axis, side) = ("a".to_string(), Side::Right);
    assert_eq!(
        err("a -> a a", &[2], &[], false),
        E::RepeatedAxis { axis, side }
    );
}

#[test]
fn error_unused_size() {
    let e = err("a b -> b a", &[2, 3], &[("c", 1)], false);
    assert_eq!(e, E::UnusedSize { axis: "c".into() });
    // Ellipsis axes have no size to give.
    let e = err("... -> ...", &[2], &[("…0", 2)], false);
    assert_eq!(
        e,
        E::UnusedSize {
            axis: "…0".into()
        }
    );
}

#[test]
fn error_size_given_twice() {
    let e = err("(a b) -> a b", &[6], &[("a", 2), ("a", 2)], false);
    assert_eq!(e, E::SizeGivenTwice { axis: "a".into() });
}

#[test]
fn error_two_unknown() {
    let e = err("... (a b) -> ... a b", &[2, 6], &[], false);
    let (first, second) = ("a".to_string(), "b".to_string());
    assert_eq!(
        e,
        E::TwoUnknown {
            first,
            second,
            dim: 1
        }
    );
}

#[test]
fn error_not_divisible() {
    let e = err(
        "n (cb c) h w -> n cb h w c",
        &[2, 6, 5, 5],
        &[("c", 4)],
        false,
    );
    let axis = "cb".to_string();
    assert_eq!(
        e,
        E::NotDivisible {
            axis,
            dim: 1,
            extent: 6,
            known: 4
        }
    );
    assert!(e.to_string().contains("`cb`"), "{e}");
}

#[test]
fn error_size_mismatch() {
    let e = err("a b -> a b", &[2, 3], &[("a", 3)], false);
    let mismatch = |axes: &str, extent, product| E::SizeMismatch {
        axes: axes.into(),
        dim: 0,
        extent,
        product,
    };
    assert_eq!(e, mismatch("a", 2, 3));
    let e = err("(a b) -> a b", &[6], &[("a", 2), ("b", 4)], false);
    assert_eq!(e, mismatch("a b", 6, 8));
    // Padding never crops.
    let e = err("(a b) -> a b", &[6], &[("a", 2), ("b", 2)], true);
    assert_eq!(e, mismatch("a b", 6, 4));
}

#[test]
fn error_rank_mismatch() {
    let e = err("a b -> a b", &[2], &[], false);
    assert_eq!(
        e,
        E::RankMismatch {
            expected: 2,
            ellipsis: false,
            rank: 1
        }
    );
    let e = err("a b -> a b", &[2, 3, 4], &[], false);
    assert_eq!(
        e,
        E::RankMismatch {
            expected: 2,
            ellipsis: false,
            rank: 3
        }
    );
    let e = err("a ... b -> a b ...", &[2], &[], false);
    assert_eq!(
        e,
        E::RankMismatch {
            expected: 2,
            ellipsis: true,
            rank: 1
        }
    );
    assert!(e.to_string().contains("besides `...`"), "{e}");
}

#[test]
fn error_ellipsis_one_side() {
    let e = err("a -> a ...", &[2], &[], false);
    assert_eq!(e, E::EllipsisOneSide { side: Side::Right });
    let e = err("a ... -> a", &[2], &[], false);
    assert_eq!(e, E::EllipsisOneSide { side: Side::Left });
}

#[test]
fn error_ellipsis_twice() {
    let e = err("... ... -> ...", &[2], &[], false);
    assert_eq!(e, E::EllipsisTwice { side: Side::Left });
    let e = err("... -> (...) ...", &[2], &[], false);
    assert_eq!(e, E::EllipsisTwice { side: Side::Right });
}

#[test]
fn error_grouped_ellipsis() {
    assert_eq!(
        err("(a ...) -> a ...", &[2], &[], false),
        E::GroupedEllipsis
    );
    assert_eq!(err("(...) -> ...", &[2], &[], false), E::GroupedEllipsis);
}

#[test]
fn error_not_unit() {
    let e = err("a 1 -> a", &[2, 3], &[], false);
    assert_eq!(e, E::NotUnit { dim: 1, extent: 3 });
    // Padding does not apply to a unit dim.
    let e = err("() a -> a", &[0, 2], &[], true);
    assert_eq!(e, E::NotUnit { dim: 0, extent: 0 });
}

#[test]
fn error_zero_product() {
    for (extent, pad) in [(0, false), (4, false), (4, true)] {
        let e = err("(a b) -> a b", &[extent], &[("a", 0)], pad);
        let axis = "b".to_string();
        assert_eq!(
            e,
            E::ZeroProduct {
                axis,
                dim: 0,
                extent
            }
        );
    }
}

#[test]
fn error_overflow() {
    let max = usize::MAX;
    // A merged output dim, a padded dim, and the split tensor as a whole.
    assert_eq!(err("a b -> (a b)", &[max, 2], &[], false), E::Overflow);
    assert_eq!(err("(a b) -> a b", &[max], &[("a", 2)], true), E::Overflow);
    assert_eq!(err("a b -> b a", &[max, 2], &[], false), E::Overflow);
    assert_eq!(
        err("(a b) -> a b", &[1], &[("a", max), ("b", 2)], true),
        E::Overflow
    );
    // Caller-given strides whose products over the split axes leave isize: refused, where
    // wrapping would have made an outer axis a broadcast.
    let r = ok("(a b) c -> c b a", &[8, 3], &[("a", 2)]);
    assert_eq!(r.view(&[1 << 62, 1]), Err(E::Overflow));
    assert_eq!(r.cropped_views(&[1 << 62, 1], &[3, 4, 2]), Err(E::Overflow));
    assert!(r.view(&[1 << 58, 1]).is_ok());
}
