//! Timing GPU work: timestamp queries written around it where the device has them, wall
//! clock around submit and wait otherwise; median and minimum of repeated runs. Used by
//! autotuning (`gpu`) and by the benchmark runner (`bench`).

use std::time::{Duration, Instant};

use super::{captured, read_buffer, wait_for};
use crate::PermuteError;

/// How times were taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// GPU timestamps written before and after the work in the command encoder.
    GpuTimestamps,
    /// Host time around submit and wait: includes submission overhead.
    WallClock,
    /// GPU timestamps plus the host's time to record the work (CPU devices, see
    /// [`Timer::counting_recording`]).
    GpuTimestampsAndRecording,
    /// Host time around recording, submit and wait.
    WallClockAndRecording,
}

impl Clock {
    pub fn describe(self) -> &'static str {
        match self {
            Clock::GpuTimestamps => "GPU timestamp queries",
            Clock::WallClock => "wall clock around submit + wait (no timestamp queries)",
            Clock::GpuTimestampsAndRecording => {
                "GPU timestamp queries plus the host's time to record the work (a CPU device: the same cores)"
            }
            Clock::WallClockAndRecording => {
                "wall clock around recording + submit + wait (no timestamp queries; a CPU device)"
            }
        }
    }
}

/// Median and minimum of repeated runs, as the timer counts them, and the median of the
/// device's part alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub median: Duration,
    pub min: Duration,
    /// The median of each run's time on the timer's clock without the host's time to record
    /// the work, which the timer adds on CPU devices ([`Timer::counting_recording`]); else
    /// `median`. With GPU timestamps it is what a GPU profiler reports, so comparisons with
    /// another library's profiled times take this.
    pub device_median: Duration,
}

impl Stats {
    /// Of at least one run: each run's time as counted and its device part (see
    /// [`Timer::time_once`]). The median of an even count is the mean of the middle two (the
    /// upper one biased times up for an even `--runs`).
    pub(crate) fn of(runs: Vec<(Duration, Duration)>) -> Stats {
        let (times, device): (Vec<Duration>, Vec<Duration>) = runs.into_iter().unzip();
        Stats {
            median: median(times.clone()),
            min: times.into_iter().min().expect("at least one run"),
            device_median: median(device),
        }
    }

    /// GB/s for `traffic` bytes at the median time.
    pub fn gbps(&self, traffic: u64) -> f64 {
        traffic as f64 / self.median.as_secs_f64().max(1e-12) / 1e9
    }
}

/// Times GPU work: timestamps written around it in the command encoder where the device has
/// `TIMESTAMP_QUERY_INSIDE_ENCODERS`, wall clock around submit and wait otherwise; with
/// [`Timer::counting_recording`], plus the host's time to record it.
pub struct Timer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    queries: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
    recording: bool,
}

