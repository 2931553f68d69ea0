/* irgen_segments.c - the segment language (docs/segments.md): sl.segment_id,
 * sl.segment, sl.load_segment, sl.store_segment, sl.segment_length, and
 * the rules that keep segment data where the schedule can run it. Requires
 * a live irgen; guarantees that a kernel it accepts obeys the verifier's
 * segment rules (one offsets pointer and one segment id per program, views
 * read only by the segment ops, segment values only at the top level,
 * never with tiles, never in a grid program), or reports an error naming
 * the construct at the user's line and column. */
#include "irgen_internal.h"

#include <stdio.h>
#include <string.h>

bool ig_is_segment_type(ir_type t) { return t.kind == TY_SEGMENT || t.kind == TY_SEGVAL; }

static int user_line(const irgen *g, src_loc loc)
{
    return loc.line + (g->src->first_line > 0 ? g->src->first_line - 1 : 0);
}

/* ---- the rules every emitted op obeys ------------------------------------ */

static bool reads_view(ir_op_kind kind, int i)
{
    return ((kind == IR_LOAD_SEGMENT || kind == IR_SEGMENT_LENGTH) && i == 0) ||
           (kind == IR_STORE_SEGMENT && i == 1);
}

static bool takes_segment_value(ir_op_kind kind, int i)
{
    return (ir_ops[kind].flags & F_ELEM) || kind == IR_REDUCE || (kind == IR_STORE_SEGMENT && i == 2);
}

bool ig_check_segment_op(irgen *g, ir_op_kind kind, src_loc loc, const ir_value *operands, int n,
                         const ir_type *results, int nresults)
{
    bool segment = false, tile = false;
    for (int i = 0; i < n; i++) {
        ir_type t = ir_value_type(g->m, operands[i]);
        tile |= t.kind == TY_TILE;
        if (t.kind == TY_SEGMENT) {
            segment = true;
            if (!reads_view(kind, i)) {
                ig_error(g, loc, "a segment view (made by sl.segment) can only be read by "
                                 "sl.load_segment, sl.store_segment and sl.segment_length");
                return false;
            }
        } else if (t.kind == TY_SEGVAL) {
            segment = true;
            if (!takes_segment_value(kind, i)) {
                ig_error(g, loc, "a segment value cannot be used here (by '%s'): segment values "
                                 "combine elementwise, reduce with sl.sum/max/min/prod, and store "
                                 "with sl.store_segment", ir_ops[kind].name);
                return false;
            }
        }
    }
    for (int i = 0; i < nresults; i++) {
        tile |= results[i].kind == TY_TILE;
        segment |= ig_is_segment_type(results[i]);
    }
    if (!segment)
        return true;
    if (tile) {
        ig_error(g, loc, "a segment value cannot be combined with a tile (sl.arange, sl.full, or "
                         "sl.load through a tile of pointers): segments have a runtime length");
        return false;
    }
    if (g->region_what) {
        ig_error(g, loc, "segment data cannot be used inside the %s at line %d: segment loads, "
                         "stores and reductions happen at the top level of the kernel",
                 g->region_what, g->region_line);
        return false;
    }
    return true;
}

bool ig_check_not_segment(irgen *g, src_loc loc, const char *name, ir_type t, const char *how)
{
    if (!ig_is_segment_type(t))
        return true;
    ig_error(g, loc, "variable '%s' holds a segment %s and cannot %s: segment data stays at the "
                     "top level of the kernel", name, t.kind == TY_SEGMENT ? "view" : "value", how);
    return false;
}

bool ig_note_grid_query(irgen *g, src_loc loc, const char *name)
{
    if (g->seg.segment_id != IR_NO_VALUE) {
        ig_error(g, loc, "sl.%s cannot be used in a segment program (sl.segment_id at line %d): "
                         "the schedule, not a grid, decides which segment each program processes",
                 name, user_line(g, g->seg.segment_id_at));
        return false;
    }
    if (!g->seg.grid_name) {
        g->seg.grid_name = name;
        g->seg.grid_at = loc;
    }
    return true;
}

bool ig_note_atomic(irgen *g, src_loc loc, const char *name)
{
    if (g->seg.segment_id != IR_NO_VALUE) {
        ig_error(g, loc, "sl.%s cannot be used in a segment program (sl.segment_id at line %d): "
                         "atomics are supported in grid programs only",
                 name, user_line(g, g->seg.segment_id_at));
        return false;
    }
    if (!g->seg.grid_name) {
        g->seg.grid_name = name;
        g->seg.grid_at = loc;
    }
    return true;
}

bool ig_note_scan(irgen *g, src_loc loc, const char *name)
{
    if (g->seg.segment_id != IR_NO_VALUE) {
        ig_error(g, loc, "sl.%s cannot be used in a segment program (sl.segment_id at line %d): "
                         "scans, reductions with a combine function, histograms and gathers are "
                         "supported in grid programs only", name, user_line(g, g->seg.segment_id_at));
        return false;
    }
    if (!g->seg.grid_name) {
        g->seg.grid_name = name;
        g->seg.grid_at = loc;
    }
    return true;
}

