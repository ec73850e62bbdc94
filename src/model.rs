//! The GPU memory model: what the shipped kernels would cost on a GPU, reasoned from traces of
//! their own memory accesses, since no GPU is at hand to time them. Pure: no wgpu.
//!
//! The trace comes from the WGSL that ships, generated in trace mode
//! ([`crate::shaders::traced_source`]) and run on any adapter (`Permuter::trace`): every
//! global and workgroup-memory access of a few chosen workgroups is recorded. Here the
//! records are grouped as a GPU executes them, in warps of [`Warp::size`] invocations by
//! local invocation index, one warp-wide access per sequence number (counted per address
//! space, so lanes that skipped an access elsewhere still line up with their warp), and
//! scored:
//!
//! - **sector efficiency** (loads and stores apart): bytes requested / (32-byte sectors
//!   touched x 32). 1 when a warp's accesses fill whole sectors, 1/8 when each 4-byte access
//!   lands in its own sector (a strided gather).
//! - **bank-conflict ways** (workgroup memory): the most distinct 4-byte words one of 32 banks
//!   serves in one access (a word read by several lanes counts once). Accesses wider than 4
//!   bytes are served in phases of 128 bytes (half-warps for 8-byte units, quarter-warps for
//!   16-byte units), as GPUs do; 1 is conflict-free.
//!
//! A predicted time on a named GPU is then bytes read / (peak bandwidth x load efficiency)
//! plus bytes written / (peak x store efficiency), and its ratio to a copy of the same bytes
//! follows. It is a model of memory traffic only: latency, occupancy and instruction costs are
//! not in it.

use std::collections::{HashMap, HashSet};

pub use crate::plan::Figures;
use crate::plan::tuning::{GENERIC_WORKGROUP, MICRO_WORKGROUP};
use crate::plan::{Kernel, Plan, Tile};

/// Words of the trace buffer before the records: word 0 is the overflow flag.
pub const HEADER: u32 = 4;
/// Records kept per invocation: at least as many as any kernel makes (the most: a flat
/// 8-bit strip of 8 planes, 136 per block, 128 single-byte loads and 8 stores, traced one
/// block per invocation as GPUs run it; the wide 8-bit blocks, 16 loads and 16 stores per
/// block, make 128 in runs of `MICRO_RUN`).
pub const SLOTS: u32 = 144;
const _: () = {
    let mut i = 0;
    while i < crate::plan::tuning::MICRO_RUNS.len() {
        assert!(crate::plan::tuning::MICRO_RUNS[i] <= crate::plan::tuning::MICRO_RUN);
        i += 1;
    }
};
/// Words per record: invocation, sequence number, space and bytes, unit index.
pub const RECORD_WORDS: u32 = 4;
/// Bytes of a DRAM sector, the unit in which GPUs fetch global memory.
pub const SECTOR: u64 = 32;
/// Banks of workgroup memory, each serving one 4-byte word per cycle.
pub const BANKS: u64 = 32;

/// Where an access went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// A load from the source buffer.
    SrcLoad = 0,
    /// A load from the destination buffer (packed words whose other lanes are kept).
    DstLoad = 1,
    /// A store to the destination buffer.
    DstStore = 2,
    /// A load from workgroup memory.
    TileLoad = 3,
    /// A store to workgroup memory.
    TileStore = 4,
}

impl Space {
    /// Every space, by code.
    pub const ALL: [Space; 5] = [
        Space::SrcLoad,
        Space::DstLoad,
        Space::DstStore,
        Space::TileLoad,
        Space::TileStore,
    ];

    /// The WGSL constant for this space's code in trace mode.
    pub fn wgsl_name(self) -> &'static str {
        match self {
            Space::SrcLoad => "TRACE_SRC_LOAD",
            Space::DstLoad => "TRACE_DST_LOAD",
            Space::DstStore => "TRACE_DST_STORE",
            Space::TileLoad => "TRACE_TILE_LOAD",
            Space::TileStore => "TRACE_TILE_STORE",
        }
    }

    fn workgroup(self) -> bool {
        matches!(self, Space::TileLoad | Space::TileStore)
    }
}

