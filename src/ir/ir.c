/* ir.c - IR construction: types, the op and dtype tables, values, ops,
 * blocks, attributes. Requires nothing; everything lives in the module arena. */
#include "ir.h"

#include <stdio.h>
#include <string.h>

/* ---- tables ----------------------------------------------------------- */

const ir_op_info ir_ops[IR_OP_COUNT] = {
#define OP(id, name, nop, nres, nreg, flags, doc) [IR_##id] = {name, nop, nres, nreg, flags, doc},
#include "ops.def"
};

const ir_dtype_info ir_dtypes[DT_COUNT] = {
    [DT_VOID] = {"none", "void", 0, false, false, 0},
    [DT_I1] = {"i1", "int1", 1, false, false, 1},
    [DT_I8] = {"i8", "int8", 8, false, true, 1},
    [DT_U8] = {"ui8", "uint8", 8, false, false, 1},
    [DT_I16] = {"i16", "int16", 16, false, true, 2},
    [DT_U16] = {"ui16", "uint16", 16, false, false, 2},
    [DT_I32] = {"i32", "int32", 32, false, true, 4},
    [DT_U32] = {"ui32", "uint32", 32, false, false, 4},
    [DT_I64] = {"i64", "int64", 64, false, true, 8},
    [DT_U64] = {"ui64", "uint64", 64, false, false, 8},
    [DT_F16] = {"f16", "float16", 16, true, true, 2},
    [DT_BF16] = {"bf16", "bfloat16", 16, true, true, 2},
    [DT_F32] = {"f32", "float32", 32, true, true, 4},
    [DT_F64] = {"f64", "float64", 64, true, true, 8},
};

bool ir_dtype_is_float(ir_dtype dt) { return dt < DT_COUNT && ir_dtypes[dt].is_float; }
bool ir_dtype_is_int(ir_dtype dt) { return dt != DT_VOID && dt < DT_COUNT && !ir_dtypes[dt].is_float; }
bool ir_dtype_is_unsigned(ir_dtype dt)
{
    return dt == DT_U8 || dt == DT_U16 || dt == DT_U32 || dt == DT_U64;
}

ir_dtype ir_dtype_from_name(const char *name, size_t len)
{
    for (int i = 1; i < DT_COUNT; i++) {
        const char *a = ir_dtypes[i].name, *b = ir_dtypes[i].py;
        if ((strlen(a) == len && !memcmp(a, name, len)) || (strlen(b) == len && !memcmp(b, name, len)))
            return (ir_dtype)i;
    }
    static const struct { const char *alias; ir_dtype dt; } aliases[] = {
        {"bool", DT_I1}, {"int1", DT_I1}, {"fp16", DT_F16}, {"fp32", DT_F32},
        {"fp64", DT_F64}, {"bf16", DT_BF16}, {"half", DT_F16}, {"float", DT_F32},
        {"double", DT_F64}, {"u8", DT_U8},
        {"u16", DT_U16}, {"u32", DT_U32}, {"u64", DT_U64},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strlen(aliases[i].alias) == len && !memcmp(aliases[i].alias, name, len))
            return aliases[i].dt;
    return DT_VOID;
}

ir_op_kind ir_op_kind_from_name(const char *name, size_t len)
{
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (strlen(ir_ops[i].name) == len && !memcmp(ir_ops[i].name, name, len))
            return (ir_op_kind)i;
    return IR_OP_COUNT;
}

/* ---- types ------------------------------------------------------------ */

ir_type ir_type_void(void) { return (ir_type){0}; }
ir_type ir_type_scalar(ir_dtype dt) { return (ir_type){.kind = TY_SCALAR, .dtype = (uint8_t)dt}; }
ir_type ir_type_ptr(ir_dtype p) { return (ir_type){.kind = TY_PTR, .dtype = (uint8_t)p}; }
ir_type ir_type_tile(ir_dtype dt, int32_t len)
{
    return (ir_type){.kind = TY_TILE, .dtype = (uint8_t)dt, .len = len};
}
ir_type ir_type_ptr_tile(ir_dtype p, int32_t len)
{
    return (ir_type){.kind = TY_TILE, .dtype = (uint8_t)p, .ptr_elem = 1, .len = len};
}