/* ---- helpers --------------------------------------------------------------- */

static const char *describe(irgen *g, gval v, char buf[64])
{
    if (v.kind == GV_IR && ig_type(g, v).kind == TY_SCALAR) {
        char name[64];
        snprintf(buf, 64, "a scalar %s", ig_type_name(ig_type(g, v), name));
        return buf;
    }
    if (v.kind == GV_IR)
        return ig_type_name(ig_type(g, v), buf);
    if (v.kind == GV_CONST)
        return v.c.kind == CONST_DTYPE ? "a dtype" : "a constant";
    return v.kind == GV_NONE ? "None" : "this value";
}

/* The view argument of sl.load_segment / store_segment / segment_length. */
static bool want_view(irgen *g, const ast_expr *a, const char *who, ir_value *out)
{
    char buf[64];
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_UNDEF) {
        ig_error(g, a->loc, "%s", v.note);
        return false;
    }
    if (v.kind != GV_IR || ig_type(g, v).kind != TY_SEGMENT) {
        ig_error(g, a->loc, "sl.%s needs a segment view made by sl.segment(values, offsets, sid), "
                            "not %s", who, describe(g, v, buf));
        return false;
    }
    *out = v.v;
    return true;
}

/* A scalar pointer argument (values of sl.segment, the target of
 * sl.store_segment). */
static bool want_pointer(irgen *g, const ast_expr *a, const char *what, ir_value *out)
{
    char buf[64];
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return false;
    if (v.kind == GV_UNDEF) {
        ig_error(g, a->loc, "%s", v.note);
        return false;
    }
    if (v.kind != GV_IR || ig_type(g, v).kind != TY_PTR) {
        ig_error(g, a->loc, "%s must be a pointer (a tensor argument), not %s", what,
                 describe(g, v, buf));
        return false;
    }
    *out = v.v;
    return true;
}

/* The kernel's one sw.segment_id. Made at the first use; when that use is
 * inside a region, the op goes to the top of the kernel so that every later
 * use sees it. */
static ir_value segment_id_value(irgen *g, src_loc loc)
{
    if (g->seg.segment_id != IR_NO_VALUE)
        return g->seg.segment_id;
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_op *op = ir_op_create(g->m, IR_SEGMENT_ID, loc, NULL, 0, &i32, 1, 0);
    ir_attr_set_int(g->m, op, "axis", i32, 0);
    if (g->block == g->body || !g->body->first)
        ir_block_append(g->body, op);
    else
        ir_insert_before(g->body->first, op);
    g->seg.segment_id = op->results[0];
    g->seg.segment_id_at = loc;
    return g->seg.segment_id;
}

/* ---- the built-ins ---------------------------------------------------------- */

static gval lower_segment_id(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    int64_t axis;
    if (!ig_const_int(g, args[0], ig_expr(g, args[0]), "the axis of sl.segment_id", &axis))
        return (gval){0};
    if (axis != 0)
        return ig_error(g, args[0]->loc, "sl.segment_id takes axis 0 (segments have one axis), "
                                         "not %lld", (long long)axis);
    if (g->seg.grid_name)
        return ig_error(g, call->loc, "sl.segment_id cannot be used in a kernel that uses "
                                      "sl.%s (line %d): a kernel is either a segment program or a "
                                      "grid program", g->seg.grid_name, user_line(g, g->seg.grid_at));
    return gv_ir(segment_id_value(g, call->loc));
}

static gval lower_segment(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    char buf[64];
    ir_value values, offsets;
    if (!want_pointer(g, args[0], "the values of sl.segment", &values) ||
        !want_pointer(g, args[1], "the offsets of sl.segment", &offsets))
        return (gval){0};
    ir_type ot = ir_value_type(g->m, offsets);
    const ir_value_info *oi = &g->m->values[offsets];
    if ((ot.dtype != DT_I32 && ot.dtype != DT_I64) && oi->arg_of && oi->name) {
        /* The kernel is fine; the caller passed the wrong array (docs/segments.md:
         * a bad argument is a TypeError/ValueError that names it). */
        diag_error_at(g->d, DIAG_ARGUMENT, g->src, args[1]->loc,
                      "argument '%s' holds the offsets of sl.segment and must be an int32 or "
                      "int64 array, not %s", oi->name, ir_dtypes[ot.dtype].py);
        return (gval){0};
    }
    if (ot.dtype != DT_I32 && ot.dtype != DT_I64)
        return ig_error(g, args[1]->loc, "the offsets of sl.segment must point to int32 or int64, "
                                         "not %s", ir_dtypes[ot.dtype].py);
    gval sid = ig_expr(g, args[2]);
    if (sid.kind == GV_ERROR)
        return sid;
    if (sid.kind != GV_IR || sid.v != g->seg.segment_id)
        return ig_error(g, args[2]->loc, "the segment id of sl.segment must be this program's "
                                         "sl.segment_id(0), not %s: a segment program processes "
                                         "exactly one segment", describe(g, sid, buf));
    if (g->seg.offsets != IR_NO_VALUE && g->seg.offsets != offsets)
        return ig_error(g, args[1]->loc, "sl.segment uses other offsets than the sl.segment at line "
                                         "%d: every view of a segment program shares one offsets "
                                         "pointer", user_line(g, g->seg.segment_at));
    ir_value ops[3] = {values, offsets, sid.v};
    ir_value r = ig_emit1(g, IR_SEGMENT, call->loc, ops, 3,
                          ir_type_segment((ir_dtype)ir_value_type(g->m, values).dtype));
    if (r != IR_NO_VALUE && g->seg.offsets == IR_NO_VALUE) {
        g->seg.offsets = offsets;
        g->seg.segment_at = call->loc;
    }
    return gv_ir(r);
}

