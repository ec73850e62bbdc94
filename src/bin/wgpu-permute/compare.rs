//! `wgpu-permute compare`: a bench run's measurements beside the memory model's
//! predictions, case by case, as Markdown (the table `scripts/device-check.sh` writes for
//! docs/gpu/). Each case's prediction is its time at the bandwidth of the buffer copy
//! measured with it, over the model's ratio to a copy for the kernel that ran; where the
//! device is one the model names (`model::GPUS`), at its peak bandwidth too.

use std::path::PathBuf;

use serde_json::Value;
use wgpu_permute::model::gpu_named;

pub fn run(benches: &[PathBuf], model: &PathBuf) -> Result<(), String> {
    let read = |path: &PathBuf| -> Result<Value, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let model = read(model)?;
    let benches = benches.iter().map(read).collect::<Result<Vec<_>, _>>()?;
    print!("{}", table(&benches, &model)?);
    Ok(())
}

/// The report: a heading per bench run (device, driver, clock, the copies' bandwidth), its
/// cases beside the model's figures, and a summary of the permutes' ratios.
pub fn table(benches: &[Value], model: &Value) -> Result<String, String> {
    let mut out = String::new();
    let model_cases = model["cases"]
        .as_array()
        .ok_or("the model file has no \"cases\": write it with `model --suite --json`")?;
    for bench in benches {
        let cases = bench["cases"]
            .as_array()
            .ok_or("a bench file has no \"cases\": write it with `bench --json`")?;
        let adapter = &bench["adapter"];
        let name = adapter["name"].as_str().unwrap_or("unknown adapter");
        let gpu = gpu_named(name);
        out += &format!("## `{}`\n\n", command(bench));
        out += &format!(
            "- device: {} (driver: {} {}; {} {})\n",
            bench["device"].as_str().unwrap_or(name),
            adapter["driver"].as_str().unwrap_or("?"),
            adapter["driver_info"].as_str().unwrap_or(""),
            adapter["backend"].as_str().unwrap_or("?"),
            adapter["device_type"].as_str().unwrap_or("?"),
        );
        out += &format!("- timing: {}\n", bench["timing"].as_str().unwrap_or("?"));
        if adapter["device_type"] == "Cpu" {
            out += "- a CPU adapter: the model describes GPUs, so its predictions say nothing \
                    of this device's speed\n";
        }
        let gbps = |key: &str| -> Vec<f64> {
            cases
                .iter()
                .filter_map(|c| Some(traffic(c)? as f64 / c[key].as_f64()? / 1e9))
                .collect()
        };
        out += &format!(
            "- `copy_buffer_to_buffer` {:.1} GB/s, shader copy {:.1} GB/s (medians over the \
             cases, bytes read + written)\n",
            median(gbps("buffer_copy_median_s")),
            median(gbps("shader_copy_median_s")),
        );
        out += &format!(
            "- model: traced on {}, warps of {}, {}-byte sectors; predicted = the case's \
             bytes at the buffer copy's bandwidth measured with it, over the model's ratio \
             to a copy for the kernel that ran{}\n\n",
            model["traced_on"].as_str().unwrap_or("?"),
            model["warp"],
            model["sector_bytes"],
            match gpu {
                Some(g) => format!("; peak: at {}'s {} GB/s", g.name, g.peak_gb_per_s),
                None => String::new(),
            }
        );
        out += "| case | MiB | kernel | ms | GB/s | / copy | / shader copy | loads | stores | \
                bank ways | model / copy | predicted ms | measured / predicted |";
        out += if gpu.is_some() { " peak ms |\n" } else { "\n" };
        out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|";
        out += if gpu.is_some() { "---|\n" } else { "\n" };
        for case in cases {
            let ms = case["permute_median_s"].as_f64().unwrap_or(f64::NAN) * 1e3;
            let kernel = case["kernel"].as_str().unwrap_or("?");
            let figures = modelled(case, model_cases, kernel);
            let ratio = figures.map(|f| f["ratio_to_copy"].as_f64().unwrap_or(f64::NAN));
            let copy_ms = case["buffer_copy_median_s"].as_f64().unwrap_or(f64::NAN) * 1e3;
            let predicted = ratio.map(|r| copy_ms / r);
            let cell = |f: Option<&Value>, key: &str, digits: usize| match f {
                Some(f) => format!("{:.digits$}", f[key].as_f64().unwrap_or(f64::NAN)),
                None => "-".into(),
            };
            out += &format!(
                "| `{}` | {:.1} | {kernel} | {ms:.3} | {:.0} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {} |",
                case["case"].as_str().unwrap_or("?"),
                case["bytes"].as_f64().unwrap_or(f64::NAN) / (1 << 20) as f64,
                case["gbps"].as_f64().unwrap_or(f64::NAN),
                case["vs_buffer_copy"].as_f64().unwrap_or(f64::NAN),
                case["vs_shader_copy"].as_f64().unwrap_or(f64::NAN),
                cell(figures, "load_efficiency", 2),
                cell(figures, "store_efficiency", 2),
                cell(figures, "bank_conflict_ways", 0),
                cell(figures, "ratio_to_copy", 2),
                predicted.map_or("-".into(), |p| format!("{p:.3}")),
                predicted.map_or("-".into(), |p| format!("{:.2}", ms / p)),
            );
            if let Some(g) = gpu {
                let peak = traffic(case)
                    .zip(ratio)
                    .map(|(bytes, r)| bytes as f64 / (g.peak_gb_per_s * 1e9) / r * 1e3);
                out += &format!(" {} |", peak.map_or("-".into(), |p| format!("{p:.3}")));
            }
            out += "\n";
        }
        let permutes: Vec<f64> = cases
            .iter()
            .filter(|c| c["view"].is_null())
            .filter_map(|c| c["vs_buffer_copy"].as_f64())
            .collect();
        if !permutes.is_empty() {
            let low = permutes.iter().filter(|&&r| r < 0.8).count();
            out += &format!(
                "\npermutes / `copy_buffer_to_buffer`: median {:.2}, lowest {:.2}; {low} of {} \
                 below 0.8\n",
                median(permutes.clone()),
                permutes.iter().copied().fold(f64::INFINITY, f64::min),
                permutes.len(),
            );
        }
        if let Some(missed) = bench["not_measured"].as_array().filter(|m| !m.is_empty()) {
            out += "\nnot measured:\n";
            for m in missed {
                out += &format!("- {}\n", m.as_str().unwrap_or("?"));
            }
        }
        out += "\n";
    }
    Ok(out)
}

