//! The generic kernel's runs (CPU devices, [`Plan::runs`](crate::plan::Plan::runs)): the
//! fragment that moves each invocation's run of units, gathered or scattered, converting or
//! not, lane-major or stacked, and where each run starts.

use crate::shaders::{
    GENERIC_RUN, GenericLayout, GenericVariant, LANE_GROUP, RunLanes, TemplateError, fill,
    wide_store,
};

pub(in crate::shaders) const GENERIC_SCATTER_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_scatter.wgsl");

pub(in crate::shaders) const GENERIC_CONVERT_QUAD_SCATTER_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_convert_quad_scatter.wgsl");

pub(in crate::shaders) const GENERIC_CONVERT_QUAD_RUNS_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_convert_quad_runs.wgsl");

pub(in crate::shaders) const GENERIC_CONVERT_RUNS_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_convert_runs.wgsl");

pub(in crate::shaders) const GENERIC_RUNS_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_runs.wgsl");

pub(in crate::shaders) const GENERIC_RUNS_WIDE_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_runs_wide.wgsl");

pub(in crate::shaders) const GENERIC_WALK_RUNS_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_walk_runs.wgsl");

pub(in crate::shaders) const GENERIC_RUN_START_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_run_start.wgsl");

pub(in crate::shaders) const GENERIC_STACKED_RUNS_WGSL: &str =
    include_str!("../../../shaders/cpu/generic_stacked_runs.wgsl");

/// The generic kernel's `move_items` for a variant with runs.
pub(in crate::shaders) fn runs_items_fn(v: &GenericVariant) -> Result<String, TemplateError> {
    // Stacked runs (`Plan::stacked_runs`): plain gathers, down the rows of the output's two
    // innermost dims (their extent and source stride).
    if v.lanes == RunLanes::Stacked {
        let (row, stack) = (v.rank - 1, v.rank - 2);
        let (row, step) = match v.specialized {
            true => (format!("ix(D{row})"), format!("ix(S{stack})")),
            false => (
                format!("ip(DIMS + {row}u)"),
                format!("ip(SRC_STRIDES + {stack}u)"),
            ),
        };
        let run = format!("{GENERIC_RUN}u");
        return fill(
            "cpu/generic_stacked_runs.wgsl",
            GENERIC_STACKED_RUNS_WGSL,
            &[("RUN", &run), ("ROW", &row), ("STACK_STEP", &step)],
        );
    }
    // The stride of the walk's innermost dim on the side it decodes: the source's
    // stride of the innermost output dim, or a scatter's destination stride of the
    // innermost source dim.
    let last = v.rank - 1;
    let step = match (v.specialized, v.scatter) {
        (true, _) => format!("ix(S{last})"),
        (false, true) => format!("ip(DST_STRIDES + {last}u)"),
        (false, false) => format!("ip(SRC_STRIDES + {last}u)"),
    };
    let mut values = vec![("RUN", format!("{GENERIC_RUN}u"))];
    // Runs of quads step a quad at a time, in their own fragment.
    if !v.quads {
        values.push(("STEP", step));
    }
    // A walk in tiles steps through the output too (its runs are a box's), as do runs in
    // boxes over binding windows.
    let walk_runs = matches!(v.layout, GenericLayout::Walk | GenericLayout::Boxed);
    if walk_runs {
        values.push(("DST_STEP", format!("ip(DST_STRIDES + {last}u)")));
    }
    if v.wide_stores {
        let gather: String = (0..16 / v.unit)
            .map(|j| format!("        let u{j} = load_src(at + {j}u * step);\n"))
            .collect();
        values.push(("UNIT_BYTES", v.unit.to_string()));
        values.push(("GATHER", gather));
        values.push(("WIDE", wide_store(v.unit, v.access64)));
    }
    let (name, template) = match (v.wide_stores, v.convert.is_some()) {
        (true, _) => ("cpu/generic_runs_wide.wgsl", GENERIC_RUNS_WIDE_WGSL),
        (false, true) if v.quads && v.scatter => (
            "cpu/generic_convert_quad_scatter.wgsl",
            GENERIC_CONVERT_QUAD_SCATTER_WGSL,
        ),
        (false, true) if v.quads => (
            "cpu/generic_convert_quad_runs.wgsl",
            GENERIC_CONVERT_QUAD_RUNS_WGSL,
        ),
        (false, true) => ("cpu/generic_convert_runs.wgsl", GENERIC_CONVERT_RUNS_WGSL),
        (false, false) if v.scatter => ("cpu/generic_scatter.wgsl", GENERIC_SCATTER_WGSL),
        (false, false) if walk_runs => ("cpu/generic_walk_runs.wgsl", GENERIC_WALK_RUNS_WGSL),
        (false, false) => ("cpu/generic_runs.wgsl", GENERIC_RUNS_WGSL),
    };
    let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut runs = fill(name, template, &values)?;
    // Gathered runs and walks in tiles may be lane-major (`Plan::lane_major_runs`).
    if !v.wide_stores && v.convert.is_none() && !v.scatter {
        let (lane_step, unit_step) = match v.lanes {
            RunLanes::Own => (GENERIC_RUN, 1),
            _ => (1, LANE_GROUP),
        };
        runs += "\n";
        runs += &fill(
            "cpu/generic_run_start.wgsl",
            GENERIC_RUN_START_WGSL,
            &[
                ("LANES", &format!("{LANE_GROUP}u")),
                ("LANE_STEP", &format!("{lane_step}u")),
                ("UNIT_STEP", &format!("{unit_step}u")),
            ],
        )?;
    }
    Ok(runs)
}
