/* test_ir_text.c - the IR's textual form: modules built with the ir.h API
 * print, parse back and print identically (nested regions, multi-result
 * ops, every type, awkward floats, odd parameter names, locations); exact
 * float spellings; parse errors at the right line:col; and a mutation fuzz
 * that the parser never crashes on and whose accepted inputs round-trip. */
#include "ir/ir.h"
#include "ir/scalar.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const src_loc NOLOC = {0, 0};

/* ---- building ------------------------------------------------------------- */

static ir_op *add_func(ir_module *m, const char *name)
{
    ir_op *f = ir_op_create(m, IR_FUNC, (src_loc){1, 1}, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(m, f, "sym_name", name);
    ir_block_append(m->body, f);
    return f;
}

static ir_op *emit_op(ir_module *m, ir_block *b, ir_op_kind k, const ir_value *ops, int n,
                      const ir_type *rt, int nres, int nreg)
{
    ir_op *op = ir_op_create(m, k, NOLOC, ops, n, rt, nres, nreg);
    ir_block_append(b, op);
    return op;
}

static ir_value emit1(ir_module *m, ir_block *b, ir_op_kind k, ir_type rt, ir_value x, ir_value y)
{
    ir_value ops[2] = {x, y};
    int n = x == IR_NO_VALUE ? 0 : y == IR_NO_VALUE ? 1 : 2;
    return emit_op(m, b, k, ops, n, &rt, 1, 0)->results[0];
}

static ir_value constant_int(ir_module *m, ir_block *b, ir_type t, int64_t v)
{
    ir_op *op = emit_op(m, b, IR_CONSTANT, NULL, 0, &t, 1, 0);
    ir_attr_set_int(m, op, "value", ir_type_scalar((ir_dtype)t.dtype), v);
    return op->results[0];
}

static ir_value constant_float(ir_module *m, ir_block *b, ir_type t, double v)
{
    ir_op *op = emit_op(m, b, IR_CONSTANT, NULL, 0, &t, 1, 0);
    ir_attr_set_float(m, op, "value", ir_type_scalar((ir_dtype)t.dtype), v);
    return op->results[0];
}

static void emit_return(ir_module *m, ir_block *b) { emit_op(m, b, IR_RETURN, NULL, 0, NULL, 0, 0); }

static void emit_yield(ir_module *m, ir_block *b, const ir_value *vals, int n)
{
    emit_op(m, b, IR_YIELD, vals, n, NULL, 0, 0);
}

/* The vector-add kernel of docs/ir-format.md, with masks and other. */
static ir_module *build_vector_add(arena *a)
{
    ir_module *m = ir_module_create(a, NULL);
    ir_block *b = ir_func_body(add_func(m, "add_kernel"));
    ir_value x = ir_block_add_arg(m, b, ir_type_ptr(DT_F32), "x_ptr");
    ir_value out = ir_block_add_arg(m, b, ir_type_ptr(DT_F32), "output_ptr");
    ir_value n = ir_block_add_arg(m, b, ir_type_scalar(DT_I32), "n");
    ir_type i32 = ir_type_scalar(DT_I32), ti = ir_type_tile(DT_I32, 128);
    ir_type tf = ir_type_tile(DT_F32, 128), tp = ir_type_ptr_tile(DT_F32, 128);
    ir_op *pid = emit_op(m, b, IR_PROGRAM_ID, NULL, 0, &i32, 1, 0);
    ir_attr_set_int(m, pid, "axis", i32, 0);
    ir_value block = constant_int(m, b, i32, 128);
    ir_value start = emit1(m, b, IR_MUL, i32, pid->results[0], block);
    ir_op *ar = emit_op(m, b, IR_ARANGE, NULL, 0, &ti, 1, 0);
    ir_attr_set_int(m, ar, "start", i32, 0);
    ir_attr_set_int(m, ar, "end", i32, 128);
    ir_value offs = emit1(m, b, IR_ADD, ti, emit1(m, b, IR_SPLAT, ti, start, IR_NO_VALUE), ar->results[0]);
    ir_value cmp_ops[2] = {offs, emit1(m, b, IR_SPLAT, ti, n, IR_NO_VALUE)};
    ir_type tb = ir_type_tile(DT_I1, 128);
    ir_op *cmp = emit_op(m, b, IR_CMP, cmp_ops, 2, &tb, 1, 0);
    ir_attr_set_str(m, cmp, "predicate", "lt");
    ir_value xp = emit1(m, b, IR_ADDPTR, tp, emit1(m, b, IR_SPLAT, tp, x, IR_NO_VALUE), offs);
    ir_value other = constant_float(m, b, tf, 0.0);
    ir_value load_ops[3] = {xp, cmp->results[0], other};
    ir_value v = emit_op(m, b, IR_LOAD, load_ops, 3, &tf, 1, 0)->results[0];
    ir_value op = emit1(m, b, IR_ADDPTR, tp, emit1(m, b, IR_SPLAT, tp, out, IR_NO_VALUE), offs);
    ir_value store_ops[3] = {op, emit1(m, b, IR_EXP, tf, v, IR_NO_VALUE), cmp->results[0]};
    emit_op(m, b, IR_STORE, store_ops, 3, NULL, 0, 0);
    emit_return(m, b);
    return m;
}

/* A loop carrying two values whose body holds an sw.if with two results,
 * inside which another loop runs; then a reduction of the loop's result. */
static ir_module *build_nested(arena *a)
{
    ir_module *m = ir_module_create(a, NULL);
    ir_block *b = ir_func_body(add_func(m, "nested"));
    ir_type i32 = ir_type_scalar(DT_I32), f32 = ir_type_scalar(DT_F32), i1 = ir_type_scalar(DT_I1);
    ir_type tf = ir_type_tile(DT_F32, 16);
    ir_value p = ir_block_add_arg(m, b, ir_type_ptr(DT_F32), "p");
    ir_value lb = constant_int(m, b, i32, 0), ub = constant_int(m, b, i32, 8), st = constant_int(m, b, i32, 1);
    ir_value acc = constant_float(m, b, tf, 0.5), cnt = constant_float(m, b, f32, 0.0);
    ir_value for_ops[5] = {lb, ub, st, acc, cnt};
    ir_type for_types[2] = {tf, f32};
    ir_op *loop = emit_op(m, b, IR_FOR, for_ops, 5, for_types, 2, 1);
    ir_block *body = loop->regions[0];
    ir_value iv = ir_block_add_arg(m, body, i32, NULL);
    ir_value c_acc = ir_block_add_arg(m, body, tf, NULL);
    ir_value c_cnt = ir_block_add_arg(m, body, f32, NULL);
    ir_value cmp_ops[2] = {iv, ub};
    ir_op *cmp = emit_op(m, body, IR_CMP, cmp_ops, 2, &i1, 1, 0);
    ir_attr_set_str(m, cmp, "predicate", "ne");
    ir_value if_ops[1] = {cmp->results[0]};
    ir_op *branch = emit_op(m, body, IR_IF, if_ops, 1, for_types, 2, 2);
    {
        ir_block *then = branch->regions[0];
        ir_value inner_ops[3] = {lb, iv, st};
        ir_op *inner = emit_op(m, then, IR_FOR, inner_ops, 3, NULL, 0, 1);
        ir_block *ib = inner->regions[0];
        ir_value j = ir_block_add_arg(m, ib, i32, NULL);
        ir_value fj = emit1(m, ib, IR_CAST, f32, j, IR_NO_VALUE);
        emit_op(m, ib, IR_STORE, (ir_value[]){emit1(m, ib, IR_ADDPTR, ir_type_ptr(DT_F32), p, j), fj}, 2,
                NULL, 0, 0);
        emit_yield(m, ib, NULL, 0);
        ir_value grown = emit1(m, then, IR_ADD, tf, c_acc, emit1(m, then, IR_SPLAT, tf, c_cnt, IR_NO_VALUE));
        emit_yield(m, then, (ir_value[]){grown, c_cnt}, 2);
        emit_yield(m, branch->regions[1], (ir_value[]){c_acc, emit1(m, branch->regions[1], IR_NEG, f32, c_cnt, IR_NO_VALUE)}, 2);
    }
    emit_yield(m, body, branch->results, 2);
    ir_op *red = emit_op(m, b, IR_REDUCE, &loop->results[0], 1, &f32, 1, 0);
    ir_attr_set_str(m, red, "kind", "sum");
    ir_value sum = emit1(m, b, IR_ADD, f32, red->results[0], loop->results[1]);
    emit_op(m, b, IR_STORE, (ir_value[]){p, sum}, 2, NULL, 0, 0);
    emit_return(m, b);
    return m;
}

/* One pointer parameter and one constant of every dtype, scalar and tile,
 * plus casts and a select: every type spelling appears. */
static ir_module *build_all_types(arena *a)
{
    ir_module *m = ir_module_create(a, NULL);
    ir_block *b = ir_func_body(add_func(m, "types"));
    for (int dt = DT_I1; dt < DT_COUNT; dt++) {
        char name[32];
        snprintf(name, sizeof name, "p_%s", ir_dtypes[dt].name);
        ir_block_add_arg(m, b, ir_type_ptr((ir_dtype)dt), name);
        ir_block_add_arg(m, b, ir_type_scalar((ir_dtype)dt), ir_dtypes[dt].py);
    }
    for (int dt = DT_I1; dt < DT_COUNT; dt++) {
        ir_type s = ir_type_scalar((ir_dtype)dt), t = ir_type_tile((ir_dtype)dt, 7);
        ir_value cs = ir_dtype_is_float((ir_dtype)dt) ? constant_float(m, b, s, -2.5) : constant_int(m, b, s, 1);
        ir_value ct = emit1(m, b, IR_SPLAT, t, cs, IR_NO_VALUE);
        ir_value f = emit1(m, b, IR_CAST, ir_type_tile(DT_F64, 7), ct, IR_NO_VALUE);
        ir_value cond = constant_int(m, b, ir_type_tile(DT_I1, 7), 1);
        emit_op(m, b, IR_SELECT, (ir_value[]){cond, f, f}, 3, (ir_type[]){ir_type_tile(DT_F64, 7)}, 1, 0);
        ir_value pt = emit1(m, b, IR_SPLAT, ir_type_ptr_tile((ir_dtype)dt, 7), b->args[2 * (dt - 1)], IR_NO_VALUE);
        (void)pt;
    }
    ir_value i64c = constant_int(m, b, ir_type_scalar(DT_I64), INT64_MIN);
    ir_value i64d = constant_int(m, b, ir_type_scalar(DT_I64), INT64_MAX);
    emit1(m, b, IR_XOR, ir_type_scalar(DT_I64), i64c, i64d);
    emit_return(m, b);
    return m;
}

/* Float attributes that are hard to spell: each as an f16, bf16, f32 and
 * f64 constant, and as an attribute on the function. */
static const double awkward[] = {0.1, 1e30, -0.0, 0.0, 1.0, 100.0, 65504.0, 1e-7, 3.14159265358979,
                                 1.0 / 3.0, 1e-300, 1.7976931348623157e308, 4.9e-324, 1.5e-45, 123456789.0,
                                 -2.5, 6.1e-5, 2048.0, 1e5, 16777217.0};

static ir_module *build_floats(arena *a)
{
    ir_module *m = ir_module_create(a, NULL);
    ir_op *f = add_func(m, "floats");
    ir_block *b = ir_func_body(f);
    static const ir_dtype fts[] = {DT_F16, DT_BF16, DT_F32, DT_F64};
    int k = 0;
    for (size_t i = 0; i < sizeof awkward / sizeof awkward[0] + 3; i++) {
        size_t n = sizeof awkward / sizeof awkward[0];
        double v = i < n ? awkward[i] : i == n ? INFINITY : i == n + 1 ? -INFINITY : NAN;
        for (int t = 0; t < 4; t++) {
            constant_float(m, b, ir_type_scalar(fts[t]), v);
            char name[32];
            snprintf(name, sizeof name, "attr_%03d", k++);
            ir_attr_set_float(m, f, name, ir_type_scalar(fts[t]), v);
        }
    }
    ir_attr_set_str(m, f, "note", "quote \" backslash \\ newline \n tab \t bell \a end");
    ir_attr_set_bool(m, f, "flag", true);
    ir_attr_set_type(m, f, "elem", ir_type_ptr_tile(DT_BF16, 3));
    ir_attr_set_int(m, f, "with space", ir_type_scalar(DT_I8), -128);
    emit_return(m, b);
    return m;
}

/* Parameter names that cannot print as themselves: a numeric fallback. */
static ir_module *build_odd_names(arena *a)
{
    ir_module *m = ir_module_create(a, NULL);
    ir_block *b = ir_func_body(add_func(m, "odd names"));
    const char *names[] = {"x", "x", "1abc", "", NULL, "42", "a-b.c$d", "_", "has space", "é"};
    ir_value vals[10];
    for (int i = 0; i < 10; i++)
        vals[i] = ir_block_add_arg(m, b, ir_type_scalar(DT_I32), names[i]);
    ir_value s = vals[0];
    for (int i = 1; i < 10; i++)
        s = emit1(m, b, IR_ADD, ir_type_scalar(DT_I32), s, vals[i]);
    emit_return(m, b);
    /* A second function reuses the names: functions are separate scopes. */
    ir_block *b2 = ir_func_body(add_func(m, "second"));
    ir_value y = ir_block_add_arg(m, b2, ir_type_scalar(DT_F32), "x");
    emit1(m, b2, IR_NEG, ir_type_scalar(DT_F32), y, IR_NO_VALUE);
    emit_return(m, b2);
    return m;
}

/* Ops located in a kernel file whose function starts at line 40. */
static ir_module *build_located(arena *a)
{
    source_file src = {"kernels/softmax.py", "unused", 6, 40};
    ir_module *m = build_vector_add(a);
    m->src = src;
    int line = 1;
    for (ir_op *op = ir_func_body(ir_module_func(m))->first; op; op = op->next, line++)
        op->loc = line % 5 == 0 ? NOLOC : (src_loc){line, 2 * line + 1};
    return m;
}

/* ---- round trips -------------------------------------------------------- */

static char *print_text(const ir_module *m, bool locations)
{
    strbuf sb;
    sb_init(&sb);
    ir_print_options opts = {.locations = locations};
    ir_print_module(m, &opts, &sb);
    return sb_take(&sb);
}

static ir_module *parse_text(arena *a, const char *text, diag *d)
{
    source_file src = {"test.mlir", text, strlen(text), 1};
    return ir_parse_module(a, &src, d);
}

/* Checks: the built module verifies, its text parses and verifies, and the
 * parsed module prints the same text. Returns the text (caller frees). */
static char *round_trip(const char *what, ir_module *m, bool locations)
{
    diag d;
    diag_init(&d);
    CHECK(ir_verify(m, &d), "%s: built module does not verify: %s", what, d.message ? d.message : "");
    diag_clear(&d);
    char *first = print_text(m, locations);
    arena a;
    arena_init(&a);
    ir_module *back = parse_text(&a, first, &d);
    CHECK(back != NULL, "%s: printed text does not parse: %s\n%s", what, d.rendered ? d.rendered : "", first);
    if (back) {
        CHECK(ir_verify(back, &d), "%s: parsed module does not verify: %s", what, d.message ? d.message : "");
        char *second = print_text(back, locations);
        CHECK(!strcmp(first, second), "%s: print -> parse -> print differs:\n%s\n---\n%s", what, first, second);
        free(second);
    }
    diag_clear(&d);
    arena_free(&a);
    return first;
}

static void test_round_trips(void)
{
    ir_module *(*builders[])(arena *) = {build_vector_add, build_nested, build_all_types, build_floats,
                                         build_odd_names, build_located};
    const char *names[] = {"vector_add", "nested", "all_types", "floats", "odd_names", "located"};
    for (int i = 0; i < 6; i++) {
        for (int locs = 0; locs < 2; locs++) {
            arena a;
            arena_init(&a);
            free(round_trip(names[i], builders[i](&a), locs));
            arena_free(&a);
        }
    }
}

/* ---- exact spellings ------------------------------------------------------ */

static bool contains(const char *text, const char *needle)
{
    return strstr(text, needle) != NULL;
}

static void test_spellings(void)
{
    arena a;
    arena_init(&a);
    char *t = print_text(build_floats(&a), false);
    /* 1e30 is inside bf16's range (max ~3.4e38), so it stays finite there. */
    CHECK(contains(t, "attr_005 = 1.0e+30 : bf16"), "bf16 1e30: %s", t);
    CHECK(contains(t, "attr_000 = 0.1 : f16"), "f16 0.1");
    CHECK(contains(t, "attr_002 = 0.1 : f32"), "f32 0.1");
    CHECK(contains(t, "attr_003 = 0.1 : f64"), "f64 0.1");
    CHECK(contains(t, "attr_006 = 1.0e+30 : f32"), "f32 1e30");
    CHECK(contains(t, "attr_004 = 0x7C00 : f16"), "f16 1e30 overflows to inf");
    CHECK(contains(t, "attr_010 = -0.0 : f32"), "f32 -0.0");
    CHECK(contains(t, "attr_011 = -0.0 : f64"), "f64 -0.0");
    CHECK(contains(t, "attr_022 = 100.0 : f32"), "f32 100");
    CHECK(contains(t, "attr_024 = 65504.0 : f16"), "f16 max");
    CHECK(contains(t, "= 0x7F800000 : f32"), "f32 inf");
    CHECK(contains(t, "= 0xFF800000 : f32"), "f32 -inf");
    CHECK(contains(t, "= 0x7FF0000000000000 : f64"), "f64 inf");
    CHECK(contains(t, "= 0xFFF0000000000000 : f64"), "f64 -inf");
    CHECK(contains(t, "= 0xFC00 : f16"), "f16 -inf");
    CHECK(contains(t, "= 0x7F80 : bf16"), "bf16 inf");
    CHECK(contains(t, "= 0x7FC00000 : f32"), "f32 nan");
    CHECK(contains(t, "= 0x7FF8000000000000 : f64"), "f64 nan");
    CHECK(contains(t, "= 0x7E00 : f16"), "f16 nan");
    CHECK(contains(t, "value = 1.2345679e+08 : f32"), "f32 123456789");
    CHECK(contains(t, "value = 16777216.0 : f32"), "f32 2^24+1 rounds to 2^24");
    CHECK(contains(t, "value = 3.1415926535897900 : f64") || contains(t, "value = 3.14159265358979 : f64"),
          "f64 pi-ish");
    CHECK(contains(t, "note = \"quote \\\" backslash \\\\ newline \\0A tab \\09 bell \\07 end\""),
          "string escapes");
    CHECK(contains(t, "flag = true"), "bool attribute");
    CHECK(contains(t, "elem = tensor<3x!sw.ptr<bf16>>"), "type attribute");
    CHECK(contains(t, "\"with space\" = -128 : i8"), "quoted attribute name");
    CHECK(contains(t, "func.func @floats() attributes {"), "func attributes");
    free(t);

    /* Parsed float attributes keep their value in the attribute's type. */
    const char *src = "func.func @k() attributes {a = 0.1 : f32, b = 0x7FC00000 : f32, c = 1 : f64, "
                      "d = -0x1 : i8, e = 0xFF : i8, g = 0x3C00 : f16, h = 1e3 : f64} {\n"
                      "  \"func.return\"() : () -> ()\n}\n";
    diag d;
    diag_init(&d);
    ir_module *m = parse_text(&a, src, &d);
    CHECK(m == NULL, "a negative hex literal is rejected");
    CHECK(d.message && contains(d.message, "does not fit"), "negative hex message: %s", d.message ? d.message : "");
    diag_clear(&d);
    src = "func.func @k() attributes {a = 0.1 : f32, b = 0x7FC00000 : f32, c = 1 : f64, "
          "e = 0xFF : i8, g = 0x3C00 : f16, h = 1e3 : f64, i = -9223372036854775808 : i64} {\n"
          "  \"func.return\"() : () -> ()\n}\n";
    m = parse_text(&a, src, &d);
    CHECK(m != NULL, "float attributes parse: %s", d.message ? d.message : "");
    if (m) {
        ir_op *f = ir_module_func(m);
        CHECK(ir_attr_get(f, "a")->f == (double)0.1f, "0.1 : f32 is the f32 nearest 0.1");
        CHECK(isnan(ir_attr_get(f, "b")->f), "hex NaN");
        CHECK(ir_attr_get(f, "c")->kind == ATTR_FLOAT && ir_attr_get(f, "c")->f == 1.0, "1 : f64 is a float");
        CHECK(ir_attr_get(f, "e")->i == -1, "0xFF : i8 is -1");
        CHECK(ir_attr_get(f, "g")->f == 1.0, "0x3C00 : f16 is 1.0");
        CHECK(ir_attr_get(f, "h")->f == 1000.0, "1e3");
        CHECK(ir_attr_get(f, "i")->i == INT64_MIN, "INT64_MIN");
    }
    diag_clear(&d);
    arena_free(&a);
}

/* ---- hand-written variants and errors ------------------------------------- */

static void test_variants(void)
{
    const char *src =
        "// a comment\n"
        "module @m attributes {x = 1 : i32} {\n"
        "  func.func private @k(%arg0 : i32 loc(unknown), %ptr: !sw.ptr<f32>) {  // trailing\n"
        "    %sum, %pair:2 = \"sw.add\"(%arg0, %arg0) : (i32, i32) -> (i32, i32, i32)\n"
        "    return\n"
        "  } loc(\"k.py\":3:1)\n"
        "} loc(unknown)\n";
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d);
    ir_module *m = parse_text(&a, src, &d);
    CHECK(m != NULL, "hand-written variant parses: %s", d.rendered ? d.rendered : "");
    if (m) {
        ir_op *f = ir_module_func(m);
        CHECK(!strcmp(ir_func_name(f), "k"), "func name");
        CHECK(f->loc.line == 3 && f->loc.col == 1, "func loc from loc(...)");
        CHECK(m->src.name && !strcmp(m->src.name, "k.py") && !m->src.text, "module src becomes the user file");
        ir_op *add = ir_func_body(f)->first;
        CHECK(add->nresults == 3 && add->loc.line == 0, "unlocated op gets no text position once locs are present");
        CHECK(ir_func_body(f)->last->kind == IR_RETURN, "pretty return");
        /* The verifier then reports at k.py:3:1 without a caret. */
        CHECK(!ir_verify(m, &d), "sw.add with 3 results does not verify");
        CHECK(d.rendered && !strcmp(d.rendered, "error: 'sw.add' takes 1 result, got 3\n"),
              "verifier message: %s", d.rendered ? d.rendered : "");
    }
    diag_clear(&d);

    /* Bare func, no module; errors point into the IR text with a caret. */
    static const struct {
        const char *text;
        int line, col;
        const char *message;
    } errors[] = {
        {"func.func @k() {\n  %0 = \"sw.neg\"(%x) : (i32) -> i32\n}", 2, 17, "use of undefined value '%x'"},
        {"func.func @k() {\n  \"sw.frob\"() : () -> ()\n}", 2, 3, "unknown operation 'sw.frob'"},
        {"func.func @k(%a: i32) {\n  %0 = \"sw.add\"(%a, %a) : (i32, i32, i32) -> i32\n}", 2, 27,
         "'sw.add' has 2 operands but its type lists 3"},
        {"func.func @k(%a: i32) {\n  %0 = \"sw.neg\"(%a) : (i32) -> i32\n", 2, 35,
         "expected '}' (to close '{' at line 1), found end of input"},
        {"func.func @k(%a: i12) {}", 1, 18, "unknown type 'i12'"},
        {"func.func @k(%a: i32 {}", 1, 22, "argument attributes are not supported"},
        {"func.func @k() {\n  %0 = \"sw.constant\"() {value = 1.5 : i32} : () -> i32\n}", 2, 39,
         "a float literal needs a float type, not i32"},
        {"func.func @k() {\n  %0 = \"sw.for\"() ({\n  ^bb0:\n  ^bb1:\n  }) : () -> ()\n}", 4, 3,
         "a region holds one block"},
        {"\"sw.constant\"() {value = \"abc} : () -> i32", 1, 26, "unterminated string literal"},
        {"func.func @k(%a: i32) { %b = \"sw.neg\"(%a) : (i32) -> i32 %b = \"sw.neg\"(%a) : (i32) -> i32 }", 1,
         58, "redefinition of value '%b'"},
        {"func.func @k(%a: tensor<0xf32>) {}", 1, 25, "tensor dimension must be at least 1"},
        {"func.func @k() { %0 = \"sw.constant\"() {value = 1 : i32} : () -> i32 loc(#loc3) }", 1, 73,
         "location aliases (#loc) are not supported"},
        {"func.func @k() { %0:2 = \"sw.constant\"() {value = 1 : i32} : () -> i32 }", 1, 18,
         "'sw.constant' defines 2 results but its type lists 1"},
        {"func.func @k(%a: i32) { %0 = \"sw.neg\"(%a#1) : (i32) -> i32 }", 1, 39, "'%a' has 1 result; there is no #1"},
        {"func.func @k(%a: i32) { %0 = \"sw.neg\"(%a) : (f32) -> f32 }", 1, 39,
         "use of value '%a' expects type f32 but it has type i32"},
        {"func.func @k() { \x01 }", 1, 18, "unexpected byte 0x01"},
    };
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        diag_init(&d);
        m = parse_text(&a, errors[i].text, &d);
        CHECK(m == NULL, "error case %zu parses", i);
        CHECK(d.line == errors[i].line && d.col == errors[i].col, "error case %zu at %d:%d, want %d:%d (%s)", i,
              d.line, d.col, errors[i].line, errors[i].col, d.message ? d.message : "");
        CHECK(d.message && !strncmp(d.message, errors[i].message, strlen(errors[i].message)),
              "error case %zu says '%s', want '%s'", i, d.message ? d.message : "", errors[i].message);
        CHECK(d.rendered && strstr(d.rendered, "^\n"), "error case %zu has a caret", i);
        diag_clear(&d);
    }

    /* Nesting: 200 levels parse; 300 are refused, not a stack overflow. */
    for (int depth = 200; depth <= 300; depth += 100) {
        strbuf sb;
        sb_init(&sb);
        sb_puts(&sb, "func.func @k(%c: i1) {\n");
        for (int i = 0; i < depth; i++)
            sb_puts(&sb, "\"sw.if\"(%c) ({\n");
        for (int i = 0; i < depth; i++)
            sb_puts(&sb, "\"sw.yield\"() : () -> ()\n}, {\n\"sw.yield\"() : () -> ()\n}) : (i1) -> ()\n");
        sb_puts(&sb, "\"func.return\"() : () -> ()\n}\n");
        diag_init(&d);
        m = parse_text(&a, sb.data, &d);
        if (depth == 200) {
            CHECK(m != NULL, "200 nested regions parse: %s", d.message ? d.message : "");
            CHECK(m && ir_verify(m, &d), "200 nested regions verify: %s", d.message ? d.message : "");
        } else {
            CHECK(m == NULL && d.message && strstr(d.message, "nested too deeply"), "300 nested regions refused");
        }
        diag_clear(&d);
        sb_free(&sb);
    }
    arena_free(&a);
}