/// The bench's command line as run, the program and files by their names alone.
fn command(bench: &Value) -> String {
    let line = bench["command"].as_str().unwrap_or("bench");
    let words: Vec<&str> = line
        .split(' ')
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    words.join(" ")
}

/// Bytes a case counts as moved (read + written).
fn traffic(case: &Value) -> Option<u64> {
    Some(2 * case["bytes"].as_u64()?)
}

/// The model's figures for the kernel that ran a case (the first of its parts' kernels):
/// the model case of the same permute, or of the same permute at another `--scale` (its
/// outermost dim scaled, the same accesses per workgroup). `None` for a view, a copy, or a
/// case the model did not trace.
fn modelled<'a>(case: &Value, model: &'a [Value], kernel: &str) -> Option<&'a Value> {
    let perm = case["perm"].as_array().filter(|p| !p.is_empty())?;
    let shape = case["shape"].as_array()?;
    let kernel = kernel.split('+').next()?;
    let same = |m: &&Value| {
        m["perm"].as_array() == Some(perm)
            && m["elem_size"] == case["elem_size"]
            && m["shape"]
                .as_array()
                .is_some_and(|s| s.get(1..) == shape.get(1..))
    };
    let found = model
        .iter()
        .find(|m| m["case"] == case["case"])
        .or_else(|| model.iter().find(same))?;
    found["kernels"]
        .as_array()?
        .iter()
        .find(|f| f["kernel"].as_str() == Some(kernel))
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A GPU's case beside the model of the kernel that ran, at `--scale 4` too (found by
    /// its permute, the outermost dim aside); a view without a model.
    #[test]
    fn each_case_sits_beside_the_model_of_its_kernel() {
        let case = |shape: &[usize], ms: f64| {
            json!({
                "case": format!("[{}] (1,0) 4B", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")),
                "shape": shape, "perm": [1, 0], "view": null, "elem_size": 4,
                "bytes": shape.iter().product::<usize>() * 4, "kernel": "tiled",
                "permute_median_s": ms / 1e3, "buffer_copy_median_s": 0.5 * ms / 1e3,
                "shader_copy_median_s": 0.6 * ms / 1e3, "gbps": 1000.0,
                "vs_buffer_copy": 0.5, "vs_shader_copy": 0.6,
            })
        };
        let view = json!({
            "case": "view: flip", "shape": [8, 8], "perm": [], "view": {"name": "flip"},
            "elem_size": 4, "bytes": 256, "kernel": "generic", "permute_median_s": 1e-6,
            "buffer_copy_median_s": 1e-6, "shader_copy_median_s": 1e-6, "gbps": 0.5,
            "vs_buffer_copy": 1.0, "vs_shader_copy": 1.0,
        });
        let bench = json!({
            "command": "/x/wgpu-permute bench --json /tmp/out/bench.json",
            "device": "NVIDIA H100 80GB HBM3 (Vulkan)",
            "timing": "GPU timestamp queries",
            "adapter": {"name": "NVIDIA H100 80GB HBM3", "driver": "NVIDIA", "driver_info": "580",
                        "backend": "Vulkan", "device_type": "DiscreteGpu"},
            "cases": [case(&[4096, 4096], 0.2), case(&[16384, 4096], 0.8), view],
            "not_measured": ["[2,2] (1,0) 4B: refused"],
        });
        let model = json!({
            "traced_on": "lavapipe", "warp": 32, "sector_bytes": 32,
            "cases": [{"case": "[4096,4096] (1,0) 4B", "shape": [4096, 4096], "perm": [1, 0],
                       "elem_size": 4, "chosen": "tiled",
                       "kernels": [{"kernel": "generic", "load_efficiency": 0.125,
                                    "store_efficiency": 1.0, "bank_conflict_ways": 1,
                                    "ratio_to_copy": 0.22},
                                   {"kernel": "tiled", "load_efficiency": 1.0,
                                    "store_efficiency": 0.8, "bank_conflict_ways": 1,
                                    "ratio_to_copy": 0.8}]}],
        });
        let text = table(&[bench], &model).unwrap();
        assert!(
            text.starts_with("## `wgpu-permute bench --json bench.json`"),
            "{text}"
        );
        assert!(text.contains("driver: NVIDIA 580"), "{text}");
        // 0.2 ms measured; the copy took 0.1, the model says 0.8 of it: 0.125 predicted.
        let row = text
            .lines()
            .find(|l| l.starts_with("| `[4096,4096]"))
            .unwrap();
        assert!(
            row.contains("| 1.00 | 0.80 | 1 | 0.80 | 0.125 | 1.60 |"),
            "{row}"
        );
        // The scaled case takes the same figures; peak: 256 MiB at 3350 GB/s over 0.8.
        let scaled = text
            .lines()
            .find(|l| l.starts_with("| `[16384,4096]"))
            .unwrap();
        assert!(
            scaled.contains("| 0.80 | 0.500 | 1.60 | 0.200 |"),
            "{scaled}"
        );
        let flip = text
            .lines()
            .find(|l| l.starts_with("| `view: flip`"))
            .unwrap();
        assert!(flip.contains("| - | - | - | - | - | - |"), "{flip}");
        assert!(
            text.contains("median 0.50, lowest 0.50; 2 of 2 below 0.8"),
            "{text}"
        );
        assert!(text.contains("- [2,2] (1,0) 4B: refused"), "{text}");
    }
}
