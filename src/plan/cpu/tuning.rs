//! The CPU-adapter family's tuning constants: each names what it was fitted to and which
//! way it errs (figures of the rounds that fitted them are in docs/history/).

/// Invocations per workgroup of the micro kernel (CPU devices). lavapipe runs each
/// workgroup on one thread of its pool: a small tensor's few workgroups then split unevenly
/// over the cores (750 strips of `[3,1000,7]` were 3 workgroups of 256 on 2 cores), while
/// large tensors do not notice the size (64, 128 and 256 measured alike).
pub const MICRO_WORKGROUP: u32 = 128;

/// Output units each invocation of the generic kernel moves where it moves runs (CPU
/// devices, see `Plan::runs`](super::Plan::runs)): 8 units of 16 bytes are two cache lines. Runs of 8 rather
/// than 4 took 128-byte rows from 0.82 to 0.98 of the shader copy on lavapipe.
pub const GENERIC_RUN: u32 = 8;

/// Bytes of the page a CPU's hardware prefetchers stop at: the generic kernel's runs
/// scatter where gathering them would read a new page per row (see
/// `Plan::scatter`).
pub const PAGE_BYTES: u64 = 4096;

/// Bytes of output row from which a CPU device moves each row as a buffer copy (see
/// `Plan::row_copies`). On lavapipe (AMD EPYC) a buffer copy
/// runs at memory-copy speed, about three times the shader copy, and recording one takes
/// about 0.4 us of CPU. On the wall clock around record, submit and wait (medians of nine,
/// two rounds), against the kernel: rows of 349 KiB 34-35 -> 3.8-4.1 ms, of 64 KiB 5.8-6.0
/// -> 1.6-1.7, of 12.25 and 16 KiB 1.5-2.5 times faster (the slice `::2` of
/// `[8192,4096` f32 11.3-12.6 -> 7.2-7.4), of 8 KiB 1.06-1.3 times, of 4 KiB slower
/// (12.5-15.0 -> 16.7-17.2).
pub const ROW_COPY_MIN_BYTES: u64 = 12 << 10;

/// Most buffer copies one plan records (see [`ROW_COPY_MIN_BYTES`]): 4 GiB of rows of the
/// smallest size chosen.
pub const ROW_COPY_MAX: u64 = 1 << 16;

/// Bytes of the input a micro plan's batch tiles span along their split dim (CPU devices,
/// see [`BatchTiles`](super::BatchTiles), which has the measurements).
pub const BATCH_TILE_BYTES: u64 = 2048;

/// Pages of output rows the input's order must write before it comes back to them for a
/// micro plan's batch to decode in tiles ([`BATCH_TILE_BYTES`]): on lavapipe (AMD EPYC)
/// tiles won from 4,096 (the 4-D reversal, 0.67 -> 0.87 of the shader copy in probes), tied at
/// 1,024 and lost at 32 (0.53-0.66 -> 0.33), where the pages stay in a CPU's translation
/// caches anyway.
pub const BATCH_TILE_MIN_PAGES: u64 = 2048;

/// Bytes of output row each source-adjacent step of the generic kernel's walk in tiles
/// writes (CPU devices, see `Plan::walk_tiles`](super::Plan::walk_tiles)): a tile holds
/// as many output rows as fill it. On lavapipe (AMD EPYC; the shader copy of the same bytes
/// about 9.7 ms, 13-14 GB/s), `[512,512,64 (1,0,2)` f32 (256-byte rows) took 13.6-13.9 ms
/// with 512-byte runs, 10.6-10.9 with 1 KiB, 10.6-11.0 with 2 KiB and 11.8 with 4 KiB (18.3
/// untiled).
pub const WALK_TILE_ROW_BYTES: u64 = 1024;

/// Runs ([`GENERIC_RUN`] units) an output row must hold for the generic kernel's runs to
/// gather in tiles where the innermost dim stays: with rows of one run, a SIMD group's runs
/// gather 8 rows, and the head split `[8,512,16,64] (0,2,1,3)` of 2-byte elements (128-byte
/// rows) took 1.24-1.39 ms so on lavapipe (AMD EPYC; the shader copy of its bytes about
/// 0.8 ms), 1.03-1.20 scattered; of 4-byte elements (two runs a row; copy about 2.5 ms)
/// 2.5 tiled, 3.7-4.8 scattered.
pub const WALK_TILE_MIN_ROW_RUNS: u64 = 2;

