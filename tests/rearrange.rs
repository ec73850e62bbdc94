//! einops `rearrange` on the GPU: the library calls against hand-computed results and the
//! CPU reference, for every element size the patterns are used with; then (with the `cli`
//! feature) `wgpu-permute rearrange` end to end against `einops.rearrange` in python.

mod common;

use common::{gpu, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::rearrange::{RearrangeError, rearrange};
use wgpu_permute::{Kernel, PermuteError, Permuter, Plan, Relayout, read_buffer, reference};

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
            let (out, shape) = rearrange_bytes(p, &data, case.shape, case.pattern, case.axes, elem)
                .unwrap_or_else(|e| panic!("{} ({elem} B): {e}", case.pattern));
            assert_eq!(shape, case.out_shape, "{}", case.pattern);
            let want = gathered(&data, &case.gather, elem);
            assert!(out == want, "{} ({elem} B) differs by hand", case.pattern);
            let reference = reference::permute_bytes(&data, &r.split_shape, &r.perm, elem).unwrap();
            assert!(out == reference, "{} ({elem} B) differs", case.pattern);
        }
        // Typed, with values that are their own input index.
        let data: Vec<u32> = (0..n as u32).collect();
        let (out, shape) = rearrange_slice(p, &data, case.shape, case.pattern, case.axes).unwrap();
        assert_eq!(shape, case.out_shape);
        let want: Vec<u32> = case.gather.iter().map(|&i| i as u32).collect();
        assert_eq!(out, want, "{}", case.pattern);
        let halves: Vec<u16> = data.iter().map(|&v| v as u16 ^ 0xA500).collect();
        let (out, _) = rearrange_slice(p, &halves, case.shape, case.pattern, case.axes).unwrap();
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
            let (plan, shape) =
                rearrange_submit(p, &src, &dst, case.pattern, case.shape, case.axes, elem)
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
    let (out, shape) = rearrange_slice(p, &data, &[2, 3], "a b -> (a b)", &[]).unwrap();
    assert_eq!((out.as_slice(), shape.as_slice()), (&data[..], &[6][..]));
    // What a permute of the data would refuse, the skipped permute refuses too.
    assert_eq!(
        rearrange_slice(p, &data[..5], &[2, 3], "a b -> a b", &[]),
        Err(PermuteError::DataLength { need: 6, have: 5 })
    );
    assert_eq!(
        rearrange_bytes(p, &[0; 6], &[2], "a -> a", &[], 3),
        Err(PermuteError::ElemSize(3))
    );
    let (empty, shape) = rearrange_bytes(p, &[], &[0, 3], "a b -> b a", &[], 4).unwrap();
    assert_eq!((empty.len(), shape), (0, vec![3, 0]));
}

