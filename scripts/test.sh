#!/usr/bin/env bash
# Quick start, test: set up, then every test with GPU tests on the default Vulkan adapter
# (lavapipe on a machine without a GPU), and beside it a representative GPU subset on
# wgpu's GL backend (llvmpipe through EGL, headless): the downlevel path, without
# SHADER_INT64 or SHADER_F16, then the same subset and the views on SwiftShader (Chromium's
# Vulkan driver); then an app that depends on the crate alone, and the GPU device check's
# local mode. Release mode: lavapipe is slow enough. Extra arguments make the lavapipe part
# one fully optimised `cargo test` with them (and skip the device check).
export WGPU_PERMUTE_SWIFTSHADER=1
source "$(dirname "$0")/setup.sh"
cd "$(dirname "$0")/.."
run_tests=(cargo test --release --features cli)
# The sweeps compile thousands of pipelines, and lavapipe spends most of their time in
# LLVM: they run with its optimisation passes off (GALLIVM_PERF=nopt; the variant sweep
# took 294 s instead of 382, the conversions 88 instead of 133), which changes no result of
# a correct shader. The other tests run fully optimised code, as do the GL subset of
# gpu.rs below and the bench's check of each case against the reference.
sweeps=(variants convert gpu)
lavapipe() {
    if [ $# -gt 0 ]; then
        "${run_tests[@]}" "$@"
        return
    fi
    local others=() file name
    for file in tests/*.rs tests/*/main.rs; do
        name="$(basename "${file%/main.rs}" .rs)"
        [[ " ${sweeps[*]} " == *" $name "* ]] || others+=(--test "$name")
    done
    "${run_tests[@]}" --lib --bins --examples "${others[@]}"
    "${run_tests[@]}" --doc
    echo "The sweeps (${sweeps[*]}), with LLVM's optimisation passes off (GALLIVM_PERF=nopt):"
    GALLIVM_PERF=nopt "${run_tests[@]}" "${sweeps[@]/#/--test=}"
}
# What other drivers run: every kernel family, element size, index width and movement
# size on every permutation of ranks 1-5 and around every tile edge, random permutes,
# buffer errors, windows over tiny binding limits, threads.
subset=(every_permutation edges_of_every_kernel colour_channels random_permutes forced_64_bit
    index_math_64_bit permute_slice buffer_errors size_zero gpu_permute_and_recording
    packed_tiled a_device_with_low_binding_limits every_kernel_splits_across_window_edges
    grids_fold own_device_plans
    permuter_is_shared_across_threads threads_work_while_another_compiles)
other_drivers() {
    # With Mesa's shader cache off, as on a new machine: cold compiles hold wgpu's GL
    # context lock for seconds, which a warm cache would hide (see
    # `wgpu_permute::serialized`). One test at a time: GL work is serialised anyway, and
    # the lavapipe tests beside it slow its compiles.
    echo "GL backend subset (WGPU_BACKEND=gl, shader cache off):"
    WGPU_BACKEND=gl MESA_SHADER_CACHE_DISABLE=true "${run_tests[@]}" \
        --test gpu --test reliability -- --test-threads=1 "${subset[@]}"
    WGPU_BACKEND=gl MESA_SHADER_CACHE_DISABLE=true GALLIVM_PERF=nopt "${run_tests[@]}" \
        --test convert -- --test-threads=1
    # SwiftShader: the same subset, then views, regions, recorded operations and the
    # element conversions (GL runs those too). Not the variant sweep: SwiftShader keeps
    # every compiled pipeline's code (its 880 took 11 GiB).
    echo "SwiftShader subset (Vulkan, Chromium's driver: 256 invocations, 256-byte alignment):"
    VK_ICD_FILENAMES="$SWIFTSHADER_ICD" "${run_tests[@]}" \
        --test gpu --test reliability -- "${subset[@]}"
    # The conversion sweeps over every pair are left to lavapipe and GL here (the image
    # and head cases run on micro blocks, the other conversions too): SwiftShader keeps
    # every pipeline's code, and their ~100 unrolled micro blocks (up to 256 conversions
    # each; flat strips take the sweeps' odd shapes too) grew past 17 GiB, then past 24.
    VK_ICD_FILENAMES="$SWIFTSHADER_ICD" "${run_tests[@]}" \
        --test views --test regions --test relayout --test rearrange --test convert -- \
        --skip micro::every_pair --skip micro::the_affine \
        --skip ops::permutes_convert_every_pair --skip ops::quads_convert_every_pair
}
# A process and everything it started (the background lane's cargo and test binaries),
# each stopped before its children are listed, so that it starts no more.
kill_tree() {
    local child
    kill -STOP "$1" 2>/dev/null || true
    for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
    kill -CONT "$1" 2>/dev/null || true
}
# Everything builds first; then the other drivers' subsets run beside lavapipe's tests
# (their output follows lavapipe's): GL keeps one core busy at most, and the two together
# took about 3 minutes less than one after the other.
"${run_tests[@]}" --no-run
others_log="$(mktemp)"
other_drivers > "$others_log" 2>&1 &
others=$!
lavapipe "$@" &
status=0
wait $! || status=$?
if [ $status != 0 ]; then
    # lavapipe's part failed: the other drivers' lane stops rather than run on for minutes.
    kill_tree $others
    wait $others 2>/dev/null || true
    echo "(lavapipe's tests failed: the other drivers' lane was stopped; its output so far:)"
else
    wait $others || status=$?
fi
cat "$others_log"
rm -f "$others_log"
[ $status = 0 ] || exit $status
# Its own workspace (no dev-dependencies), built into this target directory, unoptimised:
# it checks features and errors, not speed (release builds of its two feature sets took
# 108 s, these about 70).
echo "An app that depends on wgpu-permute alone (tests/crate-only), with the default features, then with none:"
app=(cargo run --quiet --manifest-path tests/crate-only/Cargo.toml)
CARGO_TARGET_DIR="$PWD/target" "${app[@]}"
CARGO_TARGET_DIR="$PWD/target" "${app[@]}" --no-default-features
# The GPU device check end to end on this machine's adapter, as a lent GPU machine runs it
# (packed, unpacked, each step), in its quick form: a few tests planned as a GPU would plan
# them, filtered bench suites, the model and their comparison.
if [ $# -eq 0 ]; then
    echo "The device check's local mode (scripts/device-check.sh --local --quick):"
    check_out="$(mktemp -d)"
    OUT="$check_out" bash scripts/device-check.sh --local --quick >"$check_out.log" 2>&1 ||
        { cat "$check_out.log"; exit 1; }
    tail -n 3 "$check_out.log"
    rm -rf "$check_out" "$check_out.log"
fi
