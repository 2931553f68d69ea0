/* run_cpu.c - requires a module lowered from a planned segment program
 * and its plan_info; runs the launch's kernels on the CPU SIMT executor
 * exactly as a GPU launch would run them (the same plan, scratch and
 * hidden parameters), so CI checks every schedule's logic with no GPU.
 * The kernels share one journal (cpu_exec.h): when one fails, every
 * argument buffer is put back as it was before the first. (Offsets that the
 * check flags are no failure: the kernels clamp them and write what a GPU
 * writes, as the tests of the schedules' clamping expect.) */
#include "launch.h"
#include "../backends/cpu/cpu_exec.h"

#include <stdlib.h>
#include <string.h>

void plan_cpu_sizes(const plan_info *info, int64_t segments, const int64_t *numel, int nnumel, plan_sizes *sz)
{
    memset(sz, 0, sizeof *sz);
    sz->segments = segments;
    sz->limit = nnumel ? INT64_MAX : 0;
    for (int h = 0; h < nnumel; h++)
        if (numel[h] < sz->limit)
            sz->limit = numel[h];
    if (sz->limit < 0)
        sz->limit = 0;
    sz->multiprocessors = PLAN_CPU_MULTIPROCESSORS;
    for (int k = 0; k < info->nkernels; k++)
        sz->ctas_per_sm[k] = PLAN_CPU_CTAS_PER_SM;
}

bool plan_run_cpu_simt(const ir_module *simt, const plan_info *info, const cpu_arg *args,
                       const int64_t *numel, int nnumel, int64_t segments, bool check, bool *bad, diag *d)
{
    plan_sizes sz;
    plan_cpu_sizes(info, segments, numel, nnumel, &sz);
    plan_runtime rt;
    plan_runtime_compute(info, &sz, &rt);
    int nargs = info->nruntime + info->nhidden;
    unsigned char *scratch = calloc(rt.scratch_bytes + 16, 1);
    cpu_arg *all = calloc((size_t)nargs + 1, sizeof *all);
    cpu_journal *journal = cpu_journal_new();
    if (!scratch || !all || !journal) {
        free(scratch), free(all), cpu_journal_free(journal);
        diag_error(d, DIAG_NOMEM, "out of memory for a scratch of %zu bytes", rt.scratch_bytes);
        return false;
    }
    /* as a GPU scratch that served launches before: only the header is
     * zero (launch.h); whatever else it holds must not matter */
    memset(scratch + rt.zero_bytes, 0xa5, rt.scratch_bytes + 16 - rt.zero_bytes);
    memcpy(all, args, sizeof *all * (size_t)info->nruntime);
    for (int h = 0; h < info->nhidden; h++) {
        plan_value v = plan_hidden_value(info, &rt, h, numel, segments, check);
        all[info->nruntime + h] = v.is_pointer
            ? (cpu_arg){.kind = CPU_ARG_BUFFER, .data = scratch + v.offset, .nelems = v.nelems,
                        .scratch = true}
            : (cpu_arg){.kind = CPU_ARG_INT, .i = v.value};
    }
    bool ok = true;
    for (int i = 0; ok && i < rt.nlaunches; i++) {
        int64_t grid[3] = {rt.launches[i].grid, 1, 1};
        ok = cpu_simt_launch_with(simt, info->kernels[rt.launches[i].kernel].func, grid, all, nargs,
                                  journal, d);
    }
    /* the kernels leave the header as they found it, but for the flag, so
     * that a GPU scratch can serve the next launch uncleared */
    for (size_t at = 0; ok && at < rt.zero_bytes; at += 4) {
        uint32_t word;
        memcpy(&word, scratch + at, 4);
        if (word && at != rt.words_offset) {
            sw_unreachable(d, "the task kernels left word %zu of the scratch header at %u", at / 4, word);
            ok = false;
        }
    }
    if (!ok)
        cpu_journal_rollback(journal);
    if (ok && bad) {
        int32_t flag;
        memcpy(&flag, scratch + rt.words_offset, sizeof flag);
        *bad = flag != 0;
    }
    cpu_journal_free(journal);
    free(scratch);
    free(all);
    return ok;
}