/* ---- verifier rules that text cannot express ---------------------------- */

/* The parser resolves names with scoping, so these dominance violations
 * can only come from the builder (or a buggy pass). */
static void expect_verify_error(const char *what, ir_module *m, const char *message)
{
    diag d;
    diag_init(&d);
    bool ok = ir_verify(m, &d);
    CHECK(!ok, "%s: verifies", what);
    CHECK(d.message && strstr(d.message, message), "%s: says '%s', want '%s'", what, d.message ? d.message : "",
          message);
    diag_clear(&d);
    /* Broken IR still prints (for dumps), whatever it holds. */
    free(print_text(m, true));
}

static void test_verifier_scopes(void)
{
    ir_type i32 = ir_type_scalar(DT_I32);
    arena a;
    arena_init(&a);

    /* A value defined in a loop body, used after the loop. */
    ir_module *m = ir_module_create(&a, NULL);
    ir_block *b = ir_func_body(add_func(m, "k"));
    ir_value n = ir_block_add_arg(m, b, i32, "n");
    ir_op *loop = emit_op(m, b, IR_FOR, (ir_value[]){n, n, n}, 3, NULL, 0, 1);
    ir_value iv = ir_block_add_arg(m, loop->regions[0], i32, NULL);
    ir_value inner = emit1(m, loop->regions[0], IR_NEG, i32, iv, IR_NO_VALUE);
    emit_yield(m, loop->regions[0], NULL, 0);
    emit1(m, b, IR_NEG, i32, inner, IR_NO_VALUE);
    emit_return(m, b);
    expect_verify_error("use after region", m, "operand #0 of 'sw.neg' is defined inside a region that has ended");

    /* A use before the definition. */
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "k"));
    n = ir_block_add_arg(m, b, i32, "n");
    ir_op *later = ir_op_create(m, IR_NEG, NOLOC, &n, 1, &i32, 1, 0);
    emit1(m, b, IR_ABS, i32, later->results[0], IR_NO_VALUE);
    ir_block_append(b, later);
    emit_return(m, b);
    expect_verify_error("use before def", m, "operand #0 of 'sw.abs' is used before it is defined");

    /* A parameter of one function used in another. */
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "first"));
    n = ir_block_add_arg(m, b, i32, "n");
    emit_return(m, b);
    b = ir_func_body(add_func(m, "second"));
    emit1(m, b, IR_NEG, i32, n, IR_NO_VALUE);
    emit_return(m, b);
    expect_verify_error("cross-function use", m, "is defined inside a region that has ended");

    /* A use of a detached op's result, and a missing operand. */
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "k"));
    n = ir_block_add_arg(m, b, i32, "n");
    ir_op *gone = ir_op_create(m, IR_NEG, NOLOC, &n, 1, &i32, 1, 0);
    emit1(m, b, IR_NEG, i32, gone->results[0], IR_NO_VALUE);
    emit_return(m, b);
    expect_verify_error("detached def", m, "used before it is defined");
    char *text = print_text(m, false);
    CHECK(strstr(text, "%<detached:"), "a detached value prints as such:\n%s", text);
    free(text);
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "k"));
    ir_value none = IR_NO_VALUE;
    emit_op(m, b, IR_NEG, &none, 1, &i32, 1, 0);
    emit_return(m, b);
    expect_verify_error("missing operand", m, "malformed IR: operand #0 of 'sw.neg' is not a value");

    /* The same op linked twice defines its results twice. */
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "k"));
    n = ir_block_add_arg(m, b, i32, "n");
    ir_op *neg = emit_op(m, b, IR_NEG, &n, 1, &i32, 1, 0);
    ir_op *copy = ir_op_create(m, IR_NEG, NOLOC, &n, 1, &i32, 1, 0);
    copy->results = neg->results;
    ir_block_append(b, copy);
    emit_return(m, b);
    expect_verify_error("double definition", m, "malformed IR: result #0 of 'sw.neg' does not belong to it");

    /* A number attribute whose type is of the other kind would not read back. */
    m = ir_module_create(&a, NULL);
    b = ir_func_body(add_func(m, "k"));
    ir_op *cst = emit_op(m, b, IR_CONSTANT, NULL, 0, &i32, 1, 0);
    ir_attr_set_int(m, cst, "value", ir_type_scalar(DT_F32), 1);
    emit_return(m, b);
    expect_verify_error("int attribute of float type", m,
                        "'sw.constant' attribute 'value' is an integer of type f32");

    /* A verified module with the source's first line applied to locations. */
    source_file src = {"kern.py", NULL, 0, 40};
    m = ir_module_create(&a, &src);
    b = ir_func_body(add_func(m, "k"));
    n = ir_block_add_arg(m, b, i32, "n");
    ir_op *bad = emit_op(m, b, IR_NEG, &n, 1, (ir_type[]){ir_type_scalar(DT_F32)}, 1, 0);
    bad->loc = (src_loc){3, 7};
    emit_return(m, b);
    diag d;
    diag_init(&d);
    CHECK(!ir_verify(m, &d) && d.line == 42 && d.col == 7 && d.file && !strcmp(d.file, "kern.py"),
          "verifier error at kern.py:42:7, got %s:%d:%d", d.file ? d.file : "?", d.line, d.col);
    diag_clear(&d);
    text = print_text(m, true);
    CHECK(strstr(text, "loc(\"kern.py\":42:7)") && strstr(text, "} loc(\"kern.py\":40:1)"),
          "locations add first_line - 1:\n%s", text);
    free(text);
    arena_free(&a);
}

