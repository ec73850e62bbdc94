//! Fuzzes the planner with arbitrary shapes, permutations, element sizes, offsets, device
//! limits and forced choices. Each input must give a plan whose invariants hold, or an
//! error; never a panic, an overflow or a hang. See docs/FUZZING.md.
#![no_main]

use std::collections::HashSet;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use wgpu_permute::plan::{
    self, DeviceCaps, IndexMath, Kernel, Learned, Options, Request, Variant,
};
use wgpu_permute::view::parts::check_parts;
use wgpu_permute::{reference, shaders};

#[derive(Arbitrary, Debug)]
struct Input {
    shape: Vec<u64>,
    small_shape: bool,
    perm: Vec<u8>,
    elem_size: u8,
    src_offset: u64,
    dst_offset: u64,
    max_storage_binding: u64,
    align_log: u8,
    max_workgroups_per_dim: u32,
    max_workgroup_storage: u32,
    max_invocations: u32,
    int64: bool,
    cpu: bool,
    access64_faster: bool,
    kernel: u8,
    index: u8,
    binding_limit: Option<u32>,
    specialize: u8,
    access64: u8,
    wide_stores: u8,
    scatter: u8,
    walk_tiles: u8,
    column_runs: u8,
    row_copies: u8,
}

fuzz_target!(|input: Input| {
    // Half the inputs use small dims, so that mappings can be checked element by element.
    let shape: Vec<usize> = input
        .shape
        .iter()
        .map(|&d| if input.small_shape { (d % 6) as usize } else { d as usize })
        .collect();
    let perm: Vec<usize> = input.perm.iter().map(|&p| p as usize).collect();
    let caps = DeviceCaps {
        max_workgroups_per_dim: input.max_workgroups_per_dim,
        max_workgroup_storage: input.max_workgroup_storage,
        max_invocations: input.max_invocations,
        max_storage_binding: input.max_storage_binding,
        storage_offset_alignment: 1u32 << (input.align_log % 12),
        int64: input.int64,
        cpu: input.cpu,
        access64_faster: input.access64_faster,
    };
    let options = Options {
        kernel: [
            None,
            Some(Kernel::Copy),
            Some(Kernel::Generic),
            Some(Kernel::Tiled),
            Some(Kernel::Micro),
            Some(Kernel::Empty),
        ][input.kernel as usize % 6],
        index: [None, Some(IndexMath::U32), Some(IndexMath::U64), Some(IndexMath::U32Pair)]
            [input.index as usize % 4],
        binding_limit: input.binding_limit.map(u64::from),
        specialize: [None, Some(false), Some(true)][input.specialize as usize % 3],
        access64: [None, Some(false), Some(true)][input.access64 as usize % 3],
        wide_stores: [None, Some(false), Some(true)][input.wide_stores as usize % 3],
        scatter: [None, Some(false), Some(true)][input.scatter as usize % 3],
        walk_tiles: [None, Some(false), Some(true)][input.walk_tiles as usize % 3],
        column_runs: [None, Some(false), Some(true)][input.column_runs as usize % 3],
        row_copies: [None, Some(false), Some(true)][input.row_copies as usize % 3],
    };
    let req = Request::new(&shape, &perm, input.elem_size as usize)
        .with_offsets(input.src_offset, input.dst_offset)
        .with_options(options);
    let Ok(p) = plan::plan(&req, &caps) else { return };

    // Invariants of every plan. Its shader is one the naga test validates.
    static VARIANTS: OnceLock<HashSet<Variant>> = OnceLock::new();
    if let Some(v) = p.variant() {
        let all = VARIANTS.get_or_init(|| shaders::all_variants().into_iter().collect());
        assert!(all.contains(&v), "{v} is not among the validated variants: {p}");
    }
    let n: u64 = shape.iter().map(|&d| d as u64).product();
    if p.kernel() == Kernel::Empty {
        assert_eq!(n, 0);
        return;
    }
    assert_eq!(p.units() * p.unit() as u64, n * input.elem_size as u64);
    assert!(p.dims().iter().all(|&d| d > 1) || p.dims() == [1]);
    // Dims that move together are merged, but for a split of batch tiles.
    let split = p.cpu().batch_tiles.map(|t| t.outer);
    assert!(p.dims_perm().windows(2).all(|w| w[1] != w[0] + 1 || Some(w[0]) == split));
    // Row copies move every byte once, each inside the buffers' extents.
    if p.cpu().row_copies {
        let (steps, bytes) = p.row_copy_steps();
        assert_eq!(steps.len() as u64 * bytes, p.bytes(), "{p}");
        for (s, d) in steps {
            assert!(s + bytes <= p.src_extent() && d + bytes <= p.dst_extent(), "{p}");
        }
    }
    let limit = caps.max_storage_binding.min(options.binding_limit.unwrap_or(u64::MAX));
    let volume: u64 = p
        .chunks()
        .iter()
        .map(|c| (0..c.lo.len()).map(|d| c.hi[d] - c.lo[d]).product::<u64>())
        .sum();
    if p.kernel() != Kernel::Copy {
        assert_eq!(volume, p.units());
        for c in p.chunks() {
            if p.boxed() {
                assert!(c.src_window.1 <= limit && c.dst_window.1 <= limit);
            }
            let covered: u64 = c.workgroups.iter().map(|&w| w as u64).product();
            assert!(covered >= c.total_workgroups);
        }
    }
    // A permute in parts (CPU devices, odd sides, far reads): the parts tile the output
    // once, and each part plans (a refused part falls back to the one plan, never panics).
    if let Some(parts) = plan::edge_parts(&p) {
        let units = p.units() as usize;
        // Past 2^22 units only each part's own check runs (marking millions of runs in a
        // debug build slows the fuzzer a hundredfold); a check past its budget is typed.
        if units <= 1 << 22 {
            check_parts(&parts, units, units).unwrap_or_else(|e| panic!("{e}: {p}"));
        } else {
            for (view, first) in &parts {
                view.check(units, units - first).unwrap_or_else(|e| panic!("{e}: {p}"));
            }
        }
        let moved: usize = parts.iter().map(|(v, _)| v.len()).sum();
        assert_eq!(moved, units, "{p}");
    }
    // Parts plan without error (a flat strip's tail included: its blocks leave it out).
    let parts = plan::with_edges(p.clone(), options, &caps, &Learned::default());
    for part in parts.unwrap_or_else(|e| panic!("{e}: {p}")) {
        if let Some(v) = part.variant() {
            let all = VARIANTS.get_or_init(|| shaders::all_variants().into_iter().collect());
            assert!(all.contains(&v), "{v} is not among the validated variants: {part}");
        }
    }
    // Small tensors: the simplified plan moves every byte where the request says.
    if n <= 4096 {
        let bytes = n as usize * input.elem_size as usize;
        let data: Vec<u8> = (0..bytes).map(|i| (i * 131 + i / 256) as u8).collect();
        let want = reference::permute_bytes(&data, &shape, &perm, input.elem_size as usize).unwrap();
        let dims: Vec<usize> = p.dims().iter().map(|&d| d as usize).collect();
        let got = reference::permute_bytes(&data, &dims, &p.dims_perm(), p.unit() as usize).unwrap();
        assert_eq!(got, want, "{p}");
    }
});
