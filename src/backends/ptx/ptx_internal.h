/* ptx_internal.h - what the PTX emitter's files share: the emitter state,
 * typed virtual registers, instruction templates, and one group of
 * prototypes per file (emit.c, ptx_ops.c, ptx_math.c, ptx_simt.c, ptx_atomic.c).
 *
 * Every IR value maps to one virtual register per slot (a scalar has one
 * slot, a vector<VxT> has V). Registers are typed by class (%p predicates
 * for i1, %h b16 for f16/bf16 storage, %r b32 for i8/ui8/i32, %f f32, %rd
 * 64-bit integers and addresses, %fd f64) and declared after the body is
 * emitted. An IR value's registers are written once, except the registers
 * of sw.for carried values and sw.if results, which are fresh for that op.
 */
#ifndef SWAGE_PTX_INTERNAL_H
#define SWAGE_PTX_INTERNAL_H

#include "ptx.h"

/* ---- registers ----------------------------------------------------------- */

typedef enum ptx_class {
    RC_PRED, /* %p  .pred */
    RC_B16,  /* %h  .b16: f16/bf16 bit patterns */
    RC_B32,  /* %r  .b32: i8, ui8, i16, ui16 (canonical: sign/zero-extended), i32, ui32 */
    RC_F32,  /* %f  .f32 */
    RC_B64,  /* %rd .b64: i64, global addresses */
    RC_F64,  /* %fd .f64 */
    RC_COUNT
} ptx_class;

/* A virtual register: class in the top byte, number (from 1) below. */
typedef uint32_t ptx_reg;
#define PTX_REG(cls, n) ((ptx_reg)(((uint32_t)(cls) << 24) | (uint32_t)(n)))
#define PTX_REG_CLASS(r) ((ptx_class)((r) >> 24))
#define PTX_REG_NUM(r) ((int)((r)&0xffffff))

/* "%rd12"; buf holds at least 16 bytes. */
const char *ptx_reg_name(ptx_reg r, char *buf);

/* ---- emitter state --------------------------------------------------------- */

typedef struct ptx_emitter {
    const ir_module *m;
    diag *d;
    int sm;                 /* target compute capability, 10*major+minor */
    int need_version;       /* lowest PTX ISA version the text needs so far */
    arena ar;               /* scratch for this emission, freed at the end */
    strbuf body;            /* the instructions, before declarations */
    strbuf params;          /* the .entry's parameter list */
    int nregs[RC_COUNT];    /* registers used per class (numbered from 1) */
    ptx_reg **vals;         /* per IR value: its slot registers, or NULL */
    int nlabels;
    const ir_op *op;        /* the op being emitted (for diagnostics) */
    const char *smem_name;  /* the shared array's name; NULL without shared memory */
    int smem_bytes;
    ptx_reg smem_base;      /* u32 shared-window address of the array */
    bool two_over_pi;       /* declare PTX_TWO_OVER_PI (float64 sin/cos use it) */
    bool erf_table;         /* declare PTX_ERF_TABLE (erf and erfc use it) */
    bool erfc_table;        /* declare PTX_ERFC_TABLE (erfc uses it) */
    bool vprintf;           /* declare vprintf (simt.print calls it) */
    int print_bytes;        /* the .local argument buffer of vprintf; 0: none */
    strbuf *strings;        /* the module's .global strings (format strings) */
    int *nstrings;          /* how many the module has (they are numbered) */
} ptx_emitter;

/* vprintf's declaration, and the names of its argument buffer and of the
 * format strings (__swage_fmt_<n>). */
#define PTX_VPRINTF_DECL                                                               \
    ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, "  \
    ".param .b64 vprintf_param_1);\n\n"
#define PTX_PRINT_BUF "__swage_print_buf"

/* The bits of 2/pi that float64 sin/cos reduce huge arguments with: a
 * module-level .const array of 64-bit words (ptx_ops.c). */
#define PTX_TWO_OVER_PI "__swage_two_over_pi"
extern const char ptx_two_over_pi_decl[];
/* The Taylor coefficients erf reads (ptx_ops.c), a .const array of f64. */
#define PTX_ERF_TABLE "__swage_erf_table"
extern const char ptx_erf_table_decl[];
/* The polynomials of erfcx that erfc reads (ptx_math.c), .const f64. */
#define PTX_ERFC_TABLE "__swage_erfc_table"
extern const char ptx_erfc_table_decl[];

