#!/usr/bin/env bash
# gpu_run.sh - everything Swage checks on a GPU machine, in one call: the
# environment, a build (gcc), the C unit tests (the CUDA runtime's GPU
# checks included), the GPU suite (test/gpu; the segment tests in a step of
# their own, so a GPU fault there cannot fail the others), the CPU suite
# (test/python), the vector-add benchmark, the launch-overhead breakdown,
# the tutorials benchmark (Triton's softmax and layer-norm kernels, Swage
# against Triton and torch) and the segments benchmark with its sweep of
# mean segment length. The results land in $OUT (default
# /tmp/swage-gpu-out), seven files: logs.txt (every step's log, in order),
# host_benchmarks.json (vector_add, launch_breakdown and small_batch, by
# name), tutorials.json, segments.json (with the sweep), segments.png,
# segments_plans.png and sweep.png. A failing
# step is reported and the others still run; the tables are printed last
# (the segments table last of all); the exit status is 1 if any step failed.
# Safe to run again on the same machine (incremental build).
#
#   tools/gpu_run.sh                 # on the GPU machine, from anywhere
#   SWAGE_COMMIT=<sha> tools/gpu_run.sh   # names the commit where .git is absent
#   SWAGE_GPU_STEPS=unit,segments,sanitize,segbench tools/gpu_run.sh
#       # only these steps (the build always runs); all of them by default:
#       # unit gpu segments cpu vecadd launch sanitize smallbatch tutbench segbench
#
# The sanitize step runs tools/gpu_sanitize.py (every schedule x every
# distribution of a few segment programs at small sizes, checked against
# float64 references, and unsafe=True launches on hostile offsets) under
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck, each
# failing on any error it reports, and once more under memcheck with
# --report-api-errors all, whose CUDA API errors must each be one that
# docs/testing.md explains (tools/sanitizer_summary.py --check-api); the
# final summary lists what each tool reported.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="${OUT:-/tmp/swage-gpu-out}"
mkdir -p "$OUT"
# Step logs are written here and merged into $OUT/logs.txt at exit (few files in $OUT).
LOGS="$(mktemp -d "${TMPDIR:-/tmp}/swage-gpu-logs.XXXXXX")"
BUILD=build-gpu
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export SWAGE_LIB="$PWD/$BUILD/libswage.so" PYTHONPATH="$PWD/python"
# A missing GPU fails the C and GPU tests instead of skipping them.
export SWAGE_EXPECT_GPU=1 SWAGE_REQUIRE_GPU=1
START=$(date +%s)

declare -a SUMMARY=()
FAILED=0
merge_logs() {
    local name file
    : > "$OUT/logs.txt"
    for name in environment build unit gpu_tests gpu_segments cpu_tests bench vector_add \
                launch_breakdown memcheck api_errors api_errors_check racecheck synccheck \
                initcheck small_batch tutorials_bench tutorials segments_bench segments; do
        for file in "$LOGS/$name.log" "$LOGS/$name.txt"; do
            [ -f "$file" ] || continue
            printf '\n===== %s\n' "$(basename "$file")" >> "$OUT/logs.txt"
            cat "$file" >> "$OUT/logs.txt"
        done
    done
}
trap merge_logs EXIT
step() { printf '\n== %s  (t=%ds)\n' "$*" "$(( $(date +%s) - START ))"; }
# run NAME LIMIT_SECONDS LOG COMMAND...: runs, tees the log, records the status.
run() {
    local name=$1 limit=$2 log=$3
    shift 3
    step "$name"
    local t0 rc=0
    t0=$(date +%s)
    timeout --signal=TERM --kill-after=10 "$limit" "$@" 2>&1 | tee "$log" || rc=$?
    local took=$(( $(date +%s) - t0 ))
    if [ "$rc" -eq 0 ]; then
        SUMMARY+=("$(printf '%-24s ok      %4ds' "$name" "$took")")
    else
        [ "$rc" -eq 124 ] && rc="timeout after ${limit}s"
        SUMMARY+=("$(printf '%-24s FAILED  %4ds  (%s; log %s in %s)' "$name" "$took" "$rc" \
                   "$(basename "$log")" "$OUT/logs.txt")")
        FAILED=1
    fi
}

# Each C unit test on its own, so one failure does not hide the others.
unit_tests() {
    local t bad=0
    for t in "$BUILD"/test_*; do
        [ -x "$t" ] || continue
        echo "== $t"
        "$t" || { echo "!! $t exited $?"; bad=1; }
    done
    return "$bad"
}
export -f unit_tests
export BUILD

