// Where an invocation's run starts (the generic kernel's runs and tiled walks, CPU
// adapters): a SIMD group of LANES invocations moves LANES * RUN neighbouring units, its
// lanes' first units LANE_STEP apart (RUN, or 1 where the runs are lane-major).
const LANES: u32 = {{LANES}};

fn run_start(wg: u32, lid: u32) -> Idx {
    let at = iadd(imul(ix(wg), ix(WORKGROUP)), ix(lid));
    let group = imul(idiv(at, ix(LANES)), ix(LANES * RUN));
    return iadd(group, imul(imod(at, ix(LANES)), ip(LANE_STEP)));
}
