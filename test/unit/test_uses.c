/* test_uses.c - the IR's use-lists: every operand slot of every op is on
 * the list of the value it holds, and only there, after building, setting
 * operands, replacing uses (everywhere, within a block), erasing, cloning,
 * parsing and every pass. Also the index of attribute names that ops with
 * many attributes keep, through the edits passes make to the array
 * directly. Last line: "N passed, N failed". */
#include "ir/ir.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const src_loc here = {1, 1};

/* ---- the invariant ------------------------------------------------------- */

static bool on_list(const ir_module *m, ir_value v, const ir_use *use)
{
    for (const ir_use *u = ir_value_uses(m, v); u; u = u->next)
        if (u == use)
            return true;
    return false;
}

/* Every operand of an op in b (and the regions in it) is on its value's
 * list; counts[v] counts them. */
static bool operands_listed(const ir_module *m, const ir_block *b, int32_t *counts, const char *what)
{
    for (const ir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->noperands; i++) {
            ir_value v = op->operands[i];
            if (v < 0 || v >= m->nvalues)
                continue;
            counts[v]++;
            if (op->uses[i].user != op || ir_use_index(&op->uses[i]) != i || !on_list(m, v, &op->uses[i])) {
                CHECK(false, "%s: operand %d of '%s' is not on the use-list of value %d", what, i,
                      ir_ops[op->kind].name, (int)v);
                return false;
            }
        }
        for (int r = 0; r < op->nregions; r++)
            if (!operands_listed(m, op->regions[r], counts, what))
                return false;
    }
    return true;
}

static bool in_module(const ir_module *m, const ir_op *op)
{
    for (const ir_block *b = op->parent; b; b = b->parent_op ? b->parent_op->parent : NULL)
        if (b == m->body)
            return true;
    return false;
}

/* The lists hold exactly the operand slots that name their value: linked
 * both ways, every op of the module there once per operand (detached ops
 * that were not erased may be there too). */
static void check_uses(const ir_module *m, const char *what)
{
    int32_t *counts = calloc((size_t)m->nvalues + 1, sizeof *counts);
    bool ok = operands_listed(m, m->body, counts, what);
    for (ir_value v = 0; ok && v < m->nvalues; v++) {
        int32_t attached = 0;
        const ir_use *prev = NULL;
        for (const ir_use *u = ir_value_uses(m, v); u; prev = u, u = u->next) {
            if (u->prev != prev || u->user->operands[ir_use_index(u)] != v) {
                CHECK(false, "%s: the use-list of value %d is broken", what, (int)v);
                ok = false;
                break;
            }
            attached += in_module(m, u->user);
        }
        if (ok && attached != counts[v]) {
            CHECK(false, "%s: value %d has %d uses in the module but %d on its list", what, (int)v,
                  (int)counts[v], (int)attached);
            ok = false;
        }
    }
    if (ok)
        CHECK(true, "%s", what);
    free(counts);
}

static int32_t list_length(const ir_module *m, ir_value v)
{
    int32_t n = 0;
    for (const ir_use *u = ir_value_uses(m, v); u; u = u->next)
        n++;
    return n;
}

/* ---- the API ---------------------------------------------------------------- */

static ir_op *binary(ir_module *m, ir_block *b, ir_op_kind kind, ir_value x, ir_value y)
{
    ir_value ops[2] = {x, y};
    ir_type t = ir_value_type(m, x);
    ir_op *op = ir_op_create(m, kind, here, ops, 2, &t, 1, 0);
    if (b)
        ir_block_append(b, op);
    return op;
}

