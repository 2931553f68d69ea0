/* ptx_ops.c - elementwise ops, comparisons, select and casts as TABLES from
 * (op, compute kind) to an instruction template (ptx_internal.h). Requires
 * operands in canonical registers (i8/ui8 sign/zero-extended in b32);
 * guarantees the results src/ir/scalar.c defines, bit for bit, except for
 * the approximations listed here.
 *
 * Legalisation before the table lookup: f16/bf16 ops without a 16-bit row
 * are promoted to f32 (exact), computed, and rounded back once with
 * cvt.rn (for + - * / sqrt this equals the oracle's single rounding: f32
 * carries more than twice their precision plus two bits); i8/ui8 compute
 * in 32 bits and are wrapped back after ops that can leave their range.
 * Nothing flushes subnormals (no .ftz anywhere).
 *
 * Approximations (f32 bound, and the worst seen on an H200 by
 * test_ptx_gpu.c; f16/bf16 results may be one more ulp of their own off):
 *   exp      2^hi * (1 + lo ln2), x log2(e) split exactly   4 ulp (seen 2)
 *   exp2     ex2.approx.f32                                2 ulp (seen 1)
 *   sigmoid  e/(1+e) or 1/(1+e) with e = exp(-|x|)         4 ulp (seen 3)
 *   log      lg2.approx.f32 * ln2            4 ulp, or 2^-21 absolute near 1
 *   log2     lg2.approx.f32                  2 ulp, or 2^-22 absolute near 1
 *   sin cos  2 pi reduction + .approx        2^-20 absolute for |x| <= 100 pi
 *   rsqrt    f16/bf16 only: 1 ulp (f32 and f64 are exact: computed in f64)
 * exp exp2 log log2 sin cos sigmoid on f64 are a compile error for now. */
#include "ptx_internal.h"

#include <string.h>

/* Compute kinds: how a dtype's values are computed. */
enum {
    K_PRED = 1 << 0, /* i1 in predicates */
    K_I32 = 1 << 1,  /* i8, ui8, i32 in b32 registers as s32 */
    K_I64 = 1 << 2,
    K_F32 = 1 << 3,  /* f32, and promoted f16/bf16 */
    K_F64 = 1 << 4,
    K_H16 = 1 << 5,  /* f16/bf16 bit patterns, for ops that need no arithmetic */
};
#define K_INT (K_I32 | K_I64)
#define K_FLT (K_F32 | K_F64)

typedef struct kind_info {
    unsigned kind;
    ptx_class tclass;
    const char *T, *B, *U;
} kind_info;

static const kind_info kinds[] = {
    {K_PRED, RC_PRED, "pred", "pred", "pred"},
    {K_I32, RC_B32, "s32", "b32", "u32"},
    {K_I64, RC_B64, "s64", "b64", "u64"},
    {K_F32, RC_F32, "f32", "b32", "u32"},
    {K_F64, RC_F64, "f64", "b64", "u64"},
    {K_H16, RC_B16, "b16", "b16", "u16"},
};

static const kind_info *kind_of(ir_dtype dt)
{
    switch (dt) {
    case DT_I1: return &kinds[0];
    case DT_I8: case DT_U8: case DT_I32: return &kinds[1];
    case DT_I64: return &kinds[2];
    case DT_F32: return &kinds[3];
    case DT_F64: return &kinds[4];
    case DT_F16: case DT_BF16: return &kinds[5];
    default: return NULL;
    }
}

ptx_class ptx_dtype_class(ir_dtype dt)
{
    const kind_info *k = kind_of(dt);
    return k ? k->tclass : RC_B32;
}

/* ---- templates longer than a line ------------------------------------------ */

/* Python // on integers: truncating division with a floor fix-up; the
 * divisor is replaced by 1 where it is 0 (result 0) or -1 (result -a,
 * wrapping, which hardware division does not promise for MIN / -1). */
