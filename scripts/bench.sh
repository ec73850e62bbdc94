#!/usr/bin/env bash
# Quick start, run: set up, then the benchmark suite on the default adapter: each permute
# (then each view) next to a buffer copy and a shader copy of the same (output) bytes.
# Extra arguments go to `wgpu-permute bench` (e.g. --json out.json --plot out.svg --scale 4).
source "$(dirname "$0")/setup.sh"
cd "$(dirname "$0")/.."
cargo run --release --features cli --bin wgpu-permute -- bench "$@"
