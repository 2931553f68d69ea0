/* ir.h - Swage's MLIR-shaped IR: types, values, ops, blocks, modules.
 *
 * A module owns an arena; every op, block, value array and string of the
 * module lives there and is freed with it (passes never free). Values are
 * small integer handles (ir_value) into the module's value table; ops sit in
 * doubly linked lists inside blocks; each region of an op is exactly one
 * block (structured control flow only). The op table is ops.def.
 *
 * Every value keeps a use-list: each operand slot of every op (ir_use) is
 * threaded into the list of the value it holds, so replacing a value's uses
 * costs its number of uses, not a walk of the module. The lists stay right
 * as long as operands change only through ir_op_set_operands,
 * ir_op_set_operand and the replace functions (never by writing
 * op->operands directly).
 */
#ifndef SWAGE_IR_H
#define SWAGE_IR_H

#include "../support/support.h"

/* ---- types ------------------------------------------------------------ */

typedef enum ir_dtype {
    DT_VOID = 0,
    DT_I1,
    DT_I8,
    DT_U8,
    DT_I16,
    DT_U16,
    DT_I32,
    DT_U32,
    DT_I64,
    DT_U64,
    DT_F16,
    DT_BF16,
    DT_F32,
    DT_F64,
    DT_COUNT
} ir_dtype;

typedef enum ir_type_kind {
    TY_VOID = 0,
    TY_SCALAR, /* dtype */
    TY_PTR,    /* pointer to dtype (global memory) */
    TY_TILE,   /* fixed-shape tile of `len` elements of dtype, or of pointers
                  to dtype when ptr_elem is set (semantic level): 1-D (rank
                  0 in the struct), or of rank 2..IR_MAX_RANK with `shape`,
                  row-major */
    TY_VEC,    /* SIMT level: the `len` slots one thread holds of a tile
                  (vector<len x dtype>), same element rules as TY_TILE */
    TY_SEGMENT,/* segment programs: a view of one segment of a values buffer
                  of dtype, values[offsets[sid] : offsets[sid+1]]
                  (!sw.segment<dtype>) */
    TY_SEGVAL, /* segment programs: one value per element of the program's
                  segment, runtime length (tensor<?xdtype>) */
    /* reserved for segment programs: TY_SEGMENT (a view), TY_SEGVAL */
} ir_type_kind;

enum { IR_MAX_RANK = 3 };

typedef struct ir_type {
    uint8_t kind;     /* ir_type_kind */
    uint8_t dtype;    /* ir_dtype */
    uint8_t ptr_elem; /* TY_TILE/TY_VEC: elements are pointers to dtype */
    uint8_t rank;     /* TY_TILE: 0 for a 1-D tile (every other kind too), or
                         2..IR_MAX_RANK when `shape` holds the dims */
    int32_t len;      /* TY_TILE/TY_VEC: element count, >= 1 (the product of
                         the dims) */
    int32_t shape[IR_MAX_RANK]; /* rank >= 2: the dims, outermost first;
                                   unused entries are 0 */
} ir_type;

ir_type ir_type_void(void);
ir_type ir_type_scalar(ir_dtype dt);
ir_type ir_type_ptr(ir_dtype pointee);
ir_type ir_type_tile(ir_dtype dt, int32_t len);
ir_type ir_type_ptr_tile(ir_dtype pointee, int32_t len);
ir_type ir_type_vec(ir_dtype dt, int32_t len);
/* A tile of the given dims (rank 1..IR_MAX_RANK; rank 1 is the 1-D tile of
 * dims[0]); of pointers to dt when ptr is set. */
ir_type ir_type_tile_shape(ir_dtype dt, bool ptr, int rank, const int32_t *dims);
/* A tile's rank (1 for a 1-D tile; 0 for anything that is not a tile) and
 * its dims into dims[0 .. rank-1] (dims may be NULL). */