#define INT_FLOORDIV                                                                   \
    "setp.eq.$T $p0, $b, 0; setp.eq.$T $p1, $b, -1; or.pred $p2, $p0, $p1;"            \
    "selp.$B $t0, 1, $b, $p2; div.$T $t1, $a, $t0; rem.$T $t2, $a, $t0;"               \
    "setp.ne.$T $p3, $t2, 0; xor.$B $t3, $t2, $t0; setp.lt.$T $p4, $t3, 0;"            \
    "and.pred $p3, $p3, $p4; selp.$B $t3, 1, 0, $p3; sub.$T $t1, $t1, $t3;"            \
    "neg.$T $t3, $a; selp.$B $t1, $t3, $t1, $p1; selp.$B $d, 0, $t1, $p0;"

/* Python % on integers: the remainder takes the divisor's sign; 0 for a
 * divisor of 0 or -1. */
#define INT_MOD                                                                        \
    "setp.eq.$T $p0, $b, 0; setp.eq.$T $p1, $b, -1; or.pred $p0, $p0, $p1;"            \
    "selp.$B $t0, 1, $b, $p0; rem.$T $t1, $a, $t0;"                                    \
    "setp.ne.$T $p1, $t1, 0; xor.$B $t2, $t1, $t0; setp.lt.$T $p2, $t2, 0;"            \
    "and.pred $p1, $p1, $p2; add.$T $t2, $t1, $t0; selp.$B $d, $t2, $t1, $p1;"

#define F64_ZERO "0d0000000000000000"
#define F64_ONE "0d3FF0000000000000"
#define F64_HALF "0d3FE0000000000000"
#define F64_NAN "0d7FF8000000000000"
#define F64_INF "0d7FF0000000000000"

/* Python's float // and % exactly as the oracle computes them in double
 * (CPython's float_divmod; b == 0 gives floor(a/b) and NaN). fmod is exact:
 * binary long division of |a| by t = |b| * 2^k, every subtraction exact by
 * Sterbenz's lemma (at most ~2100 steps for extreme f64 exponent ratios,
 * a handful for ordinary operands). Leaves the modulo in $e2 and the
 * floor quotient in $e8. */
#define DIVMOD_F64(A, B)                                                               \
    "abs.f64 $e2, " A "; abs.f64 $e4, " B ";"                                          \
    "setp.ge.f64 $p0, $e2, $e4; @!$p0 bra $L0;"                                        \
    "setp.eq.f64 $p1, $e2, " F64_INF "; setp.eq.f64 $p2, $e4, " F64_ZERO ";"           \
    "or.pred $p1, $p1, $p2; @$p1 mov.f64 $e2, " F64_NAN "; @$p1 bra $L0;"              \
    "mov.f64 $e5, $e4;"                                                                \
    "$L1: add.rn.f64 $e6, $e5, $e5; setp.le.f64 $p2, $e6, $e2;"                        \
    "@$p2 mov.f64 $e5, $e6; @$p2 bra $L1;"                                             \
    "$L2: setp.ge.f64 $p2, $e2, $e5; @$p2 sub.rn.f64 $e2, $e2, $e5;"                   \
    "setp.gt.f64 $p2, $e5, $e4; @!$p2 bra $L0;"                                        \
    "mul.rn.f64 $e5, $e5, " F64_HALF "; bra $L2;"                                      \
    "$L0: setp.nan.f64 $p3, " B ", " B "; @$p3 mov.f64 $e2, " F64_NAN ";"              \
    "copysign.f64 $e2, " A ", $e2;"                                                    \
    "div.rn.f64 $e7, " A ", " B ";"                                                    \
    "sub.rn.f64 $e3, " A ", $e2; div.rn.f64 $e3, $e3, " B ";"                          \
    "setp.neu.f64 $p0, $e2, " F64_ZERO ";"                                             \
    "setp.lt.f64 $p1, " B ", " F64_ZERO "; setp.lt.f64 $p2, $e2, " F64_ZERO ";"        \
    "xor.pred $p1, $p1, $p2; and.pred $p1, $p1, $p0;"                                  \
    "@$p1 add.rn.f64 $e2, $e2, " B "; @$p1 sub.rn.f64 $e3, $e3, " F64_ONE ";"          \
    "@!$p0 copysign.f64 $e2, " B ", $e2;"                                              \
    "setp.neu.f64 $p0, $e3, " F64_ZERO "; cvt.rmi.f64.f64 $e8, $e3;"                   \
    "sub.rn.f64 $e9, $e3, $e8; setp.gt.f64 $p1, $e9, " F64_HALF ";"                    \
    "@$p1 add.rn.f64 $e8, $e8, " F64_ONE ";"                                           \
    "mov.f64 $e9, " F64_ZERO "; copysign.f64 $e9, $e7, $e9; @!$p0 mov.f64 $e8, $e9;"   \
    "setp.eq.f64 $p4, " B ", " F64_ZERO "; cvt.rmi.f64.f64 $e9, $e7;"                  \
    "@$p4 mov.f64 $e8, $e9; @$p4 mov.f64 $e2, " F64_NAN ";"

