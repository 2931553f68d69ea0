#!/usr/bin/env bash
# gpu_profile.sh - ncu counters for the segment kernels, one line per kernel
# launch: builds build-gpu/ (as gpu_run.sh), then for each case
# "distribution:op:schedules[:triton]" (SWAGE_PROFILE_CASES, space-separated;
# a distribution may be a point of the sweep, uniform@4096; or
# "tutorial:softmax:4096x4096", a kernel of bench/tutorials.py, Swage's and Triton's)
# runs bench/profile_segments.py under ncu (--clock-control none) and prints
# time, DRAM throughput, issue activity, instructions, occupancy and the top
# stall reasons of every kernel whose name contains "segment".
#
#   SWAGE_PROFILE_CASES="medium-uniform:sum:auto,subwarp:triton" tools/gpu_profile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/swage-gpu-out}"
mkdir -p "$OUT"
BUILD=build-gpu
make -s -j16 BUILD=$BUILD "$BUILD/libswage.so" >/dev/null
export SWAGE_LIB="$PWD/$BUILD/libswage.so" PYTHONPATH="$PWD/python"
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,\
launch__grid_size,launch__block_size,launch__occupancy_limit_registers,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
for case in ${SWAGE_PROFILE_CASES:-medium-uniform:sum:auto,subwarp:triton}; do
    IFS=: read -r dist op schedules peer <<< "$case"
    if [ "$dist" = tutorial ]; then  # tutorial:KERNEL:MxN (bench/profile_tutorials.py)
        regex="$op" name="tutorial-$op-$schedules"
        workload=(python3 bench/profile_tutorials.py --kernel "$op" --shape "$schedules")
    else
        regex=segment name="${dist//@/-}-$op"
        workload=(python3 bench/profile_segments.py --distribution "$dist" --op "$op"
                  --schedules "$schedules" --reps 1)
        [ "${peer:-}" = triton ] && workload+=(--triton)
    fi
    echo "== $case"
    timeout 300 ncu --clock-control none --kernel-name "regex:$regex" --metrics "$METRICS" \
        --csv --page raw --launch-count "${SWAGE_PROFILE_LAUNCHES:-40}" \
        "${workload[@]}" > "$OUT/ncu-$name.csv" \
        2> "$OUT/ncu-$name.err" || { echo "ncu failed:"; tail -20 "$OUT/ncu-$name.err"; }
    python3 - "$OUT/ncu-$name.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if len(rows) < 3:
    print("no kernels profiled"); print(open(sys.argv[1]).read()[-2000:]); sys.exit(0)
head, units, data = rows[0], rows[1], rows[2:]
col = {h: i for i, h in enumerate(head)}
def g(r, k):
    v = r[col[k]] if k in col else ""
    return v.replace(",", "")
short = [("us", "gpu__time_duration.sum"), ("dram%", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
         ("issue%", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
         ("Minst", "smsp__inst_executed.sum"), ("occ%", "sm__warps_active.avg.pct_of_peak_sustained_active"),
         ("regs", "launch__registers_per_thread"), ("grid", "launch__grid_size"), ("blk", "launch__block_size"),
         ("lsb", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
         ("bar", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"),
         ("lgt", "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"),
         ("wait", "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"),
         ("noi", "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"),
         ("ssb", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"),
         ("sect/req", None)]
print("%-40s" % "kernel" + "".join("%9s" % s for s, _ in short))
for r in data:
    out = []
    for s, k in short:
        try:
            if k is None:
                v = float(g(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")) / max(
                    1.0, float(g(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")))
            else:
                v = float(g(r, k))
            if s == "us":
                unit = units[col[k]]
                v = v / 1000 if unit in ("ns", "nsecond") else v * 1000 if unit in ("ms", "msecond") else v
            if s == "Minst":
                v /= 1e6
            out.append("%9.1f" % v if abs(v) < 1e6 else "%9.3g" % v)
        except (ValueError, KeyError):
            out.append("%9s" % "-")
    print("%-40s" % g(r, "Kernel Name")[:40] + "".join(out))
PY
done