/// One recorded access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Flat local invocation index.
    pub invocation: u32,
    /// The invocation's number for this access among its accesses to the same space (0 for
    /// its first).
    pub seq: u32,
    /// Where it went.
    pub space: Space,
    /// Byte address within the binding (or within the tile).
    pub byte: u64,
    /// Bytes accessed.
    pub bytes: u32,
}

/// The accesses of one traced workgroup.
#[derive(Clone, Debug, PartialEq)]
pub struct TracedWorkgroup {
    /// The workgroup's index in the dispatch.
    pub workgroup: u32,
    /// How many workgroups of the dispatch it stands for (see [`sample`]).
    pub weight: f64,
    /// Its accesses, in record order.
    pub accesses: Vec<Access>,
}

/// The trace of a dispatch: a few of its workgroups, each standing for its class.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The kernel traced.
    pub kernel: Kernel,
    /// The traced workgroups.
    pub workgroups: Vec<TracedWorkgroup>,
}

/// A trace buffer that cannot be read as a trace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    /// An invocation made more than [`SLOTS`] accesses: raise `SLOTS`.
    #[error("an invocation made more than {SLOTS} accesses; the trace is incomplete")]
    Overflow,
    /// A record names an address space that does not exist (the buffer is not a trace).
    #[error("record {0} has an unknown address space")]
    BadRecord(usize),
}

/// Reads a trace buffer: `words` as written by the trace-mode kernel for the workgroups
/// `sampled` (in dispatch slot order), each of `invocations` invocations.
pub fn decode(
    kernel: Kernel,
    words: &[u32],
    sampled: &[(u32, f64)],
    invocations: u32,
) -> Result<Trace, TraceError> {
    if words.first().is_some_and(|&w| w != 0) {
        return Err(TraceError::Overflow);
    }
    let per_wg = (invocations * SLOTS * RECORD_WORDS) as usize;
    let mut workgroups = Vec::with_capacity(sampled.len());
    for (slot, &(workgroup, weight)) in sampled.iter().enumerate() {
        let start = HEADER as usize + slot * per_wg;
        let records = words.get(start..start + per_wg).unwrap_or(&[]);
        let mut accesses = Vec::new();
        for (i, r) in records.chunks_exact(RECORD_WORDS as usize).enumerate() {
            let bytes = r[2] >> 8;
            if bytes == 0 {
                continue; // an unused slot
            }
            let space = *Space::ALL
                .get((r[2] & 0xff) as usize)
                .ok_or(TraceError::BadRecord(i))?;
            accesses.push(Access {
                invocation: r[0],
                seq: r[1],
                space,
                byte: r[3] as u64 * bytes as u64,
                bytes,
            });
        }
        workgroups.push(TracedWorkgroup {
            workgroup,
            weight,
            accesses,
        });
    }
    Ok(Trace { kernel, workgroups })
}

/// Words of the trace buffer for `sampled` workgroups of `invocations` invocations.
pub fn trace_words(sampled: usize, invocations: u32) -> u64 {
    HEADER as u64 + sampled as u64 * (invocations * SLOTS * RECORD_WORDS) as u64
}

/// Invocations per workgroup of a plan's kernel.
pub fn invocations(plan: &Plan) -> u32 {
    match plan.kernel {
        Kernel::Tiled => {
            let tile = plan.tile.unwrap_or(Tile::for_unit(plan.unit));
            tile.words * tile.rows
        }
        Kernel::Micro => MICRO_WORKGROUP,
        _ => GENERIC_WORKGROUP,
    }
}