ir_type ir_type_vec(ir_dtype dt, int32_t len)
{
    return (ir_type){.kind = TY_VEC, .dtype = (uint8_t)dt, .len = len};
}
ir_type ir_type_ptr_vec(ir_dtype p, int32_t len)
{
    return (ir_type){.kind = TY_VEC, .dtype = (uint8_t)p, .ptr_elem = 1, .len = len};
}

ir_type ir_type_tile_shape(ir_dtype dt, bool ptr, int rank, const int32_t *dims)
{
    ir_type t = {.kind = TY_TILE, .dtype = (uint8_t)dt, .ptr_elem = ptr, .len = 1};
    for (int i = 0; i < rank; i++)
        t.len *= dims[i];
    if (rank >= 2) {
        t.rank = (uint8_t)rank;
        for (int i = 0; i < rank; i++)
            t.shape[i] = dims[i];
    }
    return t;
}

int ir_tile_dims(ir_type t, int32_t dims[IR_MAX_RANK])
{
    if (t.kind != TY_TILE)
        return 0;
    if (t.rank < 2) {
        if (dims)
            dims[0] = t.len;
        return 1;
    }
    if (dims)
        for (int i = 0; i < t.rank; i++)
            dims[i] = t.shape[i];
    return t.rank;
}

bool ir_parse_order(const char *s, int rank, int order[IR_MAX_RANK])
{
    bool seen[IR_MAX_RANK] = {false};
    if (!s || rank < 1 || rank > IR_MAX_RANK)
        return false;
    for (int i = 0; i < rank; i++) {
        if (i > 0 && *s++ != ',')
            return false;
        if (*s < '0' || *s >= '0' + rank || seen[*s - '0'])
            return false;
        order[i] = *s - '0';
        seen[order[i]] = true;
        s++;
    }
    return *s == 0;
}

int32_t ir_parse_slots(const char *s, int32_t nslots, int32_t *out, int32_t cap)
{
    int32_t n = 0;
    if (!s || !*s)
        return -1;
    for (;;) {
        int64_t j = 0;
        const char *start = s;
        while (*s >= '0' && *s <= '9' && j < nslots)
            j = j * 10 + (*s++ - '0');
        if (s == start || j >= nslots || n >= cap)
            return -1;
        out[n++] = (int32_t)j;
        if (!*s)
            return n;
        if (*s++ != ',')
            return -1;
    }
}

void ir_row_major_strides(int rank, const int32_t *dims, int64_t strides[IR_MAX_RANK])
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

bool ir_broadcastable(ir_type x, ir_type r)
{
    int32_t xd[IR_MAX_RANK], rd[IR_MAX_RANK];
    int xr = ir_tile_dims(x, xd), rr = ir_tile_dims(r, rd);
    if (xr == 0 || xr != rr)
        return false;
    for (int i = 0; i < xr; i++)
        if (xd[i] != rd[i] && xd[i] != 1)
            return false;
    return true;
}

ir_type ir_reduce_axis_type(ir_type x, int axis)
{
    int32_t d[IR_MAX_RANK], out[IR_MAX_RANK];
    int rank = ir_tile_dims(x, d), n = 0;
    for (int i = 0; i < rank; i++)
        if (i != axis)
            out[n++] = d[i];
    return ir_type_tile_shape((ir_dtype)x.dtype, x.ptr_elem, n, out);
}

ir_type ir_type_segment(ir_dtype dt) { return (ir_type){.kind = TY_SEGMENT, .dtype = (uint8_t)dt}; }
ir_type ir_type_segval(ir_dtype dt) { return (ir_type){.kind = TY_SEGVAL, .dtype = (uint8_t)dt, .len = -1}; }
bool ir_type_is_segval(ir_type t) { return t.kind == TY_SEGVAL; }

