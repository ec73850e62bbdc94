//! How a CPU device moves data fastest, measured: lavapipe loads and stores each component
//! of an access in a loop over its SIMD lanes, and whether 64-bit components beat 32-bit
//! ones depends on the host CPU, which the device does not report: the shader copy
//! ([`Work::shader_copy`]) ran 1.66x faster with them on an AMD EPYC and 1.4x slower on an
//! Intel Xeon (docs/history/02-cpu-rounds-1-6.md, fifth round). So it is timed both ways.

use std::sync::Mutex;

use super::timing::Timer;
use super::{Permuter, captured};
use crate::PermuteError;
use crate::plan::DeviceCaps;
use crate::work::Work;

/// Bytes of the copy timed both ways: a few milliseconds on a CPU device, large enough
/// that the memory system, not the dispatch, sets its time.
const PROBE_BYTES: u64 = 8 << 20;

/// Alternating rounds of each way (each the best of 3 runs after a warm-up).
const PROBE_ROUNDS: usize = 3;

/// 64-bit components are chosen only when their copy takes at most this share of the
/// 32-bit one's time: where the two are close, the run-to-run noise of a shared machine
/// should not flip the choice between processes.
const PROBE_MARGIN: f64 = 0.9;

/// The outcome per adapter (its `AdapterInfo`, printed), measured once per process: the
/// host CPU does not change while it runs.
static MEASURED: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());

impl Permuter {
    /// Whether this device moves data faster as 64-bit components (see
    /// [`DeviceCaps::access64_faster`]): only asked of CPU devices with `SHADER_INT64`. A
    /// failed measurement answers no (32-bit components run everywhere) and is not kept.
    pub(super) fn access64_faster(&self) -> bool {
        let key = format!("{:?}", self.device.adapter_info());
        let known = |measured: &Vec<(String, bool)>| {
            measured
                .iter()
                .find(|(k, _)| *k == key)
                .map(|&(_, fast)| fast)
        };
        let lock = || MEASURED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(fast) = known(&lock()) {
            return fast;
        }
        let Ok(fast) = self.time_copies() else {
            return false;
        };
        let mut measured = lock();
        if known(&measured).is_none() {
            measured.push((key, fast));
        }
        fast
    }

    /// Times the shader copy of [`PROBE_BYTES`] with 32-bit and with 64-bit components, in
    /// alternating rounds, and compares their best times.
    fn time_copies(&self) -> Result<bool, PermuteError> {
        let timer = Timer::new(&self.device, &self.queue)?;
        let (src, dst) = captured(&self.device, || {
            let buffer = || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-permute access probe"),
                    size: PROBE_BYTES,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            };
            (buffer(), buffer())
        })?;
        let work = |access64_faster| {
            let caps = DeviceCaps {
                access64_faster,
                ..self.caps().clone()
            };
            Work::shader_copy(PROBE_BYTES, 0, &caps)
        };
        let works = [work(false)?, work(true)?];
        let mut best = [std::time::Duration::MAX; 2];
        for _ in 0..PROBE_ROUNDS {
            for (work, best) in works.iter().zip(&mut best) {
                let stats =
                    timer.time_recorded(&|e| self.record_work(e, &src, &dst, work), 1, 3)?;
                *best = (*best).min(stats.min);
            }
        }
        Ok(best[1].as_secs_f64() < PROBE_MARGIN * best[0].as_secs_f64())
    }
}