/// Workgroups' runs in one tile of a transpose's walk in tiles (the generic kernel's runs
/// down the output's rows on CPU devices, see `Plan::walk_tiles`](super::Plan::walk_tiles)):
/// the tile's source rows are read this many workgroups' worth along before the walk moves
/// down them. On lavapipe (AMD EPYC family 25, the shader copy at 3.6 GB/s; 16-byte units,
/// 64 MiB, three to nine alternating bench processes each) 4 against 1: `[2048,2048
/// (1,0)` 38.6-39.4 ms against 39.4-40.5 (0.93-0.95 of the shader copy against 0.90-0.93),
/// `[1024,4096]` 38.5-39.6 against 39.9-40.0, `[4096,1024]` 39.0-39.7 against 40.1-40.5;
/// `[16,512,512] (0,2,1)`, whose tile is then its whole dim of 512, tied (40.4-41.4
/// against 40.7-41.4). 2 gave 40.3-41.6 ms on `[2048,2048]`, the whole dim 39.4-39.8.
/// Past one binding, where a box of such tiles does not fit a window, a transpose takes
/// tiles of one workgroup's runs (`walk::narrow_tiles`).
pub const WALK_TILE_TRANSPOSE_WORKGROUPS: u64 = 4;

/// Side of the micro kernel's narrow blocks, in elements (see `Block`](super::Block)): 8-bit rows of
/// such a block are one 32-bit word.
pub const MICRO_SIDE: u32 = 4;

/// Blocks each micro invocation moves where the blocks along its run (row blocks; a row
/// strip's column blocks) divide by it: one decode of the
/// block position serves them all (8% to 10% faster on lavapipe for 1 and 8-byte units).
pub const MICRO_RUN: u32 = 4;

/// Bytes a permute that micro blocks would take but for its sides moves before it runs in
/// parts (`plan::edge_parts`): below, the parts' extra dispatches cost more than the
/// generic kernel's element-by-element reads. On lavapipe (AMD EPYC; two to three
/// alternating probe runs, docs/history/14-cpu-round-24.md) the parts took 1.2-2.5x
/// less time from 1 MiB up (the ViT transpose `[64,197,768 (0,2,1)` f32 21.0-21.3 ms
/// against 12.5-13.1, `[128,1030,128] (0,2,1)` 42 against 20, `[64,62,62] (0,2,1)`, 984 KB,
/// 0.76 against 0.45), tied around 256 KiB (`[258,258] (1,0)`, `[8,130,66] (0,2,1)`) and at
/// `[32,2048,7,7] (0,2,3,1)` (rows of 49, too odd for wide blocks: 3.3-8.4 ms against
/// 4.6-6.0 over five runs), and lost below (`[130,130] (1,0)`, 67 KB: 0.11-0.15 ms against
/// 0.16). Until round 24 the rule was a span of 1 MiB for one output row's reads, which left
/// those between on the generic kernel at 0.2-0.3 of the shader copy.
pub const EDGE_SPLIT_BYTES: u64 = 256 << 10;

/// The runs a micro invocation may move, in order of preference: the first that divides the
/// blocks along the run (else 1). Extents that are not multiples of 16 elements leave row
/// blocks that 4 does not divide, and one block per invocation pays its decode (and a
/// band's divisions) per block: on lavapipe (Intel Xeon, medians of 5) `[4092,4092] (1,0)`
/// f32 (1023 row blocks) took 58 ms one block at a time and 42 in runs of 3, `[4088,4088]`
/// (1022) 59 and 45 in runs of 2, `[60,68,68,60] (3,2,1,0)` (15) 53 and 39 in runs of 3
/// (runs of 5: the same 39; of 8 for `[4096,4096]`: 31 against 23 in runs of 4).
pub const MICRO_RUNS: [u32; 3] = [MICRO_RUN, 3, 2];