/* ---- fuzz --------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *const snippets[] = {
    "{", "}", "(", ")", "%0", "%1#1", "#", ":", ":2", "->", "=", ",", "tensor<", "tensor<4xf32>",
    "!sw.ptr<", "!sw.ptr<i32>", "loc(", "loc(\"f\":1:2)", "loc(unknown)", "\"", "\"sw.add\"", "\"sw.for\"",
    "\"sw.yield\"", "0x", "0x7F800000", "-", "1e", "1.5e+30", "^bb0(", "^bb0:", "func.func", "@k", "module",
    "i1", "f16", "\\", "\n", "//", " ", "-9223372036854775809", "99999999999999999999", "({", "})", "%",
    "attributes", "return", "true", "\"\\0A\"", "\"\\00\"", "\xff", "\0",
};

/* Mutates text into buf: flips, inserts, deletes, duplicates, splices. */
static size_t mutate(const char *text, size_t len, char *buf, size_t cap)
{
    size_t n = len < cap ? len : cap;
    memcpy(buf, text, n);
    int edits = 1 + (int)(rnd() % 4);
    for (int e = 0; e < edits; e++) {
        size_t at = n ? rnd() % (n + 1) : 0;
        switch (rnd() % 6) {
        case 0:
            if (at < n)
                buf[at] = (char)(rnd() & 0xff);
            break;
        case 1: { /* delete a span */
            size_t k = rnd() % 16;
            if (at + k > n)
                k = n - at;
            memmove(buf + at, buf + at + k, n - at - k);
            n -= k;
            break;
        }
        case 2: { /* insert a snippet */
            size_t idx = rnd() % (sizeof snippets / sizeof snippets[0]);
            const char *s = snippets[idx];
            size_t k = s[0] ? strlen(s) : 1;
            if (n + k > cap)
                break;
            memmove(buf + at + k, buf + at, n - at);
            memcpy(buf + at, s, k);
            n += k;
            break;
        }
        case 3: { /* duplicate a span elsewhere */
            size_t from = n ? rnd() % n : 0, k = rnd() % 64;
            if (from + k > n)
                k = n - from;
            if (n + k > cap)
                break;
            char tmp[64];
            memcpy(tmp, buf + from, k);
            memmove(buf + at + k, buf + at, n - at);
            memcpy(buf + at, tmp, k);
            n += k;
            break;
        }
        case 4: /* truncate */
            n = at;
            break;
        default: /* swap a digit */
            if (at < n && buf[at] >= '0' && buf[at] <= '9')
                buf[at] = (char)('0' + rnd() % 10);
            break;
        }
    }
    return n;
}