bool ir_type_eq(ir_type a, ir_type b)
{
    return a.kind == b.kind && a.dtype == b.dtype && a.ptr_elem == b.ptr_elem && a.len == b.len &&
           a.rank == b.rank && a.shape[0] == b.shape[0] && a.shape[1] == b.shape[1] &&
           a.shape[2] == b.shape[2];
}
bool ir_type_is_tile(ir_type t) { return t.kind == TY_TILE; }
bool ir_type_is_vec(ir_type t) { return t.kind == TY_VEC; }
bool ir_type_is_shaped(ir_type t)
{
    return t.kind == TY_TILE || t.kind == TY_VEC || t.kind == TY_SEGVAL;
}
bool ir_type_is_ptrlike(ir_type t) { return t.kind == TY_PTR || (ir_type_is_shaped(t) && t.ptr_elem); }

ir_type ir_type_elem(ir_type t)
{
    if (!ir_type_is_shaped(t))
        return t;
    return t.ptr_elem ? ir_type_ptr((ir_dtype)t.dtype) : ir_type_scalar((ir_dtype)t.dtype);
}

ir_type ir_type_like(ir_type shape_of, ir_type elem)
{
    if (!ir_type_is_shaped(shape_of))
        return elem;
    ir_type t = shape_of;
    t.dtype = elem.dtype;
    t.ptr_elem = elem.kind == TY_PTR;
    return t;
}

size_t ir_int_text(int64_t v, char buf[24])
{
    char tmp[24], *e = tmp + sizeof tmp, *c = e;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--c = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--c = '-';
    size_t n = (size_t)(e - c);
    memcpy(buf, c, n);
    return n;
}

/* Appends s to buf at *n. */
static void cat(char *buf, size_t *n, const char *s)
{
    size_t len = strlen(s);
    memcpy(buf + *n, s, len);
    *n += len;
}

static void cat_elem(char *buf, size_t *n, uint8_t dtype, bool ptr)
{
    const char *name = dtype < DT_COUNT ? ir_dtypes[dtype].name : "?";
    if (ptr) {
        cat(buf, n, "!sw.ptr<");
        cat(buf, n, name);
        cat(buf, n, ">");
    } else {
        cat(buf, n, name);
    }
}

/* The longest text, "tensor<-2147483648x-2147483648x-2147483648x!sw.ptr<bf16>>",
 * takes 57 bytes. */
size_t ir_type_text(ir_type t, char buf[64])
{
    size_t n = 0;
    switch (t.kind) {
    case TY_VOID: cat(buf, &n, "none"); break;
    case TY_SCALAR: cat_elem(buf, &n, t.dtype, false); break;
    case TY_PTR: cat_elem(buf, &n, t.dtype, true); break;
    case TY_TILE:
    case TY_VEC:
        cat(buf, &n, t.kind == TY_TILE ? "tensor<" : "vector<");
        if (t.kind == TY_TILE && t.rank >= 2 && t.rank <= IR_MAX_RANK) {
            for (int i = 0; i < t.rank; i++) {
                n += ir_int_text(t.shape[i], buf + n);
                cat(buf, &n, "x");
            }
        } else {
            n += ir_int_text(t.len, buf + n);
            cat(buf, &n, "x");
        }
        cat_elem(buf, &n, t.dtype, t.ptr_elem);
        cat(buf, &n, ">");
        break;
    case TY_SEGVAL:
        cat(buf, &n, "tensor<?x");
        cat_elem(buf, &n, t.dtype, t.ptr_elem);
        cat(buf, &n, ">");
        break;
    case TY_SEGMENT:
        cat(buf, &n, "!sw.segment<");
        cat(buf, &n, t.dtype < DT_COUNT ? ir_dtypes[t.dtype].name : "?");
        cat(buf, &n, ">");
        break;
    default: cat(buf, &n, "<bad type>"); break;
    }
    buf[n] = 0;
    return n;
}

void ir_type_print(ir_type t, strbuf *out)
{
    char buf[64];
    sb_putn(out, buf, ir_type_text(t, buf));
}