/// Input row bytes up to which a wide square micro block's run is shortened so that a SIMD
/// group's [`LANE_GROUP`] runs stay within one column of blocks (`runs::short_rows_run`):
/// batches of small matrices, whose group otherwise spans columns of blocks, which was slow.
/// Measured with input rows back to back over one and two batch dims, applied over up to
/// two. On lavapipe (AMD EPYC, 2 cores, 64-bit components; two probe runs each, the shader
/// copy of the same bytes 9.4-22.6 ms, 11-14 GB/s), runs of 4, 3, 2 and 1, ms:
///
/// | shape `(0,2,1)` | input row | row blocks | planned | 4 | 3 | 2 | 1 |
/// |---|---|---|---|---|---|---|---|
/// | `[4096,64,64]` f32 | 256 B | 16 | 2 | 20.1-20.5 | | 14.2-14.3 | 14.2 |
/// | `[8192,32,64]` f32 | 256 B | 8 | 1 | 29.4-29.7 | | 18.2-18.4 | 14.7-14.8 |
/// | `[7000,48,48]` f32 | 192 B | 12 | 1 | 22.6-22.8 | | 16.4-16.6 | 16.5-17.2 |
/// | `[8192,64,32]` f32 | 128 B | 16 | 2 | 14.1-14.3 | | 14.4 | 14.5-14.6 |
/// | `[8192,64,64]` f16 | 128 B | 8 | 1 | 17.9-18.7 | | 14.3-14.4 | 14.1 |
/// | `[4096,64,160]` f16 | 320 B | 8 | 1 | 36.2-36.4 | | 22.9-23.2 | 18.8 |
/// | `[8192,32,80]` f32 | 320 B | 8 | 1 | 37.3-37.4 | | 24.9-25.8 | 19.8-20.2 |
/// | `[4096,64,80]` f32 | 320 B | 16 | 2 | 24.5-30.8 | | 19.4 | 19.4-19.8 |
/// | `[4096,80,80]` f32 | 320 B | 20 | 2 | 34.5-34.7 | | 28.8-29.0 | 26.2-27.0 |
/// | `[4096,48,88]` f32 | 352 B | 12 | 1 | 29.3-29.7 | | 28.4-28.7 | 21.9-22.0 |
/// | `[4096,96,96]` f32 | 384 B | 24 | 3 | 37.5-38.6 | 35.3-35.4 | 39.0-39.1 | 40.3-40.9 |
/// | `[2048,112,112]` f32 | 448 B | 28 | 2 | 26.9-27.5 | | 25.1-25.7 | 26.1-26.7 |
/// | `[2048,96,128]` f32 | 512 B | 24 | 3 | 16.8-17.0 | 15.1-15.4 | 17.1-17.3 | 18.9-19.0 |
/// | `[2048,64,128]` f32 | 512 B | 16 | 2 | ratio 0.73 | | 0.75 | 0.66 |
///
/// (`[1024,16,64,64] (0,1,3,2)`, 256 MiB in windows: 81-82, 59-62 and 69-71 ms in runs of
/// 4, 2 and 1.) Of the runs it allows it takes the longest that divides the blocks:
/// `[4096,88,88]` (22 row blocks) keeps 2 (43-44 ms) where 1 took 35. Longer input rows keep the usual run:
/// `[256,64,1024]` 8.3-8.4 ms in runs of 4, 9.9-10.0 in runs of 2, `[64,64,4096]` 8.5 and
/// 9.9 (`[1024,64,256]`, 1 KiB rows, tied); so do bytes' 16x16 blocks (`[4096,64,64]` u8
/// 3.7 ms in runs of 4, 4.2 one at a time).
pub const MICRO_SHORT_ROW_BYTES: u64 = 512;

/// The run of an aligned strip's blocks on CPU devices, [`LANE_GROUP`] apart
/// (`Block::lane_major`](super::Block::lane_major)): at each step the 8 lanes of a
/// lavapipe SIMD group move 8 neighbouring blocks, one span of each side, where neighbours
/// along one invocation's run left the lanes' accesses 4 blocks apart. The runs were a
/// workgroup apart when these were measured; WGSL probe (the shipped kernel text,
/// parameter words fixed; Intel Xeon, 2 cores; 21 submissions, three rounds): `[32,224,224,3 (0,3,1,2)` u8 -> f32 normalised 2.66-2.72 ms in neighbour runs of
/// 4, lane-major runs of 2: 2.73-2.79, of 4: 2.48-2.52, of 8: 2.36-2.38, of 16: 2.74-2.91
/// (49 workgroups), shader copy of the traffic 1.97-2.06; its way back f32 -> u8 2.69-2.75,
/// lane-major by 4 2.62-2.64, by 8 2.46-2.51. The bench (alternating runs, medians) kept
/// the first: u8 -> f32 2.64 -> 2.54 ms, u8 `(0,3,1,2)` 1.33 -> 1.26, where strips of
/// planes to pixels lost (f32 -> u8 3.04 -> 3.11, f32 `(0,2,3,1)` 3.25 -> 3.44) and so did
/// the centre crop's two batch dims (2.50 -> 2.69): only column strips (whole input rows)
/// run lane-major, over at most two batch dims since [`LANE_GROUP`] (the crop 3.12 ->
/// 2.62 ms then).
pub const MICRO_LANE_MAJOR_RUN: u32 = 8;