/* float16 and bfloat16 segment values are computed in float32: the load
 * converts right away (docs/segments.md). */
static gval lower_load_segment(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    ir_value view;
    if (!want_view(g, args[0], "load_segment", &view))
        return (gval){0};
    ir_dtype dt = (ir_dtype)ir_value_type(g->m, view).dtype;
    ir_value x = ig_emit1(g, IR_LOAD_SEGMENT, call->loc, &view, 1, ir_type_segval(dt));
    if (x != IR_NO_VALUE && (dt == DT_F16 || dt == DT_BF16))
        x = ig_cast(g, call->loc, x, DT_F32);
    return gv_ir(x);
}

static gval lower_segment_length(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    ir_value view;
    if (!want_view(g, args[0], "segment_length", &view))
        return (gval){0};
    const ir_op *def = g->m->values[view].def;
    if (!def || def->kind != IR_SEGMENT)
        sw_unreachable(g->d, "a segment view not made by sw.segment");
    ir_type ot = ir_value_type(g->m, def->operands[1]);
    return gv_ir(ig_emit1(g, IR_SEGMENT_LENGTH, call->loc, &view, 1, ir_type_scalar((ir_dtype)ot.dtype)));
}

/* The value of sl.store_segment as a segment value of the pointee dtype: a
 * segment value, scalar or literal converted to it as .to() converts (as
 * Triton's store does; float16/bfloat16 segment values, computed in
 * float32, round back), scalars and literals broadcast. */
static ir_value store_value(irgen *g, const ast_expr *a, ir_value ptr)
{
    ir_dtype pointee = (ir_dtype)ir_value_type(g->m, ptr).dtype;
    char buf[64];
    gval v = ig_expr(g, a);
    if (v.kind == GV_ERROR)
        return IR_NO_VALUE;
    ir_type seg = ir_type_segval(pointee);
    if (v.kind == GV_CONST) {
        /* a float literal through an integer pointer converts as .to() does (Triton) */
        if (v.c.kind == CONST_FLOAT && !ir_dtype_is_float(pointee))
            return ig_cast(g, a->loc, ig_materialize(g, a->loc, v.c, ir_type_segval(DT_F32)), pointee);
        return ig_materialize(g, a->loc, v.c, seg);
    }
    ir_value x = ig_to_ir(g, a->loc, v, ir_type_void());
    if (x == IR_NO_VALUE)
        return IR_NO_VALUE;
    ir_type t = ir_value_type(g->m, x);
    if (t.kind != TY_SCALAR && t.kind != TY_SEGVAL) {
        ig_error(g, a->loc, "sl.store_segment stores a segment value or a scalar, not %s",
                 ig_type_name(t, buf));
        return IR_NO_VALUE;
    }
    /* values of another dtype convert to the pointee's as .to() does (Triton's store) */
    x = ig_cast(g, a->loc, x, pointee);
    return x == IR_NO_VALUE ? x : ig_broadcast(g, a->loc, x, seg);
}

static gval lower_store_segment(irgen *g, const ast_expr *call, const ast_expr *const *args)
{
    ir_value ptr, view;
    if (!want_pointer(g, args[0], "the pointer of sl.store_segment", &ptr) ||
        !want_view(g, args[1], "store_segment", &view))
        return (gval){0};
    ir_value value = store_value(g, args[2], ptr);
    if (value == IR_NO_VALUE)
        return (gval){0};
    ir_value ops[3] = {ptr, view, value};
    ig_emit(g, IR_STORE_SEGMENT, call->loc, ops, 3, NULL, 0);
    return (gval){.kind = GV_NONE};
}

gval ig_segment_builtin(irgen *g, const ast_expr *call, const char *name, const ast_expr *const *args)
{
    if (!strcmp(name, "segment_id"))
        return lower_segment_id(g, call, args);
    if (!strcmp(name, "segment"))
        return lower_segment(g, call, args);
    if (!strcmp(name, "load_segment"))
        return lower_load_segment(g, call, args);
    if (!strcmp(name, "store_segment"))
        return lower_store_segment(g, call, args);
    if (!strcmp(name, "segment_length"))
        return lower_segment_length(g, call, args);
    sw_unreachable(g->d, "no lowering for sl.%s", name);
    return (gval){0};
}
