/* spec.h - the specialisation of a kernel: its parameters' types (the
 * signature) and its constexpr values, parsed from the strings of the
 * public API ("x_ptr=*f32,n=i32" and "BLOCK=128,EPS=1e-5,FLAG=True").
 */
#ifndef SWAGE_SPEC_H
#define SWAGE_SPEC_H

#include "../ir/ir.h"

/* CONST_U64: an integer from 2^63 to 2^64 - 1, held as its bits in i (a
 * uint64, as Triton types such a constant); CONST_INT holds int64's range. */
/* CONST_STR, CONST_NONE and CONST_TUPLE come only from the constexprs
 * string (spec_parse_value): irgen turns them into its own string, None
 * and tuple values, so a compile-time number (gval's GV_CONST) never has
 * these kinds. */
typedef enum const_kind {
    CONST_INT, CONST_FLOAT, CONST_BOOL, CONST_DTYPE, CONST_U64, CONST_STR, CONST_NONE, CONST_TUPLE
} const_kind;

/* A compile-time value: a literal, a constexpr, or a dtype (sl.float32). */
typedef struct const_value {
    const_kind kind;
    int64_t i;    /* INT, BOOL (0/1), DTYPE (an ir_dtype), U64 (the bits) */
    double f;     /* FLOAT */
    const char *s;                    /* STR: the decoded text (no NUL inside) */
    const struct const_value *items;  /* TUPLE */
    int nitems;
} const_value;

typedef struct spec_entry {
    const char *name;
    ir_type type;       /* signature entries */
    const_value value;  /* constexpr entries */
    bool used;          /* set by irgen when a parameter consumes it */
} spec_entry;

typedef struct kernel_spec {
    spec_entry *types;
    int ntypes, captypes;
    spec_entry *constexprs;
    int nconstexprs, capconstexprs;
} kernel_spec;

/* Parses both strings (either may be NULL or empty). Reports a DIAG_ARGUMENT
 * error naming the bad entry. */
bool spec_parse(arena *a, const char *signature, const char *constexprs, kernel_spec *out,
                diag *d);
/* Parses one type of the signature grammar: "*f32", "i32", "float16". */
bool spec_parse_type(const char *text, size_t len, ir_type *out);
/* Writes the signature-grammar spelling of t ("*f32", "i32"). */
void spec_print_type(ir_type t, strbuf *out);
/* Parses one constexpr value: 128, -3, 0x10, 1.5, 1e-5, inf, True, False, float16
 * (spec_parse_value); spec_parse_value_ex also reads 'relu' or "relu" (a
 * string, with the escapes \\ \' \" \n \t \r \xHH), None, and tuples of
 * values: (16, 32), (1,), (). */
bool spec_parse_value(const char *text, size_t len, const_value *out);
bool spec_parse_value_ex(arena *a, const char *text, size_t len, const_value *out);

spec_entry *spec_find_type(kernel_spec *s, const char *name);
spec_entry *spec_find_constexpr(kernel_spec *s, const char *name);

#endif
