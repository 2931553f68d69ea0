/* ptx_kernels.h - SIMT IR test kernels shared by test_ptx.c (emission and
 * ptxas) and test_ptx_gpu.c (runs them on a GPU against the CPU oracle):
 * generators of MLIR text for the elementwise-op and cast matrices, the
 * list of ops each dtype takes, and parse+verify+emit in one call. */
#ifndef SWAGE_TEST_PTX_KERNELS_H
#define SWAGE_TEST_PTX_KERNELS_H

#include "backends/ptx/ptx.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNUSED_FN __attribute__((unused))

static const ir_dtype all_dtypes[] = {DT_I1, DT_I8, DT_U8, DT_I32, DT_I64, DT_F16, DT_BF16, DT_F32, DT_F64};
#define NDTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static const ir_op_kind binary_ops[] = {IR_ADD, IR_SUB, IR_MUL, IR_DIV, IR_FLOORDIV, IR_MOD, IR_IDIV,
                                        IR_REM, IR_UMULHI, IR_MINIMUM, IR_MAXIMUM, IR_AND, IR_OR,
                                        IR_XOR, IR_SHL, IR_SHR, IR_ATAN2, IR_POW, IR_HYPOT, IR_FMOD,
                                        IR_COPYSIGN};
static const ir_op_kind unary_ops[] = {IR_NEG, IR_NOT, IR_ABS, IR_EXP, IR_EXP2, IR_LOG, IR_LOG2,
                                       IR_SQRT, IR_RSQRT, IR_FLOOR, IR_CEIL, IR_SIN, IR_COS, IR_SIGMOID,
                                       IR_ERF, IR_TRUNC, IR_ROUND, IR_RINT, IR_TAN, IR_ASIN, IR_ACOS,
                                       IR_ATAN, IR_SINH, IR_COSH, IR_TANH, IR_ASINH, IR_ACOSH, IR_ATANH,
                                       IR_EXPM1, IR_LOG1P, IR_LOG10, IR_EXP10, IR_CBRT, IR_ERFC};
static const char *const cmp_predicates[] = {"lt", "le", "gt", "ge", "eq", "ne"};
#define NBINARY ((int)(sizeof binary_ops / sizeof binary_ops[0]))
#define NUNARY ((int)(sizeof unary_ops / sizeof unary_ops[0]))
#define NCMP 6

/* Whether the verifier accepts `op` on dt and the GPU renders it. */
static UNUSED_FN bool op_applies(ir_op_kind op, ir_dtype dt)
{
    unsigned f = ir_ops[op].flags;
    bool fl = ir_dtype_is_float(dt);
    if (((f & F_FLOAT) && !fl) || ((f & F_INT) && fl))
        return false;
    if ((op == IR_SHL || op == IR_SHR) && dt == DT_I1)
        return false;
    if (op == IR_UMULHI && dt != DT_I32 && dt != DT_I64)
        return false;
    return !((op == IR_NEG || op == IR_ABS) && (dt == DT_I1 || dt == DT_U8));
}

static UNUSED_FN const char *dt_name(ir_dtype dt) { return ir_dtypes[dt].name; }

/* "0 : i32", "0.0 : f32", "false" */
static UNUSED_FN const char *zero_attr(ir_dtype dt, char buf[32])
{
    if (dt == DT_I1)
        snprintf(buf, 32, "false");
    else if (ir_dtype_is_float(dt))
        snprintf(buf, 32, "0.0 : %s", dt_name(dt));
    else
        snprintf(buf, 32, "0 : %s", dt_name(dt));
    return buf;
}

/* The prologue every generated kernel shares: %idx (this thread's V element
 * indices of the CTA's tile of 32*V), %m = idx < n, and a helper naming
 * scheme. V = 2, 32 threads. */
enum { GEN_V = 2, GEN_T = 32, GEN_TILE = GEN_V * GEN_T };