int ir_tile_dims(ir_type t, int32_t dims[IR_MAX_RANK]);
ir_type ir_type_segment(ir_dtype dt);
ir_type ir_type_segval(ir_dtype dt);
bool ir_type_is_segval(ir_type t);
ir_type ir_type_ptr_vec(ir_dtype pointee, int32_t len);
bool ir_type_eq(ir_type a, ir_type b);
bool ir_type_is_tile(ir_type t);
bool ir_type_is_vec(ir_type t);
bool ir_type_is_shaped(ir_type t);     /* tile, vector or segment-shaped value */
bool ir_type_is_ptrlike(ir_type t);   /* pointer, or tile/vector of pointers */
/* The element of a tile or vector (or the type itself for scalars/pointers). */
ir_type ir_type_elem(ir_type t);
/* Same shape as `shape_of` (scalar, or tile/vector of the same kind,
 * length and dims), element `elem` (a scalar or pointer type). */
ir_type ir_type_like(ir_type shape_of, ir_type elem);
/* Writes MLIR text for t ("f32", "!sw.ptr<f32>", "tensor<128xi32>",
 * "tensor<16x32xf32>", "vector<4xf32>"). */
void ir_type_print(ir_type t, strbuf *out);
/* The same text into buf, NUL-terminated; returns its length. */
size_t ir_type_text(ir_type t, char buf[64]);
/* Writes v in decimal into buf (no NUL); returns the length. Printing IR
 * is mostly numbers, and this is faster than printf. */
size_t ir_int_text(int64_t v, char buf[24]);
/* Short human text, for diagnostics (same as the MLIR text). */
const char *ir_type_str(ir_type t, char buf[64]);

typedef struct ir_dtype_info {
    const char *name; /* MLIR spelling: "f32", "ui8" */
    const char *py;   /* Swage language spelling: "float32", "uint8" */
    int bits;
    bool is_float;
    bool is_signed;   /* signed integers and floats */
    int bytes;        /* storage size in memory (i1 is stored as 1 byte) */
} ir_dtype_info;

extern const ir_dtype_info ir_dtypes[DT_COUNT];
bool ir_dtype_is_float(ir_dtype dt);
bool ir_dtype_is_int(ir_dtype dt); /* integers and i1 */
/* ui8, ui16, ui32, ui64 (not i1, which is its own kind). */
bool ir_dtype_is_unsigned(ir_dtype dt);
ir_dtype ir_dtype_from_name(const char *name, size_t len); /* MLIR or Python name; DT_VOID if unknown */

/* ---- op table --------------------------------------------------------- */

enum { VAR = -1 };
enum {
    F_PURE = 1 << 0,
    F_TERM = 1 << 1,
    F_ELEM = 1 << 2,
    F_COMM = 1 << 3,
    F_FLOAT = 1 << 4,
    F_INT = 1 << 5,
};

typedef enum ir_op_kind {
#define OP(id, name, nop, nres, nreg, flags, doc) IR_##id,
#include "ops.def"
    IR_OP_COUNT
} ir_op_kind;

typedef struct ir_op_info {
    const char *name;
    int noperands; /* or VAR */
    int nresults;  /* or VAR */
    int nregions;
    unsigned flags;
    const char *doc;
} ir_op_info;

extern const ir_op_info ir_ops[IR_OP_COUNT];
/* Returns the kind for "sw.add"; IR_OP_COUNT if unknown. */
ir_op_kind ir_op_kind_from_name(const char *name, size_t len);

/* ---- attributes ------------------------------------------------------- */

typedef enum ir_attr_kind { ATTR_INT, ATTR_FLOAT, ATTR_STR, ATTR_BOOL, ATTR_TYPE } ir_attr_kind;

typedef struct ir_attr {
    const char *name;
    ir_attr_kind kind;
    ir_type type; /* ATTR_INT/ATTR_FLOAT: the scalar type; ATTR_TYPE: the type */
    int64_t i;    /* ATTR_INT, ATTR_BOOL */
    double f;     /* ATTR_FLOAT */
    const char *s;/* ATTR_STR */
} ir_attr;

/* ---- values, ops, blocks, modules -------------------------------------- */

typedef int32_t ir_value;
#define IR_NO_VALUE ((ir_value)-1)

typedef struct ir_op ir_op;
typedef struct ir_block ir_block;

/* One operand slot of an op (user->operands[ir_use_index(use)]), linked
 * with the other uses of the value it holds. */
typedef struct ir_use {
    ir_op *user;
    struct ir_use *prev, *next;
} ir_use;

