//! Writes stay inside what the caller gave: views recorded into caller-given regions of
//! larger buffers (guard bytes on both sides), parts of one output, sizes near 2^63 at
//! every GPU entry point, and buffers wgpu would only refuse at submit (destroyed, or of
//! another instance).

mod common;

use common::{SENTINEL, buffer, encode, gpu, own_device, permute_bytes, submit, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::plan::ELEM_SIZES;
use wgpu_permute::{Options, PermuteError, Permuter, Relayout, View, ViewRequest, read_buffer};

/// A small deterministic generator (xorshift), so failures replay.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A random view (some unsound) of an `elem`-byte source: rank 1-3, extents 0-6, source
/// strides -7..=7 with the offset at the lowest legal start (sometimes one off), and no,
/// nested or arbitrary destination strides; the destination length is its span plus
/// 0-2 elements (sometimes one short).
fn random_view(rng: &mut Rng) -> (View, usize, usize) {
    let rank = 1 + rng.below(3) as usize;
    let shape: Vec<usize> = (0..rank).map(|_| rng.below(7) as usize).collect();
    let strides: Vec<isize> = (0..rank).map(|_| rng.below(15) as isize - 7).collect();
    let low: isize = shape
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| (n.max(1) as isize - 1) * s.min(0))
        .sum();
    let high: isize = shape
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| (n.max(1) as isize - 1) * s.max(0))
        .sum();
    let nudge = [0, 0, 0, 0, 0, -1, 1][rng.below(7) as usize];
    let offset = -low + nudge;
    let src_len = (high - low + 1).max(0) as usize + rng.below(2) as usize;
    let dst_strides = match rng.below(3) {
        0 => None,
        1 => {
            // Nested, innermost first in a random order, with gaps.
            let mut order: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut dst = vec![0; rank];
            let mut span = 1;
            for d in order {
                dst[d] = span + rng.below(3) as usize;
                span += dst[d] * (shape[d].max(1) - 1);
            }
            Some(dst)
        }
        _ => Some((0..rank).map(|_| rng.below(9) as usize).collect()),
    };
    let view = View {
        shape,
        strides,
        offset,
        bounds: Vec::new(),
        dst_strides,
    };
    let span = view.dst_span().unwrap();
    let dst_len = (span + rng.below(3) as usize).saturating_sub(rng.below(5) as usize / 4);
    (view, src_len, dst_len)
}

/// The bytes a sound view leaves in a destination buffer of `SENTINEL`s whose region starts
/// at `dst_offset`: every position's source element at its destination element, gathered
/// with plain index arithmetic; nothing else changes.
fn gathered(
    v: &View,
    src: &[u8],
    src_offset: usize,
    elem: usize,
    dst: &mut [u8],
    dst_offset: usize,
) {
    let mut at = vec![0usize; v.shape.len()];
    for _ in 0..v.len() {
        let s = src_offset + v.source(&at) as usize * elem;
        let d = dst_offset + v.destination(&at) * elem;
        dst[d..d + elem].copy_from_slice(&src[s..s + elem]);
        for k in (0..at.len()).rev() {
            at[k] += 1;
            if at[k] < v.shape[k] {
                break;
            }
            at[k] = 0;
        }
    }
}

/// Guard bytes on each side of a region.
const GUARD: usize = 32;