static UNUSED_FN void gen_prologue(strbuf *sb)
{
    sb_printf(sb,
              "    %%pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
              "    %%ctile = \"sw.constant\"() {value = %d : i32} : () -> i32\n"
              "    %%base = \"sw.mul\"(%%pid, %%ctile) : (i32, i32) -> i32\n"
              "    %%ti = \"simt.tile_index\"() {len = %d : i32, start = 0 : i32} : () -> vector<2xi32>\n"
              "    %%bs = \"sw.splat\"(%%base) : (i32) -> vector<2xi32>\n"
              "    %%idx = \"sw.add\"(%%ti, %%bs) : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
              "    %%ns = \"sw.splat\"(%%n) : (i32) -> vector<2xi32>\n"
              "    %%m = \"sw.cmp\"(%%idx, %%ns) {predicate = \"lt\"} : (vector<2xi32>, vector<2xi32>) -> vector<2xi1>\n",
              GEN_TILE, GEN_TILE);
}

/* %<name> = values loaded from %<ptr>[idx] where m, else 0. */
static UNUSED_FN void gen_load(strbuf *sb, const char *name, const char *ptr, ir_dtype dt)
{
    char z[32];
    const char *t = dt_name(dt);
    sb_printf(sb,
              "    %%%s_z = \"sw.constant\"() {value = %s} : () -> vector<2x%s>\n"
              "    %%%s_s = \"sw.splat\"(%%%s) : (!sw.ptr<%s>) -> vector<2x!sw.ptr<%s>>\n"
              "    %%%s_p = \"sw.addptr\"(%%%s_s, %%idx) : (vector<2x!sw.ptr<%s>>, vector<2xi32>) -> vector<2x!sw.ptr<%s>>\n"
              "    %%%s = \"simt.load\"(%%%s_p, %%m, %%%s_z) {vec = 2 : i32} : (vector<2x!sw.ptr<%s>>, vector<2xi1>, vector<2x%s>) -> vector<2x%s>\n",
              name, zero_attr(dt, z), t, name, ptr, t, t, name, name, t, t, name, name, name, t, t, t);
}

/* %<ptr>[idx + slot*n] = %<value> where m (slot k of the output's n-element rows). */
static UNUSED_FN void gen_store(strbuf *sb, const char *value, const char *ptr, ir_dtype dt, int slot)
{
    const char *t = dt_name(dt);
    sb_printf(sb,
              "    %%%s_k = \"sw.constant\"() {value = %d : i32} : () -> i32\n"
              "    %%%s_nk = \"sw.mul\"(%%n, %%%s_k) : (i32, i32) -> i32\n"
              "    %%%s_nks = \"sw.splat\"(%%%s_nk) : (i32) -> vector<2xi32>\n"
              "    %%%s_o = \"sw.add\"(%%idx, %%%s_nks) : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n"
              "    %%%s_s = \"sw.splat\"(%%%s) : (!sw.ptr<%s>) -> vector<2x!sw.ptr<%s>>\n"
              "    %%%s_p = \"sw.addptr\"(%%%s_s, %%%s_o) : (vector<2x!sw.ptr<%s>>, vector<2xi32>) -> vector<2x!sw.ptr<%s>>\n"
              "    \"simt.store\"(%%%s_p, %%%s, %%m) {vec = 2 : i32} : (vector<2x!sw.ptr<%s>>, vector<2x%s>, vector<2xi1>) -> ()\n",
              value, slot, value, value, value, value, value, value, value, ptr, t, t, value, value, value,
              t, t, value, value, t, t);
}

/* The elementwise matrix for dt: out[k*n + i] = op_k(a[i], b[i]) for every
 * binary then unary op that applies (in table order), on floats then
 * sw.div {approx} and sw.exp {approx}, then select(a < b, a, b);
 * outb[c*n + i] = cmp_c(a[i], b[i]) for the six predicates.
 * *nout receives the number of rows of out. */