#define F32_DIVMOD DIVMOD_F64("$e0", "$e1")
#define F32_TO_F64 "cvt.f64.f32 $e0, $a; cvt.f64.f32 $e1, $b;"

/* e^x for f32: 2^t with t = x*log2(e) split into the rounded product and
 * its exact error (fma), then 2^hi * (1 + lo*ln2). ex2.approx.f32 is
 * within 2 ulp over its whole range (subnormals included), so the result
 * is within about 3 ulp of e^x. Guards: a non-finite error term (x = inf)
 * counts as 0, an infinite 2^hi stays infinite. */
#define EXP_F32(X, Y)                                                                  \
    "mul.rn.f32 $t0, " X ", 0f3FB8AA3B; neg.f32 $t1, $t0;"                             \
    "fma.rn.f32 $t1, " X ", 0f3FB8AA3B, $t1; fma.rn.f32 $t1, " X ", 0f32A57060, $t1;"   \
    "testp.finite.f32 $p0, $t1; selp.f32 $t1, $t1, 0f00000000, $p0;"                   \
    "ex2.approx.f32 $t2, $t0; mul.rn.f32 $t1, $t1, 0f3F317218;"                        \
    "fma.rn.f32 $t3, $t2, $t1, $t2; testp.infinite.f32 $p1, $t2;"                      \
    "selp.f32 " Y ", $t2, $t3, $p1;"

/* sin/cos for f32: reduce by 2*pi in three parts (Cody-Waite, with fma),
 * then sin.approx/cos.approx, whose absolute error is at most 2^-20.5 on
 * [-2pi, 2pi]; the reduction keeps that for |x| up to about 2^16. Inputs
 * within [-pi, pi] are used unreduced (keeps sin(-0) = -0). */
#define SINCOS_F32(FN)                                                                 \
    "mul.rn.f32 $t0, $a, 0f3E22F983; cvt.rni.f32.f32 $t0, $t0; neg.f32 $t0, $t0;"      \
    "fma.rn.f32 $t1, $t0, 0f40C90FDB, $a; fma.rn.f32 $t1, $t0, 0fB43BBD2E, $t1;"       \
    "fma.rn.f32 $t1, $t0, 0fA7F72CED, $t1; setp.eq.f32 $p0, $t0, 0f00000000;"          \
    "selp.f32 $t1, $a, $t1, $p0; " FN ".approx.f32 $d, $t1;"

/* ---- the elementwise table --------------------------------------------------- */

typedef struct op_rule {
    ir_op_kind op;
    unsigned kinds;
    const char *tmpl;
} op_rule;