#[test]
fn pattern_errors_are_typed_and_name_the_axis() {
    let Some(p) = gpu() else { return };
    let data = [0u16; 12];
    let err = |pattern: &str, shape: &[usize], axes: &[(&str, usize)]| {
        rearrange_slice(p, &data, shape, pattern, axes).unwrap_err()
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
    let e = rearrange_submit(p, &src, &dst, "a b -> a", &[3, 4], &[], 2).unwrap_err();
    assert_eq!(
        e,
        PermuteError::Rearrange(RearrangeError::MissingAxis { axis: "b".into() })
    );
}

/// NCHW with 6 channels -> NCHW4c (padded to 8 channels with a fill) -> NCHW (cropped back
/// to 6): each one pass, each against the layout computed by hand, for every element size.
#[test]
fn padding_to_a_blocked_layout_and_cropping_back_round_trip() {
    let Some(p) = gpu() else { return };
    for elem in [1, 2, 4, 8, 16] {
        // Cropping 8/16-bit data writes rows of whole words: h * w a multiple of 4.
        let (n, c, h, w) = if elem < 4 { (2, 6, 2, 6) } else { (2, 6, 3, 5) };
        let shape = [n, c, h, w];
        let len = n * c * h * w;
        let data = test_bytes(len * elem, 40 + elem as u64);
        let fill: Vec<u8> = (0..elem as u8).map(|b| 0xF0 | b).collect();
        let to = "n (cb c) h w -> n cb h w c";
        let (blocked, out_shape) =
            rearrange_padded_bytes(p, &data, &shape, to, &[("c", 4)], elem, &fill)
                .unwrap_or_else(|e| panic!("{elem} B: {e}"));
        assert_eq!(out_shape, [n, 2, h, w, 4]);
        // By hand: channel cb * 4 + k of the input, or the fill past channel 5.
        let mut want = Vec::new();
        for (i0, i1, i2, i3, i4) in itertools(n, 2, h, w, 4) {
            let ch = i1 * 4 + i4;
            if ch < c {
                want.extend_from_slice(&data[(((i0 * c + ch) * h + i2) * w + i3) * elem..][..elem]);
            } else {
                want.extend_from_slice(&fill);
            }
        }
        assert!(blocked == want, "{elem} B: NCHW4c differs");
        let back = "n cb h w c -> n (cb c) h w";
        let cropped = rearrange_cropped_bytes(p, &blocked, &out_shape, back, &[], elem, &shape)
            .unwrap_or_else(|e| panic!("{elem} B: {e}"));
        assert!(cropped == data, "{elem} B: cropping back differs");
    }
    // Rows that do not fill whole words are refused, typed.
    let bytes = vec![0u8; 2 * 8 * 3 * 5];
    let e = rearrange_cropped_bytes(
        p,
        &bytes,
        &[2, 2, 3, 5, 4],
        "n cb h w c -> n (cb c) h w",
        &[],
        1,
        &[2, 6, 3, 5],
    )
    .unwrap_err();
    assert!(matches!(e, PermuteError::InvalidView(_)), "{e:?}");
    // Typed slices, and the buffer API.
    let (n, c, h, w) = (2, 6, 3, 5);
    let shape = [n, c, h, w];
    let len = n * c * h * w;
    let data: Vec<f32> = (0..len).map(|i| i as f32).collect();
    let (blocked, out_shape) = rearrange_padded_slice(
        p,
        &data,
        &shape,
        "n (cb c) h w -> n cb h w c",
        &[("c", 4)],
        -1.0,
    )
    .unwrap();
    assert_eq!(
        blocked.iter().filter(|&&v| v == -1.0).count(),
        n * 2 * h * w
    );
    let back: Vec<f32> = rearrange_cropped_slice(
        p,
        &blocked,
        &out_shape,
        "n cb h w c -> n (cb c) h w",
        &[],
        &shape,
    )
    .unwrap();
    assert_eq!(back, data);
    let bytes: &[u8] = bytemuck::cast_slice(&blocked);
    let [src, dst, readback] = buffers(p, bytes);
    let plans = rearrange_cropped(
        p,
        &src,
        &dst,
        "n cb h w c -> n (cb c) h w",
        &out_shape,
        &[],
        4,
        &shape,
    )
    .unwrap();
    assert_eq!(plans.len(), 2, "cb = 0 whole, then cb = 1 with c < 2");
    let mut encoder = p.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, readback.size());
    p.queue().submit([encoder.finish()]);
    let out = read_buffer(p.device(), &readback, (len * 4) as u64).unwrap();
    assert!(out == bytemuck::cast_slice::<f32, u8>(&data));
    // Errors: a crop larger than the output, a fill of the wrong size, a short input.
    let e = rearrange_cropped_slice(
        p,
        &blocked,
        &out_shape,
        "n cb h w c -> n (cb c) h w",
        &[],
        &[2, 9, 3, 5],
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            PermuteError::Rearrange(RearrangeError::CropTooLarge {
                dim: 1,
                extent: 8,
                crop: 9
            })
        ),
        "{e:?}"
    );
    let e = rearrange_padded_bytes(
        p,
        &data_bytes(&data),
        &shape,
        "n (cb c) h w -> n cb h w c",
        &[("c", 4)],
        4,
        &[0; 2],
    )
    .unwrap_err();
    assert_eq!(e, PermuteError::FillSize { fill: 2, elem: 4 });
    let e = rearrange_padded_slice(
        p,
        &data[1..],
        &shape,
        "n (cb c) h w -> n cb h w c",
        &[("c", 4)],
        0.0,
    )
    .unwrap_err();
    assert_eq!(
        e,
        PermuteError::DataLength {
            need: len,
            have: len - 1
        }
    );
}

fn data_bytes(data: &[f32]) -> Vec<u8> {
    bytemuck::cast_slice(data).to_vec()
}

/// Every index of a 5-dim shape, row-major.
fn itertools(
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    e: usize,
) -> Vec<(usize, usize, usize, usize, usize)> {
    let mut all = Vec::new();
    for i0 in 0..a {
        for i1 in 0..b {
            for i2 in 0..c {
                for i3 in 0..d {
                    for i4 in 0..e {
                        all.push((i0, i1, i2, i3, i4));
                    }
                }
            }
        }
    }
    all
}