const char *ir_type_str(ir_type t, char buf[64])
{
    ir_type_text(t, buf);
    return buf;
}

/* ---- module, values, blocks, ops ------------------------------------- */

ir_module *ir_module_create(arena *a, const source_file *src)
{
    ir_module *m = arena_alloc(a, sizeof *m);
    m->ar = a;
    if (src)
        m->src = *src;
    m->body = ir_block_create(m);
    return m;
}

static ir_block *clone_block(ir_module *dst, const ir_block *b, ir_op *parent);

static ir_op *clone_op(ir_module *dst, const ir_op *op)
{
    ir_op *c = arena_alloc(dst->ar, sizeof *c);
    c->kind = op->kind;
    c->loc = op->loc;
    ir_op_set_operands(dst, c, op->operands, op->noperands);
    c->nresults = op->nresults;
    c->results = arena_alloc(dst->ar, sizeof(ir_value) * (size_t)(op->nresults ? op->nresults : 1));
    for (int i = 0; i < op->nresults; i++) {
        c->results[i] = op->results[i];
        dst->values[op->results[i]].def = c;
    }
    ir_attr_set_all(dst, c, op->attrs, op->nattrs);
    c->nregions = op->nregions;
    c->regions = arena_alloc(dst->ar, sizeof(ir_block *) * (size_t)(op->nregions ? op->nregions : 1));
    for (int i = 0; i < op->nregions; i++)
        c->regions[i] = clone_block(dst, op->regions[i], c);
    return c;
}

static ir_block *clone_block(ir_module *dst, const ir_block *b, ir_op *parent)
{
    ir_block *c = ir_block_create(dst);
    c->parent_op = parent;
    for (int i = 0; i < b->nargs; i++) {
        VEC_PUSH(dst->ar, c->args, c->nargs, c->capargs, b->args[i]);
        dst->values[b->args[i]].arg_of = c;
    }
    for (const ir_op *op = b->first; op; op = op->next)
        ir_block_append(c, clone_op(dst, op));
    return c;
}

ir_module *ir_module_clone(arena *a, const ir_module *m)
{
    ir_module *c = ir_module_create(a, &m->src);
    c->nvalues = c->capvalues = m->nvalues;
    c->values = arena_alloc(a, sizeof(ir_value_info) * (size_t)(m->nvalues ? m->nvalues : 1));
    for (int32_t v = 0; v < m->nvalues; v++) {
        c->values[v] = m->values[v];
        c->values[v].def = NULL;
        c->values[v].arg_of = NULL;
        c->values[v].uses = NULL; /* clone_op puts the copies' operands on them */
        if (m->values[v].name)
            c->values[v].name = arena_strdup(a, m->values[v].name);
    }
    for (const ir_op *op = m->body->first; op; op = op->next)
        ir_block_append(c->body, clone_op(c, op));
    return c;
}

ir_value ir_value_create(ir_module *m, ir_type t)
{
    ir_value_info info = {.type = t, .index = 0};
    VEC_PUSH(m->ar, m->values, m->nvalues, m->capvalues, info);
    return m->nvalues - 1;
}

ir_block *ir_block_create(ir_module *m) { return arena_alloc(m->ar, sizeof(ir_block)); }

ir_value ir_block_add_arg(ir_module *m, ir_block *b, ir_type t, const char *name)
{
    ir_value v = ir_value_create(m, t);
    m->values[v].arg_of = b;
    m->values[v].index = b->nargs;
    m->values[v].name = name ? arena_strdup(m->ar, name) : NULL;
    VEC_PUSH(m->ar, b->args, b->nargs, b->capargs, v);
    return v;
}

