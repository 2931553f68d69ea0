/* irgen.h - lowering of a kernel's syntax tree to the semantic IR, for one
 * specialisation (parameter types + constexpr values).
 *
 * irgen is also the type checker: Python-level values are tracked as
 * compile-time constants (literals, constexprs, dtypes) or typed IR values;
 * constant expressions fold here (constexpr folding), mixed operands are
 * promoted and broadcast by explicit sw.cast/sw.splat ops, and every type
 * or shape mismatch is a DIAG_COMPILE error at the user's line and column.
 */
#ifndef SWAGE_IRGEN_H
#define SWAGE_IRGEN_H

#include "ast.h"
#include "spec.h"

/* Parameter facts irgen records for the API (names, constexpr flags, types). */
typedef struct irgen_param {
    const char *name;
    bool is_constexpr;
    ir_type type;        /* runtime parameters */
    const_value value;   /* constexprs (given, or a number's default; a string, None or
                            tuple default is CONST_NONE here) */
} irgen_param;

typedef struct irgen_result {
    ir_module *module;
    irgen_param *params;
    int nparams;
} irgen_result;

/* The @sw.jit functions a kernel may call, by the names its calls use:
 * each source holds one def (as inspect.getsource gives it). `file`, when
 * set, is a whole Python file whose top-level defs are callable too (the
 * swage command compiles a kernel from a file). */
typedef struct irgen_functions {
    int n;
    const char *const *names;
    const source_file *sources;
    const source_file *file;
} irgen_functions;

/* Builds the module for `fn` specialised by `spec`. Every runtime parameter
 * needs a type (from spec, or a dtype annotation); every constexpr a value
 * (from spec, or a default). Returns false with a diagnostic on error. */
bool irgen_kernel(arena *a, const source_file *src, const ast_func *fn, kernel_spec *spec,
                  irgen_result *out, diag *d);
/* The same, with the functions the kernel may call (NULL: none). */
bool irgen_kernel_calls(arena *a, const source_file *src, const ast_func *fn, kernel_spec *spec,
                        const irgen_functions *functions, irgen_result *out, diag *d);

#endif