#[cfg(feature = "cli")]
mod cli {
    //! `wgpu-permute rearrange` end to end: python writes arrays of many dtypes and
    //! layouts, the tool rearranges them, python checks each with `einops.rearrange`.

    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::common::{self, npy_file};

    const BIN: &str = env!("CARGO_BIN_EXE_wgpu-permute");

    /// Set to `1` to skip the tests that need python3 with numpy and einops.
    const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_PYTHON";

    /// Writes the arrays and a manifest of `name|pattern|axes` lines (axes as `h=2 w=3`).
    const MAKE: &str = r#"
import sys
try:
    import numpy as np, einops
except ImportError as e:
    print("missing;" + str(e))
    sys.exit(0)
d = sys.argv[1]
rng = np.random.default_rng(11)
cases = []
def array(dt, shape):
    n = int(np.prod(shape))
    if dt == "?":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.lstrip("<>").startswith("c"):
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    elif dt.lstrip("<>").startswith("f"):
        a = rng.standard_normal(n).astype(dt)
    else:
        a = rng.integers(0, 100, n).astype(dt)
    return a.reshape(shape)
def add(name, a, pattern, extra="", want=None, **axes):
    np.save(f"{d}/{name}.npy", a)
    if want is not None:
        np.save(f"{d}/{name}.want.npy", want)
    cases.append(f"{name}|{pattern}|{' '.join(f'{k}={v}' for k, v in axes.items())}|{extra}")
# Padding (np.pad, then einops) to a blocked layout, and cropping back (einops, then a slice).
blocked = "n (cb c) h w -> n cb h w c"
for dt, pad in [("f4", "-1.5"), ("u1", "255"), ("i2", "-7"), ("f2", "0.5"), ("f8", "2")]:
    a = array(dt, (2, 6, 3, 4))
    value = float(pad) if dt.startswith("f") else int(pad)
    grown = np.pad(a, [(0, 0), (0, 2), (0, 0), (0, 0)], constant_values=value)
    add(f"pad_{dt}", a, blocked, f"--pad {pad}", einops.rearrange(grown, blocked, c=4), c=4)
    f = np.asfortranarray(a)
    add(f"pad_fortran_{dt}", f, blocked, f"--pad {pad}", einops.rearrange(grown, blocked, c=4), c=4)
    b = array(dt, (2, 2, 3, 4, 4))
    back = "n cb h w c -> n (cb c) h w"
    add(f"crop_{dt}", b, back, "--crop 2,6,3,4", einops.rearrange(b, back)[:, :6])
be = array(">c8", (5, 3))
split = "(a b) c -> c a b"
grown = np.pad(be, [(0, 1), (0, 0)], constant_values=-2)
add("pad_bigendian_c8", be, split, "--pad -2", einops.rearrange(grown, split, b=2), b=2)
heads = ("b s (h d) -> b h s d", (2, 3, 16), {"h": 4})
nhwc = ("b c h w -> b h w c", (2, 3, 4, 5), {})
patches = ("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", (2, 3, 4, 6), {"p1": 2, "p2": 3})
merge = ("b h s d -> b s (h d)", (2, 3, 4, 5), {})
unflatten = ("b (h w) c -> b c h w", (2, 12, 3), {"h": 3})
ellipsis = ("... h w -> ... w h", (2, 3, 4, 5), {})
reshape = ("a b c -> a (b c)", (3, 4, 5), {})
for dt in ["u1", "i1", "u2", "i2", "f2", "u4", "i4", "f4", "u8", "i8", "f8", "c8", "c16", "?"]:
    for i, (pattern, shape, axes) in enumerate([heads, nhwc, patches]):
        add(f"{dt.replace('?', 'b')}_{i}", array(dt, shape), pattern, **axes)
for i, (pattern, shape, axes) in enumerate([merge, unflatten, ellipsis, reshape]):
    add(f"more_f4_{i}", array("f4", shape), pattern, **axes)
    add(f"more_u1_{i}", array("u1", shape), pattern, **axes)
add("fortran_split_f4", np.asfortranarray(array("f4", (6, 4))), "(h w) c -> c h w", h=2)
add("fortran_split_i2", np.asfortranarray(array("i2", (5, 12))), "c (h w) -> w c h", w=4)
add("fortran_patches_f2", np.asfortranarray(array("f2", patches[1])), patches[0], **patches[2])
add("fortran_heads_u1", np.asfortranarray(array("u1", heads[1])), heads[0], **heads[2])
add("fortran_reshape_i4", np.asfortranarray(array("i4", (3, 4))), "a b -> (a b)")
add("bigendian_f4", array(">f4", nhwc[1]), nhwc[0])
add("bigendian_i8", array(">i8", heads[1]), heads[0], **heads[2])
add("bigendian_c8", array(">c8", patches[1]), patches[0], **patches[2])
add("fortran_bigendian_f8", np.asfortranarray(array(">f8", (4, 6))), "(a b) c -> c b a", b=2)
open(f"{d}/manifest", "w").write("\n".join(cases))
"#;