step "environment"
{
    date -u +"date %Y-%m-%dT%H:%M:%SZ"
    echo "commit ${SWAGE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi -L || echo "nvidia-smi failed"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
        --format=csv,noheader || true
    { nvcc --version | tail -n 2; } || echo "nvcc not found"
    { gcc --version | head -n 1; } || echo "gcc not found"
    "$PY" -c 'import sys, numpy, pytest; print("python", sys.version.split()[0], "numpy", numpy.__version__, "pytest", pytest.__version__)' \
        || echo "python3 with numpy and pytest not found"
    "$PY" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count(), "triton", triton.__version__)' \
        || echo "torch/triton not importable"
    "$PY" -c 'import cupy; print("cupy", cupy.__version__)' 2>/dev/null \
        || echo "cupy: not importable (its tests are skipped)"
    echo "cores $(nproc)"
} 2>&1 | tee "$LOGS/environment.log"

run "build" 90 "$LOGS/build.log" make -j"$(nproc)" BUILD="$BUILD" all
if [ ! -f "$SWAGE_LIB" ]; then
    echo "no $SWAGE_LIB: the build failed, so nothing else can run" | tee -a "$LOGS/build.log"
    printf '\n== summary\n'; printf '%s\n' "${SUMMARY[@]}"
    exit 1
fi
STEPS=",${SWAGE_GPU_STEPS:-unit,gpu,segments,cpu,vecadd,launch,sanitize,smallbatch,tutbench,segbench},"
want() { [[ "$STEPS" == *",$1,"* ]]; }
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"

want unit && run "C unit tests" 90 "$LOGS/unit.log" bash -c unit_tests
want gpu && run "GPU suite (test/gpu)" 150 "$LOGS/gpu_tests.log" \
    "$PY" -m pytest -q -rs -p no:cacheprovider --durations=8 \
    --ignore=test/gpu/test_segments_gpu.py test/gpu
want segments && run "GPU segments suite" "${SWAGE_GPU_SEGMENTS_LIMIT:-240}" "$LOGS/gpu_segments.log" \
    "$PY" -m pytest -q -rs -p no:cacheprovider --durations=8 test/gpu/test_segments_gpu.py
want cpu && run "CPU suite (test/python)" 200 "$LOGS/cpu_tests.log" \
    "$PY" -m pytest -q -rs -p no:cacheprovider test/python
want vecadd && run "benchmark" 150 "$LOGS/bench.log" \
    "$PY" bench/vector_add.py --json "$LOGS/vector_add.json" --table "$LOGS/vector_add.txt"
want launch && run "launch breakdown" 60 "$LOGS/launch_breakdown.log" \
    "$PY" bench/launch_breakdown.py --json "$LOGS/launch_breakdown.json"
# sanitize NAME LIMIT LOG N BATCHES SANITIZER-OPTIONS...: tools/gpu_sanitize.py
# under compute-sanitizer, at about N elements a distribution, over BATCHES
# ("all", or a comma list); the script stops starting cases 20 s before the
# limit (a sanitizer killed at the limit prints no summary).
sanitize() {
    local name=$1 limit=$2 log=$3 n=$4 batches=$5
    shift 5
    run "$name" "$limit" "$log" env SWAGE_SANITIZE_N="$n" SWAGE_SANITIZE_DISTRIBUTIONS="$batches" \
        SWAGE_SANITIZE_BUDGET_S="$(( limit - 20 ))" \
        "$SANITIZER" --print-limit 100000 "$@" "$PY" tools/gpu_sanitize.py
}
if want sanitize; then
    # Every schedule x batch in each tool; racecheck and initcheck, the
    # slowest, at smaller sizes. API errors are left out of the four checks
    # (they would count as errors) and get a pass of their own: the mix
    # loads every kernel the others do (module loads are where Swage's
    # expected API errors come from), and its errors are checked against
    # the explained ones rather than failing the run by themselves.
    sanitize "memcheck (schedules)" 100 "$LOGS/memcheck.log" 16384 all \
        --tool memcheck --report-api-errors no --error-exitcode 1
    sanitize "memcheck (API errors)" 60 "$LOGS/api_errors.log" 4096 mix \
        --tool memcheck --report-api-errors all
    run "API errors explained" 30 "$LOGS/api_errors_check.log" \
        "$PY" tools/sanitizer_summary.py --check-api "$LOGS/api_errors.log"
    sanitize "racecheck (schedules)" 100 "$LOGS/racecheck.log" 4096 all \
        --tool racecheck --report-api-errors no --error-exitcode 1
    sanitize "synccheck (schedules)" 70 "$LOGS/synccheck.log" 8192 all \
        --tool synccheck --report-api-errors no --error-exitcode 1
    sanitize "initcheck (schedules)" 90 "$LOGS/initcheck.log" 4096 all \
        --tool initcheck --report-api-errors no --error-exitcode 1
