/* irgen_random.c - sl.randint, sl.rand and sl.randn (and their 4x forms,
 * which return a tuple of four): Triton's counter-based Philox generator,
 * expanded into integer and float IR at the call.
 *
 * The same streams as triton.language's: for a seed (a scalar: a runtime
 * integer or a compile-time one) and an offset (a scalar or a tile of
 * int32, uint32, int64 or uint64), the counter is (offset, 0, 0, 0) and
 * the key the seed's 64 bits; 32-bit offsets run Philox-4x32, 64-bit ones
 * Philox-4x64 (key (seed, 0)), n_rounds rounds (10 unless given). The words
 * are computed as int32 (int64) values, whose wrapping arithmetic has the
 * bits of Triton's unsigned one; randint is the first word of the result,
 * bitcast to uint32 (uint64) as Triton returns it,
 * rand maps it to a float32 in [0, 1) as Triton does (x ^ (x >> 63 or 31),
 * times a scale just under 2^-31 or 2^-63), randn is Box-Muller's first
 * value of the first two words; randint4x/rand4x are all four words,
 * randn4x Box-Muller's two values of words 0-1 and of words 2-3. Everything wraps as unsigned arithmetic
 * does: the expansion is built on IR values, never folded as Python ints.
 */
#include "irgen_internal.h"

#include <string.h>

/* Philox's multipliers and Weyl increments (the golden ratio and sqrt(3)
 * - 1 in fixed point), as two's complement values of the word's type. */
typedef struct philox_words {
    ir_dtype dt;
    int64_t round_a, round_b, key_a, key_b;
    double scale; /* the largest s with INT_MAX * s < 1 in float32 */
} philox_words;

static const philox_words philox32 = {DT_I32, (int32_t)0xD2511F53u, (int32_t)0xCD9E8D57u,
                                      (int32_t)0x9E3779B9u, (int32_t)0xBB67AE85u, 4.6566127342e-10};
static const philox_words philox64 = {DT_I64, (int64_t)0xD2E7470EE14C6C93u,
                                      (int64_t)0xCA5A826395121157u, (int64_t)0x9E3779B97F4A7C15u,
                                      (int64_t)0xBB67AE8584CAA73Bu, 1.0842020432385337e-19};

enum { MAX_ROUNDS = 64 };

typedef struct rng {
    irgen *g;
    const ast_expr *call;
    const char *name; /* randint, rand, randn or a 4x form */
    const philox_words *w;
    ir_type word; /* the counter's type: the offset's (a scalar or a tile) */
} rng;

static bool ok(const rng *r, gval v) { return v.kind != GV_ERROR && !ig_failed(r->g); }

static gval bin(const rng *r, ast_op op, gval a, gval b) { return ig_binop(r->g, r->call, op, a, b); }

/* A constant as an IR value of the word's type. */
static gval word(const rng *r, int64_t value)
{
    const_value c = {.kind = CONST_INT, .i = value};
    return gv_ir(ig_materialize(r->g, r->call->loc, c, r->word));
}

static gval umulhi(const rng *r, gval a, gval b)
{
    ir_value av, bv;
    if (!ig_unify(r->g, r->call->loc, a, b, &av, &bv, "sl.umulhi"))
        return (gval){0};
    ir_value ops[2] = {av, bv};
    return gv_ir(ig_emit1(r->g, IR_UMULHI, r->call->loc, ops, 2, ir_value_type(r->g->m, av)));
}

static gval unary(const rng *r, ir_op_kind kind, gval x)
{
    if (!ok(r, x))
        return (gval){0};
    return gv_ir(ig_emit1(r->g, kind, r->call->loc, &x.v, 1, ig_type(r->g, x)));
}

/* n rounds over counter c (4 words) with key k (2 words). */
static bool philox(const rng *r, gval c[4], gval k[2], int64_t rounds)
{
    gval a = word(r, r->w->round_a), b = word(r, r->w->round_b);
    for (int64_t i = 0; i < rounds; i++) {
        gval c0 = c[0], c2 = c[2];
        c[0] = bin(r, OP_BITXOR, bin(r, OP_BITXOR, umulhi(r, b, c2), c[1]), k[0]);
        c[2] = bin(r, OP_BITXOR, bin(r, OP_BITXOR, umulhi(r, a, c0), c[3]), k[1]);
        c[1] = bin(r, OP_MUL, b, c2);
        c[3] = bin(r, OP_MUL, a, c0);
        k[0] = bin(r, OP_ADD, k[0], word(r, r->w->key_a));
        k[1] = bin(r, OP_ADD, k[1], word(r, r->w->key_b));
        if (!ok(r, c[0]) || !ok(r, c[1]) || !ok(r, c[2]) || !ok(r, c[3]) || !ok(r, k[0]) || !ok(r, k[1]))
            return false;
    }
    return true;
}