    /// Checks every output against `einops.rearrange` of the numpy array.
    const CHECK: &str = r#"
import sys, numpy as np, einops
d = sys.argv[1]
n = 0
for line in open(f"{d}/manifest").read().split("\n"):
    name, pattern, axes, extra = line.split("|")
    axes = {k: int(v) for k, v in (a.split("=") for a in axes.split())}
    a = np.load(f"{d}/{name}.npy")
    b = np.load(f"{d}/{name}.out.npy")
    if extra:
        want = np.load(f"{d}/{name}.want.npy")
    else:
        want = einops.rearrange(a, pattern, **axes)
    assert b.shape == want.shape, (name, b.shape, want.shape)
    assert b.dtype.newbyteorder("=") == a.dtype.newbyteorder("="), (name, b.dtype, a.dtype)
    assert np.array_equal(b, want), name
    n += 1
print(f"einops agrees on {n} arrays")
"#;

    /// Runs a python script on `dir`; `None` (having said so) when python3, numpy or einops
    /// is missing and the skip variable is set. Without it, a missing module fails loudly.
    fn python(script: &str, dir: &Path) -> Option<String> {
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(dir)
            .output();
        let why = match &out {
            Err(e) => format!("cannot run python3: {e}"),
            Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("missing;") => {
                format!(
                    "python3 lacks a module: {}",
                    String::from_utf8_lossy(&o.stdout).trim()
                )
            }
            Ok(o) => {
                assert!(
                    o.status.success(),
                    "python failed:\n{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                return Some(String::from_utf8_lossy(&o.stdout).into_owned());
            }
        };
        if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
            eprintln!("skipped: {SKIP_VAR}=1 is set and {why}; the einops round trip did not run");
            return None;
        }
        panic!(
            "this test needs python3 with numpy and einops ({why}): scripts/setup.sh installs \
             them, or set {SKIP_VAR}=1 to skip it"
        );
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "wgpu-permute-rearrange-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Runs the tool; returns (exit code, stdout, stderr). A signal or a panic fails the test.
    fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let out = Command::new(BIN)
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{args:?}: crashed ({:?}): {}",
            out.status,
            text(&out.stderr)
        );
        (code.unwrap(), text(&out.stdout), text(&out.stderr))
    }

    #[test]
    fn einops_agrees_over_dtypes_patterns_and_layouts() {
        if common::gpu().is_none() {
            return;
        }
        let dir = temp_dir("einops");
        let Some(_) = python(MAKE, &dir) else { return };
        let manifest = std::fs::read_to_string(dir.join("manifest")).unwrap();
        let mut count = 0;
        for line in manifest.lines() {
            let [name, pattern, axes, extra] = line.split('|').collect::<Vec<_>>()[..] else {
                panic!("bad manifest line {line:?}");
            };
            let (input, output) = (
                dir.join(format!("{name}.npy")),
                dir.join(format!("{name}.out.npy")),
            );
            let mut args = vec![
                "rearrange",
                "--check",
                pattern,
                input.to_str().unwrap(),
                output.to_str().unwrap(),
            ];
            for axis in axes.split_whitespace() {
                args.extend(["--axis", axis]);
            }
            args.extend(extra.split_whitespace());
            let (code, stdout, stderr) = run(&args, &[]);
            assert_eq!(code, 0, "{name}: {stderr}");
            assert!(
                stdout.contains("check: equal to the CPU reference"),
                "{name}: {stdout}"
            );
            count += 1;
        }
        let report = python(CHECK, &dir).unwrap();
        assert!(
            report.contains(&format!("einops agrees on {count} arrays")),
            "{report}"
        );
        assert!(count >= 59, "{count}");
        std::fs::remove_dir_all(dir).ok();
    }

    /// No adapter can be found under this environment (no Metal on Linux): the refusals
    /// below happen before any GPU work.
    const NO_GPU: &[(&str, &str)] = &[("WGPU_BACKEND", "metal")];

    #[test]
    fn bad_input_is_refused_in_one_line_before_any_gpu_work() {
        let dir = temp_dir("errors");
        let write = |name: &str, descr: &str, data: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, npy_file(descr, false, "(3, 4)", data)).unwrap();
            path.to_str().unwrap().to_string()
        };
        let u8_file = write("u8.npy", "|u1", &[7; 12]);
        let i8_file = write("i8.npy", "|i1", &[7; 12]);
        let f4_file = write("f4.npy", "<f4", &[0; 48]);
        let out = dir.join("out.npy");
        let out = out.to_str().unwrap();
        let missing = dir.join("no/such/out.npy");
        let split = "a (b p) -> a b p";
        let cases: &[(&[&str], &str, &str)] = &[
            (
                &["a b -> a q"],
                &u8_file,
                "axis `q` is on the right of `->`",
            ),
            (&["a b -> a"], &u8_file, "axis `b` is on the left of `->`"),
            (
                &[split, "--axis", "p=3"],
                &u8_file,
                "cannot infer axis `b`: input dim 1 of extent 4 is not a multiple of 3",
            ),
            (
                &["a b c -> c b a"],
                &u8_file,
                "the pattern's left side has 3 dims but the shape has 2",
            ),
            (
                &["a b -> b a", "--axis", "z=2"],
                &u8_file,
                "a size is given for axis `z`",
            ),
            (
                &[split, "--axis", "p"],
                &u8_file,
                "--axis \"p\" is not NAME=SIZE",
            ),
            (
                &[split, "--axis", "p=two"],
                &u8_file,
                "--axis \"p=two\" is not NAME=SIZE",
            ),
            (
                &[split, "--axis", "=2"],
                &u8_file,
                "--axis \"=2\" is not NAME=SIZE",
            ),
            (
                &[split, "--axis", "p=2", "--pad", "1.5"],
                &i8_file,
                "--pad 1.5 is not an integer (the file's dtype is int8)",
            ),
            (
                &[split, "--axis", "p=2", "--pad", "300"],
                &u8_file,
                "--pad 300 is out of range for uint8 (0 to 255)",
            ),
            (
                &[split, "--axis", "p=2", "--pad", "-1"],
                &u8_file,
                "--pad -1 is out of range for uint8 (0 to 255)",
            ),
            (
                &[split, "--axis", "p=2", "--pad", "true"],
                &f4_file,
                "--pad true is not a number (the file's dtype is float32)",
            ),
            (
                &["a b -> b a", "--crop", "4,9"],
                &f4_file,
                "output dim 1 has extent 3, so it cannot be cropped to 9",
            ),
            (
                &["a b -> b a", "--crop", "4"],
                &f4_file,
                "the crop has 1 extents for an output of 2 dims",
            ),
        ];
        for (extra, input, want) in cases {
            let mut args = vec!["rearrange", extra[0], input, out];
            args.extend(&extra[1..]);
            let (code, _, stderr) = run(&args, NO_GPU);
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(
                stderr.starts_with("error: ") && stderr.lines().count() == 1,
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains(want), "{args:?}: {stderr}");
            assert!(!Path::new(out).exists(), "{args:?} wrote {out}");
        }
        // The output target is checked first, before the input is even read.
        let (code, _, stderr) = run(
            &[
                "rearrange",
                "a b -> b a",
                "/nonexistent.npy",
                missing.to_str().unwrap(),
            ],
            NO_GPU,
        );
        assert_eq!(code, 1);
        assert!(
            stderr.contains("does not exist") && stderr.contains("no/such"),
            "{stderr}"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    /// `--pad -1` as people type it, on an int8 file whose pattern needs no padding: taken,
    /// and the result is einops' (here a reshape: the same bytes under a new shape).
    #[test]
    fn a_pad_value_is_accepted_where_nothing_needs_padding() {
        if common::gpu().is_none() {
            return;
        }
        let dir = temp_dir("pad");
        let input = dir.join("i8.npy");
        let data: Vec<u8> = (0..12).map(|i| (i as i8 - 6) as u8).collect();
        std::fs::write(&input, npy_file("|i1", false, "(3, 4)", &data)).unwrap();
        let output = dir.join("out.npy");
        let (input, output) = (input.to_str().unwrap(), output.to_str().unwrap());
        for pad in [&["--pad", "-1"][..], &["--pad=-1"], &["--pad", "-128"]] {
            let mut args = vec!["rearrange", "a (b p) -> a b p", input, output];
            args.extend(["--axis", "p=2", "--check"]);
            args.extend(pad);
            let (code, stdout, stderr) = run(&args, &[]);
            assert_eq!(code, 0, "{pad:?}: {stderr}");
            assert!(
                stdout.contains("[3, 4] -> ") && stdout.contains("[3, 2, 2]"),
                "{stdout}"
            );
            let written = std::fs::read(output).unwrap();
            assert!(written.ends_with(&data), "{pad:?}");
            let header = String::from_utf8_lossy(&written[..written.len() - data.len()]);
            assert!(header.contains("'shape': (3, 2, 2"), "{header}");
            std::fs::remove_file(output).unwrap();
        }
        std::fs::remove_dir_all(dir).ok();
    }
}

