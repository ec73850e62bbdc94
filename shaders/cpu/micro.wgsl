// micro (CPU adapters): each invocation moves RUN blocks of SIDE x SIDE elements between
// the input's innermost dim (a block's columns) and the dim that becomes the output's
// innermost (its rows) in registers: it reads a block's input rows, transposes them, and
// writes its output rows, with no workgroup memory and no barrier (both costly on a CPU).
// The parameter words are the tiled kernel's, counted in blocks, offsets and strides in
// accesses of STORE.
const SIDE: u32 = {{SIDE}};
const RUN: u32 = {{RUN}};
{{ORDER_CONSTANTS}}
{{SHAPE_FN}}

{{BATCH_FN}}
{{BOUNDS_FN}}

@compute @workgroup_size(WORKGROUP)
fn micro(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
{{ORDER}}    var bases = batch_bases(b);
{{BATCH_BOUNDS}}    let in_row = shape(IN_ROW);
    let out_row = shape(OUT_ROW);
    for (var j = 0u; j < RUN; j++) {
{{RUN_END}}{{BLOCK_MOVE}}    }
}
