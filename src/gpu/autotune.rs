//! Autotuning: when a plan says its shape class has kernels to time, time each on scratch
//! buffers of the plan's size (and the plan in parts, where it has them) and hand the
//! outcome to the planner. A failed race is remembered too, so it is not retried on every
//! encode.

use super::{Permuter, captured, serial};
use crate::PermuteError;
use crate::model::Warp;
use crate::plan::{self, Kernel, Measured, Options, Plan, Request};
use crate::timing::Timer;
use std::time::Duration;

/// Rounds of each contender in a race, alternating.
const RACE_ROUNDS: usize = 2;

/// Time a contender's round lasts at least, unless it takes [`RACE_MAX_RUNS`] runs.
const RACE_ROUND: Duration = Duration::from_millis(5);

/// Runs of a contender per round: at least 2, at most 32 (84 KB took 0.15 ms on lavapipe).
const RACE_MIN_RUNS: usize = 2;
const RACE_MAX_RUNS: usize = 32;

impl Permuter {
    /// Plans `req`; when the plan has kernels to time or to trace first, times or traces
    /// them, records the outcome as a fact about the device, and plans again.
    pub(super) fn plan_tuned(&self, req: &Request) -> Result<Plan, PermuteError> {
        let _serial = serial(&self.device);
        let mut plan = self.plan_request(req)?;
        if !plan.pending_race().is_empty() {
            let (measured, column_runs) = self
                .race(req, &plan)
                .unwrap_or_else(|e| (Measured::Failed(e.to_string()), None));
            let mut learned = self.learned();
            if let Some(on) = column_runs {
                learned.column_runs.insert(plan.shape_class(), on);
            }
            learned.winners.insert(plan.shape_class(), measured);
            drop(learned);
            plan = self.plan_request(req)?;
        }
        if !plan.pending_model().is_empty() {
            // A failed trace leaves no figures: the heuristic decides for this shape.
            let figures = self
                .model_kernels(req, plan.pending_model(), Warp::Wave32, true)
                .unwrap_or_default();
            self.learned().modelled.insert(plan.shape_key(), figures);
            plan = self.plan_request(req)?;
        }
        Ok(plan)
    }

    /// Times the plan's candidate kernels on scratch buffers of its size (the best run of
    /// [`RACE_ROUNDS`] alternating rounds after a warm-up each; on a CPU device with the
    /// host's time to record them, as the bench counts it), the micro kernel in both orders
    /// where column runs apply (whichever is faster depends on the CPU's caches), and the
    /// plan itself where it runs in parts ([`plan::with_edges`]). Returns the fastest, and
    /// the micro kernel's faster order where both ran.
    fn race(&self, req: &Request, plan: &Plan) -> Result<(Measured, Option<bool>), PermuteError> {
        let mut timer = self.timer.lock().unwrap_or_else(|p| p.into_inner());
        if timer.is_none() {
            // On a CPU device recording is part of the work's cost: the row copies or parts
            // of one contender may take longer to record than another's one dispatch.
            *timer =
                Some(Timer::new(&self.device, &self.queue)?.counting_recording(self.caps().cpu));
        }
        let timer = timer.as_ref().expect("made above");
        let (src, dst) = captured(&self.device, || {
            let buffer = |size: u64| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-permute autotune"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            };
            (buffer(plan.src_extent()), buffer(plan.dst_extent()))
        })?;
        // Each contender with the micro kernel's order (`None` for other kernels, or where
        // the request forces it) and the parts it runs in (a flat strip's tail).
        let mut contenders = Vec::new();
        for &kernel in plan.pending_race() {
            let forced = |column_runs| {
                let options = Options {
                    kernel: Some(kernel),
                    column_runs,
                    ..req.options
                };
                // A choice the request forces (64-bit accesses, say) may rule a kernel out.
                match self.plan_request(&req.with_options(options)) {
                    Err(PermuteError::ForcedChoice { .. }) => Ok(None),
                    other => plan::with_edges(other?, req.options, self.caps(), &self.learned())
                        .map(Some),
                }
            };
            let Some(parts) = forced(req.options.column_runs)? else {
                continue;
            };
            let order = (kernel == Kernel::Micro && req.options.column_runs.is_none())
                .then(|| parts[0].column_runs);
            contenders.push((Measured::Fastest(kernel), order, parts));
            if let Some(other) = order.map(|on| !on)
                && let Some(parts) = forced(Some(other))?
            {
                contenders.push((Measured::Fastest(kernel), Some(other), parts));
            }
        }
        if plan.pending_parts() {
            let parts = plan::with_edges(plan.clone(), req.options, self.caps(), &self.learned())?;
            // One plan: a part refused (see `with_edges`), the kernels alone race.
            if parts.len() > 1 {
                contenders.push((Measured::Parts, None, parts));
            }
        }
        // Each contender's best time over alternating rounds (a shared machine's slow
        // spell then hits them all alike), each round as many runs as fill about
        // `RACE_ROUND`: small shapes take a fraction of a millisecond, where 3 runs were
        // noise. A contender that fails to time drops out; the race fails only if all do.
        let mut failed = None;
        let record = |plans: &[Plan], e: &mut wgpu::CommandEncoder| {
            plans
                .iter()
                .try_for_each(|p| self.record_plan(e, &src, &dst, p))
        };
        // The warm-up, whose time sets the run count.
        let mut runs: Vec<Option<usize>> = Vec::new();
        for (_, _, plans) in &contenders {
            runs.push(match timer.time_recorded(&|e| record(plans, e), 1, 1) {
                Ok(stats) => {
                    let fit = RACE_ROUND.as_secs_f64() / stats.min.as_secs_f64().max(1e-6);
                    Some((fit as usize).clamp(RACE_MIN_RUNS, RACE_MAX_RUNS))
                }
                Err(e) => {
                    failed = Some(e);
                    None
                }
            });
        }
        let mut times = vec![Duration::MAX; contenders.len()];
        for _ in 0..RACE_ROUNDS {
            for (i, (_, _, plans)) in contenders.iter().enumerate() {
                let Some(n) = runs[i] else { continue };
                match timer.time_recorded(&|e| record(plans, e), 0, n) {
                    Ok(stats) => times[i] = times[i].min(stats.min),
                    Err(e) => (runs[i], failed) = (None, Some(e)),
                }
            }
        }
        let mut best: Option<(Duration, Measured)> = None;
        let mut orders: Vec<(Duration, bool)> = Vec::new();
        for ((measured, order, _), (time, runs)) in
            contenders.into_iter().zip(times.into_iter().zip(runs))
        {
            if runs.is_none() {
                continue;
            }
            if best.as_ref().is_none_or(|(t, _)| time < *t) {
                best = Some((time, measured));
            }
            orders.extend(order.map(|on| (time, on)));
        }
        if let (None, Some(e)) = (&best, failed) {
            return Err(e);
        }
        // Both orders timed: the faster serves the class whenever micro runs it.
        let column_runs = match orders[..] {
            [(a, on), (b, _)] => Some(if a <= b { on } else { !on }),
            _ => None,
        };
        best.map(|(_, m)| (m, column_runs))
            .ok_or(PermuteError::ForcedChoice {
                what: "autotuning",
                why: "the request's forced options rule out every kernel it would time",
            })
    }
}