/// The workgroups to trace for a plan's first dispatch, each with the number of workgroups
/// it stands for. Workgroups fall into classes that access memory alike: for the tiled
/// kernel, interior tiles and the tiles on the right, bottom and corner edges (partial where
/// the sides are not whole tiles); for the others, full workgroups and the last one (partly
/// idle). Traced: the first, a middle one and the last workgroup, and one of each tile edge;
/// a class's count is shared among its traced workgroups. With `all`, every workgroup
/// (small tensors, tests).
pub fn sample(plan: &Plan, all: bool) -> Vec<(u32, f64)> {
    let Some(first) = plan.chunks.first() else {
        return Vec::new();
    };
    let total = first.total_workgroups;
    // The first dispatch's box (the whole tensor in one binding).
    let extents = first.extents();
    if total == 0 {
        return Vec::new();
    }
    if all {
        return (0..total as u32).map(|w| (w, 1.0)).collect();
    }
    let (tiles_c, tiles_r) = match (plan.kernel, plan.box_batch_rows_cols(&extents), plan.tile) {
        (Kernel::Tiled, Some((_, r, c)), Some(tile)) => {
            (c.div_ceil(tile.extent()), r.div_ceil(tile.extent()))
        }
        _ => (1, 1),
    };
    let class = |w: u64| -> u8 {
        if plan.kernel == Kernel::Tiled {
            let (tc, tr) = (w % tiles_c, (w / tiles_c) % tiles_r);
            (tc + 1 == tiles_c) as u8 | ((tr + 1 == tiles_r) as u8) << 1
        } else {
            (w + 1 == total) as u8
        }
    };
    let mut picks = vec![0, total / 2, total - 1];
    if plan.kernel == Kernel::Tiled {
        picks.extend([tiles_c - 1, (tiles_r - 1) * tiles_c, tiles_r * tiles_c - 1]);
    }
    picks.retain(|&w| w < total);
    picks.sort_unstable();
    picks.dedup();
    // Workgroups per class, over the whole dispatch.
    let mut count: HashMap<u8, u64> = HashMap::new();
    if plan.kernel == Kernel::Tiled {
        let batches = total / (tiles_c * tiles_r);
        let (ic, ir) = (tiles_c - 1, tiles_r - 1);
        for (k, n) in [(0u8, ic * ir), (1, ir), (2, ic), (3, 1)] {
            count.insert(k, n * batches);
        }
    } else {
        count.insert(0, total - 1);
        count.insert(1, 1);
    }
    let mut traced: HashMap<u8, u64> = HashMap::new();
    for &w in &picks {
        *traced.entry(class(w)).or_default() += 1;
    }
    picks
        .iter()
        .map(|&w| {
            let k = class(w);
            (w as u32, count[&k] as f64 / traced[&k] as f64)
        })
        .collect()
}

/// Warp width: lanes that execute an access together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warp {
    /// 32 lanes (NVIDIA warps, AMD RDNA wave32, Apple SIMD groups).
    Wave32,
    /// 64 lanes (AMD GCN/CDNA wavefronts).
    Wave64,
}

impl Warp {
    /// Lanes per warp.
    pub fn size(self) -> u32 {
        match self {
            Warp::Wave32 => 32,
            Warp::Wave64 => 64,
        }
    }
}

/// The model's part of [`Figures`] (the planner owns the type it scores kernels by).
impl Figures {
    /// Predicted time on `gpu`, in seconds: half the bytes read at the load efficiency, half
    /// written at the store efficiency, both at the GPU's peak bandwidth.
    pub fn seconds_on(&self, gpu: &Gpu) -> f64 {
        let copy = self.bytes_moved as f64 / (gpu.peak_gb_per_s * 1e9);
        match self.ratio_to_copy() {
            r if r > 0.0 => copy / r,
            _ => f64::INFINITY,
        }
    }
}