/* Triton's uint_to_uniform_float: x ^ (x >> (bits - 1)) (x, or -x - 1
 * when negative) times the scale, in float32. */
static gval uniform(const rng *r, gval x)
{
    gval sign = bin(r, OP_SHR, x, gv_int(r->w->dt == DT_I32 ? 31 : 63));
    gval folded = bin(r, OP_BITXOR, x, sign);
    if (!ok(r, folded))
        return (gval){0};
    ir_value f = ig_cast(r->g, r->call->loc, folded.v, DT_F32);
    if (f == IR_NO_VALUE)
        return (gval){0};
    return bin(r, OP_MUL, gv_ir(f), gv_float(r->w->scale));
}

/* Box-Muller on two uniforms: r = sqrt(-2 log(max(u1, 1e-7))), th = 2 pi
 * u2; out[0] = r cos th and, when want is 2, out[1] = r sin th. */
static bool normal_pair(const rng *r, gval u1, gval u2, gval *out, int want)
{
    if (!ok(r, u1) || !ok(r, u2))
        return false;
    ir_value lo, u;
    if (!ig_unify(r->g, r->call->loc, gv_float(1.0e-7), u1, &lo, &u, "sl.randn"))
        return false;
    ir_value ops[2] = {lo, u};
    u1 = gv_ir(ig_emit1(r->g, IR_MAXIMUM, r->call->loc, ops, 2, ir_value_type(r->g->m, u)));
    gval th = bin(r, OP_MUL, gv_float(6.283185307179586), u2);
    gval radius = unary(r, IR_SQRT, bin(r, OP_MUL, gv_float(-2.0), unary(r, IR_LOG, u1)));
    if (!ok(r, th) || !ok(r, radius))
        return false;
    out[0] = bin(r, OP_MUL, radius, unary(r, IR_COS, th));
    if (want == 2)
        out[1] = bin(r, OP_MUL, radius, unary(r, IR_SIN, th));
    return ok(r, out[0]) && (want < 2 || ok(r, out[1]));
}

/* The offset: an integer scalar or tile of 32 or 64 bits (a Python int is
 * int32 when it fits, as Triton's); an unsigned one is taken by its bits. */
static bool offset_of(rng *r, const ast_expr *arg, gval v, ir_value *out)
{
    char buf[64];
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_CONST && v.c.kind == CONST_INT)
        v = gv_ir(ig_to_ir(r->g, arg->loc, v, (ir_type){0}));
    ir_type t = v.kind == GV_IR ? ig_type(r->g, v) : (ir_type){0};
    if (v.kind == GV_IR && !ir_type_is_ptrlike(t) && (t.dtype == DT_U32 || t.dtype == DT_U64)) {
        t = ir_type_like(t, ir_type_scalar(t.dtype == DT_U32 ? DT_I32 : DT_I64));
        v = gv_ir(ig_emit1(r->g, IR_BITCAST, arg->loc, &v.v, 1, t));
        if (v.v == IR_NO_VALUE)
            return false;
    }
    if (v.kind != GV_IR || ir_type_is_ptrlike(t) || (t.kind != TY_SCALAR && t.kind != TY_TILE) ||
        (t.dtype != DT_I32 && t.dtype != DT_I64)) {
        ig_error(r->g, arg->loc, "the offset of sl.%s must be an int32, uint32, int64 or uint64 "
                                 "scalar or tile, not %s",
                 r->name, v.kind == GV_IR ? ig_type_name(t, buf) : v.kind == GV_CONST ? "a constant of another kind"
                                                                             : "that");
        return false;
    }
    r->w = t.dtype == DT_I32 ? &philox32 : &philox64;
    r->word = t;
    *out = v.v;
    return true;
}

/* The key from the seed: its low and high 32 bits for 32-bit words (an
 * int32 seed widened with its sign, as Triton's cast to uint64), the seed
 * and 0 for 64-bit words. */
