// Where an invocation's run starts (the generic kernel's runs and walks in tiles, CPU
// adapters): a SIMD group of LANES invocations moves LANES * RUN neighbouring units, its
// lanes' first units LANE_STEP apart and each run's units UNIT_STEP apart: RUN and 1, or,
// lane-major (Plan::lane_major_runs), 1 and LANES.
const LANES: u32 = {{LANES}};
const LANE_STEP: u32 = {{LANE_STEP}};
const UNIT_STEP: u32 = {{UNIT_STEP}};

fn run_start(wg: u32, lid: u32) -> Idx {
    let at = iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid));
    let group = imul(idiv(at, ix(LANES)), ix(LANES * RUN));
    return iadd(group, imul(imod(at, ix(LANES)), ix(LANE_STEP)));
}
