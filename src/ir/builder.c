/* builder.c - see builder.h. */
#include "builder.h"

ir_builder irb_at_end(ir_module *m, ir_block *block, src_loc loc)
{
    return (ir_builder){.m = m, .block = block, .pos = NULL, .loc = loc};
}

ir_builder irb_before(ir_module *m, ir_op *pos)
{
    return (ir_builder){.m = m, .block = pos->parent, .pos = pos, .loc = pos->loc};
}

ir_op *irb_op(ir_builder *b, ir_op_kind kind, const ir_value *operands, int n, const ir_type *results,
              int nresults, int nregions)
{
    ir_op *op = ir_op_create(b->m, kind, b->loc, operands, n, results, nresults, nregions);
    if (b->pos)
        ir_insert_before(b->pos, op);
    else
        ir_block_append(b->block, op);
    return op;
}

ir_value irb(ir_builder *b, ir_op_kind kind, const ir_value *operands, int n, ir_type result)
{
    return irb_op(b, kind, operands, n, &result, 1, 0)->results[0];
}

ir_value irb_binary(ir_builder *b, ir_op_kind kind, ir_value x, ir_value y)
{
    ir_value operands[2] = {x, y};
    return irb(b, kind, operands, 2, ir_value_type(b->m, x));
}

ir_value irb_cmp(ir_builder *b, const char *predicate, ir_value x, ir_value y)
{
    ir_value operands[2] = {x, y};
    ir_type t = ir_type_like(ir_value_type(b->m, x), ir_type_scalar(DT_I1));
    ir_value r = irb(b, IR_CMP, operands, 2, t);
    ir_attr_set_str(b->m, b->m->values[r].def, "predicate", predicate);
    return r;
}

ir_value irb_select(ir_builder *b, ir_value cond, ir_value x, ir_value y)
{
    ir_value operands[3] = {cond, x, y};
    return irb(b, IR_SELECT, operands, 3, ir_value_type(b->m, x));
}

ir_value irb_cast(ir_builder *b, ir_value x, ir_type to)
{
    if (ir_type_eq(ir_value_type(b->m, x), to))
        return x;
    return irb(b, IR_CAST, &x, 1, to);
}

ir_value irb_splat(ir_builder *b, ir_value x, ir_type to) { return irb(b, IR_SPLAT, &x, 1, to); }

ir_value irb_const(ir_builder *b, ir_type t, ir_scalar value)
{
    ir_value c = irb(b, IR_CONSTANT, NULL, 0, t);
    ir_op *op = b->m->values[c].def;
    ir_dtype dt = (ir_dtype)t.dtype;
    if (dt == DT_I1)
        ir_attr_set_bool(b->m, op, "value", value.i != 0);
    else if (ir_dtype_is_float(dt))
        ir_attr_set_float(b->m, op, "value", ir_type_scalar(dt), value.f);
    else
        ir_attr_set_int(b->m, op, "value", ir_type_scalar(dt), value.i);
    return c;
}

ir_value irb_int(ir_builder *b, ir_dtype dt, int64_t value)
{
    return irb_const(b, ir_type_scalar(dt), ir_scalar_from_int(dt, value));
}

static ir_value pointer_at(ir_builder *b, ir_value ptr, ir_value index)
{
    return irb_binary(b, IR_ADDPTR, ptr, index);
}

ir_value irb_load_at(ir_builder *b, ir_value ptr, ir_value index)
{
    ir_value p = pointer_at(b, ptr, index);
    ir_type pt = ir_value_type(b->m, ptr);
    return irb(b, IR_LOAD, &p, 1, ir_type_scalar((ir_dtype)pt.dtype));
}

void irb_store_at(ir_builder *b, ir_value ptr, ir_value index, ir_value value, ir_value mask)
{
    ir_value operands[3] = {pointer_at(b, ptr, index), value, mask};
    irb_op(b, IR_STORE, operands, mask == IR_NO_VALUE ? 2 : 3, NULL, 0, 0);
}