/// Scores a trace (see the module docs). `bytes_moved`: the whole permute's read plus
/// written bytes, for predicted times.
pub fn analyse(trace: &Trace, warp: Warp, bytes_moved: u64) -> Figures {
    let lanes = warp.size();
    // Weighted bytes requested and fetched, for loads and for stores.
    let (mut asked, mut fetched) = ([0f64; 2], [0f64; 2]);
    let mut ways = 1u32;
    for wg in &trace.workgroups {
        // One warp-wide access: same warp, same sequence number, same space.
        let mut groups: HashMap<(u32, u32, Space), Vec<&Access>> = HashMap::new();
        for a in &wg.accesses {
            groups
                .entry((a.invocation / lanes, a.seq, a.space))
                .or_default()
                .push(a);
        }
        for ((_, _, space), accesses) in &groups {
            if space.workgroup() {
                ways = ways.max(conflict_ways(accesses, lanes));
                continue;
            }
            let side = (*space == Space::DstStore) as usize;
            let sectors: HashSet<u64> = accesses
                .iter()
                .flat_map(|a| a.byte / SECTOR..(a.byte + a.bytes as u64).div_ceil(SECTOR))
                .collect();
            let bytes: u64 = accesses.iter().map(|a| a.bytes as u64).sum();
            asked[side] += wg.weight * bytes as f64;
            fetched[side] += wg.weight * (sectors.len() as u64 * SECTOR) as f64;
        }
    }
    let efficiency = |i: usize| {
        if fetched[i] > 0.0 {
            asked[i] / fetched[i]
        } else {
            1.0
        }
    };
    Figures {
        kernel: trace.kernel,
        load_efficiency: efficiency(0),
        store_efficiency: efficiency(1),
        bank_conflict_ways: ways,
        bytes_moved,
    }
}

/// Bank-conflict ways of one warp-wide workgroup-memory access: lanes are served in phases
/// of 128 bytes (all 32 lanes for 4-byte units, 16 for 8-byte, 8 for 16-byte); in each, the
/// most distinct words any bank holds.
fn conflict_ways(accesses: &[&Access], lanes: u32) -> u32 {
    let width = accesses.iter().map(|a| a.bytes).max().unwrap_or(4).max(4);
    let per_phase = (BANKS as u32 * 4 / width).max(1);
    let mut worst = 1;
    let mut phases: HashMap<u32, HashSet<u64>> = HashMap::new();
    for a in accesses {
        let phase = (a.invocation % lanes) / per_phase;
        let words = phases.entry(phase).or_default();
        words.extend(a.byte / 4..(a.byte + a.bytes as u64).div_ceil(4));
    }
    for words in phases.values() {
        let mut per_bank: HashMap<u64, u32> = HashMap::new();
        for w in words {
            *per_bank.entry(w % BANKS).or_default() += 1;
        }
        worst = worst.max(per_bank.values().copied().max().unwrap_or(1));
    }
    worst
}

/// A GPU the model predicts times for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    /// Marketing name.
    pub name: &'static str,
    /// Peak DRAM bandwidth, GB/s, from the vendor's specifications.
    pub peak_gb_per_s: f64,
}

/// GPUs to quote, with their vendor-specified peak memory bandwidth. Each name is the one
/// the device reports as its adapter's name where this crate has run on it ([`gpu_named`]).
pub const GPUS: [Gpu; 6] = [
    // NVIDIA A100 40GB (SXM) datasheet: 1,555 GB/s HBM2.
    Gpu {
        name: "NVIDIA A100 40GB",
        peak_gb_per_s: 1555.0,
    },
    // NVIDIA GeForce RTX 4090 specifications: 384-bit GDDR6X at 21 Gbps, 1,008 GB/s.
    Gpu {
        name: "NVIDIA RTX 4090",
        peak_gb_per_s: 1008.0,
    },
    // AMD Radeon RX 7900 XTX specifications: 960 GB/s.
    Gpu {
        name: "AMD RX 7900 XTX",
        peak_gb_per_s: 960.0,
    },
    // Apple M2 (2022 announcement): 100 GB/s unified memory bandwidth.
    Gpu {
        name: "Apple M2",
        peak_gb_per_s: 100.0,
    },
    // NVIDIA H100 datasheet, SXM5 80 GB HBM3: 3.35 TB/s.
    Gpu {
        name: "NVIDIA H100 80GB HBM3",
        peak_gb_per_s: 3350.0,
    },
    // NVIDIA H200 datasheet, SXM 141 GB HBM3e: 4.8 TB/s.
    Gpu {
        name: "NVIDIA H200",
        peak_gb_per_s: 4800.0,
    },
];