// The host round trips and submissions of einops patterns, through [`Relayout`]: what an
// app writes, in the argument order the cases below were written in.

type Moved<T> = Result<(Vec<T>, Vec<usize>), PermuteError>;

fn run<T: bytemuck::Pod>(p: &Permuter, op: Result<Relayout, PermuteError>, data: &[T]) -> Moved<T> {
    let op = op?;
    Ok((p.run(&op, data)?, op.out_shape().to_vec()))
}

fn rearrange_slice<T: bytemuck::Pod>(
    p: &Permuter,
    data: &[T],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
) -> Moved<T> {
    run(
        p,
        Relayout::rearrange(pattern, shape, axes, size_of::<T>()),
        data,
    )
}

fn rearrange_bytes(
    p: &Permuter,
    data: &[u8],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
    elem: usize,
) -> Moved<u8> {
    run(p, Relayout::rearrange(pattern, shape, axes, elem), data)
}

fn rearrange_padded_bytes(
    p: &Permuter,
    data: &[u8],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
    elem: usize,
    fill: &[u8],
) -> Moved<u8> {
    run(
        p,
        Relayout::rearrange_padded(pattern, shape, axes, elem, fill),
        data,
    )
}

fn rearrange_padded_slice<T: bytemuck::Pod>(
    p: &Permuter,
    data: &[T],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
    fill: T,
) -> Moved<T> {
    let op = Relayout::rearrange_padded(
        pattern,
        shape,
        axes,
        size_of::<T>(),
        bytemuck::bytes_of(&fill),
    );
    run(p, op, data)
}