static UNUSED_FN char *gen_elementwise(ir_dtype dt, int *nout)
{
    strbuf sb;
    sb_init(&sb);
    const char *t = dt_name(dt);
    sb_printf(&sb, "module {\n  func.func @ew_%s(%%a: !sw.ptr<%s>, %%b: !sw.ptr<%s>, %%out: !sw.ptr<%s>, "
                   "%%outb: !sw.ptr<i1>, %%n: i32) attributes {simt.num_threads = %d : i32, "
                   "simt.smem_bytes = 0 : i32} {\n", t, t, t, t, GEN_T);
    gen_prologue(&sb);
    gen_load(&sb, "va", "a", dt);
    gen_load(&sb, "vb", "b", dt);
    int k = 0;
    char name[16];
    for (int i = 0; i < NBINARY + NUNARY; i++) {
        ir_op_kind op = i < NBINARY ? binary_ops[i] : unary_ops[i - NBINARY];
        if (!op_applies(op, dt))
            continue;
        snprintf(name, sizeof name, "r%d", k);
        if (i < NBINARY)
            sb_printf(&sb, "    %%%s = \"%s\"(%%va, %%vb) : (vector<2x%s>, vector<2x%s>) -> vector<2x%s>\n",
                      name, ir_ops[op].name, t, t, t);
        else
            sb_printf(&sb, "    %%%s = \"%s\"(%%va) : (vector<2x%s>) -> vector<2x%s>\n", name,
                      ir_ops[op].name, t, t);
        gen_store(&sb, name, "out", dt, k++);
    }
    if (ir_dtype_is_float(dt)) { /* Triton's approximate '/' and tl.exp */
        snprintf(name, sizeof name, "r%d", k);
        sb_printf(&sb, "    %%%s = \"sw.div\"(%%va, %%vb) {approx = true} : (vector<2x%s>, vector<2x%s>) -> vector<2x%s>\n",
                  name, t, t, t);
        gen_store(&sb, name, "out", dt, k++);
        snprintf(name, sizeof name, "r%d", k);
        sb_printf(&sb, "    %%%s = \"sw.exp\"(%%va) {approx = true} : (vector<2x%s>) -> vector<2x%s>\n", name, t, t);
        gen_store(&sb, name, "out", dt, k++);
    }
    for (int c = 0; c < NCMP; c++) {
        snprintf(name, sizeof name, "c%d", c);
        sb_printf(&sb, "    %%%s = \"sw.cmp\"(%%va, %%vb) {predicate = \"%s\"} : (vector<2x%s>, vector<2x%s>) -> vector<2xi1>\n",
                  name, cmp_predicates[c], t, t);
        gen_store(&sb, name, "outb", DT_I1, c);
    }
    snprintf(name, sizeof name, "r%d", k);
    sb_printf(&sb, "    %%%s = \"sw.select\"(%%c0, %%va, %%vb) : (vector<2xi1>, vector<2x%s>, vector<2x%s>) -> vector<2x%s>\n",
              name, t, t, t);
    gen_store(&sb, name, "out", dt, k++);
    sb_printf(&sb, "    \"func.return\"() : () -> ()\n  }\n}\n");
    *nout = k;
    return sb_take(&sb);
}

/* The cast matrix from dt: o<j>[i] = cast(in[i]) to all_dtypes[j]. */
static UNUSED_FN char *gen_casts(ir_dtype from)
{
    strbuf sb;
    sb_init(&sb);
    const char *f = dt_name(from);
    sb_printf(&sb, "module {\n  func.func @cast_%s(%%in: !sw.ptr<%s>", f, f);
    for (int j = 0; j < NDTYPES; j++)
        sb_printf(&sb, ", %%o%d: !sw.ptr<%s>", j, dt_name(all_dtypes[j]));
    sb_printf(&sb, ", %%n: i32) attributes {simt.num_threads = %d : i32, simt.smem_bytes = 0 : i32} {\n",
              GEN_T);
    gen_prologue(&sb);
    gen_load(&sb, "x", "in", from);
    for (int j = 0; j < NDTYPES; j++) {
        char name[16], ptr[16];
        snprintf(name, sizeof name, "y%d", j);
        snprintf(ptr, sizeof ptr, "o%d", j);
        sb_printf(&sb, "    %%%s = \"sw.cast\"(%%x) : (vector<2x%s>) -> vector<2x%s>\n", name, f,
                  dt_name(all_dtypes[j]));
        gen_store(&sb, name, ptr, all_dtypes[j], 0);
    }
    sb_printf(&sb, "    \"func.return\"() : () -> ()\n  }\n}\n");
    return sb_take(&sb);
}

