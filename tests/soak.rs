//! Soak: thousands of permutes of varied shapes in a loop, every result checked, memory flat
//! (process RSS, and live GPU buffers, bind groups and pipelines as wgpu counts them).
//! Bounded to 30 seconds: up to 12 of warm-up, 18 measured. Its own test binary: wgpu's counters are process-wide.

mod common;

use std::time::{Duration, Instant};

use wgpu_permute::plan::ELEM_SIZES;
use wgpu_permute::{IndexMath, Options, Permuter, Relayout, diagnostics, reference, shaders};

/// Warm-up ends once no new pipeline has appeared for `SETTLED` (at most `WARM_UP`): each
/// pipeline costs the driver memory (about a MiB of JIT code on lavapipe), bounded by the
/// cache's size, which is not what this test looks for.
const WARM_UP: Duration = Duration::from_secs(12);
const SETTLED: Duration = Duration::from_secs(3);
const DURATION: Duration = Duration::from_secs(18);
/// RSS allowed per pipeline compiled during the measured part.
const PER_PIPELINE: u64 = 2 << 20;
const MAX_ITERATIONS: usize = 200_000;

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

struct Live {
    rss: u64,
    buffers: isize,
    bind_groups: isize,
    pipelines: isize,
}

fn live(p: &Permuter) -> Live {
    // Resources dropped by finished submissions are freed when the device is polled.
    p.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let hal = p.device().get_internal_counters().hal;
    Live {
        rss: rss_bytes(),
        buffers: hal.buffers.read(),
        bind_groups: hal.bind_groups.read(),
        pipelines: hal.compute_pipelines.read(),
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One random permute, checked: rank 1-5, dims 1-12, any element size; every fourth through
/// caller buffers at offsets (with guard bytes), the rest through the host round trip.
fn one(p: &Permuter, rng: &mut Rng, i: usize) {
    let rank = 1 + rng.below(5);
    let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(12)).collect();
    let mut perm: Vec<usize> = (0..rank).collect();
    for k in (1..rank).rev() {
        perm.swap(k, rng.below(k + 1));
    }
    let elem = ELEM_SIZES[rng.below(ELEM_SIZES.len())];
    if i.is_multiple_of(4) {
        let offsets = (4 * rng.below(4) as u64, 4 * rng.below(4) as u64);
        common::check(p, &shape, &perm, elem, Options::default(), offsets)
            .unwrap_or_else(|m| panic!("{m}"));
    } else {
        let data = common::test_bytes(shape.iter().product::<usize>() * elem, i as u64);
        let op = Relayout::permute(&shape, &perm, elem).unwrap();
        let got: Vec<u8> = p.run(&op, &data).unwrap();
        let want = reference::permute_bytes(&data, &shape, &perm, elem).unwrap();
        assert_eq!(got, want, "{shape:?} {perm:?} elem {elem}");
    }
}

#[test]
fn thousands_of_permutes_keep_memory_flat() {
    let Some(p) = common::gpu() else { return };
    let mut rng = Rng(0x5EED);
    let warm = Instant::now();
    let (mut w, mut last_new, mut cached) = (0, Instant::now(), 0);
    while warm.elapsed() < WARM_UP && last_new.elapsed() < SETTLED {
        one(p, &mut rng, w);
        w += 1;
        if diagnostics::cached_pipelines(p) != cached {
            cached = diagnostics::cached_pipelines(p);
            last_new = Instant::now();
        }
    }
    let before = live(p);
    let start = Instant::now();
    let mut n = 0;
    while start.elapsed() < DURATION && n < MAX_ITERATIONS {
        one(p, &mut rng, n);
        n += 1;
    }
    let after = live(p);
    eprintln!(
        "soak: {w} permutes of warm-up, then {n} in {:.1} s; RSS {:.1} -> {:.1} MiB; live GPU buffers {} -> {}, bind groups {} -> {}, pipelines {} -> {}; cached pipelines {}",
        start.elapsed().as_secs_f64(),
        before.rss as f64 / (1 << 20) as f64,
        after.rss as f64 / (1 << 20) as f64,
        before.buffers,
        after.buffers,
        before.bind_groups,
        after.bind_groups,
        before.pipelines,
        after.pipelines,
        diagnostics::cached_pipelines(p)
    );
    assert!(n >= 1000, "only {n} permutes in {DURATION:?}");
    assert!(after.buffers <= before.buffers, "GPU buffers leak");
    assert!(after.bind_groups <= before.bind_groups, "bind groups leak");
    // New variants may still appear after the warm-up; the cache is bounded by the number
    // of variants these requests can reach (rank <= 5, or 7 for a walk in tiles' own dims;
    // u32 index math, one dispatch) and the shapes that may have their own pipelines.
    let reachable = shaders::all_variants()
        .into_iter()
        .filter(|v| v.rank() <= if v.walks() { 7 } else { 5 })
        .filter(|v| v.index() == IndexMath::U32 && !v.boxed() && !v.specialized())
        .count();
    let bound = reachable + wgpu_permute::plan::tuning::MAX_SPECIALIZED;
    assert!(diagnostics::cached_pipelines(p) <= bound);
    assert!(after.pipelines as usize <= bound);
    let new_pipelines = (after.pipelines - before.pipelines).max(0) as u64;
    assert!(
        after.rss < before.rss + (32 << 20) + new_pipelines * PER_PIPELINE,
        "RSS grew from {} to {} bytes with {new_pipelines} new pipelines",
        before.rss,
        after.rss
    );
}