static const op_rule op_rules[] = {
    /* integers wrap; floats round to nearest even; i1 is arithmetic mod 2 */
    {IR_ADD, K_INT, "add.$T $d, $a, $b;"},
    {IR_ADD, K_FLT, "add.rn.$T $d, $a, $b;"},
    {IR_ADD, K_PRED, "xor.pred $d, $a, $b;"},
    {IR_SUB, K_INT, "sub.$T $d, $a, $b;"},
    {IR_SUB, K_FLT, "sub.rn.$T $d, $a, $b;"},
    {IR_SUB, K_PRED, "xor.pred $d, $a, $b;"},
    {IR_MUL, K_INT, "mul.lo.$T $d, $a, $b;"},
    {IR_MUL, K_FLT, "mul.rn.$T $d, $a, $b;"},
    {IR_MUL, K_PRED, "and.pred $d, $a, $b;"},
    {IR_DIV, K_FLT, "div.rn.$T $d, $a, $b;"}, /* IEEE division */
    {IR_FLOORDIV, K_INT, INT_FLOORDIV},
    {IR_FLOORDIV, K_F32, F32_TO_F64 F32_DIVMOD "cvt.rn.f32.f64 $d, $e8;"},
    {IR_FLOORDIV, K_F64, DIVMOD_F64("$a", "$b") "mov.f64 $d, $e8;"},
    {IR_FLOORDIV, K_PRED, "and.pred $d, $a, $b;"}, /* a // 1 = a, a // 0 = 0 */
    {IR_MOD, K_INT, INT_MOD},
    {IR_MOD, K_F32, F32_TO_F64 F32_DIVMOD "cvt.rn.f32.f64 $d, $e2;"},
    {IR_MOD, K_F64, DIVMOD_F64("$a", "$b") "mov.f64 $d, $e2;"},
    {IR_MOD, K_PRED, "mov.pred $d, 0;"},
    /* minimum/maximum: NaN if either is NaN; -0 < +0 */
    {IR_MINIMUM, K_INT, "min.$T $d, $a, $b;"},
    {IR_MINIMUM, K_F32, "min.NaN.f32 $d, $a, $b;"},
    {IR_MINIMUM, K_F64, "min.f64 $t0, $a, $b; setp.nan.f64 $p0, $a, $b;"
                        "selp.f64 $d, " F64_NAN ", $t0, $p0;"},
    {IR_MINIMUM, K_PRED, "and.pred $d, $a, $b;"},
    {IR_MAXIMUM, K_INT, "max.$T $d, $a, $b;"},
    {IR_MAXIMUM, K_F32, "max.NaN.f32 $d, $a, $b;"},
    {IR_MAXIMUM, K_F64, "max.f64 $t0, $a, $b; setp.nan.f64 $p0, $a, $b;"
                        "selp.f64 $d, " F64_NAN ", $t0, $p0;"},
    {IR_MAXIMUM, K_PRED, "or.pred $d, $a, $b;"},
    {IR_AND, K_INT, "and.$B $d, $a, $b;"},
    {IR_AND, K_PRED, "and.pred $d, $a, $b;"},
    {IR_OR, K_INT, "or.$B $d, $a, $b;"},
    {IR_OR, K_PRED, "or.pred $d, $a, $b;"},
    {IR_XOR, K_INT, "xor.$B $d, $a, $b;"},
    {IR_XOR, K_PRED, "xor.pred $d, $a, $b;"},
    /* shifts: the count is an unsigned 32-bit value that hardware clamps
     * to the width (so negative 32-bit counts shift everything out);
     * 64-bit counts are clamped to 64 before they are narrowed */
    {IR_SHL, K_I32, "shl.b32 $d, $a, $b;"},
    {IR_SHL, K_I64, "setp.gt.u64 $p0, $b, 63; selp.b64 $t0, 64, $b, $p0;"
                    "cvt.u32.u64 $r0, $t0; shl.b64 $d, $a, $r0;"},
    {IR_SHR, K_I32, "shr.s32 $d, $a, $b;"}, /* ui8 is zero-extended: arithmetic = logical */
    {IR_SHR, K_I64, "setp.gt.u64 $p0, $b, 63; selp.b64 $t0, 64, $b, $p0;"
                    "cvt.u32.u64 $r0, $t0; shr.s64 $d, $a, $r0;"},
    /* unary */
    {IR_NEG, K_INT | K_FLT, "neg.$T $d, $a;"},
    {IR_NEG, K_H16, "xor.b16 $d, $a, 0x8000;"},
    {IR_NOT, K_INT, "not.$B $d, $a;"},
    {IR_NOT, K_PRED, "not.pred $d, $a;"},
    {IR_ABS, K_INT, "neg.$T $t0, $a; max.$T $d, $a, $t0;"}, /* |MIN| wraps to MIN */
    {IR_ABS, K_FLT, "abs.$T $d, $a;"},
    {IR_ABS, K_H16, "and.b16 $d, $a, 0x7FFF;"},
    {IR_EXP, K_F32, EXP_F32("$a", "$d")},
    {IR_EXP2, K_F32, "ex2.approx.f32 $d, $a;"},                   /* <= 2 ulp */
    {IR_LOG, K_F32, "lg2.approx.f32 $t0, $a; mul.rn.f32 $d, $t0, 0f3F317218;"},
    {IR_LOG2, K_F32, "lg2.approx.f32 $d, $a;"}, /* abs error 2^-22 on (0.5, 2), else rel 2^-22 */
    {IR_SQRT, K_FLT, "sqrt.rn.$T $d, $a;"},
    /* 1/sqrt as the oracle computes it: in double, rounded once */
    {IR_RSQRT, K_F32, "cvt.f64.f32 $e0, $a; sqrt.rn.f64 $e1, $e0; rcp.rn.f64 $e2, $e1;"
                      "cvt.rn.f32.f64 $d, $e2;"},
    {IR_RSQRT, K_F64, "sqrt.rn.f64 $t0, $a; rcp.rn.f64 $d, $t0;"},
    {IR_FLOOR, K_FLT, "cvt.rmi.$T.$T $d, $a;"},
    {IR_CEIL, K_FLT, "cvt.rpi.$T.$T $d, $a;"},
    {IR_SIN, K_F32, SINCOS_F32("sin")},
    {IR_COS, K_F32, SINCOS_F32("cos")},
    /* with e = e^-|x| (never overflows): 1/(1+e) for x >= 0, e/(1+e) below */
    {IR_SIGMOID, K_F32, "abs.f32 $t4, $a; neg.f32 $t4, $t4;" EXP_F32("$t4", "$t5")
                        "add.rn.f32 $t6, $t5, 0f3F800000; setp.ge.f32 $p2, $a, 0f00000000;"
                        "selp.f32 $t7, 0f3F800000, $t5, $p2; div.rn.f32 $d, $t7, $t6;"},
    /* select (cond = $c): no arithmetic, so 16-bit floats stay as bits */
    {IR_SELECT, K_INT, "selp.$B $d, $a, $b, $c;"},
    {IR_SELECT, K_FLT | K_H16, "selp.$T $d, $a, $b, $c;"},
    {IR_SELECT, K_PRED, "and.pred $p0, $c, $a; not.pred $p1, $c; and.pred $p1, $p1, $b;"
                        "or.pred $d, $p0, $p1;"},
};