static bool key_of(const rng *r, const ast_expr *arg, gval seed, gval k[2])
{
    char buf[64];
    if (seed.kind == GV_ERROR)
        return false;
    if (seed.kind == GV_CONST && (seed.c.kind == CONST_INT || seed.c.kind == CONST_BOOL))
        seed = gv_ir(ig_materialize(r->g, arg->loc, (const_value){.kind = CONST_INT, .i = seed.c.i},
                                    ir_type_scalar(DT_I64)));
    ir_type t = seed.kind == GV_IR ? ig_type(r->g, seed) : (ir_type){0};
    if (seed.kind != GV_IR || t.kind != TY_SCALAR || ir_type_is_ptrlike(t) ||
        ir_dtype_is_float((ir_dtype)t.dtype) || t.dtype == DT_VOID) {
        ig_error(r->g, arg->loc, "the seed of sl.%s must be an integer scalar, not %s",
                 r->name, seed.kind == GV_IR ? ig_type_name(t, buf) : "that");
        return false;
    }
    ir_value s64 = ig_cast(r->g, arg->loc, seed.v, DT_I64);
    if (s64 == IR_NO_VALUE)
        return false;
    ir_type scalar = ir_type_scalar(r->w->dt);
    if (r->w->dt == DT_I64) {
        k[0] = gv_ir(s64);
        k[1] = gv_ir(ig_materialize(r->g, arg->loc, (const_value){.kind = CONST_INT, .i = 0}, scalar));
    } else {
        gval high = bin(r, OP_SHR, gv_ir(s64), gv_int(32));
        if (!ok(r, high))
            return false;
        k[0] = gv_ir(ig_cast(r->g, arg->loc, s64, DT_I32));
        k[1] = gv_ir(ig_cast(r->g, arg->loc, high.v, DT_I32));
    }
    return k[0].v != IR_NO_VALUE && k[1].v != IR_NO_VALUE;
}

/* A word as Triton's randint returns it: uint32 (uint64), the same bits. */
static gval as_unsigned(const rng *r, gval x)
{
    if (!ok(r, x))
        return (gval){0};
    ir_type t = ir_type_like(r->word, ir_type_scalar(r->w->dt == DT_I32 ? DT_U32 : DT_U64));
    return gv_ir(ig_emit1(r->g, IR_BITCAST, r->call->loc, &x.v, 1, t));
}

gval ig_lower_random(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args)
{
    rng r = {.g = g, .call = call, .name = name};
    gval seed = ig_expr(g, args[0]), offset = ig_expr(g, args[1]);
    int64_t rounds = 10;
    if (args[2]) {
        gval n = ig_expr(g, args[2]);
        if (!ig_const_int(g, args[2], n, "n_rounds", &rounds))
            return (gval){0};
        if (rounds < 0 || rounds > MAX_ROUNDS)
            return ig_error(g, args[2]->loc, "n_rounds of sl.%s must be in 0..%d, not %lld", name,
                            MAX_ROUNDS, (long long)rounds);
    }
    ir_value off;
    gval k[2];
    if (!offset_of(&r, args[1], offset, &off) || !key_of(&r, args[0], seed, k))
        return (gval){0};
    gval zero = word(&r, 0);
    gval c[4] = {gv_ir(off), zero, zero, zero};
    if (!ok(&r, zero) || !philox(&r, c, k, rounds))
        return (gval){0};
    if (!strcmp(name, "randint"))
        return as_unsigned(&r, c[0]);
    if (!strcmp(name, "rand"))
        return uniform(&r, c[0]);
    if (!strcmp(name, "randn")) {
        gval n[2];
        return normal_pair(&r, uniform(&r, c[0]), uniform(&r, c[1]), n, 1) ? n[0] : (gval){0};
    }
    /* the 4x forms: a tuple of four */
    gval *four = arena_alloc(g->ar, sizeof(gval) * 4);
    if (!strcmp(name, "randint4x")) {
        for (int i = 0; i < 4; i++)
            if (!ok(&r, four[i] = as_unsigned(&r, c[i])))
                return (gval){0};
    } else {
        for (int i = 0; i < 4; i++)
            if (!ok(&r, four[i] = uniform(&r, c[i])))
                return (gval){0};
        if (!strcmp(name, "randn4x") &&
            (!normal_pair(&r, four[0], four[1], four, 2) || !normal_pair(&r, four[2], four[3], four + 2, 2)))
            return (gval){0};
    }
    return (gval){.kind = GV_TUPLE, .items = four, .nitems = 4};
}