typedef struct ir_value_info {
    ir_type type;
    ir_op *def;        /* defining op, or NULL for a block argument */
    ir_block *arg_of;  /* the block it is an argument of, or NULL */
    int32_t index;     /* result index within def, or argument index */
    const char *name;  /* printing hint (parameter names), may be NULL */
    ir_use *uses;      /* its use-list: every op not erased that uses it, in no
                          particular order (ops detached from the module too) */
} ir_value_info;

struct ir_op {
    ir_op_kind kind;
    src_loc loc;
    ir_value *operands;
    ir_use *uses;      /* uses[i] is operand i's slot in its value's use-list */
    int32_t noperands;
    ir_value *results;
    int32_t nresults;
    ir_attr *attrs;
    int32_t nattrs, capattrs;
    ir_block **regions;
    int32_t nregions;
    ir_op *prev, *next;
    ir_block *parent;
};

struct ir_block {
    ir_value *args;
    int32_t nargs, capargs;
    ir_op *first, *last;
    ir_op *parent_op; /* NULL for the module body */
};

typedef struct ir_module {
    arena *ar;           /* owned by whoever created the module */
    source_file src;     /* the kernel's source (text may be NULL for IR input) */
    ir_value_info *values;
    int32_t nvalues, capvalues;
    ir_block *body;      /* holds func.func ops */
} ir_module;

ir_module *ir_module_create(arena *a, const source_file *src);
/* A deep copy of m in arena a, with the same value numbering (value v of the
 * copy corresponds to value v of m). Strings are shared with m's arena only
 * for the source file; everything else is copied. */
ir_module *ir_module_clone(arena *a, const ir_module *m);
ir_value ir_value_create(ir_module *m, ir_type t);
static inline ir_type ir_value_type(const ir_module *m, ir_value v) { return m->values[v].type; }

ir_block *ir_block_create(ir_module *m);
ir_value ir_block_add_arg(ir_module *m, ir_block *b, ir_type t, const char *name);

/* Creates a detached op with fresh result values of the given types and
 * nregions empty blocks. Operands are copied. */
ir_op *ir_op_create(ir_module *m, ir_op_kind kind, src_loc loc, const ir_value *operands,
                    int noperands, const ir_type *result_types, int nresults, int nregions);
/* Replaces all of op's operands (their use-lists follow). */
void ir_op_set_operands(ir_module *m, ir_op *op, const ir_value *operands, int n);
/* Replaces operand i of op (0 <= i < op->noperands). */
void ir_op_set_operand(ir_module *m, ir_op *op, int i, ir_value v);
void ir_block_append(ir_block *b, ir_op *op);
void ir_insert_before(ir_op *pos, ir_op *op);
void ir_insert_after(ir_op *pos, ir_op *op);
/* Detaches op from its block (memory stays in the arena); its operands stay
 * in their use-lists, so it may be inserted elsewhere. */
void ir_op_unlink(ir_op *op);
/* Removes op for good: unlinks it and takes it and every op nested in its
 * regions off the use-lists. Nothing may use its results any more (replace
 * them first); the op must not be inserted again. */
void ir_op_erase(ir_module *m, ir_op *op);

/* Attributes: setting replaces an existing attribute of the same name.
 * Setting and getting one take constant time however many an op has (ops
 * with many keep a hash index of the names). */
void ir_attr_set_int(ir_module *m, ir_op *op, const char *name, ir_type t, int64_t v);
void ir_attr_set_float(ir_module *m, ir_op *op, const char *name, ir_type t, double v);
void ir_attr_set_str(ir_module *m, ir_op *op, const char *name, const char *s);
void ir_attr_set_bool(ir_module *m, ir_op *op, const char *name, bool v);
void ir_attr_set_type(ir_module *m, ir_op *op, const char *name, ir_type t);
void ir_attr_set(ir_module *m, ir_op *op, const ir_attr *attr); /* copies name/strings */
/* ir_attr_set of each of n attributes, in order (copying an op's set). */
void ir_attr_set_all(ir_module *m, ir_op *op, const ir_attr *attrs, int n);
const ir_attr *ir_attr_get(const ir_op *op, const char *name);