fi
want smallbatch && run "small batch" 60 "$LOGS/small_batch.log" \
    "$PY" bench/small_batch.py --json "$LOGS/small_batch.json"
# Softmax and layer-norm forward as Triton's tutorials write them: Swage,
# Triton (the same source) and torch, float32, GB/s and % of Triton.
want tutbench && run "tutorials benchmark" "${SWAGE_TUTBENCH_LIMIT:-240}" \
    "$LOGS/tutorials_bench.log" \
    "$PY" bench/tutorials.py --json "$OUT/tutorials.json" --table "$LOGS/tutorials.txt"
# The segments benchmark keeps to --budget-s itself (each distribution in a
# child process); the step's limit is a backstop.
want segbench && run "segments benchmark" "$(( ${SWAGE_SEGBENCH_BUDGET:-260} + ${SWAGE_SWEEP_BUDGET:-90} + 70 ))" \
    "$LOGS/segments_bench.log" \
    "$PY" bench/segments.py --budget-s "${SWAGE_SEGBENCH_BUDGET:-260}" --json "$OUT/segments.json" \
    --png "$OUT/segments.png" --plan-png "$OUT/segments_plans.png" --table "$LOGS/segments.txt" \
    --sweep --sweep-budget-s "${SWAGE_SWEEP_BUDGET:-90}" --sweep-png "$OUT/sweep.png" \
    ${SWAGE_SEGBENCH_ARGS:-}

# The host-side benchmarks' JSON in one file (the device returns few files).
"$PY" - "$LOGS" "$OUT/host_benchmarks.json" <<'PYEOF' || true
import json, os, sys
logs, out = sys.argv[1], sys.argv[2]
found = {}
for name in ("vector_add", "launch_breakdown", "small_batch"):
    path = os.path.join(logs, name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            found[name] = json.load(f)
if found:
    with open(out, "w") as f:
        json.dump(found, f, indent=1)
PYEOF
printf '\n== summary (%ds in all; logs.txt, host_benchmarks.json, tutorials.json, segments.json, segments.png, segments_plans.png and sweep.png in %s)\n' \
    "$(( $(date +%s) - START ))" "$OUT"
printf '%s\n' "${SUMMARY[@]}"
awk '/^== /{name=$2} /^[0-9]+ passed, [0-9]+ failed/{printf "  %-32s %s\n", name, $0}' \
    "$LOGS/unit.log" 2>/dev/null || true
for log in gpu_tests gpu_segments cpu_tests; do
    line=$(grep -E '(passed|failed|error|skipped).* in [0-9.]+s' "$LOGS/$log.log" 2>/dev/null \
           | tail -n 1 || true)
    [ -n "$line" ] || line="no pytest summary; last line: $(grep -v "^[[:space:]]*$" "$LOGS/$log.log" 2>/dev/null | tail -n 1 || true)"
    printf '  %-32s %s\n' "$log" "$line"
done
if want sanitize; then
    "$PY" tools/sanitizer_summary.py memcheck="$LOGS/memcheck.log" racecheck="$LOGS/racecheck.log" \
        synccheck="$LOGS/synccheck.log" initcheck="$LOGS/initcheck.log" api="$LOGS/api_errors.log" \
        | sed 's/^/  /' || true
fi
echo
if [ -f "$LOGS/vector_add.txt" ]; then
    cat "$LOGS/vector_add.txt"
else
    echo "the benchmark printed no table; the end of its log:"
    tail -n 12 "$LOGS/bench.log" 2>/dev/null || true
fi
echo
if [ -f "$LOGS/tutorials.txt" ]; then
    cat "$LOGS/tutorials.txt"
elif want tutbench; then
    echo "the tutorials benchmark printed no table; the end of its log:"
    tail -n 12 "$LOGS/tutorials_bench.log" 2>/dev/null || true
fi
echo
if [ -f "$LOGS/segments.txt" ]; then
    cat "$LOGS/segments.txt"
else
    echo "the segments benchmark printed no table; the end of its log:"
    tail -n 12 "$LOGS/segments_bench.log" 2>/dev/null || true
fi
exit "$FAILED"