/// Invocations that move neighbours at each step of a lane-major run: a CPU device's SIMD
/// group (8 lanes of 32 bits on lavapipe with AVX2 and 256-bit vectors), whose run then
/// moves on through `8 * MICRO_LANE_MAJOR_RUN` neighbouring blocks of a micro strip, or
/// `8 * GENERIC_RUN` units of the generic kernel's row
/// ([`Plan::lane_major_runs`](super::Plan::lane_major_runs)). With the steps a workgroup
/// apart instead, the 8 steps of a SIMD group touched 8 places of each side at once (the
/// image's 3 planes: 32 streams of pages), and a core streams only so many: a plain copy
/// whose SIMD groups each touched 32 rows ran at a quarter of the copy's speed, at 8 rows at
/// 0.93 (docs/history/04-cpu-round-14.md). On lavapipe (Intel Xeon, 2 cores; six
/// alternating `bench --filter 224` runs) the `[32,224,224,3] (0,3,1,2)` u8 -> f32
/// normalisation took 3.16-3.99 ms a workgroup apart, 2.54-2.88 so (0.70 -> 0.88 of the
/// shader copy, medians); its u8 permute 0.63 -> 0.70.
pub const LANE_GROUP: u32 = 8;
// A workgroup is whole SIMD groups: lane-major runs cover its blocks exactly once.

const _: () = assert!(MICRO_WORKGROUP.is_multiple_of(LANE_GROUP));

/// Workgroups a lane-major strip's plan needs at least (else its runs are neighbours):
/// runs of [`MICRO_LANE_MAJOR_RUN`] make few workgroups of a small
/// tensor, and a CPU device spreads workgroups over its cores.
pub const MICRO_LANE_MAJOR_MIN_WORKGROUPS: u64 = 16;

/// The run of a flat strip's blocks (`plan::flat_blocks` leaves the pixels past a whole
/// number of runs to a part of their own). Runs of 2 against 4 on lavapipe (Intel Xeon,
/// three alternating runs of each): `[32,299,299,3] (0,3,1,2)` u8 -> f32 normalised
/// 7.2-8.4 ms against 7.6-9.5, f32 plain 9.1-9.8 against 9.2-10.2, the way back
/// `[32,3,299,299] (0,2,3,1)` f32 planes -> f32 pixels 9.2-10.0 against 9.8-10.4 and -> u8
/// 9.8-10.5 against 9.2-10.1.
pub const MICRO_FLAT_RUN: u32 = 2;

// The micro variants are enumerated with MICRO_RUNS (`shaders::all_variants`).

const _: () = assert!(
    MICRO_FLAT_RUN == MICRO_RUNS[0]
        || MICRO_FLAT_RUN == MICRO_RUNS[1]
        || MICRO_FLAT_RUN == MICRO_RUNS[2]
);

/// Rows per band of the micro kernel's traversal where its accesses are 64-bit components:
/// a workgroup's invocations cover the rows of one band (of several column blocks) instead
/// of a strip of rows as long as the workgroup (the last band of a dispatch shorter; see
/// `shaders/micro.wgsl`). On lavapipe (AMD EPYC, where 64-bit components are faster;
/// medians of 5 interleaved rounds) bands of 512 rows kept row pitches of 8 and 16 KiB near
/// the speed of short ones: `[4096,4096] (1,0)` f32 18.9 ms against 26.3 in one band
/// (2048-row bands took 37.8, 32-row ones 40.9, 128-row ones 23.4-24.4), f16 12.0 against
/// 14.8, `[4,2048,2048] (0,2,1)` f32 18.2 against 31.6, `[8,2048,512] (0,2,1)` 8-byte 15.0
/// against 18.7; `[32,512,512]` 8-byte, two bands of 256 rows, 15.7 against 14.6.
pub const MICRO_BAND_ROWS: u32 = 512;

