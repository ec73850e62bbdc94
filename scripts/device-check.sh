#!/usr/bin/env bash
# The GPU device check: built here, run on a lent GPU machine in one command (DEVELOPERS.md;
# docs/gpu/README.md says what it writes and how its results are committed).
#
#   bash scripts/device-check.sh                   pack, here: release builds of the CLI and
#       of the GPU test files, stripped and compressed into .device/ with the Vulkan
#       loader's Debian package (x86-64); .device/ is ignored by git and carried by the
#       device command, which this prints.
#   bash scripts/device-check.sh --device          there: from .device/, the Vulkan loader
#       set up, `wgpu-permute info`, `bench --json`, the GPU tests on the device's Vulkan
#       adapter, `bench --scale 4 --json`, `model --suite --json` and `compare` of the two,
#       each step within its share of DEVICE_CHECK_SECONDS (default 390), everything
#       written into $OUT; a summary last.
#   bash scripts/device-check.sh --local [--quick] here, end to end: pack (without the
#       loader's package), then the device part from .device/ on this machine's adapter
#       (lavapipe), into $OUT (default target/device-check). The tests plan as a GPU would
#       (WGPU_PERMUTE_TEST_AS_GPU=1), so their GPU expectations are checked here too.
#       --quick: a few tests of each step's kind and filtered bench suites, as the test
#       command runs it (tests/device_check.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
pack_dir="$root/.device"
# The test files that run on an adapter, and the library's own tests.
tests=(lib gpu variants convert views regions relayout reliability rearrange tuning model cli views_numpy hostile soak)
# --quick: each file's filter (empty: the whole file; absent: not run).
declare -A quick=(
    [lib]="gpu::shared"
    [gpu]="colour_channels repeated_gpu_permute_calls"
    [variants]="copies:: walks::rows_that_are_not_whole_groups_stack"
    [convert]="flat::"
    [views]=""
    [relayout]=""
)

mode="${1:-pack}"
quick_mode=false
[ "${2:-}" = "--quick" ] && quick_mode=true

