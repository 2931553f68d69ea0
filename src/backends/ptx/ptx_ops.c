/* ptx_ops.c - elementwise ops, comparisons, select and casts as TABLES from
 * (op, compute kind) to an instruction template (ptx_internal.h). Requires
 * operands in canonical registers (i8/i16 sign-extended, ui8/ui16
 * zero-extended in b32);
 * guarantees the results src/ir/scalar.c defines, bit for bit, except for
 * the approximations listed here.
 *
 * Legalisation before the table lookup: f16/bf16 ops without a 16-bit row
 * are promoted to f32 (exact), computed, and rounded back once with
 * cvt.rn (for + - * / sqrt this equals the oracle's single rounding: f32
 * carries more than twice their precision plus two bits); i8/ui8/i16/ui16
 * compute in 32 bits (signed or unsigned instructions by their dtype) and
 * are wrapped back after ops that can leave their range.
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
 * and with the `approx` attribute (Triton's '/' and tl.exp; approx_rules):
 *   div      div.full.f32 (f32 only)                       2 ulp
 *   exp      ex2.approx.f32 of x * log2(e)                 2.5 + 1.23 |x| ulp
 * On f64 the same functions are computed in software (bound, and the worst
 * seen on an H200 by test_ptx_gpu.c):
 *   exp exp2 log log2   reduction + polynomial (below)  2 ulp
 *   sin cos             Cody-Waite, Payne-Hanek beyond 2^40: 3 ulp, all finite x
 *   sigmoid             as f32, on the f64 exp          3 ulp
 * (A C model of each sequence: at most 1.0 ulp from glibc and 0.93 ulp from
 * the true value for exp exp2 log log2, 2.2 for sin cos over the whole
 * range, 2.1 for sigmoid; on an H200, test_ptx_gpu.c saw at most 1.0 ulp
 * from the oracle for each.) libdevice's other functions without an
 * instruction (tan, asin, ..., pow) are ptx_math.c's, in float64 for every
 * float dtype. */
#include "ptx_internal.h"
#include "ptx_f64.h"

#include <string.h>

/* Compute kinds: how a dtype's values are computed. */
enum {
    K_PRED = 1 << 0, /* i1 in predicates */
    K_I32 = 1 << 1,  /* i8, i16, i32 in b32 registers as s32 */
    K_I64 = 1 << 2,
    K_F32 = 1 << 3,  /* f32, and promoted f16/bf16 */
    K_F64 = 1 << 4,
    K_H16 = 1 << 5,  /* f16/bf16 bit patterns, for ops that need no arithmetic */
    K_U32 = 1 << 6,  /* ui8, ui16, ui32 in b32 registers as u32 */
    K_U64 = 1 << 7,
};
#define K_SINT (K_I32 | K_I64)
#define K_UINT (K_U32 | K_U64)
#define K_INT (K_SINT | K_UINT)
#define K_B32 (K_I32 | K_U32)
#define K_B64 (K_I64 | K_U64)
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
    {K_U32, RC_B32, "u32", "b32", "u32"},
    {K_U64, RC_B64, "u64", "b64", "u64"},
};

