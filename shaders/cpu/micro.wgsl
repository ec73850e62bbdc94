// micro: a permute whose innermost dim moves, in register micro-tiles. Each invocation
// moves one SIDE x SIDE block (or strip, below) of elements between the input's innermost dim (the block's
// columns) and the input dim that becomes the output's innermost (its rows): it reads the
// block's SIDE input rows, transposes them in registers, and writes SIDE output rows. No
// workgroup memory and no barrier, which suits devices where those are costly (lavapipe).
//
// A block row is loads or stores of STORE: vec4<u32>s for wide blocks, whose side is the
// elements in 16 bytes (of the smaller element, when converting; 2 for 16-byte units), or 32-bit words for
// narrow 4x4 blocks (plan::Block). On lavapipe every access is a loop over the SIMD lanes
// whatever its width, so wide accesses move four times the bytes per loop. 8- and 16-bit
// data is packed PACK to a word. A conversion converts each element with `cvt` between its
// load and its store (the two sides then count accesses of their own element sizes).
//
// The parameter words are those of the tiled kernel, counted in blocks, with offsets and
// strides in accesses (plan::select::micro_block checks that they divide exactly, so
// negative strides wrap exactly too; a flat strip's element side counts elements).
//
// A strip (plan::Strip) is a wide block one of whose sides is a whole short dim (3 colour
// channels, 7 columns): SIDE input rows of all the columns, which lie back to back and are
// read as one span of accesses (its output rows are one access each), or all the rows by
// SIDE columns, whose output rows lie back to back and are written as one span. Either way
// every access is a whole, aligned vec4, however odd the short dim.
//
// A flat strip (plan::flat_strip) is a strip whose span side runs on over every image:
// blocks count the pixels of all images as one sequence (the decode above sees one batch
// and one row or column of blocks), and each block finds its image itself, the next one
// too where it runs past the end of its own. Its other side, the planes, moves element by
// element (words), with offsets and strides in elements: images whose pixel counts or
// planes are not whole 16 bytes.
//
// A padded view (bounds over the batch and row dims, never the columns) fills whole block
// rows: a row outside a bound is not read, its accesses take the fill value.
//
// Filled in by src/shaders/micro.rs: SIDE, RUN, LANE_MAJOR, LANES, COLUMN_RUNS, BATCH_INNER,
// SHAPE_FN, BATCH_FN (the unrolled batch decode), BOUNDS_FN (for padded views: the batch's
// part of each bound's combined index, and the row check; else nothing), BATCH_BOUNDS
// (padded: `bv`, the batch's part; lane_major: the run's step) and BLOCK_MOVE (where the
// `j`th block starts, from `br0` and `bc0`, and its unrolled loads, register transpose and
// stores; lane_major: the next block's place).

// Whether some dispatch of the plan has more than one band of row blocks (see below).
override BANDED: bool = false;

const SIDE: u32 = {{SIDE}};
const RUN: u32 = {{RUN}}; // blocks per invocation
// Whether an invocation's blocks are LANES apart along the run (an aligned column strip's
// on a CPU device): at each step a group of LANES neighbouring invocations (a CPU's SIMD
// group) moves LANES neighbouring blocks, one span on each side, and the group's RUN steps
// move on through LANES * RUN neighbouring blocks, so that a core streams few pages at once.
const LANE_MAJOR: bool = {{LANE_MAJOR}};
const LANES: u32 = {{LANES}};
// Whether an invocation's RUN blocks are neighbours along the columns (the input's rows)
// and neighbouring invocations take neighbouring row blocks (plan::Block::column_runs):
// each invocation reads a stretch of each of its input rows (a 64-byte line in runs of 4)
// and a SIMD group writes one stretch of each output row it covers, where the rows lie too
// far apart on both sides for a band's to stay cached until it comes back to them, the
// output's rows are shorter than a run and apart, or the output's rows far apart and the
// input's close.
const COLUMN_RUNS: bool = {{COLUMN_RUNS}};

// Word `i` of the shape's (never an offset or a conversion table's): the parameter block's,
// or in a pipeline compiled for a recurring shape a pipeline constant (`Plan::specialized`),
// so that its divisions and address arithmetic fold.
{{SHAPE_FN}}

// Input and output offsets (in accesses) of batch index `b`, unrolled over the batch dims.
{{BATCH_FN}}
{{BOUNDS_FN}}

@compute @workgroup_size(WORKGROUP)
fn micro(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let wg = workgroup_index(wid, nwg, lid);
    // The invocation's first block; its RUN blocks are neighbours along the output's rows
    // (a row strip's: along its columns; the planner makes the blocks there divide by RUN),
    // so one decode serves them all (a flat strip's blocks find their images each); or
    // LANE_MAJOR, LANES apart, each moved on from the last (the last may be past the end,
    // checked each).
    let lanes = wg * WORKGROUP * RUN + (lid / LANES) * LANES * RUN + lid % LANES;
    let g = select((wg * WORKGROUP + lid) * RUN, lanes, LANE_MAJOR);
    if wg >= shape(TOTAL_WORKGROUPS) || g >= shape(TILES) {
        return;
    }
    // Neighbouring invocations take neighbouring row blocks (a row strip's: column blocks):
    // their writes are contiguous. The row blocks go in bands of BAND (the last one
    // shorter): a workgroup covers a band's rows of several column blocks, so it reads few
    // rows (pages) at a time where the rows are far apart.
    // Column runs count invocations (`g` counts blocks), their runs the column blocks.
    let k = select(g, g / RUN, COLUMN_RUNS);
    let across = select(shape(TILES_C), shape(TILES_C) / RUN, COLUMN_RUNS);
    var br0 = k % shape(TILES_R);
    // Column runs may take the batch's innermost dim with the row blocks, before the
    // column runs (plan::Block::batch_before_columns): `inner` is its extent, else 1.
    let inner = {{BATCH_INNER}};
    let rest = k / shape(TILES_R);
    var bc0 = rest / inner % across * select(1u, RUN, COLUMN_RUNS);
    var b = rest / inner / across * inner + rest % inner;
    // Several bands: a pipeline constant, so that one band is the plain order above alone,
    // with fewer divisions (which a CPU pays lane by lane).
    if BANDED {
        let band = shape(BAND);
        let k = g - b * shape(TILES_R) * shape(TILES_C);
        let full = shape(TILES_R) / band;
        let in_full = full * band * shape(TILES_C);
        var height = band;
        var first = (k / (band * shape(TILES_C))) * band;
        var in_band = k % (band * shape(TILES_C));
        if k >= in_full {
            height = shape(TILES_R) - full * band;
            first = full * band;
            in_band = k - in_full;
        }
        br0 = first + in_band % height;
        bc0 = in_band / height;
    }
    var bases = batch_bases(b);
{{BATCH_BOUNDS}}    let in_row = shape(IN_ROW);
    let out_row = shape(OUT_ROW);
    for (var j = 0u; j < RUN; j++) {
        if LANE_MAJOR && g + j * LANES >= shape(TILES) {
            break;
        }
{{BLOCK_MOVE}}    }
}