static void test_api(void)
{
    arena a;
    arena_init(&a);
    ir_module *m = ir_module_create(&a, NULL);
    ir_op *func = ir_op_create(m, IR_FUNC, here, NULL, 0, NULL, 0, 1);
    ir_attr_set_str(m, func, "sym_name", "k");
    ir_block_append(m->body, func);
    ir_block *body = ir_func_body(func);
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_value x = ir_block_add_arg(m, body, i32, "x");
    ir_value y = ir_block_add_arg(m, body, i32, "y");

    ir_op *add = binary(m, body, IR_ADD, x, x); /* two uses of x by one op */
    ir_op *mul = binary(m, body, IR_MUL, add->results[0], y);
    CHECK(list_length(m, x) == 2 && list_length(m, y) == 1, "x has %d uses, y %d",
          (int)list_length(m, x), (int)list_length(m, y));
    check_uses(m, "built");

    ir_op_set_operand(m, add, 1, y);
    CHECK(list_length(m, x) == 1 && list_length(m, y) == 2, "after set_operand");
    check_uses(m, "set_operand");

    ir_value both[2] = {y, y};
    ir_op_set_operands(m, mul, both, 2);
    CHECK(list_length(m, add->results[0]) == 0 && list_length(m, y) == 3, "after set_operands");
    check_uses(m, "set_operands");

    /* An sw.if whose then region uses y: replacing everywhere reaches it. */
    ir_value cond_ops[2] = {x, y};
    ir_type i1 = ir_type_scalar(DT_I1);
    ir_op *cmp = ir_op_create(m, IR_CMP, here, cond_ops, 2, &i1, 1, 0);
    ir_attr_set_str(m, cmp, "predicate", "lt");
    ir_block_append(body, cmp);
    ir_op *iff = ir_op_create(m, IR_IF, here, cmp->results, 1, NULL, 0, 2);
    ir_block_append(body, iff);
    ir_op *inner = binary(m, iff->regions[0], IR_SUB, y, x);
    ir_block_append(iff->regions[0], ir_op_create(m, IR_YIELD, here, NULL, 0, NULL, 0, 0));
    ir_block_append(iff->regions[1], ir_op_create(m, IR_YIELD, here, NULL, 0, NULL, 0, 0));
    /* A detached op keeps what it uses. */
    ir_op *loose = binary(m, NULL, IR_ADD, y, y);
    check_uses(m, "nested and detached");

    ir_replace_uses_in_block(m, iff->regions[0], y, x);
    CHECK(inner->operands[0] == x && mul->operands[0] == y, "replace in a block reaches only it");
    check_uses(m, "replace in block");

    ir_replace_all_uses(m, y, x);
    CHECK(add->operands[1] == x && mul->operands[0] == x && mul->operands[1] == x &&
              cmp->operands[1] == x, "replace all");
    CHECK(loose->operands[0] == y && loose->operands[1] == y, "a detached op keeps its operands");
    CHECK(list_length(m, y) == 2, "y keeps the detached op's two uses, has %d", (int)list_length(m, y));
    check_uses(m, "replace all");

    /* Erasing takes an op and everything in its regions off the lists. */
    int32_t before = list_length(m, x);
    ir_op_erase(m, iff);
    CHECK(list_length(m, x) == before - 2, "erasing the if drops the two uses inside it");
    ir_op_erase(m, cmp);
    ir_op_erase(m, loose);
    CHECK(list_length(m, y) == 0, "erasing the detached op drops its uses");
    check_uses(m, "erase");

    /* A clone has lists of its own, over the same numbering. */
    arena b;
    arena_init(&b);
    ir_module *c = ir_module_clone(&b, m);
    check_uses(c, "clone");
    CHECK(list_length(c, x) == list_length(m, x), "the clone's x has as many uses");
    arena_free(&b);
    arena_free(&a);
}

/* ---- attributes ------------------------------------------------------------ */

/* The attribute named name, by a plain scan. */
static const ir_attr *scan_attr(const ir_op *op, const char *name)
{
    for (int i = 0; i < op->nattrs; i++)
        if (!strcmp(op->attrs[i].name, name))
            return &op->attrs[i];
    return NULL;
}

/* ir_attr_get agrees with a scan for names 0..n-1 (a<k>) and a few absent. */
static bool attrs_agree(const ir_op *op, int n)
{
    char name[32];
    for (int i = 0; i < n + 3; i++) {
        snprintf(name, sizeof name, "a%d", i);
        if (ir_attr_get(op, name) != scan_attr(op, name))
            return false;
    }
    return ir_attr_get(op, "stage") == scan_attr(op, "stage");
}