ir_value irb_atomic_add_at(ir_builder *b, ir_value ptr, ir_value index, ir_value value)
{
    ir_value operands[2] = {pointer_at(b, ptr, index), value};
    ir_value old = irb(b, IR_ATOMIC_RMW, operands, 2, ir_value_type(b->m, value));
    ir_op *op = b->m->values[old].def;
    ir_attr_set_str(b->m, op, "kind", "add");
    ir_attr_set_str(b->m, op, "sem", "relaxed");
    ir_attr_set_str(b->m, op, "scope", "gpu");
    return old;
}

ir_value irb_arange(ir_builder *b, int32_t n)
{
    ir_value r = irb(b, IR_ARANGE, NULL, 0, ir_type_tile(DT_I32, n));
    ir_op *op = b->m->values[r].def;
    ir_attr_set_int(b->m, op, "start", ir_type_scalar(DT_I32), 0);
    ir_attr_set_int(b->m, op, "end", ir_type_scalar(DT_I32), n);
    return r;
}

ir_op *irb_for(ir_builder *b, ir_value lb, ir_value ub, ir_value step, const ir_value *inits, int n)
{
    ir_value *operands = arena_alloc(b->m->ar, sizeof(ir_value) * (size_t)(n + 3));
    ir_type *types = arena_alloc(b->m->ar, sizeof(ir_type) * (size_t)(n + 1));
    operands[0] = lb, operands[1] = ub, operands[2] = step;
    for (int i = 0; i < n; i++) {
        operands[3 + i] = inits[i];
        types[i] = ir_value_type(b->m, inits[i]);
    }
    ir_op *loop = irb_op(b, IR_FOR, operands, n + 3, types, n, 1);
    ir_block *body = loop->regions[0];
    ir_block_add_arg(b->m, body, ir_value_type(b->m, lb), NULL);
    for (int i = 0; i < n; i++)
        ir_block_add_arg(b->m, body, types[i], NULL);
    return loop;
}

ir_op *irb_if(ir_builder *b, ir_value cond, const ir_type *results, int nresults)
{
    return irb_op(b, IR_IF, &cond, 1, results, nresults, 2);
}

void irb_yield(ir_builder *b, const ir_value *values, int n)
{
    irb_op(b, IR_YIELD, values, n, NULL, 0, 0);
}

static ir_value mapped(const ir_value *map, int32_t nmap, ir_value v)
{
    return v >= 0 && v < nmap && map[v] != IR_NO_VALUE ? map[v] : v;
}

static void clone_region(ir_builder *b, const ir_block *from, ir_block *to, ir_value *map, int32_t nmap)
{
    for (int i = 0; i < from->nargs; i++) {
        ir_value orig = from->args[i];
        ir_value fresh = ir_block_add_arg(b->m, to, ir_value_type(b->m, orig), b->m->values[orig].name);
        if (orig < nmap)
            map[orig] = fresh;
    }
    ir_builder inner = irb_at_end(b->m, to, b->loc);
    for (const ir_op *op = from->first; op; op = op->next)
        irb_clone(&inner, op, map, nmap);
}

ir_op *irb_clone(ir_builder *b, const ir_op *op, ir_value *map, int32_t nmap)
{
    ir_value *operands = arena_alloc(b->m->ar, sizeof(ir_value) * (size_t)(op->noperands + 1));
    ir_type *types = arena_alloc(b->m->ar, sizeof(ir_type) * (size_t)(op->nresults + 1));
    for (int i = 0; i < op->noperands; i++)
        operands[i] = mapped(map, nmap, op->operands[i]);
    for (int i = 0; i < op->nresults; i++)
        types[i] = ir_value_type(b->m, op->results[i]);
    src_loc saved = b->loc;
    b->loc = op->loc;
    ir_op *copy = irb_op(b, op->kind, operands, op->noperands, types, op->nresults, op->nregions);
    b->loc = saved;
    ir_attr_set_all(b->m, copy, op->attrs, op->nattrs);
    for (int i = 0; i < op->nresults; i++)
        if (op->results[i] < nmap)
            map[op->results[i]] = copy->results[i];
    for (int r = 0; r < op->nregions; r++)
        clone_region(b, op->regions[r], copy->regions[r], map, nmap);
    return copy;
}