/* ---- hand-written SIMT kernels ---------------------------------------------------- */

#define FUNC(name, params, threads, smem)                                              \
    "module {\n  func.func @" name "(" params ") attributes {simt.num_threads = " #threads \
    " : i32, simt.smem_bytes = " #smem " : i32} {\n"
#define END "    \"func.return\"() : () -> ()\n  }\n}\n"

/* The vector-add example after lower-simt: a tile of 512 over 128 threads. */
static UNUSED_FN const char vector_add[] =
    FUNC("add_kernel", "%x_ptr: !sw.ptr<f32>, %y_ptr: !sw.ptr<f32>, %output_ptr: !sw.ptr<f32>, %n: i32", 128, 0)
    "    %pid = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "    %c512 = \"sw.constant\"() {value = 512 : i32} : () -> i32\n"
    "    %start = \"sw.mul\"(%pid, %c512) : (i32, i32) -> i32\n"
    "    %r = \"simt.tile_index\"() {len = 512 : i32, start = 0 : i32} : () -> vector<4xi32>\n"
    "    %s = \"sw.splat\"(%start) : (i32) -> vector<4xi32>\n"
    "    %offs = \"sw.add\"(%s, %r) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>\n"
    "    %ns = \"sw.splat\"(%n) : (i32) -> vector<4xi32>\n"
    "    %mask = \"sw.cmp\"(%offs, %ns) {predicate = \"lt\"} : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>\n"
    "    %xs = \"sw.splat\"(%x_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>\n"
    "    %xp = \"sw.addptr\"(%xs, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>\n"
    "    %zero = \"sw.constant\"() {value = 0.0 : f32} : () -> vector<4xf32>\n"
    "    %x = \"simt.load\"(%xp, %mask, %zero) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>\n"
    "    %ys = \"sw.splat\"(%y_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>\n"
    "    %yp = \"sw.addptr\"(%ys, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>\n"
    "    %y = \"simt.load\"(%yp, %mask, %zero) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>\n"
    "    %sum = \"sw.add\"(%x, %y) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>\n"
    "    %os = \"sw.splat\"(%output_ptr) : (!sw.ptr<f32>) -> vector<4x!sw.ptr<f32>>\n"
    "    %op = \"sw.addptr\"(%os, %offs) : (vector<4x!sw.ptr<f32>>, vector<4xi32>) -> vector<4x!sw.ptr<f32>>\n"
    "    \"simt.store\"(%op, %sum, %mask) {vec = 4 : i32} : (vector<4x!sw.ptr<f32>>, vector<4xf32>, vector<4xi1>) -> ()\n"
    END;

/* One unmasked load and store of vector<V x t> with vec = k. */
static UNUSED_FN char *copy_kernel(const char *t, int v, int k)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb,
              "module {\n  func.func @copy(%%src: !sw.ptr<%s>, %%dst: !sw.ptr<%s>) attributes "
              "{simt.num_threads = 64 : i32, simt.smem_bytes = 0 : i32} {\n"
              "    %%r = \"simt.tile_index\"() {len = %d : i32, start = 0 : i32} : () -> vector<%dxi32>\n",
              t, t, 64 * v, v);
    const char *names[2] = {"src", "dst"};
    for (int i = 0; i < 2; i++)
        sb_printf(&sb,
                  "    %%%s_s = \"sw.splat\"(%%%s) : (!sw.ptr<%s>) -> vector<%dx!sw.ptr<%s>>\n"
                  "    %%%s_p = \"sw.addptr\"(%%%s_s, %%r) : (vector<%dx!sw.ptr<%s>>, vector<%dxi32>) -> vector<%dx!sw.ptr<%s>>\n",
                  names[i], names[i], t, v, t, names[i], names[i], v, t, v, v, t);
    sb_printf(&sb,
              "    %%x = \"simt.load\"(%%src_p) {vec = %d : i32} : (vector<%dx!sw.ptr<%s>>) -> vector<%dx%s>\n"
              "    \"simt.store\"(%%dst_p, %%x) {vec = %d : i32} : (vector<%dx!sw.ptr<%s>>, vector<%dx%s>) -> ()\n"
              END,
              k, v, t, v, t, k, v, t, v, t);
    return sb_take(&sb);
}

