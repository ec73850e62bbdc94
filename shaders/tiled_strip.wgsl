// tiled strips: a conversion between an interleaved layout, [L, N] (pixels of N colour
// channels), and a planar one, [N, L], of each batch, through workgroup memory (GPUs). The
// planar side is the plan's long dim, the interleaved side's rows are N elements back to
// back (plan::Strip). Each invocation owns a quad, 4 neighbouring pixels of every channel:
// on the planar side it moves N accesses of 4 elements, one per plane, neighbouring
// invocations' quads neighbouring; on the interleaved side its 4N elements are S whole
// words, which the workgroup reads (or writes) in order through the tile, WORKGROUP * S
// words. Each invocation moves its S tile words in a rotated order, word (m + lid / K) % S
// at step m (K: 32 over the power of two in S), so that 32 neighbouring invocations touch
// 32 different banks at every step, and the in-order phase is conflict-free too.

const N: u32 = {{N}};
const S: u32 = {{S}};
const K: u32 = {{K}};

var<workgroup> tile: array<u32, {{TILE_LEN}}>;

{{TILE_FNS}}

// Input and output offsets (in elements) of batch index `b`, unrolled over the batch dims.
{{BATCH_FN}}

@compute @workgroup_size(WORKGROUP)
fn tiled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    if wg >= param(TOTAL_WORKGROUPS) {
        return;
    }
    // Tiles of WORKGROUP quads along the long dim, then batches.
    let tq = wg % param(TILES_R);
    let b = wg / param(TILES_R);
    let quads = param({{LONG}}) / 4u;
    let q = tq * WORKGROUP + lid;
    let inside = q < quads;
    // Words of this tile on the interleaved side (a last tile may be partial).
    let words = min(WORKGROUP, quads - tq * WORKGROUP) * S;
    let bases = batch_bases(b);
    let in_base = param(SRC_OFF) + bases.x;
    let out_base = param(DST_OFF) + bases.y;
{{QUAD_MOVE}}
}
