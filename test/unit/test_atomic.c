/* test_atomic.c - unit tests of atomic.h: the element types each atomic
 * takes, its attribute spellings, and what one atomic does to one element.
 * Float max/min are checked against a model of the PTX the emitter writes
 * for them (signed integer max of the bit patterns for a value whose sign
 * bit is clear, unsigned min for one whose sign bit is set; min the other
 * way round) on random bit patterns, NaNs and infinities included, so the
 * CPU executors and the GPU agree on every value. Requires nothing but
 * libswage; prints "N passed, N failed" last and exits nonzero on any
 * failure. */
#include "ir/atomic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The PTX pair for float max (min): by the value's sign bit, atom.max.s
 * (atom.min.s) or atom.min.u (atom.max.u) of the bit patterns. */
static uint64_t ptx_model(bool max, uint64_t mem, uint64_t val, int bits)
{
    uint64_t sign = UINT64_C(1) << (bits - 1);
    bool negative = (val & sign) != 0;
    if (!negative) {
        /* signed compare of `bits`-bit patterns: flip the sign bit, compare unsigned */
        uint64_t m = mem ^ sign, v = val ^ sign;
        return max ? (v > m ? val : mem) : (v < m ? val : mem);
    }
    return max ? (val < mem ? val : mem) : (val > mem ? val : mem);
}

static uint64_t random_pattern(int bits)
{
    static const uint32_t specials32[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                          0x7FC00000u, 0xFFC00000u, 0x00000001u, 0x80000001u,
                                          0x3F800000u, 0xBF800000u, 0x7F800001u};
    uint64_t r = next_random();
    if (r % 4 == 0) {
        uint64_t s = specials32[(r >> 8) % (sizeof specials32 / sizeof specials32[0])];
        return bits == 32 ? s : (s & 0x80000000u ? UINT64_C(1) << 63 : 0) | ((s & 0x7FFFFFFFu) << 32);
    }
    return bits == 32 ? (uint32_t)next_random() : next_random();
}

/* A value reaches an atomic through registers, where the CPU (like any
 * float conversion) quiets a signalling NaN: values are quiet here, memory
 * may hold any pattern. */
static uint64_t quieted(uint64_t b, int bits)
{
    uint64_t exp = bits == 32 ? UINT64_C(0x7F800000) : UINT64_C(0x7FF0000000000000);
    uint64_t quiet = bits == 32 ? UINT64_C(1) << 22 : UINT64_C(1) << 51;
    uint64_t frac = quiet * 2 - 1;
    return (b & exp) == exp && (b & frac) ? b | quiet : b;
}

static void test_float_minmax_matches_ptx(void)
{
    for (int wide = 0; wide < 2; wide++) {
        ir_dtype dt = wide ? DT_F64 : DT_F32;
        int bits = wide ? 64 : 32;
        long bad = 0;
        for (int i = 0; i < 200000; i++) {
            bool max = i % 2 == 0;
            uint64_t mem = random_pattern(bits), val = quieted(random_pattern(bits), bits);
            unsigned char cell[8], vcell[8];
            memcpy(cell, &mem, 8);
            memcpy(vcell, &val, 8);
            ir_scalar v = ir_scalar_load(dt, vcell);
            ir_scalar old = ir_atomic_rmw_apply(max ? IR_ATOM_MAX : IR_ATOM_MIN, dt, cell, v);
            uint64_t got = 0, old_bits = 0;
            memcpy(&got, cell, (size_t)bits / 8);
            ir_scalar_store(dt, &old_bits, old);
            uint64_t want = ptx_model(max, mem, val, bits);
            if (got != want && bad++ < 5)
                printf("FAIL f%d %s: mem 0x%llx val 0x%llx -> 0x%llx, PTX gives 0x%llx\n", bits,
                       max ? "max" : "min", (unsigned long long)mem, (unsigned long long)val,
                       (unsigned long long)got, (unsigned long long)want);
        }
        CHECK(bad == 0, "%s max/min disagree with the PTX pair in %ld cases", wide ? "f64" : "f32", bad);
    }
}

