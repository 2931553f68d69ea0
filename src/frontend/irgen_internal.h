/* irgen_internal.h - shared state of irgen.c (statements, scopes),
 * irgen_expr.c (expressions, promotion) and irgen_builtins.c (sl.*). */
#ifndef SWAGE_IRGEN_INTERNAL_H
#define SWAGE_IRGEN_INTERNAL_H

#include "irgen.h"
#include "../support/checked.h"

/* A Python-level value during lowering. */
typedef enum gval_kind {
    GV_ERROR = 0, /* an error was reported; propagate silently */
    GV_CONST,     /* compile-time constant (c) */
    GV_IR,        /* typed IR value (v) */
    GV_NONE,      /* Python None */
    GV_MODULE,    /* the language module (sl) */
    GV_UNDEF,     /* a name that exists but may not be read (why/where in note) */
    GV_TUPLE,     /* a tuple of values (items): what a function returns, x.shape */
    GV_STR,       /* a compile-time string (str): a literal or an sl.constexpr, whose
                     name is in note (NULL for a literal) */
} gval_kind;

typedef struct gval gval;
struct gval {
    gval_kind kind;
    const_value c;
    ir_value v;
    const char *note;  /* GV_UNDEF: the sentence explaining why; GV_STR: the constexpr */
    const char *str;   /* GV_STR */
    const gval *items; /* GV_TUPLE */
    int nitems;
};

typedef struct binding {
    const char *name;
    gval val;
    uint32_t hash;  /* of name */
    int32_t next;   /* the next older binding in the same hash bucket, or -1 */
    int32_t seen;   /* scratch stamp for the if merge (env.stamp) */
} binding;

/* A change env_set made while a mark was open, so that env_undo can take
 * it back. */
typedef struct env_change {
    int32_t index; /* the binding */
    bool added;    /* the binding was new (it is undone by removing it) */
    gval old;      /* its value before, when it was not new */
} env_change;

/* Names to values, in the order they were first bound; looked up by hash.
 * Scopes of runtime if and for nest as marks on one env: env_mark starts
 * logging changes and env_undo takes them back, so entering a branch
 * costs nothing however many names are bound. */
typedef struct env {
    binding *items;
    int n, cap;
    int32_t *buckets;  /* nbuckets heads (newest binding first), or NULL */
    uint32_t nbuckets; /* a power of two */
    env_change *log;
    int nlog, caplog;
    int marks;         /* open marks; changes are logged while > 0 */
    int32_t stamp;
} env;

/* What makes a kernel a segment program or a grid program (docs/segments.md):
 * the first use of each, for diagnostics that name both. */
typedef struct segment_state {
    ir_value segment_id;   /* the one sw.segment_id of the kernel, or IR_NO_VALUE */
    src_loc segment_id_at; /* the first sl.segment_id */
    ir_value offsets;      /* the offsets every sl.segment shares, or IR_NO_VALUE */
    src_loc segment_at;    /* the first sl.segment */
    src_loc grid_at;       /* the first sl.program_id / sl.num_programs */
    const char *grid_name;
} segment_state;

/* Where a return, break or continue leaves to: the body of the function
 * being lowered (the kernel or an inlined @sw.jit function) or of the
 * innermost runtime loop. Statements after an if that may leave are
 * lowered inside its branches (irgen.c, lower_tail), so each exit ends
 * its path with the values it leaves with: `nout` gvals, the function's
 * return value (one gval, a GV_TUPLE for several), or the loop's flag (a
 * while loop's next condition; a for loop with break: whether it broke)
 * and carried values. */
typedef struct ig_tail {
    bool loop;
    int nout;
    /* loops */
    const ast_stmt *stmt;   /* the for or while */
    bool is_while;
    bool flag;              /* out[0] is the flag (always for while) */
    int ncarried;
    const char **carried;   /* out[flag + i] is carried[i], of types[i] */
    const ir_type *types;
    /* functions */
    const char *fname;      /* NULL: the kernel */
} ig_tail;

