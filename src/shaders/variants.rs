//! Every shader variant the planner can ask for, listed for validation (naga, Tint) and
//! for the tests that run each one.

use crate::IndexMath;
use crate::shaders::{
    Block, GenericLayout, GenericVariant, MICRO_FLAT_RUN, MICRO_LANE_MAJOR_RUN, MICRO_RUNS,
    MicroVariant, RunLanes, STRIP_MAX, Strip, TiledVariant, Variant, flat_planned,
};
use crate::view::{ELEM_SIZES, MAX_RANK};

/// Every variant the planner can ask for; the naga test validates each one.
pub fn all_variants() -> Vec<Variant> {
    let mut all = Vec::new();
    for unit in ELEM_SIZES.map(|u| u as u32) {
        for rank in 1..=MAX_RANK {
            if rank >= 2 {
                all.push(Variant::Tiled(TiledVariant {
                    rank,
                    unit,
                    strip: None,
                }));
                // `specialized`: compiled for a shape (plans in one binding, views too).
                let micro = |block: Block, padded, specialized| {
                    Variant::Micro(MicroVariant {
                        rank,
                        unit,
                        block,
                        padded,
                        access64: false,
                        convert: None,
                        specialized,
                    })
                };
                for block in [Block::wide(unit), Block::narrow(unit)]
                    .into_iter()
                    .flatten()
                {
                    for run in [1].into_iter().chain(MICRO_RUNS) {
                        for padded in [false, true] {
                            for specialized in [false, true] {
                                all.push(micro(block.with_run(run), padded, specialized));
                            }
                        }
                    }
                    // Column runs: square blocks of permutes and views without bounds.
                    for run in MICRO_RUNS {
                        for specialized in [false, true] {
                            all.push(micro(block.column_runs(run), false, specialized));
                            if unit == 4 && rank >= 4 {
                                let inner = block.column_runs(run).batch_before_columns();
                                all.push(micro(inner, false, specialized));
                            }
                        }
                    }
                }
                // Strips: each short extent the square blocks cannot take, either side
                // whole; never padded.
                let side = Block::wide(unit).map_or(0, |b| b.side);
                let extents = (2..=STRIP_MAX).filter(|n| side > 0 && n % side != 0);
                for strip in extents.flat_map(|n| [Strip::Cols(n), Strip::Rows(n)]) {
                    if let Some(block) = Block::wide_strip(unit, strip) {
                        for run in [1].into_iter().chain(MICRO_RUNS) {
                            all.push(micro(block.with_run(run), false, false));
                        }
                        // Column strips' runs lane-major (over at most two batch dims).
                        if matches!(strip, Strip::Cols(_)) && rank <= 4 {
                            let lane_major = block.lane_major(MICRO_LANE_MAJOR_RUN);
                            all.push(micro(lane_major, false, false));
                            all.push(micro(lane_major, false, true));
                        }
                    }
                }
                // Flat strips: every short extent the planner takes that way
                // (plan::flat_planned), in the runs it makes (MICRO_FLAT_RUN before
                // MICRO_RUNS, so never a multiple of it but itself).
                let flats = (2..=STRIP_MAX).flat_map(|n| [Strip::Cols(n), Strip::Rows(n)]);
                let flat_runs = MICRO_RUNS
                    .into_iter()
                    .filter(|&r| r == MICRO_FLAT_RUN || r % MICRO_FLAT_RUN != 0);
                for strip in flats.filter(|&s| flat_planned(s, unit, unit, rank)) {
                    for run in [1].into_iter().chain(flat_runs.clone()) {
                        if let Some(block) = Block::flat_strip(unit, strip) {
                            all.push(micro(block.with_run(run), false, false));
                        }
                    }
                }
            }
            for index in [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair] {
                let generic = |layout| GenericVariant {
                    rank,
                    unit,
                    index,
                    layout,
                    specialized: false,
                    runs: false,
                    lanes: RunLanes::Own,
                    access64: false,
                    reverse: 0,
                    wide_stores: false,
                    scatter: false,
                    quads: false,
                    convert: None,
                };
                for layout in [
                    GenericLayout::Plain,
                    GenericLayout::Boxed,
                    GenericLayout::Padded,
                ] {
                    all.push(Variant::Generic(generic(layout)));
                }
                // A strided packed output of one dim would have to be contiguous.
                if rank >= 2 || unit >= 4 {
                    all.push(Variant::Generic(generic(GenericLayout::PaddedStrided)));
                }
                // A reversed innermost dim (views without bounds or destination strides):
                // units of whole words of smaller elements, runs where they apply.
                let smaller = ELEM_SIZES
                    .map(|e| e as u32)
                    .into_iter()
                    .filter(|&e| e < unit);
                // Compiled for their shape too, with 32-bit index math (`plan::specialize`).
                // In boxes over binding windows too, and their runs.
                for reverse in smaller.filter(|_| unit >= 4) {
                    let plain = generic(GenericLayout::Plain);
                    let boxed = generic(GenericLayout::Boxed);
                    all.push(Variant::Generic(GenericVariant { reverse, ..plain }));
                    all.push(Variant::Generic(GenericVariant { reverse, ..boxed }));
                    if index == IndexMath::U32 {
                        for (runs, specialized) in [(false, true), (true, false), (true, true)] {
                            all.push(Variant::Generic(GenericVariant {
                                reverse,
                                runs,
                                specialized,
                                ..plain
                            }));
                        }
                        all.push(Variant::Generic(GenericVariant {
                            reverse,
                            runs: true,
                            ..boxed
                        }));
                    }
                }
                if index == IndexMath::U32 {
                    let plain = generic(GenericLayout::Plain);
                    all.push(Variant::Generic(GenericVariant {
                        specialized: true,
                        ..plain
                    }));
                    // Runs (CPU devices): whole tensors of unpacked units, 32-bit index math.
                    if unit >= 4 {
                        for specialized in [false, true] {
                            all.push(Variant::Generic(GenericVariant {
                                runs: true,
                                specialized,
                                ..plain
                            }));
                            // Runs in boxed layout over binding windows (never compiled
                            // for a shape: those boxes are not contiguous stretches of the
                            // output; walks in tiles and plain boxes compile).
                            if !specialized {
                                all.push(Variant::Generic(GenericVariant {
                                    runs: true,
                                    layout: GenericLayout::Boxed,
                                    ..plain
                                }));
                            }
                            // Scattered runs, and walks in tiles (runs through a box): the
                            // innermost dim stays, so from rank 3.
                            if rank >= 3 {
                                all.push(Variant::Generic(GenericVariant {
                                    runs: true,
                                    scatter: true,
                                    specialized,
                                    ..plain
                                }));
                                all.push(Variant::Generic(GenericVariant {
                                    runs: true,
                                    specialized,
                                    layout: GenericLayout::Walk,
                                    ..plain
                                }));
                            }
                        }
                    }
                }
            }
        }
    }
    // Wide stores (CPU devices): runs of 4 and 8-byte units.
    let wide: Vec<Variant> = all
        .iter()
        .filter_map(|v| match v {
            Variant::Generic(g)
                if g.runs
                    && !g.scatter
                    && g.layout == GenericLayout::Plain
                    && matches!(g.unit, 4 | 8) =>
            {
                Some(Variant::Generic(GenericVariant {
                    wide_stores: true,
                    ..*g
                }))
            }
            _ => None,
        })
        .collect();
    all.extend(wide);
    // Lane-major runs (CPU devices): gathered runs, reversed or tiled too, not wide stores;
    // stacked too where plain, of two dims or more.
    let lane_major: Vec<Variant> = all
        .iter()
        .flat_map(|v| match v {
            Variant::Generic(g) if g.runs && !g.scatter && !g.wide_stores => {
                let stacks = g.layout == GenericLayout::Plain && g.rank >= 2;
                let lanes: &[RunLanes] = match stacks {
                    true => &[RunLanes::LaneMajor, RunLanes::Stacked],
                    false => &[RunLanes::LaneMajor],
                };
                (lanes.iter())
                    .map(|&lanes| Variant::Generic(GenericVariant { lanes, ..*g }))
                    .collect()
            }
            _ => Vec::new(),
        })
        .collect();
    all.extend(lane_major);
    // 64-bit accesses (CPU devices, 32-bit index math): 8/16-byte units of the generic
    // kernel and its wide stores, wide micro blocks (flat strips of 4-byte planes read also
    // in pairs).
    let access64: Vec<Variant> = all
        .iter()
        .flat_map(|v| match *v {
            Variant::Generic(g) if g.index == IndexMath::U32 && (g.unit >= 8 || g.wide_stores) => {
                vec![Variant::Generic(GenericVariant {
                    access64: true,
                    ..g
                })]
            }
            Variant::Micro(m) if m.block.access_bytes == 16 => {
                let wide = MicroVariant {
                    access64: true,
                    ..m
                };
                let pairs = Block {
                    flat_pairs: true,
                    ..m.block
                };
                match m.block.elements_in() && m.unit == 4 {
                    true => vec![
                        Variant::Micro(wide),
                        Variant::Micro(MicroVariant {
                            block: pairs,
                            ..wide
                        }),
                    ],
                    false => vec![Variant::Micro(wide)],
                }
            }
            _ => Vec::new(),
        })
        .collect();
    all.extend(access64);
    all
}