/* A CTA-wide sum of 1024 elements over 256 threads (8 warps), as
 * docs/simt.md lowers sw.reduce: vreduce, 5 butterfly steps, warp partials
 * through shared memory between barriers. */
static UNUSED_FN char *reduce_kernel(const char *t, const char *kind, const char *combine)
{
    char *text = malloc(8192);
    int n = snprintf(text, 8192,
        "module {\n  func.func @reduce(%%x: !sw.ptr<%s>, %%out: !sw.ptr<%s>) attributes "
        "{simt.num_threads = 256 : i32, simt.smem_bytes = 64 : i32} {\n"
        "    %%r = \"simt.tile_index\"() {len = 1024 : i32, start = 0 : i32} : () -> vector<4xi32>\n"
        "    %%xs = \"sw.splat\"(%%x) : (!sw.ptr<%s>) -> vector<4x!sw.ptr<%s>>\n"
        "    %%xp = \"sw.addptr\"(%%xs, %%r) : (vector<4x!sw.ptr<%s>>, vector<4xi32>) -> vector<4x!sw.ptr<%s>>\n"
        "    %%v = \"simt.load\"(%%xp) {vec = 4 : i32} : (vector<4x!sw.ptr<%s>>) -> vector<4x%s>\n"
        "    %%p0 = \"simt.vreduce\"(%%v) {kind = \"%s\"} : (vector<4x%s>) -> %s\n",
        t, t, t, t, t, t, t, t, kind, t, t);
    for (int i = 0; i < 5; i++)
        n += snprintf(text + n, 8192 - n,
            "    %%s%d = \"simt.shfl_xor\"(%%p%d) {offset = %d : i32} : (%s) -> %s\n"
            "    %%p%d = \"%s\"(%%p%d, %%s%d) : (%s, %s) -> %s\n",
            i, i, 16 >> i, t, t, i + 1, combine, i, i, t, t, t);
    n += snprintf(text + n, 8192 - n,
        "    %%tid = \"simt.thread_id\"() : () -> i32\n"
        "    %%c31 = \"sw.constant\"() {value = 31 : i32} : () -> i32\n"
        "    %%c5 = \"sw.constant\"() {value = 5 : i32} : () -> i32\n"
        "    %%c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
        "    %%lane = \"sw.and\"(%%tid, %%c31) : (i32, i32) -> i32\n"
        "    %%warp = \"sw.shr\"(%%tid, %%c5) : (i32, i32) -> i32\n"
        "    %%lead = \"sw.cmp\"(%%lane, %%c0) {predicate = \"eq\"} : (i32, i32) -> i1\n"
        "    \"simt.smem_store\"(%%warp, %%p5, %%lead) {offset = 0 : i32} : (i32, %s, i1) -> ()\n"
        "    \"simt.barrier\"() : () -> ()\n"
        "    %%q0 = \"simt.smem_load\"(%%c0) {offset = 0 : i32} : (i32) -> %s\n",
        t, t);
    for (int w = 1; w < 8; w++)
        n += snprintf(text + n, 8192 - n,
            "    %%w%d = \"sw.constant\"() {value = %d : i32} : () -> i32\n"
            "    %%l%d = \"simt.smem_load\"(%%w%d) {offset = 0 : i32} : (i32) -> %s\n"
            "    %%q%d = \"%s\"(%%q%d, %%l%d) : (%s, %s) -> %s\n",
            w, w, w, w, t, w, combine, w - 1, w, t, t, t);
    snprintf(text + n, 8192 - n,
        "    \"simt.barrier\"() : () -> ()\n"
        "    %%first = \"sw.cmp\"(%%tid, %%c0) {predicate = \"eq\"} : (i32, i32) -> i1\n"
        "    %%fv = \"sw.splat\"(%%first) : (i1) -> vector<1xi1>\n"
        "    %%qv = \"sw.splat\"(%%q7) : (%s) -> vector<1x%s>\n"
        "    %%os = \"sw.splat\"(%%out) : (!sw.ptr<%s>) -> vector<1x!sw.ptr<%s>>\n"
        "    \"simt.store\"(%%os, %%qv, %%fv) {vec = 1 : i32} : (vector<1x!sw.ptr<%s>>, vector<1x%s>, vector<1xi1>) -> ()\n"
        END,
        t, t, t, t, t, t);
    return text;
}

