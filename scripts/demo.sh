#!/usr/bin/env bash
# Quick start, run: set up, then permute a real tensor on the default adapter.
source "$(dirname "$0")/setup.sh"
cd "$(dirname "$0")/.."
cargo run --release --example demo