/// Records `view` from a source region into a destination region (both between guard
/// bytes, at word offsets that vary with `seed`), submits, and compares the whole
/// destination buffer with the gather. `Ok(false)` when the view was refused.
fn run_in_region(
    p: &Permuter,
    view: &View,
    elem: usize,
    (src_len, dst_len): (usize, usize),
    seed: u64,
) -> Result<bool, String> {
    let device = p.device();
    let (src_offset, dst_offset) = (
        GUARD + 4 * (seed % 3) as usize,
        GUARD + 4 * (seed % 5) as usize,
    );
    let src_bytes = test_bytes(src_offset + src_len * elem + GUARD, seed);
    let dst_size = (dst_offset + dst_len * elem + GUARD).next_multiple_of(4);
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("region src"),
        contents: &src_bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let dst = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("region dst"),
        contents: &vec![SENTINEL; dst_size],
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("region readback"),
        size: dst_size as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let op = match Relayout::parts(vec![(view.clone(), 0)], src_len, dst_len, elem) {
        Ok(op) => op.with_offsets(src_offset as u64, dst_offset as u64),
        Err(_) => return Ok(false),
    };
    let mut encoder = device.create_command_encoder(&Default::default());
    let plan = match p.prepare(&op) {
        Ok(op) if p.record(&mut encoder, &src, &dst, &op).is_ok() => op.plans()[0].clone(),
        _ => return Ok(false),
    };
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, dst_size as u64);
    p.queue().submit([encoder.finish()]);
    let got = read_buffer(device, &readback, dst_size as u64).map_err(|e| e.to_string())?;
    let mut want = vec![SENTINEL; dst_size];
    gathered(view, &src_bytes, src_offset, elem, &mut want, dst_offset);
    match got.iter().zip(&want).position(|(a, b)| a != b) {
        None => Ok(true),
        Some(i) => Err(format!(
            "{view:?} ({elem} B, src {src_len} at {src_offset}, dst {dst_len} at {dst_offset}): \
             byte {i} is {:#04x}, want {:#04x} ({})\n  plan: {plan}",
            got[i],
            want[i],
            if i < dst_offset || i >= dst_offset + dst_len * elem {
                "outside the region"
            } else {
                "inside"
            }
        )),
    }
}