/* Loops: a negative constant step carrying a scalar and a vector, a loop
 * with a run-time step, a nested loop, and a swap through yield. */
static UNUSED_FN const char loops[] =
    FUNC("loops", "%out: !sw.ptr<f32>, %n: i32, %step: i64, %lo: i64", 32, 0)
    "    %c10 = \"sw.constant\"() {value = 10 : i32} : () -> i32\n"
    "    %cm2 = \"sw.constant\"() {value = -2 : i32} : () -> i32\n"
    "    %one = \"sw.constant\"() {value = 1.0 : f32} : () -> f32\n"
    "    %ones = \"sw.constant\"() {value = 1.0 : f32} : () -> vector<2xf32>\n"
    "    %a:2 = \"sw.for\"(%c10, %n, %cm2, %one, %ones) ({\n"
    "    ^bb0(%i: i32, %s: f32, %v: vector<2xf32>):\n"
    "      %fi = \"sw.cast\"(%i) : (i32) -> f32\n"
    "      %s2 = \"sw.add\"(%s, %fi) : (f32, f32) -> f32\n"
    "      %fv = \"sw.splat\"(%fi) : (f32) -> vector<2xf32>\n"
    "      %v2 = \"sw.mul\"(%v, %fv) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>\n"
    "      \"sw.yield\"(%s2, %v2) : (f32, vector<2xf32>) -> ()\n"
    "    }) : (i32, i32, i32, f32, vector<2xf32>) -> (f32, vector<2xf32>)\n"
    "    %hi = \"sw.constant\"() {value = 100 : i64} : () -> i64\n"
    "    %z64 = \"sw.constant\"() {value = 0 : i64} : () -> i64\n"
    "    %b = \"sw.for\"(%lo, %hi, %step, %z64) ({\n"
    "    ^bb0(%j: i64, %acc: i64):\n"
    "      %c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "      %c3 = \"sw.constant\"() {value = 3 : i32} : () -> i32\n"
    "      %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "      %inner = \"sw.for\"(%c0, %c3, %c1, %acc) ({\n"
    "      ^bb0(%k: i32, %x: i64):\n"
    "        %x2 = \"sw.add\"(%x, %j) : (i64, i64) -> i64\n"
    "        \"sw.yield\"(%x2) : (i64) -> ()\n"
    "      }) : (i32, i32, i32, i64) -> i64\n"
    "      \"sw.yield\"(%inner) : (i64) -> ()\n"
    "    }) : (i64, i64, i64, i64) -> i64\n"
    "    %c0b = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "    %c4 = \"sw.constant\"() {value = 4 : i32} : () -> i32\n"
    "    %c1b = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "    %two = \"sw.constant\"() {value = 2.0 : f32} : () -> f32\n"
    "    %sw:2 = \"sw.for\"(%c0b, %c4, %c1b, %one, %two) ({\n"
    "    ^bb0(%q: i32, %p: f32, %r: f32):\n"
    "      \"sw.yield\"(%r, %p) : (f32, f32) -> ()\n"
    "    }) : (i32, i32, i32, f32, f32) -> (f32, f32)\n"
    "    %bf = \"sw.cast\"(%b) : (i64) -> f32\n"
    "    %t1 = \"sw.add\"(%a#0, %bf) : (f32, f32) -> f32\n"
    "    %t2 = \"sw.add\"(%t1, %sw#0) : (f32, f32) -> f32\n"
    "    %tv = \"sw.splat\"(%t2) : (f32) -> vector<2xf32>\n"
    "    %res = \"sw.add\"(%tv, %a#1) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>\n"
    "    %r0 = \"simt.tile_index\"() {len = 64 : i32, start = 0 : i32} : () -> vector<2xi32>\n"
    "    %os = \"sw.splat\"(%out) : (!sw.ptr<f32>) -> vector<2x!sw.ptr<f32>>\n"
    "    %op = \"sw.addptr\"(%os, %r0) : (vector<2x!sw.ptr<f32>>, vector<2xi32>) -> vector<2x!sw.ptr<f32>>\n"
    "    \"simt.store\"(%op, %res) {vec = 2 : i32} : (vector<2x!sw.ptr<f32>>, vector<2xf32>) -> ()\n"
    END;