/* A @sw.jit function a kernel may call, parsed on its first call
 * (irgen_calls.c). */
typedef struct ig_callee {
    const char *name;
    const source_file *src;
    const ast_func *fn;
} ig_callee;

typedef struct irgen {
    arena *ar;
    const source_file *src;
    diag *d;
    ir_module *m;
    ir_block *body;  /* the kernel's top-level block */
    ir_block *block; /* where ops are appended */
    env scope;
    int unroll_budget;
    /* The innermost runtime construct (for loop or if on a runtime value)
     * around the ops being lowered, NULL at the top level: segment data may
     * not be used there. */
    const char *region_what;
    src_loc region_at;
    int region_line;        /* region_at's line in the user's file */
    segment_state seg;
    /* Calls of @sw.jit functions (irgen_calls.c): the table the caller
     * gave, the functions parsed so far, the names being inlined (for
     * recursion), and the outermost call's place in the kernel, which
     * every op made while inlining carries. */
    const irgen_functions *functions;
    ig_callee **callees;
    int ncallees, capcallees;
    const char **call_stack;
    int call_depth, capcall;
    src_loc call_loc;
    /* A method call's receiver, already evaluated: ig_expr of bound_expr
     * gives bound_val (x.exp() lowers as sl.exp(x) without evaluating x
     * twice). */
    const struct ast_expr *bound_expr;
    gval bound_val;
    /* The next float division (sl.div_rn, sl.fdiv(ieee_rounding=True)) or
     * exp (libdevice's exp) is the accurate one: no `approx` attribute.
     * Set by the built-in, after its arguments are evaluated (division)
     * or read and cleared before them (exp). */
    bool exact_div, exact_exp;
} irgen;

/* The location an op gets: loc, or while inlining a call, the call's place
 * in the kernel (ops carry lines of the kernel's source only). */
static inline src_loc ig_op_loc(const struct irgen *g, src_loc loc)
{
    return g->call_depth ? g->call_loc : loc;
}