static void test_attributes(void)
{
    arena a;
    arena_init(&a);
    ir_module *m = ir_module_create(&a, NULL);
    ir_type i32 = ir_type_scalar(DT_I32);
    ir_op *op = ir_op_create(m, IR_PROGRAM_ID, here, NULL, 0, &i32, 1, 0);
    char name[32];
    enum { N = 1000 };
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "a%d", i);
        ir_attr_set_int(m, op, name, i32, i);
    }
    CHECK(op->nattrs == N && attrs_agree(op, N), "%d attributes set and found", (int)op->nattrs);
    /* Setting an existing name replaces it in place. */
    ir_attr_set_int(m, op, "a500", i32, -1);
    CHECK(op->nattrs == N && ir_attr_get(op, "a500")->i == -1, "a500 replaced");

    /* The edits passes make to the array itself: swap the last into a
     * removed one's place (the planner), shift the rest down (stages). */
    ir_attr_set_int(m, op, "stage", i32, 3);
    int at = (int)(scan_attr(op, "stage") - op->attrs);
    op->attrs[at] = op->attrs[op->nattrs - 1];
    op->nattrs--;
    CHECK(ir_attr_get(op, "stage") == NULL && attrs_agree(op, N), "after a swap removal");
    ir_attr_set_int(m, op, "stage", i32, 4);
    CHECK(ir_attr_get(op, "stage")->i == 4 && attrs_agree(op, N), "set again after a swap removal");
    at = (int)(scan_attr(op, "a10") - op->attrs);
    memmove(&op->attrs[at], &op->attrs[at + 1], sizeof op->attrs[0] * (size_t)(op->nattrs - at - 1));
    op->nattrs--;
    CHECK(ir_attr_get(op, "a10") == NULL && attrs_agree(op, N), "after a shifting removal");
    ir_attr_set_int(m, op, "a10", i32, 10);
    CHECK(ir_attr_get(op, "a10")->i == 10 && attrs_agree(op, N), "set again after a shifting removal");
    /* And dropping them all (lower-simt rewriting an op). */
    op->nattrs = 0;
    CHECK(ir_attr_get(op, "a1") == NULL && attrs_agree(op, N), "after dropping every attribute");
    ir_attr_set_int(m, op, "a1", i32, 1);
    CHECK(op->nattrs == 1 && ir_attr_get(op, "a1")->i == 1 && attrs_agree(op, N), "one set again");

    /* A copy of a large set through ir_attr_set_all. */
    ir_op *big = ir_op_create(m, IR_PROGRAM_ID, here, NULL, 0, &i32, 1, 0);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "a%d", i);
        ir_attr_set_int(m, big, name, i32, i);
    }
    ir_op *copy = ir_op_create(m, IR_PROGRAM_ID, here, NULL, 0, &i32, 1, 0);
    ir_attr_set_all(m, copy, big->attrs, big->nattrs);
    CHECK(copy->nattrs == N && attrs_agree(copy, N) && ir_attr_get(copy, "a999")->i == 999, "copied");
    arena_free(&a);
}

/* ---- parsed IR through the passes --------------------------------------------- */

static const char *const grid_kernel =
    "module {\n"
    "  func.func @k(%o: !sw.ptr<f32>, %x: !sw.ptr<f32>, %n: i32) {\n"
    "    %c0 = \"sw.constant\"() {value = 0 : i32} : () -> i32\n"
    "    %c1 = \"sw.constant\"() {value = 1 : i32} : () -> i32\n"
    "    %c4 = \"sw.constant\"() {value = 4 : i32} : () -> i32\n"
    "    %t = \"sw.constant\"() {value = true} : () -> i1\n"
    "    %pid = \"sw.program_id\"() {axis = 0 : i32} : () -> i32\n"
    "    %a = \"sw.add\"(%pid, %c0) : (i32, i32) -> i32\n"
    "    %b = \"sw.add\"(%pid, %c0) : (i32, i32) -> i32\n"
    "    %r = \"sw.arange\"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>\n"
    "    %s = \"sw.splat\"(%a) : (i32) -> tensor<128xi32>\n"
    "    %i = \"sw.add\"(%r, %s) : (tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>\n"
    "    %p = \"sw.splat\"(%x) : (!sw.ptr<f32>) -> tensor<128x!sw.ptr<f32>>\n"
    "    %q = \"sw.addptr\"(%p, %i) : (tensor<128x!sw.ptr<f32>>, tensor<128xi32>) -> tensor<128x!sw.ptr<f32>>\n"
    "    %v = \"sw.load\"(%q) : (tensor<128x!sw.ptr<f32>>) -> tensor<128xf32>\n"
    "    %m = \"sw.reduce\"(%v) {kind = \"max\"} : (tensor<128xf32>) -> f32\n"
    "    %f = \"sw.if\"(%t) ({\n"
    "      %d = \"sw.sub\"(%m, %m) : (f32, f32) -> f32\n"
    "      \"sw.yield\"(%d) : (f32) -> ()\n"
    "    }, {\n"
    "      \"sw.yield\"(%m) : (f32) -> ()\n"
    "    }) : (i1) -> f32\n"
    "    %l = \"sw.for\"(%c0, %c1, %c1, %f) ({\n"
    "    ^bb0(%iv: i32, %acc: f32):\n"
    "      %e = \"sw.add\"(%acc, %m) : (f32, f32) -> f32\n"
    "      \"sw.yield\"(%e) : (f32) -> ()\n"
    "    }) : (i32, i32, i32, f32) -> f32\n"
    "    %w = \"sw.for\"(%c0, %n, %c4, %l) ({\n"
    "    ^bb0(%iv2: i32, %acc2: f32):\n"
    "      %e2 = \"sw.mul\"(%acc2, %m) : (f32, f32) -> f32\n"
    "      \"sw.yield\"(%e2) : (f32) -> ()\n"
    "    }) : (i32, i32, i32, f32) -> f32\n"
    "    %o2 = \"sw.addptr\"(%o, %b) : (!sw.ptr<f32>, i32) -> !sw.ptr<f32>\n"
    "    \"sw.store\"(%o2, %w) : (!sw.ptr<f32>, f32) -> ()\n"
    "    \"func.return\"() : () -> ()\n"
    "  }\n"
    "}\n";

