//! The tiled kernel (a batch transpose through workgroup memory): its fragments, the batch
//! decode shared with the micro kernel, and its parameter block.

use crate::Plan;
use crate::convert::Conversion;
use crate::plan::ChannelAt;
use crate::shaders::Storage;
use crate::shaders::{
    Access, Build, Chunk, MAX_CHANNELS, Strip, TILED_WGSL, TemplateError, Tile, TileWord,
    TiledVariant, convert_block, convert_words, fill, pack_of, prelude_with, store_type,
};
use std::fmt::Write;

const TILED_LOAD_WGSL: &str = include_str!("../../shaders/fragments/tiled_load.wgsl");

const TILED_LOAD_NARROW_WGSL: &str = include_str!("../../shaders/fragments/tiled_load_narrow.wgsl");

pub(super) const TILED_OUT_WORD_WGSL: &str =
    include_str!("../../shaders/fragments/tiled_out_word.wgsl");

pub(super) const TILED_OUT_WORD_PACKED_WGSL: &str =
    include_str!("../../shaders/fragments/tiled_out_word_packed.wgsl");

pub(super) const TILE_ACCESS_WGSL: &str = include_str!("../../shaders/fragments/tile_access.wgsl");

pub(super) const TILE_ACCESS_TRACE_WGSL: &str =
    include_str!("../../shaders/fragments/tile_access_trace.wgsl");

/// The word where the tiled and micro kernels' batch dims start.
pub const TILE_BATCH: usize = TileWord::ALL.len();