ir_op *ir_op_create(ir_module *m, ir_op_kind kind, src_loc loc, const ir_value *operands,
                    int noperands, const ir_type *result_types, int nresults, int nregions)
{
    ir_op *op = arena_alloc(m->ar, sizeof *op);
    op->kind = kind;
    op->loc = loc;
    ir_op_set_operands(m, op, operands, noperands);
    op->nresults = nresults;
    op->results = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(nresults ? nresults : 1));
    for (int i = 0; i < nresults; i++) {
        ir_value v = ir_value_create(m, result_types[i]);
        m->values[v].def = op;
        m->values[v].index = i;
        op->results[i] = v;
    }
    op->nregions = nregions;
    op->regions = arena_alloc(m->ar, sizeof(ir_block *) * (size_t)(nregions ? nregions : 1));
    for (int i = 0; i < nregions; i++) {
        op->regions[i] = ir_block_create(m);
        op->regions[i]->parent_op = op;
    }
    return op;
}

/* ---- use-lists ---------------------------------------------------------- */

static bool tracked(const ir_module *m, ir_value v) { return v >= 0 && v < m->nvalues; }

/* Puts use u (operand slot of a value v, already written) at the head of
 * v's list. */
static void use_link(ir_module *m, ir_use *u, ir_value v)
{
    u->prev = NULL;
    u->next = NULL;
    if (!tracked(m, v))
        return;
    u->next = m->values[v].uses;
    if (u->next)
        u->next->prev = u;
    m->values[v].uses = u;
}

/* Takes use u, which holds v, off v's list. */
static void use_unlink(ir_module *m, ir_use *u, ir_value v)
{
    if (!tracked(m, v))
        return;
    if (u->prev)
        u->prev->next = u->next;
    else if (m->values[v].uses == u)
        m->values[v].uses = u->next;
    if (u->next)
        u->next->prev = u->prev;
    u->prev = u->next = NULL;
}

void ir_op_set_operands(ir_module *m, ir_op *op, const ir_value *operands, int n)
{
    for (int i = 0; i < op->noperands; i++)
        use_unlink(m, &op->uses[i], op->operands[i]);
    op->operands = arena_alloc(m->ar, sizeof(ir_value) * (size_t)(n ? n : 1));
    op->uses = arena_alloc(m->ar, sizeof(ir_use) * (size_t)(n ? n : 1));
    if (n)
        memcpy(op->operands, operands, sizeof(ir_value) * (size_t)n);
    op->noperands = n;
    for (int i = 0; i < n; i++) {
        op->uses[i].user = op;
        use_link(m, &op->uses[i], op->operands[i]);
    }
}

void ir_op_set_operand(ir_module *m, ir_op *op, int i, ir_value v)
{
    if (op->operands[i] == v)
        return;
    use_unlink(m, &op->uses[i], op->operands[i]);
    op->operands[i] = v;
    use_link(m, &op->uses[i], v);
}

static void drop_uses(ir_module *m, ir_op *op)
{
    for (int i = 0; i < op->noperands; i++)
        use_unlink(m, &op->uses[i], op->operands[i]);
    for (int r = 0; r < op->nregions; r++)
        for (ir_op *inner = op->regions[r]->first; inner; inner = inner->next)
            drop_uses(m, inner);
}

void ir_op_erase(ir_module *m, ir_op *op)
{
    ir_op_unlink(op);
    drop_uses(m, op);
}

void ir_block_append(ir_block *b, ir_op *op)
{
    op->parent = b;
    op->next = NULL;
    op->prev = b->last;
    if (b->last)
        b->last->next = op;
    else
        b->first = op;
    b->last = op;
}

void ir_insert_before(ir_op *pos, ir_op *op)
{
    ir_block *b = pos->parent;
    op->parent = b;
    op->next = pos;
    op->prev = pos->prev;
    if (pos->prev)
        pos->prev->next = op;
    else
        b->first = op;
    pos->prev = op;
}

void ir_insert_after(ir_op *pos, ir_op *op)
{
    if (pos->next) {
        ir_insert_before(pos->next, op);
        return;
    }
    ir_block_append(pos->parent, op);
}

void ir_op_unlink(ir_op *op)
{
    ir_block *b = op->parent;
    if (!b)
        return;
    if (op->prev)
        op->prev->next = op->next;
    else
        b->first = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        b->last = op->prev;
    op->prev = op->next = NULL;
    op->parent = NULL;
}