static void test_total_order(void)
{
    /* -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN: max of any two is the later */
    const float order[] = {-NAN, -INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, INFINITY, NAN};
    int n = (int)(sizeof order / sizeof order[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float mem = order[i], out;
            ir_scalar old = ir_atomic_rmw_apply(IR_ATOM_MAX, DT_F32, &mem, (ir_scalar){.f = order[j]});
            float want = order[i > j ? i : j];
            CHECK(!memcmp(&mem, &want, 4), "max of order[%d] and order[%d]", i, j);
            out = (float)old.f;
            CHECK(!memcmp(&out, &order[i], 4) || (isnan(out) && isnan(order[i])), "old of max %d %d", i, j);
            mem = order[i];
            ir_atomic_rmw_apply(IR_ATOM_MIN, DT_F32, &mem, (ir_scalar){.f = order[j]});
            want = order[i < j ? i : j];
            CHECK(!memcmp(&mem, &want, 4), "min of order[%d] and order[%d]", i, j);
        }
}

static void test_integers(void)
{
    int32_t m = INT32_MAX;
    ir_scalar old = ir_atomic_rmw_apply(IR_ATOM_ADD, DT_I32, &m, (ir_scalar){.i = 1});
    CHECK(old.i == INT32_MAX && m == INT32_MIN, "int32 add wraps: old %lld, now %d", (long long)old.i, m);
    int64_t w = -5;
    ir_atomic_rmw_apply(IR_ATOM_MAX, DT_I64, &w, (ir_scalar){.i = -7});
    CHECK(w == -5, "signed max keeps -5 over -7");
    ir_atomic_rmw_apply(IR_ATOM_MIN, DT_I64, &w, (ir_scalar){.i = -7});
    CHECK(w == -7, "signed min takes -7");
    int32_t b = 0x0F0F;
    ir_atomic_rmw_apply(IR_ATOM_AND, DT_I32, &b, (ir_scalar){.i = 0x00FF});
    CHECK(b == 0x000F, "and");
    ir_atomic_rmw_apply(IR_ATOM_OR, DT_I32, &b, (ir_scalar){.i = 0x0F00});
    CHECK(b == 0x0F0F, "or");
    ir_atomic_rmw_apply(IR_ATOM_XOR, DT_I32, &b, (ir_scalar){.i = -1});
    CHECK(b == ~0x0F0F, "xor");
    old = ir_atomic_rmw_apply(IR_ATOM_XCHG, DT_I32, &b, (ir_scalar){.i = 42});
    CHECK(old.i == ~0x0F0F && b == 42, "xchg");
}

static void test_float_add_and_cas(void)
{
    /* f16: 2048 + 1 rounds to even (2048), 2048 + 3 to 2052 */
    uint16_t h = ir_f32_to_f16(2048.0f);
    ir_atomic_rmw_apply(IR_ATOM_ADD, DT_F16, &h, (ir_scalar){.f = 1.0});
    CHECK(ir_f16_to_f32(h) == 2048.0f, "f16 add rounds to nearest even");
    ir_atomic_rmw_apply(IR_ATOM_ADD, DT_F16, &h, (ir_scalar){.f = 3.0});
    CHECK(ir_f16_to_f32(h) == 2052.0f, "f16 add rounds once");
    /* cas compares bits: -0.0 does not match 0.0, NaN matches NaN */
    float f = 0.0f;
    ir_atomic_cas_apply(DT_F32, &f, (ir_scalar){.f = -0.0}, (ir_scalar){.f = 5.0});
    CHECK(f == 0.0f && !signbit(f), "cas of -0.0 does not match 0.0");
    f = NAN;
    ir_scalar old = ir_atomic_cas_apply(DT_F32, &f, (ir_scalar){.f = NAN}, (ir_scalar){.f = 5.0});
    CHECK(f == 5.0f && isnan(old.f), "cas of NaN matches NaN");
    uint16_t bf = ir_f32_to_bf16(1.5f);
    ir_atomic_cas_apply(DT_BF16, &bf, (ir_scalar){.f = 1.5}, (ir_scalar){.f = -2.0});
    CHECK(ir_bf16_to_f32(bf) == -2.0f, "bf16 cas");
    int64_t x = 7;
    old = ir_atomic_cas_apply(DT_I64, &x, (ir_scalar){.i = 6}, (ir_scalar){.i = 9});
    CHECK(x == 7 && old.i == 7, "cas that does not match leaves memory");
}

static void test_rules(void)
{
    CHECK(ir_atomic_rmw_dtype_ok(IR_ATOM_ADD, DT_F16) && !ir_atomic_rmw_dtype_ok(IR_ATOM_ADD, DT_BF16),
          "add takes f16, not bf16");
    CHECK(!ir_atomic_rmw_dtype_ok(IR_ATOM_AND, DT_F32) && ir_atomic_rmw_dtype_ok(IR_ATOM_XOR, DT_I64),
          "bitwise on integers only");
    CHECK(!ir_atomic_rmw_dtype_ok(IR_ATOM_MAX, DT_F16) && !ir_atomic_rmw_dtype_ok(IR_ATOM_ADD, DT_I8),
          "no 16-bit max, no 8-bit add");
    CHECK(ir_atomic_cas_dtype_ok(DT_BF16) && !ir_atomic_cas_dtype_ok(DT_I1), "cas dtypes");
    CHECK(ir_atomic_kind_from_name("xchg") == IR_ATOM_XCHG && ir_atomic_kind_from_name("sub") ==
          IR_ATOM_KIND_COUNT && ir_atomic_kind_from_name(NULL) == IR_ATOM_KIND_COUNT, "kind names");
    CHECK(ir_atomic_sem_valid("acq_rel") && !ir_atomic_sem_valid("seq_cst") && !ir_atomic_sem_valid(NULL),
          "sem names");
    CHECK(ir_atomic_scope_valid("sys") && !ir_atomic_scope_valid("cluster"), "scope names");
    CHECK(ir_atomic_kind_names[IR_ATOM_KIND_COUNT] == NULL, "kind names end in NULL");
}

int main(void)
{
    test_float_minmax_matches_ptx();
    test_total_order();
    test_integers();
    test_float_add_and_cas();
    test_rules();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