/// Row blocks per band of the micro kernel's traversal where its accesses are 32-bit
/// components (at least; see [`MICRO_BAND_SPAN`]): a SIMD chunk of lavapipe's 8 lanes,
/// [`MICRO_RUN`] blocks each, covers the band's rows, and the next chunk takes the
/// neighbouring column blocks, which share its input lines. On lavapipe (Intel Xeon, where
/// 32-bit components are faster; three alternating suite runs, medians) against bands of
/// 512 rows: `[4096,4096] (1,0)` f32 34.7 -> 24.5 ms, `[64,512,512] (0,2,1)` f32 22.0 ->
/// 16.6 ms, `[32,512,512] (0,2,1)` 8-byte 29.6 -> 19.5 ms, the rest within the noise.
pub const MICRO_BAND_BLOCKS: u32 = 32;

/// [`MICRO_BAND_BLOCKS`] for the 2x2 blocks of 16-byte units (two accesses a block row):
/// `[2048,2048] (1,0)` on the same Xeon, three interleaved rounds, took 33-35 ms in bands
/// of 32 blocks, 30-31 in 64, 27.5-28 in 128 and 33-34 in 256 (37.5 before, in 512 rows
/// of 64-bit components).
pub const MICRO_BAND_BLOCKS_16B: u32 = 128;

/// Row blocks per band of the micro kernel's traversal with 32-bit components where the
/// input's rows spread over a CPU's L1 sets (their pitch not a multiple of
/// [`MICRO_ALIASING_PITCH`]): there more rows stay cached at once, and short bands only
/// switch column blocks more often. On lavapipe (Intel Xeon; two runs each, bands of 32 /
/// 128 / 256 blocks): `[4096,4000] (1,0)` f32 33 / 24 / 23-30 ms, `[4092,4092]` 48 / 24 /
/// 25-28, `[4096,2056]` 17-18 / 12-15 / 11-12, `[8,2048,2040] (0,2,1)` 69-72 / 49-51 /
/// 48-49, `[64,512,504] (0,2,1)` 31-32 / 21-22 / 20-21; where rows alias (pitches of 4, 12
/// and 16 KiB, 2 KiB for `[64,512,512]`) 32 stays best (`[4096,3072]` 19-21 / 23-25 / 29).
pub const MICRO_BAND_BLOCKS_SPREAD: u32 = 128;

/// Row pitches that are multiples of this many bytes put a micro band's input rows in few
/// of a CPU's L1 sets (a 48 KiB, 12-way L1 of 64-byte lines repeats its sets every 4 KiB:
/// a multiple of 512 bytes visits at most 8 of its 64 sets), so its bands stay short
/// ([`MICRO_BAND_BLOCKS`]).
pub const MICRO_ALIASING_PITCH: u64 = 512;

/// Bytes of input rows a band of the micro kernel spans at least, with 32-bit components:
/// where rows are close, 32 row blocks are too few (`[32,56,56,64] (0,3,1,2)` f32, rows
/// 256 bytes apart, in the usual order: 8.6 ms against 6.6 in 512-row bands, which this
/// restores; on CPUs it now runs in column runs, `column_runs::far_out_near_in`).
pub const MICRO_BAND_SPAN: u64 = 128 << 10;

/// Bytes of input rows a micro band may span (rows times pitch): past it the rows a band
/// reads again for its next column block are no longer cached. A set-associative cache
/// holds any rows spanning at most half of it (at most half its ways per set, whatever the
/// pitch); the AMD EPYC these were measured on has a 32 MiB L3. On lavapipe there (the
/// shader copy of 64 MiB at 12-14 GB/s; `[1024,16384] (1,0)` f32, rows 64 KiB apart) bands of 512 rows (32 MiB) ran at 0.45 of
/// the shader copy, of 256 rows (16 MiB) at 0.93; `[4096,4096]` (16 KiB) 0.95 in bands of
/// 512 rows (8 MiB), 0.42 in one band of all 4096 (64 MiB). Where fewer than
/// [`MICRO_COLUMN_RUN_MIN_BAND`] row blocks fit and the output's rows lie as far apart,
/// the blocks run along the columns instead (see
/// `Block::column_runs`](super::Block::column_runs)).
pub const MICRO_BAND_MAX_SPAN: u64 = 16 << 20;