/* ---- attributes ------------------------------------------------------- */

/* An op with many attributes keeps a hash index of their names behind its
 * array, so that setting and reading one costs the same however many it
 * has: once capattrs reaches ATTR_INDEX_MIN, the allocation holds capattrs
 * attributes, then an int32 count (the nattrs the index describes), then
 * 2 * capattrs slots (position + 1, 0 when free; capattrs is a power of
 * two). A few passes remove attributes by editing the array; the count
 * then differs from nattrs, and the index is rebuilt before it is used
 * again. */
enum { ATTR_INDEX_MIN = 16 };

static uint32_t name_hash(const char *name) { return (uint32_t)hash_bytes(name, strlen(name), 0); }

static int32_t *attr_index(const ir_op *op)
{
    return op->capattrs >= ATTR_INDEX_MIN ? (int32_t *)(void *)(op->attrs + op->capattrs) : NULL;
}

static void index_insert(int32_t *index, int32_t cap, const char *name, int32_t pos)
{
    uint32_t mask = 2u * (uint32_t)cap - 1;
    int32_t *slots = index + 1;
    uint32_t h = name_hash(name) & mask;
    while (slots[h])
        h = (h + 1) & mask;
    slots[h] = pos + 1;
}

static void index_rebuild(ir_op *op)
{
    int32_t *index = attr_index(op);
    memset(index, 0, sizeof(int32_t) * (1 + 2 * (size_t)op->capattrs));
    for (int32_t i = 0; i < op->nattrs; i++)
        index_insert(index, op->capattrs, op->attrs[i].name, i);
    index[0] = op->nattrs;
}

/* The position of name among op's attributes, or -1. */
static int32_t attr_find(const ir_op *op, const char *name)
{
    const int32_t *index = attr_index(op);
    if (index && index[0] == op->nattrs) {
        uint32_t mask = 2u * (uint32_t)op->capattrs - 1;
        for (uint32_t h = name_hash(name) & mask; index[1 + h]; h = (h + 1) & mask)
            if (!strcmp(op->attrs[index[1 + h] - 1].name, name))
                return index[1 + h] - 1;
        return -1;
    }
    for (int32_t i = 0; i < op->nattrs; i++)
        if (!strcmp(op->attrs[i].name, name))
            return i;
    return -1;
}

static ir_attr *attr_slot(ir_module *m, ir_op *op, const char *name)
{
    int32_t i = attr_find(op, name);
    if (i >= 0)
        return &op->attrs[i];
    if (op->nattrs == op->capattrs) {
        int32_t cap = op->capattrs ? op->capattrs * 2 : 8;
        size_t bytes = sizeof(ir_attr) * (size_t)cap;
        if (cap >= ATTR_INDEX_MIN)
            bytes += sizeof(int32_t) * (1 + 2 * (size_t)cap);
        ir_attr *grown = arena_alloc(m->ar, bytes);
        if (op->nattrs)
            memcpy(grown, op->attrs, sizeof(ir_attr) * (size_t)op->nattrs);
        op->attrs = grown;
        op->capattrs = cap;
        if (attr_index(op))
            index_rebuild(op);
    }
    int32_t *index = attr_index(op);
    if (index && index[0] != op->nattrs)
        index_rebuild(op);
    op->attrs[op->nattrs] = (ir_attr){.name = arena_strdup(m->ar, name)};
    if (index) {
        index_insert(index, op->capattrs, name, op->nattrs);
        index[0] = op->nattrs + 1;
    }
    return &op->attrs[op->nattrs++];
}

void ir_attr_set_all(ir_module *m, ir_op *op, const ir_attr *attrs, int n)
{
    for (int i = 0; i < n; i++)
        ir_attr_set(m, op, &attrs[i]);
}

