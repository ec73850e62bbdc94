//! `wgpu-permute model`: each kernel's memory figures on GPUs, from traces of its own
//! accesses run on the default adapter (see the library's `model` module).

use serde_json::json;
use wgpu_permute::convert::Conversion;
use wgpu_permute::model::{Figures, GPUS, Warp};
use wgpu_permute::plan::{self, Kernel};
use wgpu_permute::{DeviceCaps, Options, Relayout, diagnostics};

pub struct Args<'a> {
    pub shape: &'a [usize],
    pub perm: &'a [usize],
    pub elem_size: usize,
    /// Elements converted on the way (`--to`).
    pub conversion: Option<Conversion>,
    pub kernel: Option<Kernel>,
    pub padding: bool,
    pub wave64: bool,
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), String> {
    let err = |e: wgpu_permute::PermuteError| e.to_string();
    let mut op = Relayout::permute(args.shape, args.perm, args.elem_size).map_err(err)?;
    if let Some(c) = &args.conversion {
        op = op.with_conversion(c.clone()).map_err(err)?;
    }
    // Check the request itself before any GPU work: its plan (whole, the body's first).
    let base = op.plan(&DeviceCaps::default()).map_err(err)?.remove(0);
    let p = super::permuter()?;
    let warp = warp(args.wave64);
    let kernels = match args.kernel {
        Some(k) => vec![k],
        None => vec![Kernel::Generic, Kernel::Tiled, Kernel::Micro],
    };
    if let Some(k) = args.kernel {
        // A forced kernel that cannot run is an error, as for `plan`.
        let forced = op.clone().with_options(Options {
            kernel: Some(k),
            ..Options::default()
        });
        diagnostics::plan(&p, &forced).map_err(err)?;
    }
    let figures = diagnostics::model_kernels(&p, &op, &kernels, warp, args.padding).map_err(err)?;
    // Conversions do not consult the model yet: a GPU permuter runs what the plan says.
    let chosen = match args.conversion {
        Some(_) => Some(base.kernel()),
        None => plan::modelled_best(&figures, &kernels),
    };
    let device = super::report::device_name(&p);
    if args.json {
        let kernels: Vec<_> = figures.iter().map(figures_json).collect();
        let value = json!({
            "shape": args.shape,
            "perm": args.perm,
            "elem_size": args.elem_size,
            "bytes_moved": base.bytes() + base.bytes_written(),
            "warp": warp.size(),
            "sector_bytes": wgpu_permute::model::SECTOR,
            "banks": wgpu_permute::model::BANKS,
            "padding": args.padding,
            "traced_on": device,
            "chosen": chosen.map(Kernel::name),
            "kernels": kernels,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "shape {:?} perm {:?}, {} B elements{}: {} bytes moved; a model of memory traffic, not a measurement",
        args.shape,
        args.perm,
        args.elem_size,
        match &args.conversion {
            Some(c) => format!(" converted from {} to {}", c.from().name(), c.to().name()),
            None => String::new(),
        },
        base.bytes() + base.bytes_written()
    );
    println!(
        "warps of {}, {}-byte sectors, {} banks; traced on {device}{}",
        warp.size(),
        wgpu_permute::model::SECTOR,
        wgpu_permute::model::BANKS,
        if args.padding {
            ""
        } else {
            "; tiles WITHOUT their padding column"
        }
    );
    if figures.is_empty() {
        println!("no kernel with a shader applies (the permute is a buffer copy)");
        return Ok(());
    }
    let mut header = format!(
        "{:<8} {:>6} {:>6} {:>9} {:>8}",
        "kernel", "loads", "stores", "bank ways", "vs copy"
    );
    for gpu in &GPUS {
        header += &format!(" {:>17}", gpu.name);
    }
    println!("{header}");
    for f in &figures {
        let mut line = format!(
            "{:<8} {:>6.3} {:>6.3} {:>9} {:>8.2}",
            f.kernel.name(),
            f.load_efficiency,
            f.store_efficiency,
            f.bank_conflict_ways,
            f.ratio_to_copy()
        );
        for gpu in &GPUS {
            line += &format!(" {:>14.3} ms", f.seconds_on(gpu) * 1e3);
        }
        println!("{line}");
    }
    let peaks: Vec<String> = GPUS
        .iter()
        .map(|g| format!("{} {} GB/s", g.name, g.peak_gb_per_s))
        .collect();
    println!(
        "peak bandwidths (vendor specifications): {}",
        peaks.join(", ")
    );
    if let Some(k) = chosen {
        println!("a GPU permuter chooses: {}", k.name());
    }
    Ok(())
}

fn warp(wave64: bool) -> Warp {
    if wave64 { Warp::Wave64 } else { Warp::Wave32 }
}

/// Every suite case as a row of a Markdown table: the kernel a GPU permuter chooses by the
/// model, its figures, and its predicted time on each named GPU. With `json`, every
/// kernel's figures per case instead, as `compare` reads them.
pub fn suite(padding: bool, wave64: bool, json: bool) -> Result<(), String> {
    let p = super::permuter()?;
    let warp = warp(wave64);
    let all = [Kernel::Generic, Kernel::Tiled, Kernel::Micro];
    let mut rows = Vec::new();
    for case in wgpu_permute::bench::default_suite(1) {
        let [(view, 0)] = case.op.views() else {
            continue;
        };
        if view.as_permute().is_none() {
            continue;
        }
        let figures = diagnostics::model_kernels(&p, &case.op, &all, warp, padding)
            .map_err(|e| e.to_string())?;
        let Some(chosen) = plan::modelled_best(&figures, &all) else {
            continue;
        };
        rows.push((case, chosen, figures));
    }
    if json {
        let cases: Vec<_> = rows
            .iter()
            .map(|(case, chosen, figures)| {
                json!({
                    "case": case.label(),
                    "shape": case.shape,
                    "perm": case.perm,
                    "elem_size": case.op.elem_size(),
                    "chosen": chosen.name(),
                    "kernels": figures.iter().map(figures_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        let value = json!({
            "traced_on": super::report::device_name(&p),
            "warp": warp.size(),
            "sector_bytes": wgpu_permute::model::SECTOR,
            "banks": wgpu_permute::model::BANKS,
            "padding": padding,
            "cases": cases,
        });
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    let mut header = String::from(
        "| case | chosen | loads | stores | bank ways | vs copy | other kernels (vs copy) |",
    );
    let mut rule = String::from("|---|---|---|---|---|---|---|");
    for gpu in &GPUS {
        header += &format!(" {} |", gpu.name);
        rule += "---|";
    }
    println!("{header}\n{rule}");
    for (case, chosen, figures) in &rows {
        let f = figures
            .iter()
            .find(|f| f.kernel == *chosen)
            .expect("chosen");
        let others: Vec<String> = figures
            .iter()
            .filter(|o| o.kernel != *chosen)
            .map(|o| format!("{} {:.2}", o.kernel.name(), o.ratio_to_copy()))
            .collect();
        let mut row = format!(
            "| `{}` | {} | {:.2} | {:.2} | {} | {:.2} | {} |",
            case.label(),
            chosen.name(),
            f.load_efficiency,
            f.store_efficiency,
            f.bank_conflict_ways,
            f.ratio_to_copy(),
            if others.is_empty() {
                "-".to_string()
            } else {
                others.join(", ")
            }
        );
        for gpu in &GPUS {
            row += &format!(" {:.1} µs |", f.seconds_on(gpu) * 1e6);
        }
        println!("{row}");
    }
    Ok(())
}

fn figures_json(f: &Figures) -> serde_json::Value {
    let predicted: Vec<_> = GPUS
        .iter()
        .map(|g| {
            json!({
                "gpu": g.name,
                "peak_gb_per_s": g.peak_gb_per_s,
                "seconds": f.seconds_on(g),
            })
        })
        .collect();
    json!({
        "kernel": f.kernel.name(),
        "load_efficiency": f.load_efficiency,
        "store_efficiency": f.store_efficiency,
        "bank_conflict_ways": f.bank_conflict_ways,
        "bytes_moved": f.bytes_moved,
        "ratio_to_copy": f.ratio_to_copy(),
        "predicted": predicted,
    })
}