/* sw.if with a scalar and a vector result, 2-D grid queries, f16/bf16 parameters. */
static UNUSED_FN const char branches[] =
    FUNC("branches", "%out: !sw.ptr<i64>, %flag: i1, %h: f16, %b: bf16", 64, 0)
    "    %y = \"simt.block_id\"() {axis = 1 : i32} : () -> i32\n"
    "    %gx = \"simt.grid_dim\"() {axis = 0 : i32} : () -> i32\n"
    "    %gz = \"simt.grid_dim\"() {axis = 2 : i32} : () -> i32\n"
    "    %c7 = \"sw.constant\"() {value = 7 : i64} : () -> i64\n"
    "    %vz = \"sw.constant\"() {value = 0 : i64} : () -> vector<2xi64>\n"
    "    %r:2 = \"sw.if\"(%flag) ({\n"
    "      %g = \"sw.mul\"(%gx, %gz) : (i32, i32) -> i32\n"
    "      %g64 = \"sw.cast\"(%g) : (i32) -> i64\n"
    "      %gv = \"sw.splat\"(%g64) : (i64) -> vector<2xi64>\n"
    "      \"sw.yield\"(%g64, %gv) : (i64, vector<2xi64>) -> ()\n"
    "    }, {\n"
    "      \"sw.yield\"(%c7, %vz) : (i64, vector<2xi64>) -> ()\n"
    "    }) : (i1) -> (i64, vector<2xi64>)\n"
    "    %y64 = \"sw.cast\"(%y) : (i32) -> i64\n"
    "    %hb = \"sw.cast\"(%h) : (f16) -> i64\n"
    "    %bb = \"sw.cast\"(%b) : (bf16) -> i64\n"
    "    %s1 = \"sw.add\"(%r#0, %y64) : (i64, i64) -> i64\n"
    "    %s2 = \"sw.add\"(%s1, %hb) : (i64, i64) -> i64\n"
    "    %s3 = \"sw.add\"(%s2, %bb) : (i64, i64) -> i64\n"
    "    %sv = \"sw.splat\"(%s3) : (i64) -> vector<2xi64>\n"
    "    %v = \"sw.add\"(%sv, %r#1) : (vector<2xi64>, vector<2xi64>) -> vector<2xi64>\n"
    "    %i = \"simt.tile_index\"() {len = 100 : i32, start = 3 : i32} : () -> vector<2xi32>\n"
    "    %os = \"sw.splat\"(%out) : (!sw.ptr<i64>) -> vector<2x!sw.ptr<i64>>\n"
    "    %op = \"sw.addptr\"(%os, %i) : (vector<2x!sw.ptr<i64>>, vector<2xi32>) -> vector<2x!sw.ptr<i64>>\n"
    "    \"simt.store\"(%op, %v) {vec = 2 : i32} : (vector<2x!sw.ptr<i64>>, vector<2xi64>) -> ()\n"
    END;

