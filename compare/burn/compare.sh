#!/usr/bin/env bash
# Runs wgpu-permute's bench and the burn program alternately, RUNS times each (default 3),
# on the default adapter, then joins the reports per case (compare.py). Dev only, not CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
runs="${RUNS:-3}"
out="${OUT:-$(mktemp -d)}"
export CARGO_TARGET_DIR_BURN="${CARGO_TARGET_DIR_BURN:-/work/compare-target}"
(cd "$root" && cargo build --release --features cli --bin wgpu-permute)
(cd "$here" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR_BURN" cargo build --release)
for i in $(seq 1 "$runs"); do
    "$root/target/release/wgpu-permute" bench --json "$out/ours-$i.json" > /dev/null
    "$CARGO_TARGET_DIR_BURN/release/burn-permute-compare" --json "$out/burn-$i.json" > /dev/null
done
python3 "$here/compare.py" "$out"