impl Timer {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Self, PermuteError> {
        let queries = device
            .features()
            .contains(
                wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
            )
            .then(|| {
                captured(device, || {
                    let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("wgpu-permute timestamps"),
                        ty: wgpu::QueryType::Timestamp,
                        count: 2,
                    });
                    let buffer = |usage| {
                        device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some("wgpu-permute timestamps"),
                            size: 16,
                            usage,
                            mapped_at_creation: false,
                        })
                    };
                    let resolve =
                        buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
                    let readback =
                        buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
                    (set, resolve, readback)
                })
            })
            .transpose()?;
        Ok(Timer {
            device: device.clone(),
            queue: queue.clone(),
            queries,
            recording: false,
        })
    }

    /// Adds the host's time to record the work (and finish its encoder) to each time: on a
    /// CPU device the host and the device are the same cores, so recording is part of what
    /// the work costs (thousands of row copies take milliseconds to record, which a
    /// device's timestamps do not see).
    pub fn counting_recording(mut self, on: bool) -> Self {
        self.recording = on;
        self
    }

    pub fn clock(&self) -> Clock {
        match (self.queries.is_some(), self.recording) {
            (true, false) => Clock::GpuTimestamps,
            (false, false) => Clock::WallClock,
            (true, true) => Clock::GpuTimestampsAndRecording,
            (false, true) => Clock::WallClockAndRecording,
        }
    }

    /// Time of one submission of the work `record` puts in an encoder, and the device's part
    /// of it (without the host's recording, where the timer counts it).
    pub fn time_once(
        &self,
        record: &dyn Fn(&mut wgpu::CommandEncoder),
    ) -> Result<(Duration, Duration), PermuteError> {
        let (device, queue) = (&self.device, &self.queue);
        let mut encoder = device.create_command_encoder(&Default::default());
        let recording = Instant::now();
        let time = match &self.queries {
            Some((set, resolve, readback)) => {
                encoder.write_timestamp(set, 0);
                record(&mut encoder);
                encoder.write_timestamp(set, 1);
                encoder.resolve_query_set(set, 0..2, resolve, 0);
                encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, 16);
                let commands = encoder.finish();
                let recorded = recording.elapsed();
                captured(device, || queue.submit([commands]))?;
                let ticks: Vec<u64> =
                    bytemuck::pod_collect_to_vec(&read_buffer(device, readback, 16)?);
                let ns =
                    ticks[1].saturating_sub(ticks[0]) as f64 * queue.get_timestamp_period() as f64;
                (Duration::from_nanos(ns as u64), recorded)
            }
            None => {
                record(&mut encoder);
                let commands = encoder.finish();
                let recorded = recording.elapsed();
                let start = Instant::now();
                captured(device, || queue.submit([commands]))?;
                wait_for(device)?;
                (start.elapsed(), recorded)
            }
        };
        Ok(match self.recording {
            true => (time.0 + time.1, time.0),
            false => (time.0, time.0),
        })
    }

    /// Median and minimum over `runs` timed submissions, after `warmups` untimed ones.
    /// [`Timer::time`] for work whose recording can fail: the first error ends the timing
    /// and is returned.
    pub fn time_recorded(
        &self,
        record: &dyn Fn(&mut wgpu::CommandEncoder) -> Result<(), PermuteError>,
        warmups: usize,
        runs: usize,
    ) -> Result<Stats, PermuteError> {
        let failed = std::cell::Cell::new(None);
        let stats = self.time(
            &|e| {
                if let Err(err) = record(e) {
                    failed.set(Some(err));
                }
            },
            warmups,
            runs,
        )?;
        failed.take().map_or(Ok(stats), Err)
    }

    /// Median and minimum over `runs` timed submissions after `warmups` untimed ones, and
    /// the device part's median.
    pub fn time(
        &self,
        record: &dyn Fn(&mut wgpu::CommandEncoder),
        warmups: usize,
        runs: usize,
    ) -> Result<Stats, PermuteError> {
        for _ in 0..warmups {
            self.time_once(record)?;
        }
        let samples = (0..runs.max(1))
            .map(|_| self.time_once(record))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Stats::of(samples))
    }
}

/// Of at least one sample: the mean of the middle two of an even count.
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let n = samples.len();
    (samples[(n - 1) / 2] + samples[n / 2]) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_an_even_count_of_runs_is_the_mean_of_the_middle_two() {
        // Each run's device part half its time.
        let ms = |v: &[u64]| {
            let runs = v.iter().map(|&m| Duration::from_millis(m));
            Stats::of(runs.map(|t| (t, t / 2)).collect())
        };
        assert_eq!(ms(&[9, 5, 7]).median, Duration::from_millis(7));
        assert_eq!(ms(&[9, 5, 8, 6]).median, Duration::from_millis(7));
        assert_eq!(ms(&[9, 5, 8, 6]).min, Duration::from_millis(5));
        assert_eq!(ms(&[2]).median, Duration::from_millis(2));
        assert_eq!(ms(&[9, 5, 8, 6]).device_median, Duration::from_micros(3500));
    }
}
