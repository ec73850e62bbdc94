//! einops `rearrange` on the GPU: the library calls against hand-computed results and the
//! CPU reference, for every element size the patterns are used with.

mod common;

use common::{gpu, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::rearrange::{RearrangeError, rearrange};
use wgpu_permute::{Kernel, PermuteError, read_buffer, reference};

/// A pattern with its shape and axis sizes, and the input element index of each output
/// element in output order, computed by hand (not from the planner's split and perm).
struct Known {
    pattern: &'static str,
    shape: &'static [usize],
    axes: &'static [(&'static str, usize)],
    out_shape: &'static [usize],
    gather: Vec<usize>,
}

/// The input index of every output element, for the output index ranges `out` (row-major,
/// last fastest) and the input index of one output index.
fn walk(out: &[usize], input: impl Fn(&[usize]) -> usize) -> Vec<usize> {
    let mut index = vec![0; out.len()];
    let mut gather = Vec::new();
    if out.contains(&0) {
        return gather;
    }
    loop {
        gather.push(input(&index));
        let Some(d) = (0..out.len()).rev().find(|&d| index[d] + 1 < out[d]) else {
            return gather;
        };
        index[d] += 1;
        index[d + 1..].iter_mut().for_each(|i| *i = 0);
    }
}

fn known_cases() -> Vec<Known> {
    vec![
        // Attention heads: (b, s, h*d) -> (b, h, s, d), h = 2, d = 4.
        Known {
            pattern: "b s (h d) -> b h s d",
            shape: &[2, 3, 8],
            axes: &[("h", 2)],
            out_shape: &[2, 2, 3, 4],
            gather: walk(&[2, 2, 3, 4], |i| i[0] * 24 + i[2] * 8 + i[1] * 4 + i[3]),
        },
        // NCHW -> NHWC.
        Known {
            pattern: "b c h w -> b h w c",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 4, 5, 3],
            gather: walk(&[2, 4, 5, 3], |i| i[0] * 60 + i[3] * 20 + i[1] * 5 + i[2]),
        },
        // Patches of 2 x 3 of a (2, 3, 4, 6) image batch: h = 2, w = 2.
        Known {
            pattern: "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
            shape: &[2, 3, 4, 6],
            axes: &[("p1", 2), ("p2", 3)],
            out_shape: &[2, 4, 18],
            gather: walk(&[2, 2, 2, 2, 3, 3], |i| {
                let [b, h, w, p1, p2, c] = i.try_into().unwrap();
                b * 72 + c * 24 + (h * 2 + p1) * 6 + w * 3 + p2
            }),
        },
        // Heads merged back: (b, h, s, d) -> (b, s, h*d).
        Known {
            pattern: "b h s d -> b s (h d)",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 4, 15],
            gather: walk(&[2, 4, 3, 5], |i| i[0] * 60 + i[2] * 20 + i[1] * 5 + i[3]),
        },
        // Only a reshape: nothing moves.
        Known {
            pattern: "a b c -> a (b c) 1",
            shape: &[2, 3, 4],
            axes: &[],
            out_shape: &[2, 12, 1],
            gather: (0..24).collect(),
        },
        // The dims under `...` move as one block.
        Known {
            pattern: "b ... c -> b c ...",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 5, 3, 4],
            gather: walk(&[2, 5, 3, 4], |i| i[0] * 60 + i[2] * 20 + i[3] * 5 + i[1]),
        },
    ]
}

fn gathered(data: &[u8], gather: &[usize], elem: usize) -> Vec<u8> {
    gather
        .iter()
        .flat_map(|&i| &data[i * elem..][..elem])
        .copied()
        .collect()
}

