//! `wgpu-permute bench`: the suites (permutes, views, conversions) on the default adapter,
//! each case next to the copies of its bytes, as a table, JSON and a plot.

use std::io::Write;
use std::path::PathBuf;

use wgpu_permute::Options;
use wgpu_permute::bench::{self, Bench, BenchError};

use super::{Result, output, permuter, report};

/// `bench`'s arguments.
pub struct Args {
    pub json: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub scale: usize,
    pub runs: usize,
    pub filter: Option<String>,
    pub autotune: bool,
    pub to: Option<String>,
}

pub fn run(args: Args, options: Options) -> Result<()> {
    let Args {
        json,
        plot,
        scale,
        runs,
        filter,
        autotune,
        to,
    } = args;
    for path in json.iter().chain(&plot) {
        output::check_target(path)?;
    }
    let to = match to.as_deref() {
        Some(name) => match wgpu_permute::convert::Dtype::parse(name) {
            Some(d) if d.is_destination() => Some(d),
            _ => {
                return Err(format!(
                    "--to {name}: convert to float32, float16, bfloat16 or uint8"
                ));
            }
        },
        None => None,
    };
    let p = permuter()?.with_autotune(autotune);
    let device = report::device_name(&p);
    let max_buffer = p.device().limits().max_buffer_size;
    let bench = Bench::new(&p, runs).map_err(|e| e.to_string())?;
    let mut cases: Vec<_> = bench::default_suite(scale)
        .into_iter()
        .chain(bench::view_suite(scale))
        .filter(|c| {
            filter
                .as_ref()
                .is_none_or(|f| c.label().contains(f.as_str()))
        })
        .collect();
    // With --to, the (filtered) permutes convert instead: the conversions section only.
    let conversions: Vec<_> = match to {
        Some(to) => bench::convert_suite_to(&std::mem::take(&mut cases), to),
        None => bench::convert_suite(scale)
            .into_iter()
            .filter(|c| filter.as_ref().is_none_or(|f| c.label.contains(f.as_str())))
            .collect(),
    };
    if cases.is_empty() && conversions.is_empty() {
        return Err("no benchmark case matches the filter".into());
    }
    eprintln!("device: {device}; timing: {}", bench.clock().describe());
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    // Rewritten after each case, so that a run stopped part way keeps what it measured.
    let write_json = |results: &[bench::CaseResult],
                      converted: &[bench::ConvertResult],
                      shapes: Option<&bench::ShapesResult>,
                      failed: &[String],
                      wrong: &[String],
                      done: bool|
     -> Result<()> {
        let Some(path) = &json else { return Ok(()) };
        let mut value = report::json(&device, bench.clock(), &command, results, shapes);
        value["adapter"] = report::adapter_json(&p);
        value["complete"] = done.into();
        value["not_measured"] = failed.into();
        value["wrong_results"] = wrong.into();
        value["conversions"] = report::conversions_json(converted);
        value["copy_placement"] = report::placement_json(bench.copy_placement().as_ref());
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        output::write_all(path, text.as_bytes())
    };
    let (mut results, mut converted) = (Vec::new(), Vec::new());
    let (mut failed, mut wrong) = (Vec::new(), Vec::new());
    for (i, case) in cases.iter().enumerate() {
        eprint!("[{}/{}] {} ... ", i + 1, cases.len(), case.label());
        let _ = std::io::stderr().flush();
        let bytes = case.bytes().max(case.source_bytes());
        if bytes > max_buffer {
            let e = format!("needs {bytes} bytes per buffer, over max_buffer_size");
            eprintln!("skipped: {e}");
            failed.push(format!("{}: {e}", case.label()));
            continue;
        }
        match bench.run_case(case, options) {
            Ok(r) => {
                eprintln!(
                    "{:.2} GB/s, {:.2}x buffer copy",
                    r.gbps(),
                    r.vs_buffer_copy()
                );
                results.push(r);
            }
            Err(BenchError::Permute(e)) => {
                eprintln!("skipped: {e}");
                failed.push(format!("{}: {e}", case.label()));
            }
            // A wrong result fails the run, after the other cases are measured.
            Err(e @ BenchError::Mismatch(_)) => {
                eprintln!("WRONG: {e}");
                wrong.push(e.to_string());
            }
        }
        write_json(&results, &converted, None, &failed, &wrong, false)?;
    }
    for (i, case) in conversions.iter().enumerate() {
        eprint!("[{}/{}] {} ... ", i + 1, conversions.len(), case.label);
        let _ = std::io::stderr().flush();
        match bench.run_convert(case) {
            Ok(r) => {
                eprintln!(
                    "{:.2}x shader copy, {:.2}x two passes",
                    r.vs_shader_copy(),
                    r.vs_two_pass()
                );
                converted.push(r);
            }
            Err(BenchError::Permute(e)) => {
                eprintln!("skipped: {e}");
                failed.push(format!("{}: {e}", case.label));
            }
            Err(e @ BenchError::Mismatch(_)) => {
                eprintln!("WRONG: {e}");
                wrong.push(e.to_string());
            }
        }
        write_json(&results, &converted, None, &failed, &wrong, false)?;
    }
    // First calls of many distinct shapes, with the whole suite only.
    let shapes = match filter {
        None => {
            eprint!("many shapes ... ");
            let shapes = bench.many_shapes(200).map_err(|e| e.to_string())?;
            eprintln!("done");
            Some(shapes)
        }
        Some(_) => None,
    };
    if !results.is_empty() || converted.is_empty() {
        println!("{}", bench::table(&device, bench.clock(), &results));
    }
    if !converted.is_empty() {
        println!("{}", bench::convert_table(&converted));
    }
    if let Some(shapes) = &shapes {
        println!("{shapes}");
    }
    for f in &failed {
        println!("not measured: {f}");
    }
    if let Some(placement) = bench.copy_placement() {
        println!("{placement}");
    }
    write_json(&results, &converted, shapes.as_ref(), &failed, &wrong, true)?;
    if let Some(path) = &json {
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = plot {
        output::write_all(&path, report::plot(&device, &results)?.as_bytes())?;
        eprintln!("wrote {}", path.display());
    }
    match wrong.is_empty() {
        true => Ok(()),
        false => Err(wrong.join("; ")),
    }
}
