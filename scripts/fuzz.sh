#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/, its own cargo workspace) and runs each for
# a fixed time.
#
#   scripts/fuzz.sh TARGET|all SECONDS
#
# Targets: java_frontend c_frontend matcher lsp_reader lsp_session.
# Exits non-zero when a target crashes (panic), hangs (an input runs past
# FUZZ_TIMEOUT seconds, default 10) or runs out of memory (past
# FUZZ_RSS_MB, default 2048), and prints the reproducer's path; rerun one
# with `cargo fuzz run TARGET PATH` in fuzz/ (with RUSTC_BOOTSTRAP=1).
# Exits 3 when cargo-fuzz is missing and FUZZ_INSTALL is not 1.
#
# The toolchain is stable: cargo fuzz's unstable flags are enabled with
# RUSTC_BOOTSTRAP=1, and no sanitizer is used (`-s none`): eqlens is safe
# Rust, and its C parts (tree-sitter, Z3) would not be instrumented by
# cargo fuzz's sanitizer flags anyway. Panics, hangs and OOMs are detected.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGETS=(java_frontend c_frontend matcher lsp_reader lsp_session)
if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 TARGET|all SECONDS   (targets: ${TARGETS[*]})" >&2
    exit 2
fi
if [[ "$1" == all ]]; then
    selected=("${TARGETS[@]}")
else
    selected=("$1")
fi
seconds="$2"
timeout="${FUZZ_TIMEOUT:-10}"
rss="${FUZZ_RSS_MB:-2048}"
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    if [[ "${FUZZ_INSTALL:-0}" == 1 ]]; then
        echo "fuzz: installing cargo-fuzz"
        cargo install cargo-fuzz --locked || { echo "fuzz: cargo-fuzz could not be installed" >&2; exit 3; }
    else
        echo "fuzz: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)" >&2
        exit 3
    fi
fi

python3 "$ROOT/scripts/fuzz-seeds.py"
cd "$ROOT/fuzz"
if [[ ${#selected[@]} -eq 1 ]]; then
    nice -n 19 cargo fuzz build -O -s none "${selected[0]}"
else
    nice -n 19 cargo fuzz build -O -s none
fi

failed=0
for t in "${selected[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    dirs=("corpus/$t")
    [[ -d "regressions/$t" ]] && dirs+=("regressions/$t")
    echo "fuzz: $t for ${seconds}s"
    log="artifacts/$t/last-run.log"
    before=$(ls "artifacts/$t" | grep -v last-run.log | sort || true)
    if nice -n 19 cargo fuzz run -O -s none "$t" "${dirs[@]}" -- \
        -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" \
        -print_final_stats=1 >"$log" 2>&1; then
        grep -aE '^stat::(number_of_executed_units|new_units_added)|^#[0-9]+ *DONE' "$log" \
            | sed "s/^/fuzz: $t: /" || true
    else
        failed=1
        grep -aE 'ERROR: libFuzzer|panicked at|SUMMARY' "$log" | head -n 5 | sed "s/^/fuzz: $t: /" || true
        new=$(comm -13 <(echo "$before") <(ls "artifacts/$t" | grep -v last-run.log | sort) || true)
        for a in $new; do
            echo "fuzz: $t FAILED; reproducer: $ROOT/fuzz/artifacts/$t/$a"
        done
        [[ -z "$new" ]] && echo "fuzz: $t FAILED (no artifact written); log: $ROOT/fuzz/$log"
    fi
done
exit "$failed"