/// Row blocks a micro band needs at least to keep its order where the rows lie far apart
/// on both sides: one SIMD group's invocations ([`LANE_GROUP`), [`MICRO_RUN`] blocks
/// each, per column block. Shorter bands (rows more than 128 KiB apart, for 4-byte units)
/// make each SIMD group write as many output rows as it moves column blocks (the 4-D
/// reversal in bands of 4 blocks: 0.29 of the shader copy, against 0.43 in one band of 16
/// and 0.70 in column runs). Bands one run tall are another case: short output rows back
/// to back, input rows far apart (`Plan::one_run_bands`).
pub const MICRO_COLUMN_RUN_MIN_BAND: u64 = (LANE_GROUP * MICRO_RUN) as u64;

/// Output rows at least this many bytes apart, with input rows at most
/// [`MICRO_NEAR_IN_PITCH`] apart, run the micro kernel's square blocks of 4- and 8-byte
/// units along the columns (`column_runs::far_out_near_in`). On lavapipe (AMD EPYC family
/// 25, 32 MiB L3; both orders compiled for the shape, three processes each; column runs'
/// time over the usual order's) `[B,P,C] (0,2,1)` f32 of about 24 MiB with input rows of 64
/// B to 512 B and output rows 12.25 KiB apart: 0.91-0.99; output rows 4 KiB apart (`[96,1024,64]`)
/// 0.92-0.93, 16 KiB 0.92-0.93, 49 KiB 0.92-0.93; 8-byte units 0.88-0.89; tensors that fit in
/// the L3 tied (0.99). Not where rows are close on both sides (`[64,512,512]`, 2 KiB: 1.03
/// in the suite), nor for 8- and 16-bit data (f16 `[32,3136,64]` 0.99-1.03). The suite's NHWC
/// -> NCHW went 0.84-0.87 -> 0.95-0.97 of the shader copy (docs/history/20-cpu-round-30.md).
pub const MICRO_FAR_OUT_PITCH: u64 = 4 << 10;

/// Input rows at most this many bytes apart count as near for [`MICRO_FAR_OUT_PITCH`]: at
/// 1 KiB the two orders tied (`[4,4096,256] (0,2,1)` 0.99-1.01, `[7,3136,256]` 0.97-0.99).
pub const MICRO_NEAR_IN_PITCH: u64 = 512;

/// Output rows of this many 4-byte units, back to back, with input rows at least
/// [`MICRO_ONE_RUN_BAND_PITCH`] apart, run the micro kernel (64-bit components) in bands one
/// run tall (`Plan::one_run_bands`). On lavapipe (AMD EPYC family 25; both compiled for the
/// shape, three alternating rounds of 7 runs; time in bands of one run over the usual band's)
/// `[B,C,P] (0,2,1)` f32 of 18-25 MiB, `P` 3136 (input rows 12.25 KiB apart): `C` 32 0.91-0.94,
/// 48 0.90, 64 0.93, 96 0.94, but 128 1.08-1.15 and 256 1.19; `C` 64 with `P` 4096 0.91, 1024
/// 0.93, 784 0.96, 512 0.96, 256 (1 KiB) 0.99; 6 MiB tensors tied; 8-byte units 0.92 at 64
/// channels but 0.99 at 32 and 1.05 at 128, 1-, 2- and 16-byte units tied: left as they were.
/// `[64,512,512] (0,2,1)` would lose (1.13). Transposes with few rows gain most: `[64,262144]
/// (1,0)` (rows 1 MiB apart) 37.9 ms against 53.9, `[96,65536]` 14.4 against 19.9. Only runs
/// of 4 were measured (other row counts keep the usual bands). The suite's NCHW -> NHWC went
/// 0.85-0.88 -> 0.93-0.95 of the shader copy (docs/history/20-cpu-round-30.md).
pub const MICRO_SHORT_OUT_ROWS: std::ops::RangeInclusive<u64> = 32..=96;

/// Input rows at least this many bytes apart for [`MICRO_SHORT_OUT_ROWS`].
pub const MICRO_ONE_RUN_BAND_PITCH: u64 = 2 << 10;