#[test]
fn random_views_write_exactly_their_positions_inside_the_region() {
    let Some(p) = gpu() else { return };
    let mut rng = Rng(0x5EED_1234_ABCD);
    let (mut accepted, mut failures) = (0, Vec::new());
    let total = 600;
    for i in 0..total {
        let (view, src_len, dst_len) = random_view(&mut rng);
        let elem = ELEM_SIZES[rng.below(ELEM_SIZES.len() as u64) as usize];
        // What the plain check says must agree with what the GPU path accepts.
        let sound = view.check(src_len, dst_len).is_ok();
        match run_in_region(p, &view, elem, (src_len, dst_len), i) {
            Ok(true) if !sound => failures.push(format!("{view:?}: unsound but accepted")),
            Ok(true) => accepted += 1,
            Ok(false) => {}
            Err(m) => failures.push(m),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        accepted > total / 4,
        "only {accepted} of {total} views were accepted"
    );
}

/// A destination from another instance whose id matches an unrelated buffer of the
/// permuter's device, of the same size and usage: wgpu would write into that unrelated
/// buffer. Refused before anything is recorded, on the copy and the shader path.
#[test]
fn a_foreign_buffer_that_aliases_one_of_ours_is_refused() {
    if gpu().is_none() {
        return;
    }
    use wgpu::BufferUsages as U;
    let usage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
    let (a, a_queue) = own_device(|_| {});
    let (b, _) = own_device(|_| {});
    let p = Permuter::new(&a, &a_queue).unwrap();
    let unrelated = buffer(&a, 256, usage);
    let src = buffer(&a, 256, usage);
    let foreign = buffer(&b, 256, usage);
    assert!(
        unrelated == foreign,
        "the first buffers of two devices share an id"
    );
    for perm in [[0usize, 1], [1, 0]] {
        let req = wgpu_permute::Request::new(&[4, 8], &perm, 4);
        let mut encoder = a.create_command_encoder(&Default::default());
        assert_eq!(
            encode(&p, &mut encoder, &src, &foreign, &req),
            Err(PermuteError::ForeignBuffer {
                which: "destination"
            }),
            "{perm:?}"
        );
        assert_eq!(
            encode(&p, &mut encoder, &foreign, &src, &req),
            Err(PermuteError::ForeignBuffer { which: "source" }),
            "{perm:?}"
        );
        // Nothing was recorded: the encoder still submits.
        a_queue.submit([encoder.finish()]);
    }
    // Our own buffers still work, and one buffer twice is still `SameBuffer`.
    let req = wgpu_permute::Request::new(&[4, 8], &[1, 0], 4);
    assert!(submit(&p, &src, &unrelated, &req).is_ok());
    assert_eq!(submit(&p, &src, &src, &req), Err(PermuteError::SameBuffer));
}

/// Destroyed or mapped buffers are refused at `encode`, on the copy path too, instead of
/// a panic in the caller's submit.
#[test]
fn destroyed_and_mapped_buffers_are_refused_before_recording() {
    let Some(p) = gpu() else { return };
    use wgpu::BufferUsages as U;
    let device = p.device();
    let usage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
    for perm in [[0usize, 1], [1, 0]] {
        let req = wgpu_permute::Request::new(&[4, 8], &perm, 4);
        for which in ["source", "destination"] {
            let (src, dst) = (buffer(device, 128, usage), buffer(device, 128, usage));
            let dead = if which == "source" { &src } else { &dst };
            dead.destroy();
            let mut encoder = device.create_command_encoder(&Default::default());
            assert_eq!(
                encode(p, &mut encoder, &src, &dst, &req),
                Err(PermuteError::DestroyedBuffer { which }),
                "{perm:?}"
            );
            p.queue().submit([encoder.finish()]);
        }
        let src = buffer(device, 128, usage);
        let mapped = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mapped"),
            size: 128,
            usage,
            mapped_at_creation: true,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        assert_eq!(
            encode(p, &mut encoder, &src, &mapped, &req),
            Err(PermuteError::MappedBuffer {
                which: "destination"
            })
        );
        // Still mapped: the check did not unmap it.
        assert!(mapped.slice(..).get_mapped_range().is_ok());
        mapped.unmap();
        assert!(encode(p, &mut encoder, &src, &mapped, &req).is_ok());
        p.queue().submit([encoder.finish()]);
    }
}

/// Parts of one output that overlap, or repeat, are refused on the GPU path as in the
/// reference; no parts with a bad element size too; sizes near 2^63 are typed errors.
#[test]
fn parts_and_huge_sizes_get_typed_errors_on_the_gpu() {
    let Some(p) = gpu() else { return };
    let data = test_bytes(96, 7);
    let row = |first| {
        (
            View {
                dst_strides: Some(vec![6, 1]),
                ..View::contiguous(&[4, 4])
            },
            first,
        )
    };
    let fine = [
        row(0),
        (
            View {
                dst_strides: Some(vec![6, 1]),
                ..View::contiguous(&[4, 2])
            },
            4,
        ),
    ];
    let src_len = data.len() / 4;
    let parts = |parts: &[(View, usize)], elem| Relayout::parts(parts.to_vec(), src_len, 24, elem);
    let got: Vec<u8> = p.run(&parts(&fine, 4).unwrap(), &data).unwrap();
    assert_eq!(
        got,
        wgpu_permute::reference::materialize_parts(&data, &fine, 4, &[], 24).unwrap()
    );
    for parts in [vec![row(0), row(0)], vec![row(0), row(2)]] {
        assert_eq!(
            Relayout::parts(parts, src_len, 24, 4),
            Err(PermuteError::OverlappingOutput)
        );
    }
    assert_eq!(parts(&[], 3), Err(PermuteError::ElemSize(3)));
    let big = 1usize << 62;
    assert_eq!(
        Relayout::parts(vec![], src_len, big, 4),
        Err(PermuteError::SizeOverflow)
    );
    let far = View {
        strides: vec![1],
        dst_strides: Some(vec![big]),
        ..View::contiguous(&[2])
    };
    assert_eq!(Relayout::view(far, 16, 4), Err(PermuteError::SizeOverflow));
    // An output bigger than any buffer of the device is refused before it is allocated.
    let wide = View {
        strides: vec![1],
        dst_strides: Some(vec![big / 8]),
        ..View::contiguous(&[2])
    };
    let op = Relayout::view(wide, src_len, 4).unwrap();
    assert!(matches!(
        p.run::<_, u8>(&op, &data),
        Err(PermuteError::DeviceLimit { .. })
    ));
    // Region offsets near the top.
    let dst = buffer(p.device(), 64, wgpu::BufferUsages::STORAGE);
    let src = buffer(p.device(), 64, wgpu::BufferUsages::STORAGE);
    let v = View {
        strides: vec![-1],
        offset: 3,
        ..View::contiguous(&[4])
    };
    let op = Relayout::view(v, 4, 4)
        .unwrap()
        .with_offsets(u64::MAX - 3, 0);
    let mut encoder = p.device().create_command_encoder(&Default::default());
    assert_eq!(
        p.record(&mut encoder, &src, &dst, &op),
        Err(PermuteError::SizeOverflow)
    );
    // Permutes: element counts and bytes past 64 bits.
    assert_eq!(
        permute_bytes(p, &data, &[big, 4], &[1, 0], 4),
        Err(PermuteError::SizeOverflow)
    );
    assert!(matches!(
        Relayout::rearrange_cropped("a b -> b a", &[4, 6], &[], 4, &[big, 8]),
        Err(PermuteError::Rearrange(_))
    ));
}

/// Every entry point that takes a shape: element counts and byte sizes past 64 bits are
/// typed errors, before anything is recorded or allocated.
#[test]
fn every_entry_point_refuses_shapes_past_64_bits() {
    let Some(p) = gpu() else { return };
    let big = 1usize << 62;
    let (shape, perm) = ([big, 4], [1, 0]);
    let req = wgpu_permute::Request::new(&shape, &perm, 4);
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let src = buffer(p.device(), 64, usage);
    let dst = buffer(p.device(), 64, usage | wgpu::BufferUsages::COPY_DST);
    let overflow = Err(PermuteError::SizeOverflow);
    let mut encoder = p.device().create_command_encoder(&Default::default());
    assert_eq!(
        encode(p, &mut encoder, &src, &dst, &req).map(drop),
        overflow
    );
    assert_eq!(submit(p, &src, &dst, &req).map(drop), overflow);
    let (device, queue) = (p.device(), p.queue());
    let free = wgpu_permute::gpu_permute(device, queue, &src, &dst, &shape, &perm, 4);
    assert_eq!(free.map(drop), overflow);
    assert_eq!(
        p.permute_slice(&[0u32; 4], &shape, &perm).map(drop),
        overflow
    );
    assert_eq!(Relayout::from_request(&req).map(drop), overflow);
    assert_eq!(Relayout::permute(&shape, &perm, 4).map(drop), overflow);
    // A shape whose elements overflow, and one that fits but whose bytes do not.
    for shape in [[big, 4], [big, 1]] {
        let built = [
            Relayout::rearrange("a b -> b a", &shape, &[], 4),
            Relayout::rearrange_padded("a b -> b a", &shape, &[], 4, &[0; 4]),
            Relayout::rearrange_cropped("a b -> b a", &shape, &[], 4, &[1, 1]),
        ];
        for (i, got) in built.into_iter().enumerate() {
            assert!(
                matches!(
                    got,
                    Err(PermuteError::SizeOverflow | PermuteError::Rearrange(_))
                ),
                "constructor {i}, {shape:?}: {got:?}"
            );
        }
    }
}

/// Found by the `view` fuzz target: a row that moves as one run of 16-byte elements from a
/// source region that is not 16-byte aligned (so in 4-byte units) was lowered with an extra
/// dim for the units of an element, which the run already held: four times the bytes.
#[test]
fn a_run_of_wide_elements_from_an_unaligned_region_moves_once() {
    let Some(p) = gpu() else { return };
    let view = View {
        strides: vec![1, 1, 1, 1],
        ..View::contiguous(&[3, 3, 3, 3])
    };
    for seed in 0..4 {
        // Source regions at 4-byte (not 16-byte) offsets.
        assert_eq!(run_in_region(p, &view, 16, (46, 115), seed), Ok(true));
        assert_eq!(run_in_region(p, &view, 8, (46, 81), seed), Ok(true));
    }
    let plan = wgpu_permute::plan_view(
        &ViewRequest {
            view: &view,
            elem_size: 16,
            src_offset: 4,
            dst_offset: 0,
            src_len: 46,
            dst_len: 81,
            fill: &[],
            options: Options::default(),
            conversion: None,
        },
        p.caps(),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(plan.units() * plan.unit() as u64, 81 * 16, "{plan}");
}