/// The GPU of [`GPUS`] whose name an adapter's name contains (ignoring case), if any.
pub fn gpu_named(adapter: &str) -> Option<&'static Gpu> {
    let adapter = adapter.to_lowercase();
    GPUS.iter()
        .find(|g| adapter.contains(&g.name.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One warp-wide access: lane `i` touches `bytes` at `at(i)`.
    fn warp_access(space: Space, bytes: u32, at: impl Fn(u64) -> u64) -> Trace {
        let accesses = (0..32)
            .map(|i| Access {
                invocation: i as u32,
                seq: 0,
                space,
                byte: at(i),
                bytes,
            })
            .collect();
        Trace {
            kernel: Kernel::Generic,
            workgroups: vec![TracedWorkgroup {
                workgroup: 0,
                weight: 1.0,
                accesses,
            }],
        }
    }

    #[test]
    fn sector_efficiency_of_coalesced_strided_and_misaligned_warps() {
        let load = |bytes, at: &dyn Fn(u64) -> u64| {
            analyse(&warp_access(Space::SrcLoad, bytes, at), Warp::Wave32, 0).load_efficiency
        };
        assert_eq!(load(4, &|i| 4 * i), 1.0);
        assert_eq!(load(4, &|i| 32 * i), 0.125);
        assert_eq!(load(16, &|i| 16 * i), 1.0);
        // 128 bytes starting mid-sector touch 5 sectors.
        assert_eq!(load(4, &|i| 16 + 4 * i), 0.8);
        // Stores are scored apart; a trace without loads has nothing to waste.
        let f = analyse(
            &warp_access(Space::DstStore, 4, |i| 64 * i),
            Warp::Wave32,
            0,
        );
        assert_eq!((f.load_efficiency, f.store_efficiency), (1.0, 0.125));
    }

    #[test]
    fn bank_conflicts_count_distinct_words_per_bank() {
        let ways = |bytes, at: &dyn Fn(u64) -> u64| {
            analyse(&warp_access(Space::TileLoad, bytes, at), Warp::Wave32, 0).bank_conflict_ways
        };
        assert_eq!(ways(4, &|i| 4 * i), 1);
        assert_eq!(ways(4, &|i| 4 * 33 * i), 1); // a padded tile's column
        assert_eq!(ways(4, &|i| 4 * 32 * i), 32); // an unpadded one
        assert_eq!(ways(4, &|_| 0), 1); // one word, broadcast
        assert_eq!(ways(4, &|i| 4 * 2 * i), 2);
        // 8-byte units are served per half-warp, 16-byte per quarter-warp.
        assert_eq!(ways(8, &|i| 8 * i), 1);
        assert_eq!(ways(16, &|i| 16 * i), 1);
        assert_eq!(ways(16, &|i| 16 * 17 * i), 1);
        assert_eq!(ways(16, &|i| 16 * 16 * i), 8);
    }

    #[test]
    fn ratio_to_copy_is_the_harmonic_mean_and_times_follow_bandwidth() {
        let f = Figures {
            kernel: Kernel::Tiled,
            load_efficiency: 0.5,
            store_efficiency: 1.0,
            bank_conflict_ways: 1,
            bytes_moved: 2_000_000_000,
        };
        assert!((f.ratio_to_copy() - 2.0 / 3.0).abs() < 1e-12);
        let gpu = Gpu {
            name: "test",
            peak_gb_per_s: 1000.0,
        };
        assert!((f.seconds_on(&gpu) - 0.003).abs() < 1e-12);
    }

    #[test]
    fn decoding_refuses_overflow_and_unknown_spaces() {
        let mut words = vec![0u32; trace_words(1, 1) as usize];
        words[0] = 1;
        assert_eq!(
            decode(Kernel::Generic, &words, &[(0, 1.0)], 1),
            Err(TraceError::Overflow)
        );
        words[0] = 0;
        let at = HEADER as usize;
        words[at..at + 4].copy_from_slice(&[0, 0, 9 | (4 << 8), 0]);
        assert_eq!(
            decode(Kernel::Generic, &words, &[(0, 1.0)], 1),
            Err(TraceError::BadRecord(0))
        );
        words[at + 2] = Space::DstStore as u32 | (8 << 8);
        words[at + 3] = 5;
        let trace = decode(Kernel::Generic, &words, &[(0, 1.0)], 1).unwrap();
        assert_eq!(trace.workgroups[0].accesses[0].byte, 40);
    }
}