/* A 3-D grid: thread 0 of each CTA writes bx + 1000 by + 1000000 bz at its
 * linear index (bz gy + by) gx + bx. */
static UNUSED_FN const char grid3d[] =
    FUNC("grid3d", "%out: !sw.ptr<i32>", 32, 0)
    "    %bx = \"simt.block_id\"() {axis = 0 : i32} : () -> i32\n"
    "    %by = \"simt.block_id\"() {axis = 1 : i32} : () -> i32\n"
    "    %bz = \"simt.block_id\"() {axis = 2 : i32} : () -> i32\n"
    "    %gx = \"simt.grid_dim\"() {axis = 0 : i32} : () -> i32\n"
    "    %gy = \"simt.grid_dim\"() {axis = 1 : i32} : () -> i32\n"
    "    %zy = \"sw.mul\"(%bz, %gy) : (i32, i32) -> i32\n"
    "    %zyy = \"sw.add\"(%zy, %by) : (i32, i32) -> i32\n"
    "    %zyx = \"sw.mul\"(%zyy, %gx) : (i32, i32) -> i32\n"
    "    %lin = \"sw.add\"(%zyx, %bx) : (i32, i32) -> i32\n"
    "    %k1 = \"sw.constant\"() {value = 1000 : i32} : () -> i32\n"
    "    %k2 = \"sw.constant\"() {value = 1000000 : i32} : () -> i32\n"
    "    %vy = \"sw.mul\"(%by, %k1) : (i32, i32) -> i32\n"
    "    %vz = \"sw.mul\"(%bz, %k2) : (i32, i32) -> i32\n"
    "    %v1 = \"sw.add\"(%bx, %vy) : (i32, i32) -> i32\n"
    "    %val = \"sw.add\"(%v1, %vz) : (i32, i32) -> i32\n"
    "    %tid = \"simt.thread_id\"() : () -> i32\n"
    "    %c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "    %first = \"sw.cmp\"(%tid, %c0) {predicate = \"eq\"} : (i32, i32) -> i1\n"
    "    %fv = \"sw.splat\"(%first) : (i1) -> vector<1xi1>\n"
    "    %vv = \"sw.splat\"(%val) : (i32) -> vector<1xi32>\n"
    "    %lv = \"sw.splat\"(%lin) : (i32) -> vector<1xi32>\n"
    "    %os = \"sw.splat\"(%out) : (!sw.ptr<i32>) -> vector<1x!sw.ptr<i32>>\n"
    "    %op = \"sw.addptr\"(%os, %lv) : (vector<1x!sw.ptr<i32>>, vector<1xi32>) -> vector<1x!sw.ptr<i32>>\n"
    "    \"simt.store\"(%op, %vv, %fv) {vec = 1 : i32} : (vector<1x!sw.ptr<i32>>, vector<1xi32>, vector<1xi1>) -> ()\n"
    END;

/* Parses, verifies (unless !verify) and emits; returns malloc'd PTX or
 * NULL with d set. The module is kept in *ar for the caller to free. */
static UNUSED_FN char *emit_ptx_text(const char *mlir, int sm, int ptx_version, bool verify, diag *d)
{
    arena ar;
    arena_init(&ar);
    source_file src = {.name = "test.mlir", .text = mlir, .length = strlen(mlir), .first_line = 1};
    ir_module *m = ir_parse_module(&ar, &src, d);
    char *text = NULL;
    if (m && (!verify || ir_verify(m, d))) {
        strbuf sb;
        sb_init(&sb);
        ptx_target t = {.sm = sm, .ptx_version = ptx_version};
        if (ptx_emit_module(m, &t, &sb, d))
            text = sb_take(&sb);
        sb_free(&sb);
    }
    arena_free(&ar);
    return text;
}

#endif
