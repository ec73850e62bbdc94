// Trace mode (src/model.rs reads the trace): the kernel runs as shipped, on the workgroups
// listed in `traced`, and every global-memory and tile access also writes a record of
// RECORD_WORDS words: the invocation's flat local index, its access sequence number, the
// address space (TRACE_* below) with the access's byte count in bits 8 and up, and the index
// of the unit accessed. Sequence numbers count each address space apart, so that lanes of a
// warp that skipped an access elsewhere (a lane past a partial tile's edge) still line up
// with their warp on the accesses they share. Invocation `lid` of listed workgroup `slot`
// owns SLOTS records from word HEADER + (slot * INVOCATIONS + lid) * SLOTS * RECORD_WORDS.
// Word 0 is set to 1 when an invocation makes more than SLOTS accesses (the trace is then
// incomplete).
@group(0) @binding(3) var<storage, read_write> trace: array<u32>;
@group(0) @binding(4) var<storage, read> traced: array<u32>;

const HEADER: u32 = {{HEADER}};
const SLOTS: u32 = {{SLOTS}};
const RECORD_WORDS: u32 = {{RECORD_WORDS}};
const INVOCATIONS: u32 = {{INVOCATIONS}};
const UNIT_BYTES: u32 = {{UNIT_BYTES}};
const DST_UNIT_BYTES: u32 = {{DST_UNIT_BYTES}};
{{SPACE_CODES}}
var<private> trace_lid: u32;
var<private> trace_count: u32;
var<private> trace_seq: array<u32, SPACES>;
var<private> trace_base: u32;

fn record(space: u32, i: u32, bytes: u32) {
    if trace_count < SLOTS {
        let at = trace_base + trace_count * RECORD_WORDS;
        trace[at] = trace_lid;
        trace[at + 1u] = trace_seq[space];
        trace[at + 2u] = space | (bytes << 8u);
        trace[at + 3u] = i;
    } else {
        trace[0] = 1u;
    }
    trace_count += 1u;
    trace_seq[space] += 1u;
}

fn load_src(i: u32) -> {{STORE}} {
    record(TRACE_SRC_LOAD, i, UNIT_BYTES);
    return {{SRC_UNIT}};
}

fn load_dst(i: u32) -> {{DST_STORE}} {
    record(TRACE_DST_LOAD, i, DST_UNIT_BYTES);
    return dst[i];
}

fn store_dst(i: u32, value: {{DST_STORE}}) {
    record(TRACE_DST_STORE, i, DST_UNIT_BYTES);
    dst[i] = value;
}

// Dispatch slot `slot` runs listed workgroup `traced[slot]`.
fn workgroup_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    let slot = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
    trace_lid = lid;
    trace_base = HEADER + (slot * INVOCATIONS + lid) * SLOTS * RECORD_WORDS;
    return traced[slot];
}