static const kind_info *kind_of(ir_dtype dt)
{
    switch (dt) {
    case DT_I1: return &kinds[0];
    case DT_I8: case DT_I16: case DT_I32: return &kinds[1];
    case DT_U8: case DT_U16: case DT_U32: return &kinds[6];
    case DT_I64: return &kinds[2];
    case DT_U64: return &kinds[7];
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

/* C's / and % on integers (the language's // and %): the divisor is
 * replaced by 1 where it is 0 (result 0) or -1 (quotient -a, wrapping,
 * remainder 0), so that no division overflows and the results are
 * src/ir/scalar.c's, not the unspecified ones PTX gives there. */
#define INT_IDIV                                                                       \
    "setp.eq.$T $p0, $b, 0; setp.eq.$T $p1, $b, -1; or.pred $p2, $p0, $p1;"            \
    "selp.$B $t0, 1, $b, $p2; div.$T $t1, $a, $t0; neg.$T $t2, $a;"                    \
    "selp.$B $t1, $t2, $t1, $p1; selp.$B $d, 0, $t1, $p0;"
#define INT_REM                                                                        \
    "setp.eq.$T $p0, $b, 0; setp.eq.$T $p1, $b, -1; or.pred $p2, $p0, $p1;"            \
    "selp.$B $t0, 1, $b, $p2; rem.$T $d, $a, $t0;"

/* Python % on integers: the remainder takes the divisor's sign; 0 for a
 * divisor of 0 or -1. */
/* Unsigned / and % (// and % mean the same on values that are never
 * negative): the divisor is replaced by 1 where it is 0 (result 0). */
#define UINT_DIV                                                                       \
    "setp.eq.$T $p0, $b, 0; selp.$B $t0, 1, $b, $p0; div.$T $t1, $a, $t0;"             \
    "selp.$B $d, 0, $t1, $p0;"
#define UINT_REM                                                                       \
    "setp.eq.$T $p0, $b, 0; selp.$B $t0, 1, $b, $p0; rem.$T $t1, $a, $t0;"             \
    "selp.$B $d, 0, $t1, $p0;"

#define INT_MOD                                                                        \
    "setp.eq.$T $p0, $b, 0; setp.eq.$T $p1, $b, -1; or.pred $p0, $p0, $p1;"            \
    "selp.$B $t0, 1, $b, $p0; rem.$T $t1, $a, $t0;"                                    \
    "setp.ne.$T $p1, $t1, 0; xor.$B $t2, $t1, $t0; setp.lt.$T $p2, $t2, 0;"            \
    "and.pred $p1, $p1, $p2; add.$T $t2, $t1, $t0; selp.$B $d, $t2, $t1, $p1;"

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

/* The words of 2/pi for PAYNE_HANEK_F64: word w holds bits 64(w-1)+1 ..
 * 64w after the binary point (word 0 is zero). */
const char ptx_two_over_pi_decl[] =
    ".const .align 8 .b64 " PTX_TWO_OVER_PI "[21] = {0x0000000000000000, 0xA2F9836E4E441529,\n"
    "\t0xFC2757D1F534DDC0, 0xDB6295993C439041, 0xFE5163ABDEBBC561, 0xB7246E3A424DD2E0,\n"
    "\t0x06492EEA09D1921C, 0xFE1DEB1CB129A73E, 0xE88235F52EBB4484, 0xE99C7026B45F7E41,\n"
    "\t0x3991D639835339F4, 0x9C845F8BBDF9283B, 0x1FF897FFDE05980F, 0xEF2F118B5A0A6D1F,\n"
    "\t0x6D367ECF27CB09B7, 0x4F463F669E5FEA2D, 0x7527BAC7EBE5F17B, 0x3D0739F78A5292EA,\n"
    "\t0x6BFB5FB11F8D5D08, 0x56033046FC7B6BAB, 0xF0CFBC209AF4361D};\n\n";

/* ---- erf: ERF_F64 is in ptx_f64.h (erfc uses it too) -------------------------- */

const char ptx_erf_table_decl[] =
    ".const .align 8 .b64 " PTX_ERF_TABLE "[330] = {\n"
    "\t0x3FE3F196DCD0F135, 0x3FE86E9694134B9E, 0xBFDE8A3C39181E85, 0xBFAC8105021682E3,\n"
    "\t0x3FC6963C8A39D692, 0xBF9C1242DFFFC503, 0xBFA52B2668E8627D, 0x3F8C7CD9C1CA7367,\n"
    "\t0x3F7B62F4A7484034, 0xBF6DC3B46FDC32B4, 0xBF481148D81DA2AB, 0x3F463796D17C397E,\n"
    "\t0x3F055121D5901343, 0xBF1A17211D2C836E, 0x3ECD91470C8A466F, 0x3FE91724951B8FC6,\n"
    "\t0x3FE0CAB61F084B93, 0xBFDD62BEB64E8441, 0x3FB7C9D756A115BB, 0x3FBCC60567D78C2B,\n"
    "\t0xBFB1350F4B222AC7, 0xBF853BB4A5AF4FBE, 0x3F930AC21937FA54, 0xBF5E3F4D17A9AC97,\n"
    "\t0xBF6AAE22E15F782D, 0x3F4D6E44E4C09455, 0x3F39900077D94D8A, 0xBF294AE412712F8B,\n"
    "\t0xBEFE70FE4FE69605, 0x3EFE7CC73FE79191, 0x3FEC6DAD2829EC62, 0x3FD45E99BCBB7915,\n"
    "\t0xBFD6EA6CF452E838, 0x3FC4CB3CF0AA0B9B, 0x3F9CA5083167A246, 0xBFAF65D15F1CF8D7,\n"
    "\t0x3F8FD1C6C11EDA72, 0x3F83ACC78420E9D3, 0xBF78B43C43F205B7, 0xBF379B04D104B47A,\n"
    "\t0x3F52E527649B7B04, 0xBF2731A0A163486B, 0xBF228DE963721690, 0x3F09EDD4CDD5C251,\n"
    "\t0x3EE67A9D4AAF087D, 0x3FEE5768C3B4A3FC, 0x3FC5CE595C455B0A, 0xBFCDFBBADEDF5D2E,\n"
    "\t0x3FC4374D82E04C67, 0xBF9F3B8D52D35665, 0xBF9F572C4C8C7B0C, 0x3F96B16F52C58B2B,\n"
    "\t0xBF573FFA9B859606, 0xBF71740474706A1C, 0x3F59DA3D48FFD0A3, 0x3F3534F6C4DC679B,\n"
    "\t0xBF36392DF39D614D, 0x3EFE13333B2ABEEF, 0x3F05E43917418C74, 0xBEE921E058BBF683,\n"
    "\t0x3FEF4F693B67BD77, 0x3FB499D478BCA735, 0xBFC0BCFCA21947DB, 0x3FBD6631E1A28E9E,\n"
    "\t0xBFA974C03686729D, 0xBF617D430BD57DF4, 0x3F8D857F2C4BC9B6, 0xBF7954AB0F57A01E,\n"
    "\t0xBF42E43EEF270FC5, 0x3F571CD78555DF62, 0xBF375457224274F8, 0xBF207892DDCB78E9,\n"
    "\t0x3F170F93E04BD30D, 0xBED1E9AB9843BAF7, 0xBEE63FAF4AF253AC, 0x3FEFBE61EEF4CF6A,\n"
    "\t0x3FA12CEB37FF9BC3, 0xBFB01A1C847FA207, 0x3FB143D1C6F4F093, 0xBFA5A316520B81BA,\n"
    "\t0x3F8779B1E57043CC, 0x3F70D099C7B29DDE, 0xBF742FCBAA85E8AA, 0x3F576FF57DB443CA,\n"
    "\t0x3F37BDA79657B833, 0xBF3991C209F22659, 0x3F1353EEAFCF9FCC, 0x3F02E9CB5A4B81E1,\n"
    "\t0xBEF5D07BF672BC0C, 0x3EAB5C64438CD3E2, 0x3FEFEA4218D6594A, 0x3F894624E78E0FAF,\n"
    "\t0xBF9ADA873606F0AA, 0x3FA0EA475DA3BE7F, 0xBF9AFE553FA44F40, 0x3F89973B489FA221,\n"
    "\t0xBF5DD78EE1541166, 0xBF5EA03BB2493671, 0x3F56AA2C0B920D39, 0xBF32FDB2FCF76069,\n"
    "\t0xBF201788A2ADCDA8, 0x3F18DD7AAA44262B, 0xBEEF70C69DDDAFE1, 0xBEE1C63C54B0B820,\n"
    "\t0x3ED31565ABD2C590, 0x3FEFF9960F3EB327, 0x3F706918B6355624, 0xBF837CCD585F564B,\n"
    "\t0x3F8C1EC102E364F1, 0xBF8AE59615F8EB1A, 0x3F811DAE47350DDE, 0xBF6982B274B81788,\n"
    "\t0x3F20283E0B81B24A, 0x3F4377C452E88A90, 0xBF361EC70A692E42, 0x3F0CAE81A7D269EC,\n"
    "\t0x3F0092767732524F, 0xBEF5CF9E49762523, 0x3ECA5C9BFE4A433F, 0x3EBC216855D38A39,\n"
    "\t0x3FEFFE514BBDC197, 0x3F52CE898809244E, 0xBF68AF14828BFFA7, 0x3F7407FBD18F1201,\n"
    "\t0xBF762D4C6D49C7B0, 0x3F7146C4B3E28C45, 0xBF6267F3BC3EB5A4, 0x3F464F891B0C9BD5,\n"
    "\t0x3F0229EF0BE9E918, 0xBF24006BB88DB24F, 0x3F13631D47D55298, 0xBEE5A7E166EEB7A4,\n"
    "\t0xBEDC0CE5A29EEF4C, 0x3ED16FA2E058D95C, 0xBEA6B774F84C5FCE, 0x3FEFFF9BA420E834,\n"
    "\t0x3F330538FBB77ECD, 0xBF4B5781E9D7C647, 0x3F589E17C074D373, 0xBF5ED4AC7DAEA43E,\n"
    "\t0x3F5C11F27065CA3F, 0xBF52ADD1CE773E8E, 0x3F4151F7854A4982, 0xBF21C63FF4200387,\n"
    "\t0xBEF0EC4B7A0E2922, 0x3F01814499946FC1, 0xBEEF1014FD3FB252, 0x3EC119CF80980E9D,\n"
    "\t0x3EB3EAE6AF3E1196, 0xBEA9618ECF8F25A0, 0x3FEFFFEB3EBB267B, 0x3F10F9E1B4DD36DF,\n"
    "\t0xBF2A8670AA99A5BC, 0x3F3A3737E2A2F2BC, 0xBF424544F02D2A7E, 0x3F42E7E763D3371B,\n"
    "\t0xBF3DA496E53546CF, 0x3F3176CF6641D8CA, 0xBF1D2AC6C8CDD1EB, 0x3EFAAFDBD335F9FC,\n"
    "\t0x3ED03F2F284DE14C, 0xBEDAB2EF5582C7B5, 0x3EC6E35D70BD3C3E, 0xBE9BC99A1E9D0AD2,\n"
    "\t0xBE877B2F960CE544, 0x3FEFFFFC316D9ED0, 0x3EEABE09E9144B5E, 0xBF0690585CA91F98,\n"
    "\t0x3F184522FE8815BC, 0xBF2298F8D45F650A, 0x3F2577577885F858, 0xBF2330AAB77D471C,\n"
    "\t0x3F1AC9997DD049BC, 0xBF0CC1578B9AF656, 0x3EF64C530BFF5499, 0xBED34F0301AA55B8,\n"
    "\t0xBEA5F92B1610BDC3, 0x3EB1E1D7E12793FD, 0xBE9EF13E0F0BD673, 0x3E75F1EF7FDB3C8E,\n"
    "\t0x3FEFFFFF618C3DA6, 0x3EC296A70F414053, 0xBEE0D88765D3224B, 0x3EF394B1FA67116D,\n"
    "\t0xBF005760AD1BCF9A, 0x3F04C1FE48A5AA68, 0xBF04B98203383AD1, 0x3F0085C0F8220827,\n"
    "\t0xBEF510A3C05C70FF, 0x3EE516554A419344, 0xBECF31A25C84A6CF, 0x3EAB0737CB186E0E,\n"
    "\t0x3E749B56FE56C743, 0xBE84FE2824279EAC, 0x3E73067117995F29, 0x3FEFFFFFE92CED93,\n"
    "\t0x3E96CE1AA3FD7BDD, 0xBEB617A9CEDD8FFE, 0x3ECB95FA39B39F7F, 0xBED8E1FC41538BD9,\n"
    "\t0x3EE137172180139E, 0xBEE2EB290B1828D4, 0x3EE0D8C35CB01026, 0xBED88856A366325D,\n"
    "\t0x3ECD25C45F8A9F83, 0xBEBBBBB8753A480D, 0x3EA40016003F88C1, 0xBE820D2AB47C8421,\n"
    "\t0xBE30AA78B8BD55CF, 0x3E555986B9BA653E, 0x3FEFFFFFFD169D0C, 0x3E68B0CFCE0579E0,\n"
    "\t0xBE8976564C75A5AF, 0x3EA0FDAC559B6F5E, 0xBEB07600CA6E0E9C, 0x3EB89CA7745E4767,\n"
    "\t0xBEBD73AA4E4AAF59, 0x3EBCD9E0D8F2560B, 0xBEB7710B613C30DF, 0x3EAFC1A0FA573822,\n"
    "\t0xBEA1DD3D347DEEB6, 0x3E906740B9513A19, 0xBE7774A00B925D73, 0x3E568745DDAF21EC,\n"
    "\t0xBE0CE97EBB34BB9A, 0x3FEFFFFFFFABD229, 0x3E37974E743DEA3D, 0xBE59CD7DCF23B832,\n"
    "\t0x3E7252AF6F48C16E, 0xBE82F7354E6B6BE4, 0x3E8E7102F88AAC97, 0xBE93AB0B0F09FE65,\n"
    "\t0x3E94F6108472D72A, 0xBE92B631FB5B771B, 0x3E8C3B77353E13EC, 0xBE820CDA17595A48,\n"
    "\t0x3E737A00BFF086C9, 0xBE6176BCEABB09F7, 0x3E490B5E3CF554D1, 0xBE29C3A78D0214D1,\n"
    "\t0x3FEFFFFFFFF79626, 0x3E03E44E45301B92, 0xBE26FFFA7FFF9FE1, 0x3E41508F768EB555,\n"
    "\t0xBE530FD0C66A5B01, 0x3E605563283E1361, 0xBE66A3A9D4A6DA46, 0x3E6A06FC9EA921EB,\n"
    "\t0xBE693E268E746071, 0x3E64E212F38F9C87, 0xBE5DA89559E491C6, 0x3E521B0C557B18CF,\n"
    "\t0xBE42ECEA9AF78A8F, 0x3E30B80BD3B1CE29, 0xBE18386E173FE47B, 0x3FEFFFFFFFFF4188,\n"
    "\t0x3DCD9A880F306BD8, 0xBDF20A2AE94181B8, 0x3E0CB2A2E5641B36, 0xBE20BC6ECF6645D8,\n"
    "\t0x3E2E7BA5766CB95A, 0xBE36893476B33C38, 0x3E3BC2AC3BCE3AC4, 0xBE3D00FFCF73CAB7,\n"
    "\t0x3E3A05E56A71C912, 0xBE343759506A0001, 0x3E2B5239A5E5CC2B, 0xBE2012853A8B8F19,\n"
    "\t0x3E10670CEAAAC7BA, 0xBDFCBCC3099FB9FE, 0x3FEFFFFFFFFFF11A, 0x3D9370AB8327AF5E,\n"
    "\t0xBDB8E85BC00AD8B0, 0x3DD4DECACBF8701A, 0xBDE9B3C55800869A, 0x3DF8C78E44811B28,\n"
    "\t0xBE0373CD6E3F4F4A, 0x3E0988AB1C536DD3, 0xBE0C8C018018C16F, 0x3E0B8BFCE1B6A364,\n"
    "\t0xBE0729162312895B, 0x3E0112DE726FE540, 0xBDF626354E33B833, 0x3DE94BDD23CA3B67,\n"
    "\t0xBDD95BA2C587EBFA, 0x3FEFFFFFFFFFFEF8, 0x3D568823E52970BE, 0xBD7E46F03BEFAF7F,\n"
    "\t0x3D9AA76120EB3034, 0xBDB146FAEB890610, 0x3DC192D3B25DAE4F, 0xBDCD2EAAE6914EF6,\n"
    "\t0x3DD450D4B1246C74, 0xBDD82C3010C284B4, 0x3DD8EC2C7FCBECF9, 0xBDD67E90893F09FF,\n"
    "\t0x3DD1E7A8E0EC8711, 0xBDC9435EE5852925, 0x3DBFAE61C832B2EF, 0xBDB1A9EF3DE4DD7D,\n"
    "\t0x3FEFFFFFFFFFFFF0, 0x3D170BEAF9C7FFB6, 0xBD40346137A09FCC, 0x3D5DE74C0DC3ABA0,\n"
    "\t0xBD7459C8175C38AF, 0x3D85C5EE402A02EE, 0xBD930E3DC0FF1AB4, 0x3D9C0877A56439CE,\n"
    "\t0xBDA1AB48F02F237F, 0x3DA35C64DFB4BC16, 0xBDA2A3CDC2BF640A, 0x3D9FCA6A42CEA8AC,\n"
    "\t0xBD9827C3541A2B74, 0x3D906B9BB0970A89, 0xBD8404EA9194A24E, 0x3FEFFFFFFFFFFFFF,\n"
    "\t0x3CD4CD9C04158CD7, 0xBCFE8DFD25FFA6DC, 0x3D1D7C149FC9E073, 0xBD350429DF3842B0,\n"
    "\t0x3D4796A3A04A8924, 0xBD55B22817ABA1D7, 0x3D60CE14DC9C5FAA, 0xBD665B980F3348E2,\n"
    "\t0x3D69EBF43E481AC6, 0xBD6A7BB7DD3BF60F, 0x3D680C169D78E7B0, 0xBD63889B41660747,\n"
    "\t0x3D5C8739A8FC1403, 0xBD52CAA6BE56320B};\n\n";

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
    {IR_FLOORDIV, K_UINT, UINT_DIV},
    {IR_FLOORDIV, K_SINT, INT_FLOORDIV},
    {IR_FLOORDIV, K_F32, F32_TO_F64 F32_DIVMOD "cvt.rn.f32.f64 $d, $e8;"},
    {IR_FLOORDIV, K_F64, DIVMOD_F64("$a", "$b") "mov.f64 $d, $e8;"},
    {IR_FLOORDIV, K_PRED, "and.pred $d, $a, $b;"}, /* a // 1 = a, a // 0 = 0 */
    {IR_MOD, K_UINT, UINT_REM},
    {IR_MOD, K_SINT, INT_MOD},
    {IR_MOD, K_F32, F32_TO_F64 F32_DIVMOD "cvt.rn.f32.f64 $d, $e2;"},
    {IR_MOD, K_F64, DIVMOD_F64("$a", "$b") "mov.f64 $d, $e2;"},
    {IR_MOD, K_PRED, "mov.pred $d, 0;"},
    {IR_IDIV, K_UINT, UINT_DIV},
    {IR_IDIV, K_SINT, INT_IDIV},
    {IR_IDIV, K_PRED, "and.pred $d, $a, $b;"}, /* a / 1 = a, a / 0 = 0 */
    {IR_REM, K_UINT, UINT_REM},
    {IR_REM, K_SINT, INT_REM},
    {IR_REM, K_PRED, "mov.pred $d, 0;"},
    {IR_UMULHI, K_B32, "mul.hi.u32 $d, $a, $b;"},
    {IR_UMULHI, K_B64, "mul.hi.u64 $d, $a, $b;"},
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
    {IR_SHL, K_B32, "shl.b32 $d, $a, $b;"},
    {IR_SHL, K_B64, "setp.gt.u64 $p0, $b, 63; selp.b64 $t0, 64, $b, $p0;"
                    "cvt.u32.u64 $r0, $t0; shl.b64 $d, $a, $r0;"},
    /* right shifts: arithmetic on signed dtypes, logical on unsigned ones */
    {IR_SHR, K_B32, "shr.$T $d, $a, $b;"},
    {IR_SHR, K_B64, "setp.gt.u64 $p0, $b, 63; selp.b64 $t0, 64, $b, $p0;"
                    "cvt.u32.u64 $r0, $t0; shr.$T $d, $a, $r0;"},
    /* unary */
    {IR_NEG, K_SINT | K_FLT, "neg.$T $d, $a;"}, /* unsigned: 0 - x in the frontend */
    {IR_NEG, K_H16, "xor.b16 $d, $a, 0x8000;"},
    {IR_NOT, K_INT, "not.$B $d, $a;"},
    {IR_NOT, K_PRED, "not.pred $d, $a;"},
    {IR_ABS, K_SINT, "neg.$T $t0, $a; max.$T $d, $a, $t0;"}, /* |MIN| wraps to MIN */
    {IR_ABS, K_FLT, "abs.$T $d, $a;"},
    {IR_ABS, K_H16, "and.b16 $d, $a, 0x7FFF;"},
    {IR_EXP, K_F32, EXP_F32("$a", "$d")},
    {IR_EXP, K_F64, EXP_F64("$a", "$d")},
    {IR_EXP2, K_F64, EXP2_F64},
    {IR_LOG, K_F64, LOG_F64},
    {IR_LOG2, K_F64, LOG2_F64},
    {IR_SIN, K_F64, SINCOS_F64("0")},
    {IR_COS, K_F64, SINCOS_F64("1")},
    {IR_SIGMOID, K_F64, "abs.f64 $ea, $a; neg.f64 $ea, $ea;" EXP_F64("$ea", "$eb")
                        "add.rn.f64 $ec, $eb, " F64_ONE "; setp.ge.f64 $p1, $a, " F64_ZERO ";"
                        "selp.f64 $ed, " F64_ONE ", $eb, $p1; div.rn.f64 $d, $ed, $ec;"},
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
    /* erf in f64 (above); fma rounds once (f16/bf16: promoted, fused in f32) */
    {IR_ERF, K_F64, ERF_F64("$a", "$d")},
    {IR_ERF, K_F32, "cvt.f64.f32 $ea, $a;" ERF_F64("$ea", "$eb") "cvt.rn.f32.f64 $d, $eb;"},
    {IR_FMA, K_FLT, "fma.rn.$T $d, $a, $b, $c;"},
    /* rounding to integers is exact; round: halfway cases away from zero
     * (x - trunc(x) is exact) */
    {IR_TRUNC, K_FLT, "cvt.rzi.$T.$T $d, $a;"},
    {IR_RINT, K_FLT, "cvt.rni.$T.$T $d, $a;"},
    {IR_ROUND, K_F32, "cvt.rzi.f32.f32 $t0, $a; sub.rn.f32 $t1, $a, $t0; abs.f32 $t1, $t1;"
                      "setp.ge.f32 $p0, $t1, 0f3F000000; mov.f32 $t2, 0f3F800000; copysign.f32 $t2, $a, $t2;"
                      "@$p0 add.rn.f32 $t0, $t0, $t2; mov.f32 $d, $t0;"},
    {IR_ROUND, K_F64, "cvt.rzi.f64.f64 $t0, $a; sub.rn.f64 $t1, $a, $t0; abs.f64 $t1, $t1;"
                      "setp.ge.f64 $p0, $t1, " F64_HALF "; mov.f64 $t2, " F64_ONE "; copysign.f64 $t2, $a, $t2;"
                      "@$p0 add.rn.f64 $t0, $t0, $t2; mov.f64 $d, $t0;"},
    /* copysign.T d, a, b is b with a's sign; fmod is exact (FMOD_F64), f32 in f64 */
    {IR_COPYSIGN, K_FLT, "copysign.$T $d, $b, $a;"},
    {IR_FMOD, K_F32, F32_TO_F64 FMOD_F64("$e0", "$e1") "cvt.rn.f32.f64 $d, $e2;"},
    {IR_FMOD, K_F64, FMOD_F64("$a", "$b") "mov.f64 $d, $e2;"},
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

/* The `approx` forms (Triton's lowering of '/' and tl.exp on float32):
 *   div  div.full.f32: within 2 ulp over the whole range (PTX ISA); the
 *        reciprocal of a divisor shared by many quotients is computed once
 *   exp  ex2.approx.f32 of the rounded product x * log2(e), as Triton's
 *        ExpOpConversionApprox: the product's rounding (and log2(e)'s, in
 *        float32) add a relative error of |x| 2^-23.7 to ex2's 2 ulp (f32
 *        results within 2 + 1.1 |x| ulp; docs/language.md)
 * Any other dtype takes the op's own rule (f64: div.rn.f64, the software
 * exp, as Triton's div.rn.d and libdevice exp). */
static const op_rule approx_rules[] = {
    {IR_DIV, K_F32, "div.full.f32 $d, $a, $b;"},
    {IR_EXP, K_F32, "mul.rn.f32 $t0, $a, 0f3FB8AA3B; ex2.approx.f32 $d, $t0;"},
};

static const char *find_rule(ir_op_kind op, const char *predicate, unsigned kind)
{
    if (op != IR_CMP && predicate && !strcmp(predicate, "approx")) {
        for (size_t i = 0; i < sizeof approx_rules / sizeof approx_rules[0]; i++)
            if (approx_rules[i].op == op && (approx_rules[i].kinds & kind))
                return approx_rules[i].tmpl;
        predicate = NULL;
    }
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

/* Ops whose 32-bit result may leave the range of i8/ui8/i16/ui16. */
static bool needs_wrap(ir_op_kind op)
{
    switch (op) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_FLOORDIV: case IR_IDIV: case IR_NEG: case IR_ABS:
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
    else if (dt == DT_I16)
        ptx_line(e, "cvt.s32.s16 %s, %s;", n, n);
    else if (dt == DT_U16)
        ptx_line(e, "and.b32 %s, %s, 65535;", n, n);
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

bool ptx_emit_elementwise(ptx_emitter *e, ir_op_kind op, const char *predicate, ir_dtype dt,
                          ptx_reg dst, const ptx_reg *src)
{
    const kind_info *k = kind_of(dt);
    if (!k)
        sw_unreachable(e->d, "PTX: %s on a value without a dtype", ir_ops[op].name);
    if (ptx_emit_math(e, op, dt, dst, src))
        return true;
    const char *tmpl = find_rule(op, predicate, k->kind);
    bool promote = false;
    if (!tmpl && k->kind == K_H16) {
        promote = true;
        k = &kinds[3];
        tmpl = find_rule(op, predicate, k->kind);
    }
    if (!tmpl) {
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
        o.c = in[2];
    }
    if (dt == DT_F64 && (op == IR_SIN || op == IR_COS))
        e->two_over_pi = true;
    if (op == IR_ERF)
        e->erf_table = true;
    ptx_expand(e, tmpl, &o);
    if (promote && float_result)
        narrow(e, dt, dst, out);
    if (ir_dtype_is_int(dt) && dt != DT_I1 && ir_dtypes[dt].bits < 32 && needs_wrap(op))
        wrap_narrow(e, dt, dst);
    return true;
}

/* ---- casts --------------------------------------------------------------------- */

#define D(x) (1u << DT_##x)
#define D_S32 (D(I8) | D(I16) | D(I32)) /* signed integers in b32 registers, sign-extended */
#define D_U32 (D(U8) | D(U16) | D(U32)) /* unsigned ones, zero-extended */
#define D_B32 (D_S32 | D_U32)
#define D_B64 (D(I64) | D(U64))
#define D_NARROW (D(I8) | D(U8) | D(I16) | D(U16)) /* exact in f32 */

/* Round to odd into f32 ($f0 holds the value rounded toward zero, $p0 says
 * it was inexact: set its last bit), then round to nearest into the 16-bit
 * format: one correct rounding, as f32 keeps more than 2 extra bits. */
#define STICKY_TO(fmt)                                                                 \
    "mov.b32 $r0, $f0; @$p0 or.b32 $r0, $r0, 1; mov.b32 $f1, $r0;"                     \
    "cvt.rn." fmt ".f32 $d, $f1;"
#define F64_STICKY "cvt.rz.f32.f64 $f0, $a; cvt.f64.f32 $e0, $f0; setp.neu.f64 $p0, $e0, $a;"
/* float -> integer: NaN gives 0 (cvt gives 0 itself only from f32 to
 * 32-bit destinations) */
#define NAN_TO_ZERO(F, B) "setp.nan." F " $p0, $a, $a; @$p0 mov." B " $d, 0;"

typedef struct cast_rule {
    unsigned from, to; /* dtype masks; f16/bf16 sources are widened to f32 first */
    const char *tmpl;
} cast_rule;

static const cast_rule cast_rules[] = {
    /* from i1: 0 or 1 */
    {D(I1), D_B32, "selp.b32 $d, 1, 0, $a;"},
    {D(I1), D_B64, "selp.b64 $d, 1, 0, $a;"},
    {D(I1), D(F32), "selp.f32 $d, 0f3F800000, 0f00000000, $a;"},
    {D(I1), D(F64), "selp.f64 $d, " F64_ONE ", " F64_ZERO ", $a;"},
    {D(I1), D(F16), "selp.b16 $d, 0x3C00, 0x0000, $a;"},
    {D(I1), D(BF16), "selp.b16 $d, 0x3F80, 0x0000, $a;"},
    /* to i1: x != 0 (true for NaN) */
    {D_B32, D(I1), "setp.ne.s32 $d, $a, 0;"},
    {D_B64, D(I1), "setp.ne.s64 $d, $a, 0;"},
    {D(F32), D(I1), "setp.neu.f32 $d, $a, 0f00000000;"},
    {D(F64), D(I1), "setp.neu.f64 $d, $a, " F64_ZERO ";"},
    /* integer to integer wraps: the low bits, extended as the destination
     * is held; widening extends as the source is held */
    {D_B32, D(I32) | D(U32), "mov.b32 $d, $a;"},
    {D_B32, D(I8), "cvt.s32.s8 $d, $a;"},
    {D_B32, D(U8), "and.b32 $d, $a, 255;"},
    {D_B32, D(I16), "cvt.s32.s16 $d, $a;"},
    {D_B32, D(U16), "and.b32 $d, $a, 65535;"},
    {D_S32, D_B64, "cvt.s64.s32 $d, $a;"},
    {D_U32, D_B64, "cvt.u64.u32 $d, $a;"},
    {D_B64, D_B64, "mov.b64 $d, $a;"},
    {D_B64, D(I32) | D(U32), "cvt.u32.u64 $d, $a;"},
    {D_B64, D(I8), "cvt.u32.u64 $r0, $a; cvt.s32.s8 $d, $r0;"},
    {D_B64, D(U8), "cvt.u32.u64 $r0, $a; and.b32 $d, $r0, 255;"},
    {D_B64, D(I16), "cvt.u32.u64 $r0, $a; cvt.s32.s16 $d, $r0;"},
    {D_B64, D(U16), "cvt.u32.u64 $r0, $a; and.b32 $d, $r0, 65535;"},
    /* integer to float rounds to nearest once */
    {D_S32, D(F32), "cvt.rn.f32.s32 $d, $a;"},
    {D_U32, D(F32), "cvt.rn.f32.u32 $d, $a;"},
    {D_S32, D(F64), "cvt.rn.f64.s32 $d, $a;"},
    {D_U32, D(F64), "cvt.rn.f64.u32 $d, $a;"},
    {D_S32, D(F16), "cvt.rn.f16.s32 $d, $a;"},
    {D_U32, D(F16), "cvt.rn.f16.u32 $d, $a;"},
    {D_NARROW, D(BF16), "cvt.rn.f32.s32 $f0, $a; cvt.rn.bf16.f32 $d, $f0;"},
    {D(I32), D(BF16), "cvt.rz.f32.s32 $f0, $a; cvt.rzi.s32.f32 $r1, $f0; setp.ne.s32 $p0, $r1, $a;"
                      STICKY_TO("bf16")},
    {D(U32), D(BF16), "cvt.rz.f32.u32 $f0, $a; cvt.rzi.u32.f32 $r1, $f0; setp.ne.u32 $p0, $r1, $a;"
                      STICKY_TO("bf16")},
    {D(I64), D(F32), "cvt.rn.f32.s64 $d, $a;"},
    {D(U64), D(F32), "cvt.rn.f32.u64 $d, $a;"},
    {D(I64), D(F64), "cvt.rn.f64.s64 $d, $a;"},
    {D(U64), D(F64), "cvt.rn.f64.u64 $d, $a;"},
    {D(I64), D(F16), "cvt.rn.f16.s64 $d, $a;"},
    {D(U64), D(F16), "cvt.rn.f16.u64 $d, $a;"},
    {D(I64), D(BF16), "cvt.rz.f32.s64 $f0, $a; cvt.rzi.s64.f32 $l0, $f0; setp.ne.s64 $p0, $l0, $a;"
                      STICKY_TO("bf16")},
    {D(U64), D(BF16), "cvt.rz.f32.u64 $f0, $a; cvt.rzi.u64.f32 $l0, $f0; setp.ne.u64 $p0, $l0, $a;"
                      STICKY_TO("bf16")},
    /* float to integer truncates and saturates; NaN gives 0 */
    {D(F32), D(I32), "cvt.rzi.s32.f32 $d, $a;"},
    {D(F64), D(I32), "cvt.rzi.s32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")},
    {D(F32), D(U32), "cvt.rzi.u32.f32 $d, $a;" NAN_TO_ZERO("f32", "b32")},
    {D(F64), D(U32), "cvt.rzi.u32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")},
    {D(F32), D(I64), "cvt.rzi.s64.f32 $d, $a;" NAN_TO_ZERO("f32", "b64")},
    {D(F64), D(I64), "cvt.rzi.s64.f64 $d, $a;" NAN_TO_ZERO("f64", "b64")},
    {D(F32), D(U64), "cvt.rzi.u64.f32 $d, $a;" NAN_TO_ZERO("f32", "b64")},
    {D(F64), D(U64), "cvt.rzi.u64.f64 $d, $a;" NAN_TO_ZERO("f64", "b64")},
    {D(F32), D(I8), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 127; max.s32 $d, $d, -128;"},
    {D(F64), D(I8), "cvt.rzi.s32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")
                    "min.s32 $d, $d, 127; max.s32 $d, $d, -128;"},
    {D(F32), D(U8), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 255; max.s32 $d, $d, 0;"},
    {D(F64), D(U8), "cvt.rzi.s32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")
                    "min.s32 $d, $d, 255; max.s32 $d, $d, 0;"},
    {D(F32), D(I16), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 32767; max.s32 $d, $d, -32768;"},
    {D(F64), D(I16), "cvt.rzi.s32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")
                     "min.s32 $d, $d, 32767; max.s32 $d, $d, -32768;"},
    {D(F32), D(U16), "cvt.rzi.s32.f32 $d, $a; min.s32 $d, $d, 65535; max.s32 $d, $d, 0;"},
    {D(F64), D(U16), "cvt.rzi.s32.f64 $d, $a;" NAN_TO_ZERO("f64", "b32")
                     "min.s32 $d, $d, 65535; max.s32 $d, $d, 0;"},
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