/* Reports a compile error at loc; returns GV_ERROR. */
gval ig_error(irgen *g, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool ig_failed(const irgen *g);

/* Emits an op into the current block and returns its first result (or
 * IR_NO_VALUE for ops without results). */
ir_op *ig_emit(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
               const ir_type *results, int nresults);
ir_value ig_emit1(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
                  ir_type result);

static inline gval gv_ir(ir_value v) { return (gval){.kind = GV_IR, .v = v}; }
static inline gval gv_int(int64_t i) { return (gval){.kind = GV_CONST, .c = {.kind = CONST_INT, .i = i}}; }
/* A constant from 2^63 to 2^64 - 1 (a uint64, as Triton types it). */
static inline gval gv_u64(uint64_t u) { return (gval){.kind = GV_CONST, .c = {.kind = CONST_U64, .i = (int64_t)u}}; }
static inline gval gv_float(double f) { return (gval){.kind = GV_CONST, .c = {.kind = CONST_FLOAT, .f = f}}; }
static inline gval gv_bool(bool b) { return (gval){.kind = GV_CONST, .c = {.kind = CONST_BOOL, .i = b}}; }
static inline ir_type ig_type(irgen *g, gval v) { return ir_value_type(g->m, v.v); }

/* Environment. The pointer env_lookup returns is for reading: change a
 * binding with env_set (the mark log must see it); it is valid until the
 * next env_set. */
gval *env_lookup(env *e, const char *name);
void env_set(irgen *g, env *e, const char *name, gval v);
/* Starts logging changes to e; returns the mark env_undo takes. */
int env_mark(env *e);
/* Restores e to what it was at mark (values and bindings), ending that mark. */
void env_undo(env *e, int mark);
/* "name 'x' is not defined", with the nearest name in scope (or sl.x for a
 * built-in or dtype used without sl.); returns GV_ERROR. */
gval ig_undefined_name(irgen *g, src_loc loc, const char *name);

/* Statements (irgen.c). */
/* Lowers a function body (the kernel's or an inlined function's) with
 * early returns; *out gets the value it returns (GV_NONE when it falls off
 * the end). */
void ig_lower_function_body(irgen *g, const ast_block *body, const char *fname, gval *out);
/* A condition of if, while, `x if c else y`: a compile-time constant as a
 * bool constant, or an int1 scalar; an integer or float scalar means
 * `!= 0` as in Triton. Tiles are an error naming `what`. */
gval ig_condition(irgen *g, const ast_expr *e, const char *what);
/* Whether an annotation is sl.constexpr. */
bool ig_is_constexpr_annotation(const ast_expr *a);
/* Whether two values are the same (for merges); tuples item by item. */
bool ig_same_gval(gval a, gval b);

/* Calls of @sw.jit functions (irgen_calls.c). */
/* Whether `name` is a function of the call table (and not shadowed). */
bool ig_is_function(irgen *g, const char *name);
/* Inlines the call; returns what the function returns. */
gval ig_call_function(irgen *g, const ast_expr *call, const char *name);
/* Inlines `name` called at loc with already evaluated positional args
 * (combine functions of scans and reductions); `who` names the caller in
 * messages ("sl.reduce"). */
gval ig_call_function_values(irgen *g, src_loc loc, const char *name, const char *who, const gval *args,
                             int nargs);
/* sl.static_assert(cond, msg=""): a compile error at cond when false. */
gval ig_static_assert(irgen *g, const ast_expr *call);
/* sl.static_print(*values, sep=" ", end="\n"): writes the values known
 * while compiling (and the types of runtime ones) to stderr. */
gval ig_static_print(irgen *g, const ast_expr *call);
/* sl.device_print(prefix, *values, hex=False): an sw.print op. */
gval ig_device_print(irgen *g, const ast_expr *call);

/* Statements (irgen.c) and loops (irgen_loops.c). */
void ig_lower_block(irgen *g, const ast_block *b);
/* Lowers `body` to its end or its exit (return, break, continue), setting
 * out[0 .. t->nout) to what the paths leave with. */
void ig_lower_tail(irgen *g, const ast_block *body, const ig_tail *t, gval *out);
void ig_lower_for(irgen *g, const ast_stmt *s);
void ig_lower_while(irgen *g, const ast_stmt *s);
/* Whether a value can be carried out of a branch or loop (an IR value or
 * a constant that is not a dtype). */
bool ig_mergeable(gval v);
/* A name that exists but may not be read: GV_UNDEF with the sentence
 * fmt (naming it and a line) for when it is read. */
gval ig_undef(irgen *g, const char *fmt, const char *name, int line);
/* The line of loc in the kernel's own file. */
int ig_user_line(const irgen *g, src_loc loc);
/* Marks the ops lowered from here on as inside a runtime construct (no
 * segment data there); returns what ig_leave_region restores. */
typedef struct region_mark {
    const char *what;
    src_loc at;
    int line;
} region_mark;
region_mark ig_enter_region(irgen *g, const char *what, src_loc at);
void ig_leave_region(irgen *g, region_mark saved);

/* Expressions (irgen_expr.c). */
gval ig_expr(irgen *g, const ast_expr *e);
/* Makes an IR value of `t` (scalar or tile) from a constant; reports when it
 * does not fit an integer type. */
ir_value ig_materialize(irgen *g, src_loc loc, const_value c, ir_type t);
/* A constexpr's value from the constexprs string (strings, None and tuples
 * included) as a gval; `name` names it in messages. */
gval ig_from_const(irgen *g, const_value c, const char *name);
/* Whether v is known while compiling: a number, bool, dtype, string, None,
 * or a tuple of such values (what an sl.constexpr may hold). */
bool ig_is_known(gval v);
/* "the string 'relu' (the sl.constexpr 'ACT')", "None", "a tuple": what a
 * compile-time value is, for messages. */
const char *ig_known_text(irgen *g, gval v);
/* Default type of a constant: int -> i32 (i64 if it does not fit), float ->
 * f32, bool -> i1. */
ir_type ig_const_type(const_value c);
/* Triton's _pick_sum_dtype: what sum/prod/cumsum of dt accumulate in. */
ir_dtype ig_sum_dtype(ir_dtype dt);
/* An integer constant's value as Python prints it (a CONST_U64 unsigned). */
const char *ig_const_int_text(const_value c, char buf[48]);
/* Any value to an IR value: constants take `like`'s element type when given
 * (type.kind != TY_VOID), else their default type. */
ir_value ig_to_ir(irgen *g, src_loc loc, gval v, ir_type like);
/* Converts an IR value to element dtype dt (same shape); no-op when equal. */
ir_value ig_cast(irgen *g, src_loc loc, ir_value v, ir_dtype dt);
/* Broadcasts a scalar or a tile to shape_of's shape (Triton's rule: dims
 * right-aligned, each equal or 1 in v); no-op when the shapes are equal;
 * reports a shape mismatch otherwise (irgen_shapes.c). */
ir_value ig_broadcast(irgen *g, src_loc loc, ir_value v, ir_type shape_of);
/* Shapes (irgen_shapes.c). A tile's rank and dims (0 for anything else). */
int ig_dims(ir_type t, int32_t dims[IR_MAX_RANK]);
/* "(4, 8)" / "(16,)": a tile's shape for messages. */
const char *ig_shape_text(ir_type t, char buf[64]);
/* v as a tile of these dims, the same elements row-major (sw.reshape; a
 * scalar is splat). */
ir_value ig_reshape(irgen *g, src_loc loc, ir_value v, int rank, const int32_t *dims);
/* The shape two types broadcast to (Triton's rule: right-aligned, each dim
 * equal or 1), as a type with a's element: a scalar and a tile give the
 * tile; reports a mismatch naming `what`. */
bool ig_common_shape(irgen *g, src_loc loc, ir_type a, ir_type b, ir_type *out, const char *what);
/* Broadcasts both values to their common shape. */
bool ig_broadcast_pair(irgen *g, src_loc loc, ir_value *a, ir_value *b, const char *what);
/* x[...] with None, ':' and '...' items. */
gval ig_subscript(irgen *g, const ast_expr *e);
/* x.T: the tile with its dims reversed. */
gval ig_transpose(irgen *g, src_loc loc, gval x);
/* A shape argument: an int or a tuple of 1..IR_MAX_RANK power-of-two ints. */
bool ig_shape_arg(irgen *g, const ast_expr *a, gval v, int *rank, int32_t dims[IR_MAX_RANK]);
/* An axis of a tile of `rank` dims (negative ones count from the end). */
bool ig_axis_arg(irgen *g, const ast_expr *a, gval v, int rank, int *axis);
/* sl.broadcast_to, broadcast, expand_dims, reshape, view, trans, permute;
 * self is the tile of the method form (x.reshape(...)), else NULL. */
bool ig_is_shape_builtin(const char *name);
gval ig_shape_builtin(irgen *g, const ast_expr *call, const char *name, const gval *self);
/* sl.join, sl.split, sl.interleave, sl.cat (irgen_join.c); self is the
 * receiver of x.split(). */
bool ig_is_join_builtin(const char *name);
gval ig_join_builtin(irgen *g, const ast_expr *call, const char *name, const gval *self);
/* The dtype two operands promote to (see docs/language.md). */
ir_dtype ig_promote(ir_dtype a, ir_dtype b);
/* Whether a and b are integers of different signedness (int1 is neither). */
bool ig_mixed_signedness(ir_dtype a, ir_dtype b);
/* Promotes and broadcasts two operands to one type; for arithmetic and
 * comparisons. Returns false after reporting. */
bool ig_unify(irgen *g, src_loc loc, gval a, gval b, ir_value *ra, ir_value *rb, const char *what);
/* Requires a constant int (e.g. an axis); reports `what` otherwise. */
bool ig_const_int(irgen *g, const ast_expr *e, gval v, const char *what, int64_t *out);
const char *ig_type_name(ir_type t, char buf[64]);

/* Binary operator on two values (augmented assignment); e gives the location. */
gval ig_binop(irgen *g, const ast_expr *e, ast_op op, gval a, gval b);

/* Segment programs (irgen_segments.c). */
/* True when t is a segment view (!sw.segment<T>) or value (tensor<?xT>). */
bool ig_is_segment_type(ir_type t);
/* The checks every emitted op passes (ig_emit): segment data stays at the
 * top level, views reach only the ops that read them, segment values never
 * meet tiles or non-elementwise ops. Reports and returns false otherwise. */
bool ig_check_segment_op(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
                         const ir_type *results, int nresults);
/* Records a use of sl.program_id / sl.num_programs; false (reported) in a
 * segment program. */
bool ig_note_grid_query(irgen *g, src_loc loc, const char *name);
/* Records a use of an atomic (sl.atomic_*); false (reported) in a
 * segment program: atomics are for grid programs. */
bool ig_note_atomic(irgen *g, src_loc loc, const char *name);
/* The same for sl.cumsum and the other built-ins of irgen_scans.c. */
bool ig_note_scan(irgen *g, src_loc loc, const char *name);
/* A merged (if) or loop-carried variable may not hold segment data. */
bool ig_check_not_segment(irgen *g, src_loc loc, const char *name, ir_type t, const char *how);
gval ig_segment_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args);