#[test]
fn host_rearranges_match_hand_computed_results_and_the_reference() {
    let Some(p) = gpu() else { return };
    for case in known_cases() {
        let r = rearrange(case.pattern, case.shape, case.axes, false).unwrap();
        let n: usize = case.shape.iter().product();
        for elem in [1, 2, 4, 8] {
            let data = test_bytes(n * elem, n as u64 + elem as u64);
            let (out, shape) = p
                .rearrange_bytes(&data, case.shape, case.pattern, case.axes, elem)
                .unwrap_or_else(|e| panic!("{} ({elem} B): {e}", case.pattern));
            assert_eq!(shape, case.out_shape, "{}", case.pattern);
            let want = gathered(&data, &case.gather, elem);
            assert!(out == want, "{} ({elem} B) differs by hand", case.pattern);
            let reference = reference::permute_bytes(&data, &r.split_shape, &r.perm, elem).unwrap();
            assert!(out == reference, "{} ({elem} B) differs", case.pattern);
        }
        // Typed, with values that are their own input index.
        let data: Vec<u32> = (0..n as u32).collect();
        let (out, shape) = p
            .rearrange_slice(&data, case.shape, case.pattern, case.axes)
            .unwrap();
        assert_eq!(shape, case.out_shape);
        let want: Vec<u32> = case.gather.iter().map(|&i| i as u32).collect();
        assert_eq!(out, want, "{}", case.pattern);
        let halves: Vec<u16> = data.iter().map(|&v| v as u16 ^ 0xA500).collect();
        let (out, _) = p
            .rearrange_slice(&halves, case.shape, case.pattern, case.axes)
            .unwrap();
        let want: Vec<u16> = case.gather.iter().map(|&i| halves[i]).collect();
        assert_eq!(out, want, "{}", case.pattern);
    }
}

/// Buffers of `bytes` for a rearrange: source holding them, destination, readback.
fn buffers(p: &wgpu_permute::Permuter, bytes: &[u8]) -> [wgpu::Buffer; 3] {
    let device = p.device();
    let size = (bytes.len() as u64).next_multiple_of(4);
    let mut padded = bytes.to_vec();
    padded.resize(size as usize, 0);
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &padded,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let buffer = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let dst = buffer(
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    [src, dst, readback]
}

#[test]
fn gpu_buffers_are_rearranged_in_one_permute() {
    let Some(p) = gpu() else { return };
    for case in known_cases() {
        let n: usize = case.shape.iter().product();
        for elem in [1, 2, 4, 8] {
            let data = test_bytes(n * elem, 7 * n as u64 + elem as u64);
            let [src, dst, readback] = buffers(p, &data);
            let (plan, shape) = p
                .rearrange(&src, &dst, case.pattern, case.shape, case.axes, elem)
                .unwrap_or_else(|e| panic!("{} ({elem} B): {e}", case.pattern));
            assert_eq!(shape, case.out_shape);
            let r = rearrange(case.pattern, case.shape, case.axes, false).unwrap();
            assert_eq!((&plan.shape, &plan.perm), (&r.split_shape, &r.perm));
            // An identity still copies, when the bytes are whole words.
            if r.is_identity() && (n * elem).is_multiple_of(4) {
                assert_eq!(plan.kernel, Kernel::Copy, "{}", case.pattern);
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
    let (out, shape) = p
        .rearrange_slice(&data, &[2, 3], "a b -> (a b)", &[])
        .unwrap();
    assert_eq!((out.as_slice(), shape.as_slice()), (&data[..], &[6][..]));
    // What a permute of the data would refuse, the skipped permute refuses too.
    assert_eq!(
        p.rearrange_slice(&data[..5], &[2, 3], "a b -> a b", &[]),
        Err(PermuteError::DataLength { need: 6, have: 5 })
    );
    assert_eq!(
        p.rearrange_bytes(&[0; 6], &[2], "a -> a", &[], 3),
        Err(PermuteError::ElemSize(3))
    );
    let (empty, shape) = p
        .rearrange_bytes(&[], &[0, 3], "a b -> b a", &[], 4)
        .unwrap();
    assert_eq!((empty.len(), shape), (0, vec![3, 0]));
}

#[test]
fn pattern_errors_are_typed_and_name_the_axis() {
    let Some(p) = gpu() else { return };
    let data = [0u16; 12];
    let err = |pattern: &str, shape: &[usize], axes: &[(&str, usize)]| {
        p.rearrange_slice(&data, shape, pattern, axes).unwrap_err()
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
    let e = p
        .rearrange(&src, &dst, "a b -> a", &[3, 4], &[], 2)
        .unwrap_err();
    assert_eq!(
        e,
        PermuteError::Rearrange(RearrangeError::MissingAxis { axis: "b".into() })
    );
}