/* sw.cmp: ordered float comparisons are false on NaN; ne is unordered. */
typedef struct cmp_rule {
    const char *predicate;
    unsigned kinds;
    const char *tmpl;
} cmp_rule;

static const cmp_rule cmp_rules[] = {
    {"lt", K_INT | K_FLT, "setp.lt.$T $d, $a, $b;"},
    {"le", K_INT | K_FLT, "setp.le.$T $d, $a, $b;"},
    {"gt", K_INT | K_FLT, "setp.gt.$T $d, $a, $b;"},
    {"ge", K_INT | K_FLT, "setp.ge.$T $d, $a, $b;"},
    {"eq", K_INT | K_FLT, "setp.eq.$T $d, $a, $b;"},
    {"ne", K_INT, "setp.ne.$T $d, $a, $b;"},
    {"ne", K_FLT, "setp.neu.$T $d, $a, $b;"},
    /* i1 is unsigned: false < true */
    {"lt", K_PRED, "not.pred $p0, $a; and.pred $d, $p0, $b;"},
    {"le", K_PRED, "not.pred $p0, $a; or.pred $d, $p0, $b;"},
    {"gt", K_PRED, "not.pred $p0, $b; and.pred $d, $a, $p0;"},
    {"ge", K_PRED, "not.pred $p0, $b; or.pred $d, $a, $p0;"},
    {"eq", K_PRED, "xor.pred $p0, $a, $b; not.pred $d, $p0;"},
    {"ne", K_PRED, "xor.pred $d, $a, $b;"},
};