static const char *const segment_kernel =
    "module {\n"
    "  func.func @softmax(%values: !sw.ptr<f32>, %offsets: !sw.ptr<i64>, %out: !sw.ptr<f32>) {\n"
    "    %sid = \"sw.segment_id\"() {axis = 0 : i32} : () -> i32\n"
    "    %seg = \"sw.segment\"(%values, %offsets, %sid) : (!sw.ptr<f32>, !sw.ptr<i64>, i32) -> !sw.segment<f32>\n"
    "    %x = \"sw.load_segment\"(%seg) : (!sw.segment<f32>) -> tensor<?xf32>\n"
    "    %max = \"sw.reduce\"(%x) {kind = \"max\"} : (tensor<?xf32>) -> f32\n"
    "    %ms = \"sw.splat\"(%max) : (f32) -> tensor<?xf32>\n"
    "    %d = \"sw.sub\"(%x, %ms) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
    "    %e = \"sw.exp\"(%d) : (tensor<?xf32>) -> tensor<?xf32>\n"
    "    %sum = \"sw.reduce\"(%e) {kind = \"sum\"} : (tensor<?xf32>) -> f32\n"
    "    %ss = \"sw.splat\"(%sum) : (f32) -> tensor<?xf32>\n"
    "    %y = \"sw.div\"(%e, %ss) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
    "    \"sw.store_segment\"(%out, %seg, %y) : (!sw.ptr<f32>, !sw.segment<f32>, tensor<?xf32>) -> ()\n"
    "    \"func.return\"() : () -> ()\n"
    "  }\n"
    "}\n";

static void run_passes(const char *name, const char *ir, const char *const *passes, int npasses)
{
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d);
    source_file src = {.name = name, .text = ir, .length = strlen(ir), .first_line = 1};
    ir_module *m = ir_parse_module(&a, &src, &d);
    CHECK(m != NULL, "%s does not parse: %s", name, d.message ? d.message : "?");
    if (m) {
        char what[128];
        snprintf(what, sizeof what, "%s parsed", name);
        check_uses(m, what);
        for (int i = 0; i < npasses; i++) {
            bool ok = pass_run_pipeline(m, &passes[i], 1, NULL, &d);
            CHECK(ok, "%s: pass %s failed: %s", name, passes[i], d.message ? d.message : "?");
            if (!ok)
                break;
            snprintf(what, sizeof what, "%s after %s", name, passes[i]);
            check_uses(m, what);
        }
    }
    diag_clear(&d);
    arena_free(&a);
}

int main(void)
{
    test_api();
    test_attributes();
    static const char *const grid[] = {"fold", "cse", "fold", "dce", "stages", "lower-simt", "fold", "cse", "dce"};
    run_passes("grid", grid_kernel, grid, (int)(sizeof grid / sizeof grid[0]));
    static const char *const segments[] = {"fold", "cse", "dce", "stages", "lower-segments", "lower-simt",
                                           "plan-link", "fold", "cse", "dce"};
    run_passes("segments", segment_kernel, segments, (int)(sizeof segments / sizeof segments[0]));
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
