//! Fuzzes `View::check` and the materialisation of what it accepts. Arbitrary small views
//! (shapes, source strides of either sign, offsets, destination strides, bounds with a
//! fill) of a region of arbitrary length, into a destination region of arbitrary length:
//! `check` must agree with an enumeration of every position (accepted: every existing read
//! inside the source, every write inside the destination and no element written twice), and
//! an accepted view recorded with `Permuter::record` into regions of larger buffers (guard bytes
//! on both sides) must leave exactly what a plain gather leaves. Needs a GPU adapter
//! (lavapipe does). See docs/FUZZING.md.
#![no_main]

use std::collections::HashSet;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use wgpu_permute::plan::ELEM_SIZES;
use wgpu_permute::wgpu::{self, util::DeviceExt};
use wgpu_permute::{Bound, Permuter, Relayout, View, read_buffer};

#[derive(Arbitrary, Debug)]
struct Input {
    shape: Vec<u8>,
    strides: Vec<i8>,
    offset: i16,
    dst_strides: Option<Vec<u8>>,
    bound: Option<(u8, u8, u8, u8)>,
    elem: u8,
    src_len: u8,
    dst_len: u8,
    offsets: (u8, u8),
    fill: u8,
}

const GUARD: usize = 16;
const SENTINEL: u8 = 0xA5;

fn permuter() -> &'static Permuter {
    static P: OnceLock<Permuter> = OnceLock::new();
    P.get_or_init(|| Permuter::new_default().expect("the view target needs a GPU adapter"))
}

fn positions(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if shape.iter().product::<usize>() == 0 {
        return out;
    }
    let mut at = vec![0; shape.len()];
    loop {
        out.push(at.clone());
        let Some(k) = (0..at.len()).rev().find(|&k| at[k] + 1 < shape[k]) else {
            return out;
        };
        at[k] += 1;
        at[k + 1..].fill(0);
    }
}

fuzz_target!(|input: Input| {
    let rank = input.shape.len().min(4);
    let shape: Vec<usize> = input.shape[..rank].iter().map(|&d| (d % 6) as usize).collect();
    let strides: Vec<isize> = (0..rank)
        .map(|d| input.strides.get(d).map_or(1, |&s| (s % 9) as isize))
        .collect();
    let dst_strides = input
        .dst_strides
        .map(|s| (0..rank).map(|d| s.get(d).map_or(1, |&x| (x % 40) as usize)).collect());
    let bounds = match input.bound {
        Some((dim, start, end, _)) if rank > 0 => vec![Bound {
            dims: vec![dim as usize % rank],
            valid: (start % 8) as usize..(end % 8) as usize,
        }],
        _ => Vec::new(),
    };
    let view = View {
        shape,
        strides,
        offset: (input.offset % 200) as isize,
        bounds,
        dst_strides,
    };
    let elem = ELEM_SIZES[input.elem as usize % ELEM_SIZES.len()];
    let (src_len, dst_len) = (input.src_len as usize % 160, input.dst_len as usize % 200);

    // What `check` says against every position.
    let all = positions(&view.shape);
    let verdict = view.check(src_len, dst_len);
    if verdict.is_ok() {
        let mut seen = HashSet::new();
        for at in &all {
            let d = view.destination(at);
            assert!(d < dst_len && seen.insert(d), "{view:?} into {dst_len}: writes {d} badly");
            if view.exists(at) {
                let s = view.source(at);
                assert!((0..src_len as isize).contains(&s), "{view:?}: reads {s} of {src_len}");
            }
        }
    }

    // Materialised into regions of larger buffers, where `check` accepted.
    let p = permuter();
    let device = p.device();
    let (src_at, dst_at) = (GUARD + 4 * (input.offsets.0 % 4) as usize, GUARD + 4 * (input.offsets.1 % 4) as usize);
    let src_bytes: Vec<u8> = (0..src_at + src_len * elem + GUARD)
        .map(|i| (i as u8).wrapping_mul(151).wrapping_add(input.fill))
        .collect();
    let dst_size = (dst_at + dst_len * elem + GUARD).next_multiple_of(4);
    let fill = vec![input.fill ^ 0x5A; elem];
    let op = Relayout::parts(vec![(view.clone(), 0)], src_len, dst_len, elem).map(|op| {
        let op = op.with_offsets(src_at as u64, dst_at as u64);
        if view.bounds.is_empty() { op } else { op.with_fill(&fill) }
    });
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("fuzz src"),
        contents: &src_bytes,
        usage: wgpu::BufferUsages::STORAGE,
    });
    let dst = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("fuzz dst"),
        contents: &vec![SENTINEL; dst_size],
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("fuzz readback"),
        size: dst_size as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    let recorded = op.and_then(|op| p.prepare(&op)).and_then(|op| {
        p.record(&mut encoder, &src, &dst, &op)?;
        Ok(op.plans()[0].clone())
    });
    if verdict.is_err() {
        assert!(recorded.is_err(), "{view:?}: check refused it, recording did not");
        return;
    }
    let Ok(plan) = recorded else { return }; // e.g. a strided 8-bit output: a typed refusal
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, dst_size as u64);
    p.queue().submit([encoder.finish()]);
    let got = read_buffer(device, &readback, dst_size as u64).expect("readback");
    let mut want = vec![SENTINEL; dst_size];
    for at in &all {
        let d = dst_at + view.destination(at) * elem;
        let from = if view.exists(at) {
            let s = src_at + view.source(at) as usize * elem;
            &src_bytes[s..s + elem]
        } else {
            &fill[..]
        };
        want[d..d + elem].copy_from_slice(from);
    }
    if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
        panic!(
            "{view:?} ({elem} B, src {src_len} at {src_at}, dst {dst_len} at {dst_at}): byte {i} \
             is {:#04x}, want {:#04x}\n{plan}",
            got[i], want[i]
        );
    }
});