static const char *find_rule(ir_op_kind op, const char *predicate, unsigned kind)
{
    if (op == IR_CMP) {
        for (size_t i = 0; i < sizeof cmp_rules / sizeof cmp_rules[0]; i++)
            if ((cmp_rules[i].kinds & kind) && predicate && !strcmp(cmp_rules[i].predicate, predicate))
                return cmp_rules[i].tmpl;
        return NULL;
    }
    for (size_t i = 0; i < sizeof op_rules / sizeof op_rules[0]; i++)
        if (op_rules[i].op == op && (op_rules[i].kinds & kind))
            return op_rules[i].tmpl;
    return NULL;
}

/* Ops whose 32-bit result may leave the range of i8/ui8. */
static bool needs_wrap(ir_op_kind op)
{
    switch (op) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_FLOORDIV: case IR_NEG: case IR_ABS:
    case IR_NOT: case IR_SHL:
        return true;
    default:
        return false;
    }
}

static void wrap_narrow(ptx_emitter *e, ir_dtype dt, ptx_reg r)
{
    char n[16];
    ptx_reg_name(r, n);
    if (dt == DT_I8)
        ptx_line(e, "cvt.s32.s8 %s, %s;", n, n);
    else if (dt == DT_U8)
        ptx_line(e, "and.b32 %s, %s, 255;", n, n);
}

/* f16/bf16 bits -> f32 (exact). */
static ptx_reg widen(ptx_emitter *e, ir_dtype dt, ptx_reg h, ptx_reg into)
{
    ptx_reg f = into ? into : ptx_new_reg(e, RC_F32);
    char a[16], b[16];
    if (dt == DT_BF16)
        ptx_need_version(e, 71); /* cvt.f32.bf16 */
    ptx_line(e, "cvt.f32.%s %s, %s;", dt == DT_BF16 ? "bf16" : "f16", ptx_reg_name(f, a),
             ptx_reg_name(h, b));
    return f;
}

static void narrow(ptx_emitter *e, ir_dtype dt, ptx_reg h, ptx_reg f)
{
    char a[16], b[16];
    ptx_line(e, "cvt.rn.%s.f32 %s, %s;", dt == DT_BF16 ? "bf16" : "f16", ptx_reg_name(h, a),
             ptx_reg_name(f, b));
}

static bool is_float_math(ir_op_kind op)
{
    return op == IR_EXP || op == IR_EXP2 || op == IR_LOG || op == IR_LOG2 || op == IR_SIN ||
           op == IR_COS || op == IR_SIGMOID;
}

bool ptx_emit_elementwise(ptx_emitter *e, ir_op_kind op, const char *predicate, ir_dtype dt,
                          ptx_reg dst, const ptx_reg *src)
{
    const kind_info *k = kind_of(dt);
    if (!k)
        sw_unreachable(e->d, "PTX: %s on a value without a dtype", ir_ops[op].name);
    const char *tmpl = find_rule(op, predicate, k->kind);
    bool promote = false;
    if (!tmpl && k->kind == K_H16) {
        promote = true;
        k = &kinds[3];
        tmpl = find_rule(op, predicate, k->kind);
    }
    if (!tmpl) {
        if (dt == DT_F64 && is_float_math(op))
            return ptx_compile_error(e, "%s on float64 is not supported on the GPU yet",
                                     ir_ops[op].name);
        sw_unreachable(e->d, "no PTX rendering of %s%s%s on %s", ir_ops[op].name,
                       predicate ? " " : "", predicate ? predicate : "", ir_dtypes[dt].name);
    }

    int nsrc = op == IR_SELECT ? 3 : ir_ops[op].noperands;
    ptx_reg in[3] = {0, 0, 0};
    for (int i = 0; i < nsrc && i < 3; i++) {
        bool is_cond = op == IR_SELECT && i == 0;
        in[i] = promote && !is_cond ? widen(e, dt, src[i], 0) : src[i];
    }
    bool float_result = op != IR_CMP;
    ptx_reg out = promote && float_result ? ptx_new_reg(e, RC_F32) : dst;
    ptx_operands o = {.d = out, .tclass = k->tclass, .T = k->T, .B = k->B, .U = k->U};
    if (op == IR_SELECT) {
        o.c = in[0];
        o.a = in[1];
        o.b = in[2];
    } else {
        o.a = in[0];
        o.b = in[1];
    }
    ptx_expand(e, tmpl, &o);
    if (promote && float_result)
        narrow(e, dt, dst, out);
    if ((dt == DT_I8 || dt == DT_U8) && needs_wrap(op))
        wrap_narrow(e, dt, dst);
    return true;
}