/// `batch_bases(b)`: input and output offsets of batch index `b` over `batch` batch dims
/// (words from `BATCH`: dims, input strides, output strides), read by `read` (`param`, or
/// the micro kernel's `shape`).
pub(super) fn batch_fn(batch: usize, read: &str) -> String {
    if batch == 0 {
        return "fn batch_bases(b: u32) -> vec2<u32> { return vec2<u32>(0u, 0u); }".into();
    }
    let mut f = String::from("fn batch_bases(b: u32) -> vec2<u32> {\n");
    f += "    var rem = b;\n    var bases = vec2<u32>(0u, 0u);\n";
    for j in (0..batch).rev() {
        let (d, is, os) = (j, batch + j, 2 * batch + j);
        if j > 0 {
            let _ = writeln!(
                f,
                "    let c{j} = rem % {read}(BATCH + {d}u);\n    rem = rem / {read}(BATCH + {d}u);"
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(
            f,
            "    bases += vec2<u32>(c{j} * {read}(BATCH + {is}u), c{j} * {read}(BATCH + {os}u));"
        );
    }
    f += "    return bases;\n}";
    f
}

/// The words of a padded view's bounds over a block kernel's batch dims, and the end of
/// the block with them.
pub(super) type BoundWords = fn(usize) -> (Vec<(&'static str, usize)>, usize);

/// The tiled and micro kernels' prelude: words, then three per batch dim, then for a padded
/// view (micro kernel) its bound words (`bounds`).
pub(super) fn tile_prelude(
    (rank, unit): (usize, u32),
    bounds: Option<BoundWords>,
    converting: bool,
    (src, dst): (Storage, Storage),
    build: Build,
    invocations: u32,
) -> Result<String, TemplateError> {
    let mut decls = TileWord::decls();
    decls.push(("BATCH", TILE_BATCH));
    let batch = rank.saturating_sub(2);
    let mut words = TILE_BATCH + 3 * batch;
    if let Some(bounds) = bounds {
        let (bound_decls, end) = bounds(batch);
        decls.extend(bound_decls);
        words = end;
    }
    if converting {
        let start = words.next_multiple_of(4);
        decls.push(("CONVERT", start));
        words = start + convert_words();
    }
    let access = Access {
        src,
        dst,
        reversing: false,
    };
    prelude_with(access, words, &decls, pack_of(unit), build, invocations)
}

pub(super) fn tiled_source(v: &TiledVariant, build: Build) -> Result<String, TemplateError> {
    let tile = Tile::for_unit(v.unit);
    let store = store_type(v.unit, false);
    let (pitch, tile_access) = match build {
        Build::Shipped => (tile.words + 1, TILE_ACCESS_WGSL),
        Build::Trace { padding } => (tile.words + padding as u32, TILE_ACCESS_TRACE_WGSL),
    };
    let tile_access = fill(
        "fragments/tile_access.wgsl",
        tile_access,
        &[("STORE", store)],
    )?;
    let out_word = if tile.pack == 1 {
        fill(
            "fragments/tiled_out_word.wgsl",
            TILED_OUT_WORD_WGSL,
            &[("STORE", store)],
        )?
    } else {
        TILED_OUT_WORD_PACKED_WGSL.to_string()
    };
    let kernel = fill(
        "tiled.wgsl",
        TILED_WGSL,
        &[
            ("TILE_WORDS", &format!("{}u", tile.words)),
            ("TILE_ROWS", &format!("{}u", tile.rows)),
            ("STORE", store),
            ("PITCH", &format!("{pitch}u")),
            ("TILE_LEN", &(tile.pack * tile.words * pitch).to_string()),
            ("TILE_ACCESS", &tile_access),
            ("BATCH_FN", &batch_fn(v.rank.saturating_sub(2), "param")),
            ("OUT_WORD_FN", &out_word),
            // Unpacked rows may be narrow enough to read end to end.
            (
                "LOAD",
                match tile.pack {
                    1 => TILED_LOAD_NARROW_WGSL,
                    _ => TILED_LOAD_WGSL,
                }
                .trim_end(),
            ),
        ],
    )?;
    Ok(tile_prelude(
        (v.rank, v.unit),
        None,
        false,
        (Storage::of(v.unit, false), Storage::of(v.unit, false)),
        build,
        tile.words * tile.rows,
    )? + &kernel)
}

/// The tiled and micro kernels' words (the strips' too): `head`, then each batch dim's
/// extent in the box, input stride and output stride (in the kernel's units).
pub(super) fn tile_words(
    head: [u64; TILE_BATCH],
    batch: &[usize],
    extents: &[u64],
    ins: &[u64],
    outs: &[u64],
) -> Vec<u32> {
    head.into_iter()
        .chain(batch.iter().map(|&d| extents[d]))
        .chain(batch.iter().map(|&d| ins[d]))
        .chain(batch.iter().map(|&d| outs[d]))
        .map(|v| v as u32)
        .collect()
}

/// The conversion's words of a tiled or micro dispatch: its channels' scale and bias tables
/// rotated to the channel of its box's first row or column (`Cut` starts boxes on whole
/// channel steps; channels over the batch do not split, `select::windows_fit`).
pub(super) fn box_convert_block(plan: &Plan, chunk: &Chunk, c: &Conversion) -> Vec<u32> {
    let Some(ch) = plan.channels() else {
        return convert_block(c, (1, 1), 0);
    };
    let d = match ch.at {
        ChannelAt::Rows => plan.row_dim(),
        ChannelAt::Cols => Some(plan.dims.len() - 1),
        ChannelAt::Batch => None,
    };
    let first = d.map_or(0, |d| (chunk.lo[d] / ch.step) % ch.count);
    let mut words = convert_block(c, (ch.step, ch.count), first as usize);
    // A strip's channels by position (`Plan::channels_by_position`): position `i` takes
    // the table's channel `(i / step) % count`, and the kernel reads position `i` itself.
    if let Some(n) = plan.channels_by_position() {
        let table = words.clone();
        for i in 0..n as usize {
            let t = (i as u64 / ch.step % ch.count) as usize;
            words[4 + i] = table[4 + t];
            words[4 + MAX_CHANNELS + i] = table[4 + MAX_CHANNELS + t];
        }
        (words[0], words[1]) = (1, n);
    }
    words
}

/// A dispatch's box as the tiled and micro kernels see it: its extents, and the byte
/// offsets of its first unit in the two windows (the tensor's offsets in one binding).
pub(super) fn box_of(plan: &Plan, chunk: &Chunk) -> (Vec<u64>, u64, u64) {
    let corner = |strides: &[u64]| {
        (0..strides.len()).fold(0u64, |a, d| {
            a.wrapping_add(chunk.lo[d].wrapping_mul(strides[d]))
        })
    };
    let at = |start: u64, window: u64, strides: &[u64], unit: u32| {
        start
            .wrapping_add(corner(strides).wrapping_mul(unit as u64))
            .wrapping_sub(window)
    };
    let extents = chunk.extents();
    let src = at(
        plan.src_start(),
        chunk.src_window.0,
        &plan.in_strides(),
        plan.unit,
    );
    let dst = at(
        plan.dst_offset,
        chunk.dst_window.0,
        &plan.out_strides_by_input_dim(),
        plan.dst_unit(),
    );
    (extents, src, dst)
}

/// What a block kernel's parameter block takes of its blocks: the rows and columns of one
/// (a tile's, a micro block's), the bytes of the units its offsets count on each side, how
/// many units of a stride one access is on each side, and a flat strip's blocks.
pub(super) struct BlockSides {
    pub rows_cols: (u64, u64),
    pub off_bytes: (u64, u64),
    pub per: (i64, i64),
    pub flat: Option<((u64, u64), Strip)>,
}

/// The tiled kernel's parameter block of one dispatch: its tile's words.
pub(super) fn tile_params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let tile = plan.tile.unwrap_or(Tile::for_unit(plan.unit));
    let off = (plan.unit as u64).max(4);
    let sides = BlockSides {
        rows_cols: (tile.extent(), tile.extent()),
        off_bytes: (off, off),
        per: (1, 1),
        flat: None,
    };
    block_params(plan, chunk, &sides, None)
}

/// The words of a block kernel's dispatch (tiled, micro): the head ([`TileWord`]; the
/// tiled kernel takes offsets in storage units and strides in elements, the micro kernel
/// both in its accesses), then three per batch dim. `band`: the micro kernel's row blocks
/// per band, if it has bands (one band of all row blocks otherwise).
pub(super) fn block_params(
    plan: &Plan,
    chunk: &Chunk,
    sides: &BlockSides,
    band: Option<u64>,
) -> Vec<u32> {
    let (extents, src_at, dst_at) = box_of(plan, chunk);
    let (b, r, c) = plan.box_batch_rows_cols(&extents).unwrap_or((0, 0, 0));
    let ((rows, cols), off_bytes, per) = (sides.rows_cols, sides.off_bytes, sides.per);
    // Exact for the micro kernel's strides (`micro_block` checks), negative ones included;
    // but for a strip's span side, which the kernel does not read (whole rows back to back).
    let stride = |s: u64| ((s as i64) / per.0) as u64;
    let stride_out = |s: u64| ((s as i64) / per.1) as u64;
    // A flat strip's blocks run over every image's pixels, as one batch (`plan::flat_box_blocks`).
    let (tiles_c, tiles_r, b) = match sides.flat {
        Some(((blocks, _), Strip::Cols(_))) => (1, blocks, 1),
        Some(((blocks, _), Strip::Rows(_))) => (blocks, 1, 1),
        None => (c.div_ceil(cols), r.div_ceil(rows), b),
    };
    let a = plan.row_dim().unwrap_or(0);
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let last = plan.dims.len() - 1;
    let batch = plan.box_batch_dims();
    let mut head = [0u64; TILE_BATCH];
    for word in TileWord::ALL {
        head[*word as usize] = match word {
            TileWord::TotalWorkgroups => chunk.total_workgroups,
            TileWord::TilesC => tiles_c,
            TileWord::TilesR => tiles_r,
            TileWord::Tiles => b * tiles_c * tiles_r,
            TileWord::Rows => r,
            TileWord::Cols => c,
            TileWord::SrcOff => src_at / off_bytes.0,
            TileWord::DstOff => dst_at / off_bytes.1,
            TileWord::InRow => stride(in_strides[a]),
            TileWord::OutRow => stride_out(out_strides[last]),
            TileWord::Band => band.map_or(tiles_r, |band| band.min(tiles_r)),
        };
    }
    let ins: Vec<u64> = in_strides.iter().map(|&s| stride(s)).collect();
    let outs: Vec<u64> = out_strides.iter().map(|&s| stride_out(s)).collect();
    tile_words(head, &batch, &extents, &ins, &outs)
}