/* ---- emit.c: the driver, registers, labels, templates ------------------- */

ptx_reg ptx_new_reg(ptx_emitter *e, ptx_class cls);
int ptx_new_label(ptx_emitter *e);
/* Raises need_version to at least v (PTX ISA as 10*major+minor). */
void ptx_need_version(ptx_emitter *e, int v);
/* One instruction line: a tab, the printf-formatted text, a newline. */
void ptx_line(ptx_emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ptx_label(ptx_emitter *e, int label);
/* "mov.<cls> dst, src;" (nothing when dst == src). */
void ptx_mov(ptx_emitter *e, ptx_reg dst, ptx_reg src);

/* Instruction templates: PTX text in which `$` names what is filled in.
 *   $d $a $b $c    the result and the operands
 *   $t0..$tf       temporaries of the template's compute class (one hex digit)
 *   $p0..$pf       predicates; $r b32, $l b64, $f f32, $e f64, $h b16
 *   $L0..$Lf       labels local to this expansion
 *   $T $B $U       the compute type (s32 s64 f32 f64), its bit type
 *                  (b32 b64) and its unsigned type (u32 u64)
 * Every instruction ends with ';', every label with ':'. */
typedef struct ptx_operands {
    ptx_reg d, a, b, c;
    ptx_class tclass;       /* class of $t */
    const char *T, *B, *U;  /* type names for $T $B $U (may be NULL if unused) */
} ptx_operands;

void ptx_expand(ptx_emitter *e, const char *tmpl, const ptx_operands *ops);

/* Value registers. */
int ptx_slots(ir_type t); /* 1 for a scalar or pointer, len for a vector */
ptx_class ptx_class_of(ir_type t); /* the class of one slot's register */
ptx_reg *ptx_define(ptx_emitter *e, ir_value v); /* fresh registers for v */
void ptx_alias(ptx_emitter *e, ir_value v, ptx_reg *slots); /* v uses these registers */
ptx_reg *ptx_regs(ptx_emitter *e, ir_value v); /* v's registers; internal error if none */

/* Reports a user-facing compile error at the current op; returns false. */
bool ptx_compile_error(ptx_emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- ptx_ops.c: elementwise ops, comparisons, select, casts (tables) ------ */

/* Emits `kind` (an elementwise sw.* op) on one slot of dtype `dt`:
 * dst = op(src[0], src[1]). For sw.cmp `predicate` names the comparison
 * and dt is the operands' dtype; for sw.select src is (cond, a, b).
 * Returns false after a compile error (an op the GPU cannot do yet). */
bool ptx_emit_elementwise(ptx_emitter *e, ir_op_kind kind, const char *predicate, ir_dtype dt,
                          ptx_reg dst, const ptx_reg *src);
/* dst (of dtype `to`) = sw.cast of src (of dtype `from`). */
void ptx_emit_cast(ptx_emitter *e, ir_dtype from, ir_dtype to, ptx_reg dst, ptx_reg src);
/* The register class holding a dtype. */
ptx_class ptx_dtype_class(ir_dtype dt);

/* ---- ptx_math.c: libdevice functions computed in software ------------------- */

/* Emits `op` on one slot when it is one of ptx_math.c's functions (tan,
 * the inverse and hyperbolic functions, expm1, log1p, log10, exp10, cbrt,
 * atan2, pow, hypot) of a float dtype; false (nothing emitted) otherwise. */
bool ptx_emit_math(ptx_emitter *e, ir_op_kind op, ir_dtype dt, ptx_reg dst, const ptx_reg *src);

/* ---- ptx_simt.c: SIMT ops, memory, constants ------------------------------ */

/* Emits one op that is not control flow; false after a compile error. */
bool ptx_emit_simple_op(ptx_emitter *e, const ir_op *op);

/* ---- ptx_atomic.c: simt.atomic_rmw and simt.atomic_cas --------------------- */

bool ptx_emit_atomic(ptx_emitter *e, const ir_op *op);

#endif