# Release builds of the CLI and of the test files (`--features cli`, as the test command
# builds them), stripped, in .device/pack.tar.xz with a manifest: where they were built
# (the tests find their data files and the CLI there), the commit, the test files.
pack() {
    local with_loader="$1"
    source scripts/setup.sh
    echo "device-check: building the CLI and the test files (release)..."
    cargo build --release --features cli --bin wgpu-permute
    local listing
    listing="$(mktemp)"
    cargo test --release --features cli --no-run --message-format=json >"$listing"
    local stage="$pack_dir/stage"
    rm -rf "$stage" "$pack_dir/run" && mkdir -p "$stage/tests" "$stage/bin"
    python3 - "$listing" "$stage/tests" "${tests[@]}" <<'EOF'
import json, shutil, sys
listing, dest, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
found = {}
for line in open(listing):
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    target = m["target"]
    if target["kind"] == ["lib"] or "lib" in target["kind"]:
        name = "lib"
    elif target["kind"] == ["test"]:
        name = target["name"]
    else:
        continue
    found[name] = m["executable"]
missing = [w for w in wanted if w not in found]
if missing:
    sys.exit(f"device-check: no test executable for {missing}")
for w in wanted:
    shutil.copy(found[w], f"{dest}/{w}")
EOF
    rm -f "$listing"
    cp target/release/wgpu-permute "$stage/bin/"
    strip "$stage"/bin/* "$stage"/tests/*
    {
        echo "root=$root"
        echo "commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
        echo "changed_files=$(git status --porcelain 2>/dev/null | wc -l)"
        echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "tests=${tests[*]}"
    } >"$stage/manifest"
    # Small for the device's carry limit; fast for a local run.
    local level=-6
    [ "$with_loader" = yes ] || level=-1
    tar -C "$stage" -cf - . | xz -T0 "$level" >"$pack_dir/pack.tar.xz"
    rm -rf "$stage"
    if [ "$with_loader" = yes ] && ! ls "$pack_dir"/libvulkan1_*.deb >/dev/null 2>&1; then
        echo "device-check: fetching the Vulkan loader's package (libvulkan1, amd64)..."
        local lists="$pack_dir/apt-lists"
        mkdir -p "$lists/partial"
        local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
        apt-get "${o[@]}" update -qq
        (cd "$pack_dir" && apt-get "${o[@]}" download libvulkan1)
        rm -rf "$lists"
    fi
    du -sh "$pack_dir"
}

# One step: `name`, at most `secs` seconds (and no later than the deadline), its output
# in logs/name.log; its exit status and time go into the summary.
step() {
    local name="$1" secs="$2"
    shift 2
    local left=$((deadline - SECONDS))
    [ "$secs" -gt "$left" ] && secs="$left"
    if [ "$secs" -le 0 ]; then
        printf '| %s | not run: out of time | 0 |\n' "$name" >>"$steps"
        return 0
    fi
    local start=$SECONDS rc=0
    echo "device-check: $name (at most ${secs}s)..."
    timeout --signal=TERM --kill-after=10 "$secs" "$@" >"$logs/$name.log" 2>&1 || rc=$?
    local status="exit $rc"
    [ "$rc" = 124 ] && status="stopped at its ${secs}s"
    [ "$rc" = 0 ] || failed=1
    printf '| %s | %s | %s |\n' "$name" "$status" "$((SECONDS - start))" >>"$steps"
    return 0
}

# The test files, three at a time, each within what is left of `secs`; each one's output
# in logs/test-NAME.log, its exit status last.
run_tests() {
    local secs="$1" dir="$2"
    local until=$((SECONDS + secs)) t args left
    for t in "${tests[@]}"; do
        args=()
        if $quick_mode; then
            [ -n "${quick[$t]+set}" ] || continue
            read -ra args <<<"${quick[$t]}"
        fi
        while [ "$(jobs -rp | wc -l)" -ge 3 ]; do
            wait -n || true
        done
        left=$((until - SECONDS))
        if [ "$left" -le 0 ]; then
            echo "not run: out of time" >"$logs/test-$t.log"
            continue
        fi
        echo "device-check: tests/$t (at most ${left}s)..."
        (
            rc=0
            timeout --kill-after=10 "$left" "$dir/$t" "${args[@]}" >"$logs/test-$t.log" 2>&1 || rc=$?
            echo "exit $rc" >>"$logs/test-$t.log"
        ) &
    done
    wait
}

device_run() {
    local local_run="$1"
    out="${OUT:?set OUT to the folder the results go to}"
    mkdir -p "$out"
    logs="$out/logs"
    rm -rf "$logs" && mkdir -p "$logs"
    steps="$logs/steps.md"
    failed=0
    printf '| step | status | seconds |\n|---|---|---|\n' >"$steps"
    deadline=$((SECONDS + ${DEVICE_CHECK_SECONDS:-390}))
    # Outside .device/, which the device command carries whole.
    local run_dir="${TMPDIR:-/tmp}/wgpu-permute-device-check"
    rm -rf "$run_dir" && mkdir -p "$run_dir"
    # python3's tarfile, which every machine with python has, rather than xz.
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "$pack_dir/pack.tar.xz" "$run_dir"
    local built_root
    built_root="$(sed -n 's/^root=//p' "$run_dir/manifest")"
    # The tests find their data files (and the CLI test the CLI) where they were built.
    if [ "$built_root" != "$root" ]; then
        if [ -e "$built_root" ] && [ "$(cd "$built_root" && pwd -P)" != "$(pwd -P)" ]; then
            echo "device-check: $built_root exists and is not this tree" >&2
            exit 1
        fi
        mkdir -p "$(dirname "$built_root")"
        [ -e "$built_root" ] || ln -s "$root" "$built_root"
    fi
    if [ ! -x "$built_root/target/release/wgpu-permute" ]; then
        mkdir -p "$built_root/target/release"
        cp "$run_dir/bin/wgpu-permute" "$built_root/target/release/"
    fi
    # The Vulkan loader, where the machine has none, and NVIDIA's driver where the loader
    # does not find it on its own.
    if ! ldconfig -p | grep -q 'libvulkan.so.1 '; then
        for deb in "$pack_dir"/libvulkan1_*.deb; do
            dpkg -x "$deb" /
        done
        ldconfig
    fi
    local nvidia=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1 &&
        [ -f "$nvidia" ]; then
        export VK_DRIVER_FILES="$nvidia" VK_ICD_FILENAMES="$nvidia"
    fi
    export WGPU_BACKEND=vulkan WGPU_PERMUTE_SKIP_WEB=1 PYTHONUNBUFFERED=1
    if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
        XDG_RUNTIME_DIR="$(mktemp -d)"
        export XDG_RUNTIME_DIR
    fi
    $local_run && export WGPU_PERMUTE_TEST_AS_GPU=1
    local cli="$run_dir/bin/wgpu-permute"
    local filter=() runs=()
    if $quick_mode; then
        filter=(--filter "1000,7]")
        runs=(--runs 2)
    fi
    {
        echo "checked: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        sed 's/^/built /' "$run_dir/manifest"
        echo "host: $(uname -srm); $(nproc) cores; $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p')"
        if command -v nvidia-smi >/dev/null 2>&1; then
            echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory,power.limit \
                --format=csv,noheader 2>&1 | head -n 1)"
        fi
    } >"$out/info.txt"
    step info 30 "$cli" info
    sed -n 's/^default adapter/wgpu default adapter/p' "$logs/info.log" >>"$out/info.txt"
    { echo; cat "$logs/info.log"; } >>"$out/info.txt"
    step bench 100 "$cli" bench --json "$out/bench.json" "${filter[@]}" "${runs[@]}"
    # The tests get what the steps after them do not need.
    local rest=$((deadline - SECONDS - 180))
    [ "$rest" -lt 60 ] && rest=60
    local start=$SECONDS
    run_tests "$rest" "$run_dir/tests"
    printf '| tests | see below | %s |\n' "$((SECONDS - start))" >>"$steps"
    step bench-scale4 110 "$cli" bench --scale 4 --json "$out/bench-scale4.json" "${filter[@]}" "${runs[@]}"
    step model 60 bash -c '"$1" model --suite --json >"$2"' _ "$cli" "$out/model.json"
    local benches=()
    for f in "$out/bench.json" "$out/bench-scale4.json"; do
        [ -s "$f" ] && benches+=(--bench "$f")
    done
    if [ ${#benches[@]} -gt 0 ] && [ -s "$out/model.json" ]; then
        step compare 20 bash -c '"$@" >"$OUT_TABLE"' _ "$cli" compare "${benches[@]}" --model "$out/model.json"
        [ -f "$logs/compare.log" ] && mv "$logs/compare.log" "$logs/compare-stderr.log"
    fi
    summarise
}

# summary.md (steps, each test file's result and failures, the bench's summaries), the
# tests' whole output in tests.log, every log in logs.tar.gz; the summary printed last.
summarise() {
    local summary="$out/summary.md"
    {
        echo "# Device check"
        echo
        sed -n '/^$/q; s/^/- /p' "$out/info.txt"
        echo
        cat "$steps"
        echo
        echo "## Tests"
        echo
        local f
        for f in "$logs"/test-*.log; do
            [ -e "$f" ] || continue
            local name="${f##*/test-}"
            name="${name%.log}"
            local results status
            results="$(grep -E '^test result:' "$f" | tr '\n' ' ' || true)"
            status="$(tail -n 1 "$f")"
            echo "- \`$name\`: $status; ${results:-no result line}"
            [ "$status" = "exit 0" ] || failed=1
            grep -E '^(test .* FAILED|    [A-Za-z_:]+$)' "$f" | sed 's/^/    /' | head -40 || true
        done
        echo
        echo "## Bench"
        echo
        for f in "$logs/bench.log" "$logs/bench-scale4.log"; do
            [ -e "$f" ] || continue
            echo "\`${f##*/}\`:"
            grep -E '/ (buffer|shader) copy: median|GB/s \(medians|not measured|^error' "$f" | sed 's/^/    /' || true
        done
    } >"$summary"
    cat "$logs"/test-*.log >"$out/tests.log" 2>/dev/null || true
    tar -C "$out" -czf "$out/logs.tar.gz" logs
    rm -rf "$logs"
    cat "$summary"
    [ -f "$out/table.md" ] && grep -E '^permutes /' "$out/table.md"
    local want
    for want in bench.json bench-scale4.json model.json table.md; do
        if [ ! -s "$out/$want" ]; then
            echo "device-check: no $want" >&2
            failed=1
        fi
    done
    [ "$failed" = 0 ] && echo "device-check: every step passed" || echo "device-check: FAILED (see above)"
    return "$failed"
}

case "$mode" in
    pack)
        pack yes
        echo
        echo "device command (carry .device; timeout_s 450 leaves time to run it again):"
        echo "    bash scripts/device-check.sh --device"
        ;;
    --device)
        OUT_TABLE="${OUT:?}/table.md"
        export OUT_TABLE
        device_run false
        ;;
    --local)
        OUT="${OUT:-$root/target/device-check}"
        OUT_TABLE="$OUT/table.md"
        export OUT OUT_TABLE
        pack no
        source scripts/setup.sh
        device_run true
        ;;
    *)
        echo "usage: bash scripts/device-check.sh [--device | --local [--quick]]" >&2
        exit 2
        ;;
esac