static void fuzz_one(const char *buf, size_t n, int *accepted, int *verified)
{
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d);
    source_file src = {"fuzz.mlir", buf, n, 1};
    ir_module *m = ir_parse_module(&a, &src, &d);
    if (m) {
        (*accepted)++;
        bool locs = rnd() & 1;
        char *first = print_text(m, locs);
        if (ir_verify(m, &d)) {
            /* Whatever the parser accepts and the verifier passes must
             * round-trip exactly. */
            (*verified)++;
            diag_clear(&d);
            arena b;
            arena_init(&b);
            ir_module *back = parse_text(&b, first, &d);
            char *second = back ? print_text(back, locs) : NULL;
            CHECK(second && !strcmp(first, second), "fuzz: accepted input does not round-trip:\n%.*s\n--- printed:\n%s",
                  (int)n, buf, first);
            free(second);
            arena_free(&b);
        }
        free(first);
    } else {
        if (!(d.message && d.rendered && d.line > 0)) {
            CHECK(false, "fuzz: rejection without a located diagnostic for:\n%.*s", (int)n, buf);
        }
    }
    diag_clear(&d);
    arena_free(&a);
}

static void test_fuzz(int iterations)
{
    arena a;
    arena_init(&a);
    char *seeds[3] = {print_text(build_nested(&a), false), print_text(build_vector_add(&a), true),
                      print_text(build_floats(&a), false)};
    arena_free(&a);
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    int accepted = 0, verified = 0, before = failed;
    for (int i = 0; i < iterations && failed - before < 5; i++) {
        const char *seed = seeds[i % 3];
        size_t n = mutate(seed, strlen(seed), buf, cap);
        fuzz_one(buf, n, &accepted, &verified);
    }
    for (int i = 0; i < iterations / 4; i++) { /* random bytes */
        size_t n = rnd() % 256;
        static const char alphabet[] = "(){}%:=\"->,xi3f2^#@!<> \n0123sw.addloc";
        for (size_t k = 0; k < n; k++)
            buf[k] = rnd() % 4 ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)(rnd() & 0xff);
        fuzz_one(buf, n, &accepted, &verified);
    }
    for (int s = 0; s < 3; s++) { /* every truncation of one seed */
        size_t len = strlen(seeds[s]);
        for (size_t n = 0; n < len; n += 1 + rnd() % 7)
            fuzz_one(seeds[s], n, &accepted, &verified);
    }
    CHECK(accepted > 0 && verified > 0, "fuzz exercised accepted inputs (%d accepted, %d verified)", accepted,
          verified);
    printf("fuzz: %d iterations, %d accepted, %d verified\n", iterations, accepted, verified);
    free(buf);
    for (int s = 0; s < 3; s++)
        free(seeds[s]);
}