fn rearrange_cropped_bytes(
    p: &Permuter,
    data: &[u8],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
    elem: usize,
    crop: &[usize],
) -> Result<Vec<u8>, PermuteError> {
    let op = Relayout::rearrange_cropped(pattern, shape, axes, elem, crop);
    run(p, op, data).map(|(out, _)| out)
}

fn rearrange_cropped_slice<T: bytemuck::Pod>(
    p: &Permuter,
    data: &[T],
    shape: &[usize],
    pattern: &str,
    axes: &[(&str, usize)],
    crop: &[usize],
) -> Result<Vec<T>, PermuteError> {
    let op = Relayout::rearrange_cropped(pattern, shape, axes, size_of::<T>(), crop);
    run(p, op, data).map(|(out, _)| out)
}

/// Records `op` on its own and submits it; its plans.
fn submit(
    p: &Permuter,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    op: Relayout,
) -> Result<Vec<Plan>, PermuteError> {
    let op = p.prepare(&op)?;
    let mut encoder = p.device().create_command_encoder(&Default::default());
    p.record(&mut encoder, src, dst, &op)?;
    p.queue().submit([encoder.finish()]);
    Ok(op.plans().to_vec())
}

fn rearrange_submit(
    p: &Permuter,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    pattern: &str,
    shape: &[usize],
    axes: &[(&str, usize)],
    elem: usize,
) -> Result<(Plan, Vec<usize>), PermuteError> {
    let op = Relayout::rearrange(pattern, shape, axes, elem)?;
    let out_shape = op.out_shape().to_vec();
    Ok((submit(p, src, dst, op)?.remove(0), out_shape))
}

#[allow(clippy::too_many_arguments)]
fn rearrange_cropped(
    p: &Permuter,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    pattern: &str,
    shape: &[usize],
    axes: &[(&str, usize)],
    elem: usize,
    crop: &[usize],
) -> Result<Vec<Plan>, PermuteError> {
    submit(
        p,
        src,
        dst,
        Relayout::rearrange_cropped(pattern, shape, axes, elem, crop)?,
    )
}
