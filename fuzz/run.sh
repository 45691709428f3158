#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 30), from the seed corpus in fuzz/seeds
# plus what earlier runs found (fuzz/corpus, not committed). Exits non-zero on a crash; the
# input is left in fuzz/artifacts/TARGET/.
#
# No nightly toolchain here: RUSTC_BOOTSTRAP=1 lets stable rustc take cargo-fuzz's -Z flags.
set -euo pipefail
secs="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v cargo-fuzz >/dev/null || { echo "fuzz/run.sh: needs cargo-fuzz (cargo install cargo-fuzz)" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
targets=(tgsi_compile fixture_json hwdocs_json layout_params sim_stream capi_calls)
cargo fuzz build --fuzz-dir fuzz -O
status=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    log="fuzz/corpus/$t.log"
    echo "== $t: ${secs} s"
    if cargo fuzz run --fuzz-dir fuzz -O "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$log" || true
        grep -E '^#[0-9]+' "$log" | tail -1 || true
    else
        echo "$t: CRASH (log $log, input in fuzz/artifacts/$t/)" >&2
        grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" >&2 || tail -20 "$log" >&2
        status=1
    fi
done
exit "$status"
