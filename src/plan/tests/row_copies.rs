//! Row copies (`Plan::row_copies`): where a CPU device moves each output row as a buffer
//! copy, the copies' offsets, and where they are refused.

use super::*;
use crate::Relayout;
use crate::convert::{Conversion, Dtype};

fn planned(req: Request, caps: &DeviceCaps) -> Result<crate::Plan, PermuteError> {
    plan::plan(&req, caps)
}

/// NCHW -> CNHW of 224x224 f32 planes (196 KiB rows) moves as one buffer copy per plane on
/// a CPU device, in output order, at the request's offsets; rows of 12 KiB, and of 64 KiB
/// of any element size, do too. GPUs, shorter rows, rows that are not whole words and
/// transposes keep the kernel.
#[test]
fn long_rows_move_as_buffer_copies_on_cpu_devices() {
    let plane = 224 * 224 * 4;
    let req = Request::new(&[2, 3, 224, 224], &[1, 0, 2, 3], 4).with_offsets(4, 8);
    let p = planned(req, &cpu()).unwrap();
    assert!(p.cpu.row_copies, "{p}");
    assert_eq!(p.row_copy_rows(), Some((6, plane)), "{p}");
    let (steps, bytes) = p.row_copy_steps();
    assert_eq!(bytes, plane);
    // Output row (c, n) comes from input plane (n, c).
    let want: Vec<(u64, u64)> = (0..3u64)
        .flat_map(|c| (0..2u64).map(move |n| (c, n)))
        .enumerate()
        .map(|(i, (c, n))| (4 + (n * 3 + c) * plane, 8 + i as u64 * plane))
        .collect();
    assert_eq!(steps, want, "{p}");
    assert!(
        p.explain()
            .iter()
            .any(|w| w.contains("6 copies of 200704 bytes")),
        "{p}"
    );
    assert!(p.to_string().contains("or 6 buffer copies"), "{p}");
    // 12 KiB rows, the least that copy.
    let p = planned(Request::new(&[2, 3, 48, 64], &[1, 0, 2, 3], 4), &cpu()).unwrap();
    assert_eq!(p.copied_rows(), Some((6, 12288)), "{p}");
    for elem in [1, 2, 4, 8, 16] {
        let row = 65536 / elem;
        let p = planned(Request::new(&[3, 2, row], &[1, 0, 2], elem), &cpu()).unwrap();
        assert_eq!(
            (p.cpu.row_copies, p.row_copy_rows()),
            (true, Some((6, 65536))),
            "{p}"
        );
    }
    for (req, caps) in [
        (
            Request::new(&[2, 3, 224, 224], &[1, 0, 2, 3], 4),
            DeviceCaps::default(),
        ),
        (Request::new(&[2, 3, 47, 64], &[1, 0, 2, 3], 4), cpu()),
        (Request::new(&[2, 3, 65537], &[1, 0, 2], 1), cpu()),
        (Request::new(&[2, 3, 32769], &[1, 0, 2], 2), cpu()),
        (Request::new(&[67108865], &[0], 2), cpu()),
        (Request::new(&[512, 512], &[1, 0], 4), cpu()),
    ] {
        let p = planned(req, &caps).unwrap();
        assert!(!p.cpu.row_copies, "{p}");
        assert!(p.row_copy_steps().0.is_empty(), "{p}");
    }
}

/// Views whose rows stay contiguous copy too: a flip of the outer dim reads its rows
/// bottom up, a broadcast row is read once per copy. Bounds, reversed rows and conversions
/// do not.
#[test]
fn views_of_whole_rows_copy_and_others_do_not() {
    let rows = View::contiguous(&[4, 16384]);
    let flipped = Relayout::view(rows.clone().invert_axis(0).unwrap(), 4 * 16384, 4).unwrap();
    let p = flipped.plan(&cpu()).unwrap().remove(0);
    assert!(p.cpu.row_copies, "{p}");
    let (steps, bytes) = p.row_copy_steps();
    let row = 65536;
    assert_eq!(bytes, row);
    assert_eq!(
        steps,
        [(3 * row, 0), (2 * row, row), (row, 2 * row), (0, 3 * row)]
    );
    let broadcast = View::contiguous(&[1, 16384])
        .broadcast(&[4, 16384])
        .unwrap();
    let p = Relayout::view(broadcast, 16384, 4)
        .unwrap()
        .plan(&cpu())
        .unwrap()
        .remove(0);
    assert_eq!(
        p.row_copy_steps().0,
        [(0, 0), (0, row), (0, 2 * row), (0, 3 * row)],
        "{p}"
    );
    let reversed = Relayout::view(rows.invert_axis(1).unwrap(), 4 * 16384, 4).unwrap();
    let p = reversed.plan(&cpu()).unwrap().remove(0);
    assert!(!p.cpu.row_copies, "{p}");
    let c = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let req = Request {
        conversion: Some(&c),
        ..Request::new(&[3, 2, 16384], &[1, 0, 2], 4)
    };
    assert!(!planned(req, &cpu()).unwrap().cpu.row_copies);
}

/// Forced on, short rows copy on any device; forced off, or a kernel forced, long ones keep
/// the kernel; forced on where rows do not stay whole or elements convert, the request is
/// refused.
#[test]
fn forced_row_copies() {
    let on = Options {
        row_copies: Some(true),
        ..Options::default()
    };
    let off = Options {
        row_copies: Some(false),
        ..Options::default()
    };
    let p = planned(
        Request::new(&[16, 8, 64], &[1, 0, 2], 4).with_options(on),
        &DeviceCaps::default(),
    );
    let p = p.unwrap();
    assert_eq!(
        (p.cpu.row_copies, p.row_copy_steps().0.len()),
        (true, 128),
        "{p}"
    );
    let p = planned(
        Request::new(&[2, 3, 224, 224], &[1, 0, 2, 3], 4).with_options(off),
        &cpu(),
    );
    assert!(!p.unwrap().cpu.row_copies);
    let r = planned(
        Request::new(&[512, 512], &[1, 0], 4).with_options(on),
        &cpu(),
    );
    assert!(
        matches!(
            r,
            Err(PermuteError::ForcedChoice {
                what: "row copies",
                ..
            })
        ),
        "{r:?}"
    );
    let c = Conversion::new(Dtype::F32, Dtype::F16).unwrap();
    let converting = Request {
        conversion: Some(&c),
        ..Request::new(&[3, 2, 16384], &[1, 0, 2], 4).with_options(on)
    };
    let r = planned(converting, &cpu());
    assert!(
        matches!(
            r,
            Err(PermuteError::ForcedChoice {
                what: "row copies",
                ..
            })
        ),
        "{r:?}"
    );
    // A forced kernel runs as forced.
    let generic = Options {
        kernel: Some(Kernel::Generic),
        ..Options::default()
    };
    let req = Request::new(&[2, 3, 224, 224], &[1, 0, 2, 3], 4).with_options(generic);
    assert!(!planned(req, &cpu()).unwrap().cpu.row_copies);
}
