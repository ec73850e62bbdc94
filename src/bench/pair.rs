//! The pair of buffers every case's copies run in, and where in it they run.
//!
//! On lavapipe a copy's speed follows where its two buffers lie, not only the bytes it
//! moves: in the cases' own buffers the 24.5-32 MiB cases' copies ran slower per byte than
//! the 64 MiB ones' (raising their ratios by 10-25%), and within one pair the destination's
//! offset moved a 64 MiB shader copy from 8.6 ms (offset 0) to 10.8-19.6 ms (4 KiB to
//! 16 MiB; docs/history/09-cpu-round-19.md). So every copy a ratio divides by runs in one
//! pair of at least [`MIN_BYTES`] each, at the destination offset of [`DST_OFFSETS`] where
//! the pair's own copy ran fastest when the pair was made: the yardstick is the best copy
//! the device was seen to do, on whichever machine, not what one placement gave.

use super::{Bench, Stats};
use crate::{PermuteError, captured, upload};

/// The least size of each buffer of the pair: the suite's largest cases' at scale 1, so
/// that the pair is made alike whichever case runs first.
const MIN_BYTES: u64 = 64 << 20;

/// The destination offsets tried when a pair is made: none, half a page, a page, and
/// farther (those the device's storage offset alignment and buffer size allow).
pub const DST_OFFSETS: [u64; 5] = [0, 2 << 10, 4 << 10, 64 << 10, 1 << 20];

/// The bench's copy pair: a source, a destination, and where in it the copies write.
#[derive(Clone)]
pub(super) struct CopyPair {
    pub src: wgpu::Buffer,
    pub dst: wgpu::Buffer,
    pub placement: CopyPlacement,
}

/// Where the bench's copies ran, and why there.
#[derive(Clone, Debug)]
pub struct CopyPlacement {
    /// Bytes of each buffer's region the copies use, and of each copy timed to choose.
    pub bytes: u64,
    /// The destination offset the copies ran at: the fastest of `tried`.
    pub dst_offset: u64,
    /// Each destination offset tried, with the shader copy's times there.
    pub tried: Vec<(u64, Stats)>,
}

impl std::fmt::Display for CopyPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let size = |b: u64| match b {
            0 => "0".to_string(),
            b if b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
            b => format!("{} KiB", b as f64 / 1024.0),
        };
        let tried: Vec<String> = (self.tried.iter())
            .map(|(at, t)| format!("{} {:.3} ms", size(*at), t.median.as_secs_f64() * 1e3))
            .collect();
        write!(
            f,
            "copies: in one pair of {} buffers, the destination's from offset {}, where the \
             pair's shader copy ran fastest of: {}",
            size(self.bytes),
            size(self.dst_offset),
            tried.join(", ")
        )
    }
}

/// A pair of at least `bytes` each (and [`MIN_BYTES`] within the device's buffer size), its
/// shader copy timed at each of [`DST_OFFSETS`] that the device allows, in turns.
pub(super) fn make(bench: &Bench, bytes: u64) -> Result<CopyPair, PermuteError> {
    let permuter = bench.permuter;
    let device = permuter.device();
    let limits = device.limits();
    let size = bytes
        .next_multiple_of(16)
        .max(16)
        .max(MIN_BYTES.min(limits.max_buffer_size));
    let align = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
    let offsets: Vec<u64> = (DST_OFFSETS.into_iter())
        .filter(|at| at.is_multiple_of(align))
        .filter(|at| {
            size.checked_add(*at)
                .is_some_and(|end| end <= limits.max_buffer_size)
        })
        .collect();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let (src, dst) = captured(device, || {
        let data = super::bench_bytes(size as usize);
        let src = upload(device, permuter.queue(), "bench copy src", &data, usage);
        let dst = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench copy dst"),
            size: size + offsets.last().copied().unwrap_or(0),
            usage,
            mapped_at_creation: false,
        });
        (src, dst)
    })?;
    // Recorded once first, so that its pipeline is compiled before it is timed.
    let mut encoder = device.create_command_encoder(&Default::default());
    permuter.record_shader_copy(&mut encoder, &src, &dst, size, 0)?;
    // In turns, so that a burst of load on a shared machine falls on every offset alike.
    let mut samples = vec![Vec::new(); offsets.len()];
    for round in 0..bench.warmups + bench.runs {
        for (i, &at) in offsets.iter().enumerate() {
            let time = bench.time_once(&|e| {
                // Recorded successfully above, at an offset checked against the same limits.
                let _ = permuter.record_shader_copy(e, &src, &dst, size, at);
            })?;
            if round >= bench.warmups {
                samples[i].push(time);
            }
        }
    }
    let tried: Vec<(u64, Stats)> = (offsets.into_iter().zip(samples))
        .map(|(at, runs)| (at, Stats::of(runs)))
        .collect();
    let dst_offset = (tried.iter().min_by_key(|(_, t)| t.median)).map_or(0, |(at, _)| *at);
    Ok(CopyPair {
        src,
        dst,
        placement: CopyPlacement {
            bytes: size,
            dst_offset,
            tried,
        },
    })
}