/* Built-ins (irgen_builtins.c): `sl.<name>(...)`, `x.to(...)`. */
/* The pointer and mask arguments of sl.<who> (load, store, the atomics),
 * already evaluated: p must be a pointer or a tile of pointers, m None,
 * True or an int1 value; a scalar pointer is broadcast to a tile mask's
 * shape and a scalar mask to a tile pointer's. *mask is IR_NO_VALUE for
 * no mask. Returns false after reporting at pa or ma. */
bool ig_ptr_and_mask(irgen *g, const char *who, const ast_expr *pa, gval p, const ast_expr *ma, gval m,
                     ir_value *ptr, ir_value *mask);
gval ig_call_builtin(irgen *g, const ast_expr *call, const char *name);
/* sl.extra.libdevice.<name>(...): the built-in of the same meaning, or an
 * error naming a libdevice function Swage lacks. */
gval ig_call_libdevice(irgen *g, const ast_expr *call, const char *name);
/* sl.randint, sl.rand, sl.randn (irgen_random.c): args are seed, offset,
 * n_rounds (NULL when not given). */
gval ig_lower_random(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args);
/* `sl.math.<name>(...)`: the built-ins Triton's language.math has. */
gval ig_call_math_builtin(irgen *g, const ast_expr *call, const char *name);
gval ig_method_call(irgen *g, const ast_expr *call, gval self, const char *method);
/* sl.<name> used as a value (dtypes); GV_ERROR after reporting if unknown. */
gval ig_builtin_attr(irgen *g, const ast_expr *e, const char *name);
bool ig_is_builtin_name(const char *name);
/* The swage.language name (built-in or dtype) nearest to a misspelt one, or NULL. */
const char *ig_closest_language_name(const char *name);

/* The atomics (irgen_atomics.c): sl.atomic_add, atomic_max, atomic_min,
 * atomic_and, atomic_or, atomic_xor, atomic_xchg (pointer, val, mask, sem,
 * scope) and sl.atomic_cas (pointer, cmp, val, sem, scope), args bound in
 * that order. For the method form (ptr.atomic_add(val, ...)) `self` is the
 * pointer, already evaluated, and args[0] its expression; else NULL. */
gval ig_atomic_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                       const gval *self);

/* Scans, reductions with a combine function, histograms and gathers
 * (irgen_scans.c): sl.cumsum, cumprod, associative_scan, reduce, argmax,
 * argmin, histogram, gather, args bound in their parameters' order. For
 * the method form (x.cumsum(...)) `self` is x, already evaluated, and
 * args[0] its expression; else NULL. */
bool ig_is_scan_builtin(const char *name);
gval ig_scan_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args,
                     const gval *self);

#endif