/* ---- casts --------------------------------------------------------------------- */

#define D(x) (1u << DT_##x)
#define D_B32 (D(I8) | D(U8) | D(I32)) /* integers held in b32 registers */

/* Round to odd into f32 ($f0 holds the value rounded toward zero, $p0 says
 * it was inexact: set its last bit), then round to nearest into the 16-bit
 * format: one correct rounding, as f32 keeps more than 2 extra bits. */
#define STICKY_TO(fmt)                                                                 \
    "mov.b32 $r0, $f0; @$p0 or.b32 $r0, $r0, 1; mov.b32 $f1, $r0;"                     \
    "cvt.rn." fmt ".f32 $d, $f1;"
#define F64_STICKY "cvt.rz.f32.f64 $f0, $a; cvt.f64.f32 $e0, $f0; setp.neu.f64 $p0, $e0, $a;"

typedef struct cast_rule {
    unsigned from, to; /* dtype masks; f16/bf16 sources are widened to f32 first */
    const char *tmpl;
} cast_rule;

static const cast_rule cast_rules[] = {
    /* from i1: 0 or 1 */
    {D(I1), D_B32, "selp.b32 $d, 1, 0, $a;"},
    {D(I1), D(I64), "selp.b64 $d, 1, 0, $a;"},
    {D(I1), D(F32), "selp.f32 $d, 0f3F800000, 0f00000000, $a;"},
    {D(I1), D(F64), "selp.f64 $d, " F64_ONE ", " F64_ZERO ", $a;"},
    {D(I1), D(F16), "selp.b16 $d, 0x3C00, 0x0000, $a;"},
    {D(I1), D(BF16), "selp.b16 $d, 0x3F80, 0x0000, $a;"},
    /* to i1: x != 0 (true for NaN) */
    {D_B32, D(I1), "setp.ne.s32 $d, $a, 0;"},
    {D(I64), D(I1), "setp.ne.s64 $d, $a, 0;"},
    {D(F32), D(I1), "setp.neu.f32 $d, $a, 0f00000000;"},
    {D(F64), D(I1), "setp.neu.f64 $d, $a, " F64_ZERO ";"},
    /* integer to integer wraps */
    {D_B32, D(I32), "mov.b32 $d, $a;"},
    {D(U8) | D(I32), D(I8), "cvt.s32.s8 $d, $a;"},
    {D(I8) | D(I32), D(U8), "and.b32 $d, $a, 255;"},
    {D_B32, D(I64), "cvt.s64.s32 $d, $a;"},
    {D(I64), D(I32), "cvt.u32.u64 $d, $a;"},
    {D(I64), D(I8), "cvt.u32.u64 $r0, $a; cvt.s32.s8 $d, $r0;"},
    {D(I64), D(U8), "cvt.u32.u64 $r0, $a; and.b32 $d, $r0, 255;"},
    /* integer to float rounds to nearest once */
    {D_B32, D(F32), "cvt.rn.f32.s32 $d, $a;"},
    {D_B32, D(F64), "cvt.rn.f64.s32 $d, $a;"},
    {D_B32, D(F16), "cvt.rn.f16.s32 $d, $a;"},
    {D(I8) | D(U8), D(BF16), "cvt.rn.f32.s32 $f0, $a; cvt.rn.bf16.f32 $d, $f0;"},
    {D(I32), D(BF16), "cvt.rz.f32.s32 $f0, $a; cvt.rzi.s32.f32 $r1, $f0; setp.ne.s32 $p0, $r1, $a;"
                      STICKY_TO("bf16")},
    {D(I64), D(F32), "cvt.rn.f32.s64 $d, $a;"},
    {D(I64), D(F64), "cvt.rn.f64.s64 $d, $a;"},
    {D(I64), D(F16), "cvt.rn.f16.s64 $d, $a;"},
    {D(I64), D(BF16), "cvt.rz.f32.s64 $f0, $a; cvt.rzi.s64.f32 $l0, $f0; setp.ne.s64 $p0, $l0, $a;"
                      STICKY_TO("bf16")},
    /* float to integer truncates and saturates; NaN gives 0 (cvt gives 0
     * itself only from f32 to 32-bit destinations) */
    {D(F32), D(I32), "cvt.rzi.s32.f32 $d, $a;"},
    {D(F64), D(I32), "cvt.rzi.s32.f64 $d, $a; setp.nan.f64 $p0, $a, $a; @$p0 mov.b32 $d, 0;"},
    {D(F32), D(I64), "cvt.rzi.s64.f32 $d, $a; setp.nan.f32 $p0, $a, $a; @$p0 mov.b64 $d, 0;"},
    {D(F64), D(I64), "cvt.rzi.s64.f64 $d, $a; setp.nan.f64 $p0, $a, $a; @$p0 mov.b64 $d, 0;"},
    {D(F32), D(I8), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 127; max.s32 $d, $d, -128;"},
    {D(F64), D(I8), "cvt.rzi.s32.f64 $d, $a; setp.nan.f64 $p0, $a, $a; @$p0 mov.b32 $d, 0;"
                    "min.s32 $d, $d, 127; max.s32 $d, $d, -128;"},
    {D(F32), D(U8), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 255; max.s32 $d, $d, 0;"},
    {D(F64), D(U8), "cvt.rzi.s32.f64 $d, $a; setp.nan.f64 $p0, $a, $a; @$p0 mov.b32 $d, 0;"
                    "min.s32 $d, $d, 255; max.s32 $d, $d, 0;"},
    /* float to float rounds to nearest once */
    {D(F32), D(F64), "cvt.f64.f32 $d, $a;"},
    {D(F64), D(F32), "cvt.rn.f32.f64 $d, $a;"},
    {D(F32), D(F16), "cvt.rn.f16.f32 $d, $a;"},
    {D(F32), D(BF16), "cvt.rn.bf16.f32 $d, $a;"},
    {D(F64), D(F16), F64_STICKY STICKY_TO("f16")},
    {D(F64), D(BF16), F64_STICKY STICKY_TO("bf16")},
};

void ptx_emit_cast(ptx_emitter *e, ir_dtype from, ir_dtype to, ptx_reg dst, ptx_reg src)
{
    if (from == to) {
        ptx_mov(e, dst, src);
        return;
    }
    if (from == DT_F16 || from == DT_BF16) {
        if (to == DT_F32) {
            widen(e, from, src, dst);
            return;
        }
        src = widen(e, from, src, 0);
        from = DT_F32;
    }
    for (size_t i = 0; i < sizeof cast_rules / sizeof cast_rules[0]; i++) {
        if ((cast_rules[i].from & (1u << from)) && (cast_rules[i].to & (1u << to))) {
            ptx_operands o = {.d = dst, .a = src, .tclass = ptx_dtype_class(to)};
            ptx_expand(e, cast_rules[i].tmpl, &o);
            return;
        }
    }
    sw_unreachable(e->d, "no PTX rendering of sw.cast from %s to %s", ir_dtypes[from].name,
                   ir_dtypes[to].name);
}