/* Replaces every use of `from` by `to` in the ops of the module (those
 * reachable from its body; an op detached from it keeps `from`); the
 * _in_block form only in b and the regions nested in it. Both cost the
 * number of uses of `from` times the nesting depth of its users. */
void ir_replace_all_uses(ir_module *m, ir_value from, ir_value to);
void ir_replace_uses_in_block(ir_module *m, ir_block *b, ir_value from, ir_value to);
/* The operand index a use stands for. */
static inline int ir_use_index(const ir_use *u) { return (int)(u - u->user->uses); }
/* The first use of v (follow ->next for the others), or NULL. */
static inline ir_use *ir_value_uses(const ir_module *m, ir_value v)
{
    return v >= 0 && v < m->nvalues ? m->values[v].uses : NULL;
}
/* Counts uses of every value by ops in the module: counts[v] for v in
 * [0, m->nvalues). */
void ir_count_uses(const ir_module *m, int32_t *counts);

/* The first func.func in the module, or NULL. */
ir_op *ir_module_func(const ir_module *m);
const char *ir_func_name(const ir_op *func);
static inline ir_block *ir_func_body(const ir_op *func) { return func->regions[0]; }

/* Reads a scalar constant: true when v is defined by sw.constant (scalar or
 * splat); fills *out with the value attribute. */
bool ir_value_constant(const ir_module *m, ir_value v, const ir_attr **out);

/* ---- tile shapes ------------------------------------------------------ */

/* Reads sw.trans's `order` attribute text ("1,0"): a permutation of
 * 0..rank-1 into order[]; false when it is not one. */
bool ir_parse_order(const char *s, int rank, int order[IR_MAX_RANK]);
/* Reads simt.vslots's `slots` attribute text ("0,4,8"): up to cap slot
 * indices in 0..nslots-1 into out; returns how many, or -1 when the text
 * is not such a list. */
int32_t ir_parse_slots(const char *s, int32_t nslots, int32_t *out, int32_t cap);
/* The row-major strides of dims (the last is 1). */
void ir_row_major_strides(int rank, const int32_t *dims, int64_t strides[IR_MAX_RANK]);
/* Whether x's dims broadcast to r's (same rank; each equal, or 1 in x). */
bool ir_broadcastable(ir_type x, ir_type r);
/* The type sw.reduce {axis} of a tile of rank >= 2 gives: the tile of the
 * other dims (of x's element type). */
ir_type ir_reduce_axis_type(ir_type x, int axis);

/* ---- the SIMT tile layout (docs/simt.md) ------------------------------ */

/* A tile of `len` elements over T threads is held as vector<V> per thread
 * (V = max(1, len / T)). Each thread's slots come in chunks of
 * ir_simt_chunk(V) consecutive elements; consecutive threads hold
 * consecutive chunks, so a warp's accesses to one chunk slot are contiguous
 * in memory (coalesced). */
enum { IR_SIMT_MAX_CHUNK = 4 };
static inline int32_t ir_simt_chunk(int32_t v) { return v < IR_SIMT_MAX_CHUNK ? v : IR_SIMT_MAX_CHUNK; }
/* The tile element index that slot j of thread tid holds. */
static inline int64_t ir_simt_element(int64_t len, int32_t v, int64_t start, int64_t tid, int32_t j)
{
    int32_t c = ir_simt_chunk(v);
    int64_t owners = len / v;
    return start + (int64_t)(j / c) * c * owners + (tid % owners) * c + j % c;
}

/* ---- printing, parsing, verifying (print.c, parse.c, verify.c) --------- */

typedef struct ir_print_options {
    bool locations; /* append loc("file":line:col) to every op */
} ir_print_options;

void ir_print_module(const ir_module *m, const ir_print_options *opts, strbuf *out);
/* Parses MLIR text produced by ir_print_module (and hand-written variants:
 * any value names, comments, optional locations). Returns NULL on error
 * with a caret diagnostic into d. The module's arena is `a`. */
ir_module *ir_parse_module(arena *a, const source_file *src, diag *d);
/* Checks every structural and type rule; reports the first violation at the
 * op's location. Returns true when the module is valid. */
bool ir_verify(const ir_module *m, diag *d);

#endif
