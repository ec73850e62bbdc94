//! Benchmark results as JSON and as an SVG bar chart of bandwidth ratios per case.

use plotters::prelude::*;
use serde_json::{Value, json};
use wgpu_permute::Permuter;
use wgpu_permute::bench::{CaseResult, Clock, ConvertResult, CopyPlacement, ShapesResult};

/// The adapter, and on CPU devices that could take either the access width measured
/// faster there (`DeviceCaps::access64_faster`), since every figure depends on it.
pub fn device_name(p: &Permuter) -> String {
    let i = p.device().adapter_info();
    let caps = p.caps();
    let width = match (caps.cpu && caps.int64, caps.access64_faster) {
        (false, _) => "",
        (true, true) => ", 64-bit components (measured faster here)",
        (true, false) => ", 32-bit components (measured faster here)",
    };
    format!("{} ({:?}){width}", i.name, i.backend)
}

/// The adapter as wgpu reports it: name, driver and its version, backend, device type.
pub fn adapter_json(p: &Permuter) -> Value {
    let i = p.device().adapter_info();
    json!({
        "name": i.name,
        "vendor": i.vendor,
        "device": i.device,
        "driver": i.driver,
        "driver_info": i.driver_info,
        "backend": format!("{:?}", i.backend),
        "device_type": format!("{:?}", i.device_type),
    })
}

/// The conversions section's rows.
pub fn conversions_json(results: &[ConvertResult]) -> Value {
    results
        .iter()
        .map(|r| {
            json!({
                "case": r.case.label,
                "label": r.case.label,
                "from": r.case.fused.conversion().map(|c| c.from().name()),
                "to": r.case.fused.conversion().map(|c| c.to().name()),
                "bytes_read_written": r.case.traffic(),
                "fused_median_s": r.fused.median.as_secs_f64(),
                "fused_min_s": r.fused.min.as_secs_f64(),
                "two_pass_median_s": r.two_pass.median.as_secs_f64(),
                "shader_copy_median_s": r.shader_copy.median.as_secs_f64(),
                "gbps": r.gbps(),
                "vs_shader_copy": r.vs_shader_copy(),
                "vs_two_pass": r.vs_two_pass(),
            })
        })
        .collect()
}

/// Where the copies ran (`Bench::copy_placement`): null if no case ran.
pub fn placement_json(placement: Option<&CopyPlacement>) -> Value {
    placement.map_or(Value::Null, |p| {
        let tried: Vec<Value> = (p.tried.iter())
            .map(
                |(at, t)| json!({"dst_offset": at, "shader_copy_median_s": t.median.as_secs_f64()}),
            )
            .collect();
        json!({"bytes": p.bytes, "dst_offset": p.dst_offset, "tried": tried})
    })
}

pub fn json(
    device: &str,
    clock: Clock,
    command: &str,
    results: &[CaseResult],
    shapes: Option<&ShapesResult>,
) -> Value {
    let cases: Vec<Value> = results
        .iter()
        .map(|r| {
            // A view case: its view of the source (`shape`); `perm` is then empty.
            let view = r.case.view.map(|name| {
                let v = &r.case.op.views()[0].0;
                let bounds: Vec<Value> = v
                    .bounds
                    .iter()
                    .map(|b| json!({"dims": b.dims, "valid": [b.valid.start, b.valid.end]}))
                    .collect();
                json!({
                    "name": name,
                    "shape": v.shape,
                    "strides": v.strides,
                    "offset": v.offset,
                    "bounds": bounds,
                })
            });
            json!({
                "case": r.case.label(),
                "shape": r.case.shape,
                "perm": r.case.perm,
                "view": view,
                "elem_size": r.case.op.elem_size(),
                "bytes": r.case.bytes(),
                "source_bytes": r.case.source_bytes(),
                "kernel": r.kernels(),
                "plan": r.plan_text(),
                "permute_median_s": r.permute.median.as_secs_f64(),
                "permute_min_s": r.permute.min.as_secs_f64(),
                "permute_device_median_s": r.permute.device_median.as_secs_f64(),
                "buffer_copy_median_s": r.buffer_copy.median.as_secs_f64(),
                "shader_copy_median_s": r.shader_copy.median.as_secs_f64(),
                "shader_copy_device_median_s": r.shader_copy.device_median.as_secs_f64(),
                "cpu_reference_s": r.cpu_reference.as_secs_f64(),
                "cold_s": r.cold.as_secs_f64(),
                "gbps": r.gbps(),
                "vs_buffer_copy": r.vs_buffer_copy(),
                "vs_shader_copy": r.vs_shader_copy(),
            })
        })
        .collect();
    json!({
        "device": device,
        "timing": clock.describe(),
        "command": command,
        "cases": cases,
        "many_shapes": shapes.map(|s| json!({
            "shapes": s.count,
            "bytes": s.bytes,
            "planned_s": s.chosen.as_secs_f64(),
            "uniform_s": s.uniform.as_secs_f64(),
            "own_pipelines": s.specialized,
        })),
    })
}

/// A bar series: legend, colour, offset within a case's row, and the ratio it shows.
type Series = (&'static str, RGBColor, i32, fn(&CaseResult) -> f64);

/// Horizontal bars per case: permute bandwidth over the buffer copy's (blue) and over the
/// shader copy's (orange), with a line at 1.0 (as fast as the copy). Returns the SVG text,
/// for the caller to write.
pub fn plot(device: &str, results: &[CaseResult]) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, device, results)?;
    Ok(svg)
}

fn draw(svg: &mut String, device: &str, results: &[CaseResult]) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot draw the plot: {e}");
    let n = results.len() as i32;
    let root = SVGBackend::with_string(svg, (1000, 130 + 40 * n as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let max = results
        .iter()
        .flat_map(|r| [r.vs_buffer_copy(), r.vs_shader_copy()])
        .fold(1.0f64, f64::max)
        * 1.1;
    // Case i occupies y in [10 i, 10 i + 10), listed top to bottom.
    let row = |i: usize| 10 * (n - 1 - i as i32);
    let centres: Vec<i32> = (0..results.len()).map(|i| row(i) + 5).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("permute (or view) bandwidth / copy bandwidth, {device}"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(250)
        .build_cartesian_2d(0f64..max, (0..10 * n).with_key_points(centres))
        .map_err(|e| fail(&e))?;
    let labels: Vec<String> = results.iter().map(|r| r.case.label()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|y| {
            let i = (n - 1 - (y - 5) / 10) as usize;
            labels.get(i).cloned().unwrap_or_default()
        })
        .x_desc("ratio of bandwidths (median times); 1.0 = as fast as the copy")
        .draw()
        .map_err(|e| fail(&e))?;
    let series: [Series; 2] = [
        (
            "/ buffer copy",
            RGBColor(31, 119, 180),
            5,
            CaseResult::vs_buffer_copy,
        ),
        (
            "/ shader copy",
            RGBColor(255, 127, 14),
            1,
            CaseResult::vs_shader_copy,
        ),
    ];
    for (name, color, low, value) in series {
        chart
            .draw_series(results.iter().enumerate().map(|(i, r)| {
                let y = row(i) + low;
                Rectangle::new([(0.0, y), (value(r), y + 4)], color.filled())
            }))
            .map_err(|e| fail(&e))?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
    }
    chart
        .draw_series(LineSeries::new(
            [(1.0, 0), (1.0, 10 * n)],
            BLACK.stroke_width(1),
        ))
        .map_err(|e| fail(&e))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}