/* Tile shapes: constructors, equality, text, and the attribute readers of
 * sw.trans and simt.vslots. */
static void test_shapes(void)
{
    char buf[64];
    int32_t d2[2] = {4, 8}, d1[1] = {32}, d3[3] = {2, 4, 8}, got[IR_MAX_RANK];
    ir_type t2 = ir_type_tile_shape(DT_F32, false, 2, d2), t1 = ir_type_tile_shape(DT_F32, false, 1, d1);
    ir_type t3 = ir_type_tile_shape(DT_I32, true, 3, d3);
    CHECK(t2.len == 32 && t2.rank == 2 && ir_tile_dims(t2, got) == 2 && got[0] == 4 && got[1] == 8,
          "2-D tile");
    CHECK(ir_type_eq(t1, ir_type_tile(DT_F32, 32)) && ir_tile_dims(t1, got) == 1 && got[0] == 32,
          "a rank-1 shape is the 1-D tile");
    CHECK(!ir_type_eq(t1, t2) && t1.len == t2.len, "same length, other dims: other types");
    CHECK(!strcmp(ir_type_str(t2, buf), "tensor<4x8xf32>"), "%s", buf);
    CHECK(!strcmp(ir_type_str(t3, buf), "tensor<2x4x8x!sw.ptr<i32>>"), "%s", buf);
    CHECK(!strcmp(ir_type_str(ir_type_like(t2, ir_type_scalar(DT_I1)), buf), "tensor<4x8xi1>"), "%s", buf);
    CHECK(!strcmp(ir_type_str(ir_reduce_axis_type(t3, 1), buf), "tensor<2x8x!sw.ptr<i32>>"), "%s", buf);
    CHECK(!strcmp(ir_type_str(ir_reduce_axis_type(t2, 0), buf), "tensor<8xf32>"), "%s", buf);
    int32_t b[2] = {1, 8};
    CHECK(ir_broadcastable(ir_type_tile_shape(DT_F32, false, 2, b), t2) && !ir_broadcastable(t2, t1) &&
          !ir_broadcastable(t1, t2), "broadcastable");
    int order[IR_MAX_RANK];
    CHECK(ir_parse_order("1,0", 2, order) && order[0] == 1 && order[1] == 0, "order 1,0");
    CHECK(ir_parse_order("2,0,1", 3, order) && order[0] == 2 && order[2] == 1, "order 2,0,1");
    CHECK(!ir_parse_order("0,0", 2, order) && !ir_parse_order("1,0,", 2, order) &&
          !ir_parse_order("2,0", 2, order) && !ir_parse_order("10", 2, order) && !ir_parse_order(NULL, 2, order),
          "bad orders");
    int32_t slots[4];
    CHECK(ir_parse_slots("0,3,12", 16, slots, 4) == 3 && slots[2] == 12, "slots");
    CHECK(ir_parse_slots("16", 16, slots, 4) == -1 && ir_parse_slots("1,,2", 16, slots, 4) == -1 &&
          ir_parse_slots("", 16, slots, 4) == -1 && ir_parse_slots("1,2,3,4,5", 16, slots, 4) == -1 &&
          ir_parse_slots("99999999999", 16, slots, 4) == -1, "bad slots");
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 4000;
    if (argc > 2)
        rng_state = (strtoull(argv[2], NULL, 0) + 1) * 0x9E3779B97F4A7C15ull | 1;
    test_round_trips();
    test_shapes();
    test_spellings();
    test_variants();
    test_verifier_scopes();
    test_fuzz(iterations);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
