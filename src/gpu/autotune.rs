//! Autotuning: when a plan says its shape class has kernels to time, time each on scratch
//! buffers of the plan's size (and the plan in parts, where it has them) and hand the
//! outcome to the planner. A failed race is remembered too, so it is not retried on every
//! encode.

use super::timing::Timer;
use super::{Permuter, captured, serial};
use crate::PermuteError;
use crate::model::Warp;
use crate::plan::{self, Kernel, Measured, Options, Plan, Request};
use crate::work::Work;
use std::time::Duration;

/// Rounds of each contender in a race, alternating, after its warm-up.
const RACE_ROUNDS: usize = 2;

/// About how long a contender's round lasts, within [`RACE_MIN_RUNS`] and
/// [`RACE_MAX_RUNS`] runs.
const RACE_ROUND: Duration = Duration::from_millis(5);

/// Fewest runs of a contender per round: large shapes take tens of milliseconds a run.
const RACE_MIN_RUNS: usize = 2;

/// Most runs of a contender per round: 84 KB took 0.15 ms a run on lavapipe.
const RACE_MAX_RUNS: usize = 32;

impl Permuter {
    /// The first-use work of `plan`, the plan of the permute `req`: its kernels timed
    /// (autotuning) or traced (the memory model), the outcome recorded as a fact about the
    /// device for the planner (a failed timing or trace too: the heuristic then decides).
    pub(super) fn first_use(&self, req: &Request, plan: &Plan) -> Result<(), PermuteError> {
        let _serial = serial(&self.device);
        if !plan.pending_race().is_empty() {
            let (measured, column_runs) = self
                .race(req, plan)
                .unwrap_or_else(|e| (Measured::Failed(e.to_string()), None));
            let mut learned = self.learned();
            if let Some(on) = column_runs {
                learned.column_runs.insert(plan.shape_class(), on);
            }
            learned.winners.insert(plan.shape_class(), measured);
        } else if !plan.pending_model().is_empty() {
            // A failed trace leaves no figures: the heuristic decides for this shape.
            let figures = self
                .model_kernels(req, plan.pending_model(), Warp::Wave32, true)
                .unwrap_or_default();
            self.learned().modelled.insert(plan.shape_key(), figures);
        }
        Ok(())
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
                    specialize: plan::race_specialize(plan, &req.options),
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
                .then(|| parts[0].cpu.column_runs);
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
        // noise. Recorded as work, not as the caller's plans: the race's runs do not count
        // towards a shape's compile paying back.
        let works: Vec<Vec<Work>> = contenders
            .iter()
            .map(|(_, _, plans)| plans.iter().map(Work::of_kernel).collect())
            .collect();
        let record = |works: &[Work], e: &mut wgpu::CommandEncoder| {
            works
                .iter()
                .try_for_each(|w| self.record_work(e, &src, &dst, w))
        };
        // `None` once a contender failed: it drops out.
        let mut times: Vec<Option<Duration>> = vec![None; works.len()];
        let mut runs = vec![0; works.len()];
        let mut failed = None;
        for round in 0..=RACE_ROUNDS {
            for (i, works) in works.iter().enumerate() {
                if round > 0 && times[i].is_none() {
                    continue;
                }
                // Round 0 is one run after a warm-up, whose time sets the runs of the rest.
                let n = if round == 0 { 1 } else { runs[i] };
                match timer.time_recorded(&|e| record(works, e), usize::from(round == 0), n) {
                    Ok(stats) => {
                        times[i] = Some(times[i].map_or(stats.min, |t| t.min(stats.min)));
                        if round == 0 {
                            let fit = RACE_ROUND.as_secs_f64() / stats.min.as_secs_f64();
                            runs[i] = (fit.ceil() as usize).clamp(RACE_MIN_RUNS, RACE_MAX_RUNS);
                        }
                    }
                    Err(e) => (times[i], failed) = (None, Some(e)),
                }
            }
        }
        // Shapes the race compiled kernels for have them now: they take the budget of
        // compiled shapes (which bounds the pipelines kept), and plans of them use them.
        let compiled = contenders.iter().flat_map(|(_, _, plans)| plans);
        self.learned()
            .specialized
            .extend(compiled.filter(|p| p.specialized).map(|p| p.shape_key()));
        let orders: Vec<Option<bool>> = contenders.iter().map(|(_, order, _)| *order).collect();
        let (best, column_runs) = fastest(&times, &orders);
        let Some(best) = best else {
            return Err(failed.unwrap_or(PermuteError::ForcedChoice {
                what: "autotuning",
                why: "the request's forced options rule out every kernel it would time",
            }));
        };
        let measured = contenders.swap_remove(best).0;
        Ok((measured, column_runs))
    }
}

/// The fastest of the contenders that timed (`times[i]`, `None` for one that failed), and,
/// where the micro kernel ran in both orders (`orders[i]`, `None` for other contenders),
/// its faster order (the first timed of two equal times).
fn fastest(times: &[Option<Duration>], orders: &[Option<bool>]) -> (Option<usize>, Option<bool>) {
    let timed = || {
        times
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.map(|t| (i, t)))
    };
    let best = timed().min_by_key(|&(_, t)| t).map(|(i, _)| i);
    let both: Vec<(Duration, bool)> = timed()
        .filter_map(|(i, t)| orders[i].map(|on| (t, on)))
        .collect();
    let column_runs = match both[..] {
        [(a, on), (b, _)] => Some(if a <= b { on } else { !on }),
        _ => None,
    };
    (best, column_runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_contender_that_timed_wins_and_its_order_too() {
        let ms = |m| Some(Duration::from_millis(m));
        // Micro in both orders (column runs faster), generic fastest.
        let orders = [Some(false), Some(true), None];
        assert_eq!(
            fastest(&[ms(9), ms(7), ms(5)], &orders),
            (Some(2), Some(true))
        );
        assert_eq!(
            fastest(&[ms(6), ms(7), ms(8)], &orders),
            (Some(0), Some(false))
        );
        // One order failed: no order is learnt; a failed contender never wins.
        assert_eq!(fastest(&[None, ms(7), ms(8)], &orders), (Some(1), None));
        assert_eq!(fastest(&[None, None, None], &orders), (None, None));
        // Equal times: the first timed, in either order of the pair.
        assert_eq!(
            fastest(&[ms(7), ms(7), None], &orders),
            (Some(0), Some(false))
        );
        let swapped = [Some(true), Some(false), None];
        assert_eq!(
            fastest(&[ms(7), ms(7), None], &swapped),
            (Some(0), Some(true))
        );
    }
}
