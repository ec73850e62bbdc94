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

    /// Times the plan's candidate kernels on scratch buffers of its size (best of 3 after a
    /// warm-up each), the micro kernel in both orders where column runs apply (whichever
    /// is faster depends on the CPU's caches), and the plan itself where it runs in parts
    /// ([`plan::with_edges`]). Returns the fastest, and the micro kernel's faster order
    /// where both ran.
    fn race(&self, req: &Request, plan: &Plan) -> Result<(Measured, Option<bool>), PermuteError> {
        let mut timer = self.timer.lock().unwrap_or_else(|p| p.into_inner());
        if timer.is_none() {
            *timer = Some(Timer::new(&self.device, &self.queue)?);
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
        // A contender that fails to time drops out; the race fails only if all do.
        let mut best: Option<(Duration, Measured)> = None;
        let mut orders: Vec<(Duration, bool)> = Vec::new();
        let mut failed = None;
        for (measured, order, plans) in contenders {
            let record = |e: &mut wgpu::CommandEncoder| {
                plans
                    .iter()
                    .try_for_each(|p| self.record_plan(e, &src, &dst, p))
            };
            match timer.time_recorded(&record, 1, 3) {
                Ok(stats) => {
                    if best.as_ref().is_none_or(|(t, _)| stats.min < *t) {
                        best = Some((stats.min, measured));
                    }
                    orders.extend(order.map(|on| (stats.min, on)));
                }
                Err(e) => failed = Some(e),
            }
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
