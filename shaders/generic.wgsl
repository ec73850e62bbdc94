// generic: the permute that handles every case. Each thread writes ITEMS output items,
// spaced a workgroup apart so that neighbouring threads write neighbouring words (on CPU
// adapters, where that buys nothing, a run of RUN consecutive ones). An item is one movement
// unit, or, for 8/16-bit data, one whole 32-bit output word (PACK elements), so no two
// threads ever write parts of the same word.
//
// Filled in by src/shaders/generic.rs: ITEMS (items per thread); INDEX_MATH, the index type `Idx`
// and its helpers for one index width (shaders/index_*.wgsl); DECODE_FN, the unrolled decode
// of an output position into coordinates and offsets; MOVE_FN, the move of one item for the
// kernel's mode (shaders/fragments/generic_*.wgsl); ITEMS_FN, the thread's items, spaced
// or a run (shaders/fragments/generic_spaced.wgsl, generic_runs.wgsl); REVERSE_FN, for a
// reversed innermost dim, `reversed` (through which source loads go), else nothing.

const ITEMS: u32 = {{ITEMS}};

{{INDEX_MATH}}

{{DECODE_FN}}

{{MOVE_FN}}

{{ITEMS_FN}}

{{REVERSE_FN}}

@compute @workgroup_size(WORKGROUP)
fn generic(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    if wg >= param(TOTAL_WORKGROUPS) {
        return;
    }
    move_items(wg, lid);
}