void ir_attr_set(ir_module *m, ir_op *op, const ir_attr *attr)
{
    ir_attr *s = attr_slot(m, op, attr->name);
    const char *name = s->name;
    *s = *attr;
    s->name = name;
    if (attr->kind == ATTR_STR && attr->s)
        s->s = arena_strdup(m->ar, attr->s);
}

void ir_attr_set_int(ir_module *m, ir_op *op, const char *name, ir_type t, int64_t v)
{
    ir_attr *s = attr_slot(m, op, name);
    s->kind = ATTR_INT;
    s->type = t;
    s->i = v;
}

void ir_attr_set_float(ir_module *m, ir_op *op, const char *name, ir_type t, double v)
{
    ir_attr *s = attr_slot(m, op, name);
    s->kind = ATTR_FLOAT;
    s->type = t;
    s->f = v;
}

void ir_attr_set_str(ir_module *m, ir_op *op, const char *name, const char *str)
{
    ir_attr *s = attr_slot(m, op, name);
    s->kind = ATTR_STR;
    s->s = arena_strdup(m->ar, str);
}

void ir_attr_set_bool(ir_module *m, ir_op *op, const char *name, bool v)
{
    ir_attr *s = attr_slot(m, op, name);
    s->kind = ATTR_BOOL;
    s->type = ir_type_scalar(DT_I1);
    s->i = v;
}

void ir_attr_set_type(ir_module *m, ir_op *op, const char *name, ir_type t)
{
    ir_attr *s = attr_slot(m, op, name);
    s->kind = ATTR_TYPE;
    s->type = t;
}

const ir_attr *ir_attr_get(const ir_op *op, const char *name)
{
    int32_t i = attr_find(op, name);
    return i >= 0 ? &op->attrs[i] : NULL;
}

/* ---- queries and rewrites --------------------------------------------- */

/* True when op sits in b or in a region nested in it. */
static bool op_within(const ir_op *op, const ir_block *b)
{
    for (const ir_block *blk = op->parent; blk; blk = blk->parent_op ? blk->parent_op->parent : NULL)
        if (blk == b)
            return true;
    return false;
}

/* Moves every use of `from` whose op lies within `scope` to `to`. */
static void replace_uses_within(ir_module *m, const ir_block *scope, ir_value from, ir_value to)
{
    if (from == to || !tracked(m, from))
        return;
    for (ir_use *u = m->values[from].uses, *next; u; u = next) {
        next = u->next;
        if (op_within(u->user, scope))
            ir_op_set_operand(m, u->user, ir_use_index(u), to);
    }
}

void ir_replace_uses_in_block(ir_module *m, ir_block *b, ir_value from, ir_value to)
{
    replace_uses_within(m, b, from, to);
}

void ir_replace_all_uses(ir_module *m, ir_value from, ir_value to)
{
    replace_uses_within(m, m->body, from, to);
}

static void count_in_block(const ir_block *b, int32_t *counts)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->noperands; i++)
            if (op->operands[i] >= 0)
                counts[op->operands[i]]++;
        for (int r = 0; r < op->nregions; r++)
            count_in_block(op->regions[r], counts);
    }
}

void ir_count_uses(const ir_module *m, int32_t *counts)
{
    memset(counts, 0, sizeof(int32_t) * (size_t)m->nvalues);
    count_in_block(m->body, counts);
}

ir_op *ir_module_func(const ir_module *m)
{
    for (ir_op *op = m->body->first; op; op = op->next)
        if (op->kind == IR_FUNC)
            return op;
    return NULL;
}

const char *ir_func_name(const ir_op *func)
{
    const ir_attr *a = ir_attr_get(func, "sym_name");
    return a && a->kind == ATTR_STR ? a->s : "";
}

bool ir_value_constant(const ir_module *m, ir_value v, const ir_attr **out)
{
    if (v < 0 || v >= m->nvalues)
        return false;
    const ir_op *def = m->values[v].def;
    if (!def || def->kind != IR_CONSTANT)
        return false;
    const ir_attr *a = ir_attr_get(def, "value");
    if (!a)
        return false;
    *out = a;
    return true;
}
