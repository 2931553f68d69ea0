/* test_frontend.c - frontend tests: exact trees, exact error positions, fuzzing (under ASan). */
#include "frontend/ast.h"
#include "frontend/lexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The text is copied into a buffer of exactly its length (no NUL after it),
 * so ASan catches any read past src->length. */
typedef struct parsed {
    arena a;
    diag d;
    char *copy;
    source_file src;
    ast_func *fn;
} parsed;

static void parse_text(parsed *r, const char *text, size_t n, int first_line)
{
    arena_init(&r->a);
    diag_init(&r->d);
    r->copy = malloc(n ? n : 1);
    if (n)
        memcpy(r->copy, text, n);
    r->src = (source_file){"kernel.py", r->copy, n, first_line};
    r->fn = parse_kernel(&r->a, &r->src, &r->d);
}

static void parsed_free(parsed *r)
{
    arena_free(&r->a);
    diag_clear(&r->d);
    free(r->copy);
}

static char *dump(const ast_func *fn)
{
    strbuf sb;
    sb_init(&sb);
    ast_dump(fn, &sb);
    return sb_take(&sb);
}

static void expect_tree(const char *what, const char *text, const char *expected)
{
    parsed r;
    parse_text(&r, text, strlen(text), 1);
    if (!r.fn) {
        CHECK(false, "%s: parse failed:\n%s", what, r.d.rendered ? r.d.rendered : "(no message)");
    } else {
        char *got = dump(r.fn);
        CHECK(strcmp(got, expected) == 0, "%s: tree\n--- got\n%s--- expected\n%s", what, got,
              expected);
        free(got);
    }
    parsed_free(&r);
}

static void expect_error(const char *what, const char *text, int first_line, int line, int col,
                         const char *substring)
{
    parsed r;
    parse_text(&r, text, strlen(text), first_line);
    if (r.fn) {
        char *got = dump(r.fn);
        CHECK(false, "%s: expected an error, parsed:\n%s", what, got);
        free(got);
    } else {
        bool ok = r.d.kind == DIAG_COMPILE && r.d.line == line && r.d.col == col && r.d.message &&
                  strstr(r.d.message, substring) && r.d.rendered && strstr(r.d.rendered, "^");
        CHECK(ok, "%s: expected %d:%d '%s', got %d:%d kind %d:\n%s", what, line, col, substring,
              r.d.line, r.d.col, (int)r.d.kind, r.d.rendered ? r.d.rendered : "(none)");
    }
    parsed_free(&r);
}

/* ---- lexer ---------------------------------------------------------------- */

/* Lexes text and writes the token kinds as their spellings, space separated;
 * names and numbers as themselves. */
static char *token_string(const char *text, int *nerrors)
{
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d);
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    memcpy(copy, text, n);
    source_file src = {"t.py", copy, n, 1};
    lexer lx;
    lex_py_init(&lx, &a, &src, &d);
    strbuf sb;
    sb_init(&sb);
    for (int i = 0; i < 1000; i++) {
        token t = lex_py_next(&lx);
        if (sb.len)
            sb_putc(&sb, ' ');
        if (t.kind == TOK_NAME)
            sb_puts(&sb, t.str);
        else if (t.kind == TOK_INT)
            sb_printf(&sb, "%lld", (long long)t.ival);
        else if (t.kind == TOK_FLOAT)
            sb_printf(&sb, "%g", t.fval);
        else if (t.kind == TOK_STRING)
            sb_printf(&sb, "\"%s\"", t.str);
        else if (t.kind == TOK_NEWLINE)
            sb_puts(&sb, "NL");
        else if (t.kind == TOK_INDENT)
            sb_printf(&sb, "INDENT@%d:%d", t.loc.line, t.loc.col);
        else if (t.kind == TOK_DEDENT)
            sb_puts(&sb, "DEDENT");
        else
            sb_puts(&sb, lex_py_kind_text(t.kind));
        if (t.kind == TOK_EOF || t.kind == TOK_ERROR)
            break;
    }
    *nerrors = diag_failed(&d);
    diag_clear(&d);
    arena_free(&a);
    free(copy);
    return sb_take(&sb);
}

static void expect_tokens(const char *text, const char *expected)
{
    int errors;
    char *got = token_string(text, &errors);
    CHECK(strcmp(got, expected) == 0 && !errors, "tokens of '%s':\n got %s\n want %s", text, got,
          expected);
    free(got);
}

static void test_lexer(void)
{
    expect_tokens("a **= b //= c >>= d <<= e -> f := g ... h @= i != j ** k // l\n",
                  "a **= b //= c >>= d <<= e -> f := g ... h @= i != j ** k // l NL end of file");
    expect_tokens("x += 1; y -= 2.5 * z %= 3 &= 4 |= 5 ^= 6 ~ 7 < 8 > 9 <= 10 >= 11 == 12\n",
                  "x += 1 ; y -= 2.5 * z %= 3 &= 4 |= 5 ^= 6 ~ 7 < 8 > 9 <= 10 >= 11 == 12 NL end of file");
    expect_tokens("  a\n    b\n\n  # c\n      c\n  d\n", /* the base level is 2 */
                  "a NL INDENT@2:5 b NL INDENT@5:7 c NL DEDENT DEDENT d NL end of file");
    expect_tokens("f(a,\n  b) + \\\n c\n", "f ( a , b ) + c NL end of file");
    expect_tokens("if True: return None\n", "if True : return None NL end of file");
    expect_tokens("s = 'a' \"b\" r'\\n' B'x' u'y' Rb'z'\n",
                  "s = \"a\" \"b\" \"\\n\" \"x\" \"y\" \"z\" NL end of file");
    expect_tokens("x = 0x10 + 0o10 + 0b10 + 1_0 + 1e1 + .25 + 5.\n",
                  "x = 16 + 8 + 2 + 10 + 10 + 0.25 + 5 NL end of file");
    expect_tokens("", "end of file");
    expect_tokens("\n\n   # only comments\n", "end of file");
    expect_tokens("a\n    b", "a NL INDENT@2:5 b NL DEDENT end of file");
    int errors;
    char *got = token_string("x = (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                             "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                             "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                             "(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
                             "((((((((((((((", &errors);
    CHECK(errors == 1 && strstr(got, "invalid token"), "paren limit in the lexer: %s", got + 600);
    free(got);
    /* A text with a NUL byte (strlen-based cases cannot hold one). */
    parsed r;
    static const char nul_text[] = "def f(x):\n    y = 1\n    \0\n";
    parse_text(&r, nul_text, sizeof nul_text - 1, 1);
    CHECK(!r.fn && r.d.line == 3 && r.d.col == 5 && strstr(r.d.message, "null bytes"), "NUL byte: %s",
          r.d.rendered ? r.d.rendered : "");
    parsed_free(&r);
}

/* ---- valid kernels -------------------------------------------------------- */

static const char vector_add[] =
    "@sw.jit\n"
    "def add_kernel(x_ptr, y_ptr, output_ptr, n, BLOCK: sl.constexpr):\n"
    "    pid = sl.program_id(0)\n"
    "    offsets = pid * BLOCK + sl.arange(0, BLOCK)\n"
    "    mask = offsets < n\n"
    "    x = sl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
    "    y = sl.load(y_ptr + offsets, mask=mask, other=0.0)\n"
    "    sl.store(output_ptr + offsets, x + y, mask=mask)\n";

static const char segment_softmax[] =
    "@sw.jit\n"
    "def segmented_softmax(values_ptr, offsets_ptr, output_ptr):\n"
    "    sid = sl.segment_id(0)\n"
    "    segment = sl.segment(values_ptr, offsets_ptr, sid)\n"
    "    x = sl.load_segment(segment)\n"
    "    maximum = sl.max(x)\n"
    "    numerator = sl.exp(x - maximum)\n"
    "    denominator = sl.sum(numerator)\n"
    "    sl.store_segment(output_ptr, segment, numerator / denominator)\n";

static void test_valid(void)
{
    expect_tree("vector add", vector_add,
                "(def add_kernel (params x_ptr y_ptr output_ptr n (BLOCK : (attr sl constexpr)))\n"
                "  (assign pid (call (attr sl program_id) 0))\n"
                "  (assign offsets (+ (* pid BLOCK) (call (attr sl arange) 0 BLOCK)))\n"
                "  (assign mask (< offsets n))\n"
                "  (assign x (call (attr sl load) (+ x_ptr offsets) (kw mask mask) (kw other 0.0)))\n"
                "  (assign y (call (attr sl load) (+ y_ptr offsets) (kw mask mask) (kw other 0.0)))\n"
                "  (expr (call (attr sl store) (+ output_ptr offsets) (+ x y) (kw mask mask))))\n");
    expect_tree("segmented softmax", segment_softmax,
                "(def segmented_softmax (params values_ptr offsets_ptr output_ptr)\n"
                "  (assign sid (call (attr sl segment_id) 0))\n"
                "  (assign segment (call (attr sl segment) values_ptr offsets_ptr sid))\n"
                "  (assign x (call (attr sl load_segment) segment))\n"
                "  (assign maximum (call (attr sl max) x))\n"
                "  (assign numerator (call (attr sl exp) (- x maximum)))\n"
                "  (assign denominator (call (attr sl sum) numerator))\n"
                "  (expr (call (attr sl store_segment) output_ptr segment (/ numerator denominator))))\n");
    /* from 2**63 to 2**64 - 1 a literal is a uint64 (Triton's to_tensor) */
    expect_tree("uint64 literals", "def k(a):\n    c = 9223372036854775808 + 0xFFFF_FFFF_FFFF_FFFF\n",
                "(def k (params a)\n  (assign c (+ 9223372036854775808 18446744073709551615)))\n");
    expect_tree("small", "def k(a, b):\n    c = a + b * 2\n    return\n",
                "(def k (params a b)\n  (assign c (+ a (* b 2)))\n  (return))\n");
    expect_tree("precedence",
                "def k(x):\n"
                "    y = -x ** 2\n"
                "    z = not a and b or c\n"
                "    w = a if c else b\n"
                "    v = a | b ^ c & d << 1 + 2 * 3 // 4 % 5 @ 6\n"
                "    u = a < b < c\n"
                "    u2 = a <= b > c != d\n"
                "    t = (a, b)\n"
                "    s = (a,)\n"
                "    r = [a, b,]\n"
                "    q = ()\n"
                "    p = x.to(sl.float16)\n"
                "    o = ~a - +b\n"
                "    n = a is not None\n"
                "    m = a not in b\n"
                "    l = 2 ** 3 ** 2\n"
                "    k2 = a = b\n"
                "    j = f(a, b=1,)\n"
                "    i = (a + b) * c\n"
                "    h = a if b else c if d else e\n"
                "    g = 1, 2\n"
                "    e = True or False or None\n"
                "    f(x)(y).z\n",
                "(def k (params x)\n"
                "  (assign y (- (** x 2)))\n"
                "  (assign z (or (and (not a) b) c))\n"
                "  (assign w (ifexp c a b))\n"
                "  (assign v (| a (^ b (& c (<< d (+ 1 (@ (% (// (* 2 3) 4) 5) 6)))))))\n"
                "  (assign u (and (< a b) (< b c)))\n"
                "  (assign u2 (and (and (<= a b) (> b c)) (!= c d)))\n"
                "  (assign t (tuple a b))\n"
                "  (assign s (tuple a))\n"
                "  (assign r (tuple a b))\n"
                "  (assign q (tuple))\n"
                "  (assign p (call (attr x to) (attr sl float16)))\n"
                "  (assign o (- (~ a) (+ b)))\n"
                "  (assign n (is-not a None))\n"
                "  (assign m (not-in a b))\n"
                "  (assign l (** 2 (** 3 2)))\n"
                "  (assign k2 a b)\n"
                "  (assign j (call f a (kw b 1)))\n"
                "  (assign i (* (+ a b) c))\n"
                "  (assign h (ifexp b a (ifexp d c e)))\n"
                "  (assign g (tuple 1 2))\n"
                "  (assign e (or (or True False) None))\n"
                "  (expr (attr (call (call f x) y) z)))\n");
    expect_tree("control flow",
                "@sw.jit(debug=True)\n"
                "def k(a, n: int = 4) -> None:\n"
                "    \"\"\"Docstring.\n"
                "\n"
                "    More.\"\"\"\n"
                "    for i in range(n):\n"
                "        if i < 2: a += i; continue_ = 1\n"
                "        elif i == 3:\n"
                "            pass\n"
                "        else:\n"
                "            a -= 1\n"
                "    x = 1; y = 2;\n"
                "    if a: return\n"
                "    a //= 2; a %= 3; a **= 2; a &= 1; a |= 2; a ^= 3; a <<= 1; a >>= 1; a *= 2; a /= 2\n"
                "    return a, b\n",
                "(def k (params a (n : int = 4))\n"
                "  (for i (call range n)\n"
                "    (if (< i 2)\n"
                "      (augassign a += i)\n"
                "      (assign continue_ 1)\n"
                "     else\n"
                "      (if (== i 3)\n"
                "        (pass)\n"
                "       else\n"
                "        (augassign a -= 1))))\n"
                "  (assign x 1)\n"
                "  (assign y 2)\n"
                "  (if a\n"
                "    (return))\n"
                "  (augassign a //= 2)\n"
                "  (augassign a %= 3)\n"
                "  (augassign a **= 2)\n"
                "  (augassign a &= 1)\n"
                "  (augassign a |= 2)\n"
                "  (augassign a ^= 3)\n"
                "  (augassign a <<= 1)\n"
                "  (augassign a >>= 1)\n"
                "  (augassign a *= 2)\n"
                "  (augassign a /= 2)\n"
                "  (return (tuple a b)))\n");
    expect_tree("indented, CRLF, continuation, comments",
                "    # leading comment\r\n"
                "\r\n"
                "    @sw.jit\r\n"
                "    def k(x,\r\n"
                "          y):  # trailing\r\n"
                "        z = x + \\\r\n"
                "            y\r\n"
                "\r\n"
                "  # a comment at another indentation\r\n"
                "        w = [1,\r\n"
                "  2]\r\n",
                "(def k (params x y)\n  (assign z (+ x y))\n  (assign w (tuple 1 2)))\n");
    expect_tree("tabs", "def k(x):\n\ty = x\n\tif y:\n\t\tz = 1\n",
                "(def k (params x)\n  (assign y x)\n  (if y\n    (assign z 1)))\n");
    expect_tree("numbers",
                "def k():\n    x = 1.5e3 + .5 + 1. + 0x_ff + 0o17 + 0b1_01 + 1_000 + 1e-3 + 0.1 + 0 + 00 + 1E+2\n",
                "(def k (params)\n  (assign x (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ (+ 1500.0 0.5) 1.0) 255) 15) 5) "
                "1000) 0.001) 0.10000000000000001) 0) 0) 100.0)))\n");
    expect_tree("strings", "def k():\n    r'raw\\n'\n    x = \"a\\tb\" 'c' '''d\"e'''\n    s = b'\\x41\\101'\n",
                "(def k (params)\n  (assign x \"a\\tbcd\\\"e\")\n  (assign s \"AA\"))\n");
    expect_tree("docstring only", "def k():\n    \"\"\"only a docstring\"\"\"\n", "(def k (params))\n");
    expect_tree("one line", "def k(): pass\n", "(def k (params)\n  (pass))\n");
    expect_tree("no trailing newline", "def k(a=1, b=2):\n    return", "(def k (params (a = 1) (b = 2))\n  (return))\n");
    expect_tree("keywords glued to numbers, continuation lines",
                "def k(x):\n    y = 1if x else 2\n\\\n    z = x if 1.5else 0x1for x\n"
                "    \\\n    pass\n",
                "(def k (params x)\n  (assign y (ifexp x 1 2))\n  (assign z (ifexp 1.5 x (or 31 x)))\n"
                "  (pass))\n");
    expect_tree("soft keyword match as a name", "def k(match):\n    match = match(1)\n    match.x\n",
                "(def k (params match)\n  (assign match (call match 1))\n  (expr (attr match x)))\n");
    expect_tree("nested for and elif chain",
                "def k(n):\n"
                "    for i in range(0, n, 2):\n"
                "        for j in sl.static_range(4):\n"
                "            if i: pass\n"
                "            elif j: pass\n"
                "            elif i and j: pass\n",
                "(def k (params n)\n"
                "  (for i (call range 0 n 2)\n"
                "    (for j (call (attr sl static_range) 4)\n"
                "      (if i\n"
                "        (pass)\n"
                "       else\n"
                "        (if j\n"
                "          (pass)\n"
                "         else\n"
                "          (if (and i j)\n"
                "            (pass)))))))\n");
}

static void test_locations(void)
{
    parsed r;
    parse_text(&r, vector_add, strlen(vector_add), 1);
    CHECK(r.fn != NULL, "vector add parses");
    if (r.fn) {
        ast_func *fn = r.fn;
        CHECK(strcmp(fn->name, "add_kernel") == 0, "name");
        CHECK(fn->loc.line == 2 && fn->loc.col == 1, "def loc %d:%d", fn->loc.line, fn->loc.col);
        CHECK(fn->nparams == 5, "nparams");
        int cols[] = {16, 23, 30, 42, 45};
        for (int i = 0; i < 5 && i < fn->nparams; i++)
            CHECK(fn->params[i].loc.line == 2 && fn->params[i].loc.col == cols[i], "param %d col %d",
                  i, fn->params[i].loc.col);
        CHECK(fn->params[4].annotation && fn->params[4].annotation->kind == AST_ATTR &&
                  fn->params[4].annotation->loc.col == 52,
              "annotation");
        CHECK(fn->body.nstmts == 6, "6 statements");
        for (int i = 0; i < fn->body.nstmts; i++)
            CHECK(fn->body.stmts[i]->loc.line == 3 + i && fn->body.stmts[i]->loc.col == 5,
                  "stmt %d loc", i);
        ast_stmt *store = fn->body.stmts[5];
        CHECK(store->kind == AST_EXPR && store->value->kind == AST_CALL, "store is a call");
        ast_expr *call = store->value;
        CHECK(call->loc.col == 5 && call->nargs == 2 && call->nkwargs == 1, "store call shape");
        CHECK(call->args[0]->loc.col == 14 && call->args[1]->loc.col == 36, "store arg cols");
        CHECK(call->kwargs[0].loc.col == 43 && call->kwargs[0].value->loc.col == 48, "kw cols");
        ast_stmt *mask = fn->body.stmts[2];
        CHECK(mask->kind == AST_ASSIGN && mask->ntargets == 1 &&
                  mask->targets[0]->kind == AST_NAME && mask->value->kind == AST_COMPARE &&
                  mask->value->op == OP_LT,
              "mask compare");
    }
    parsed_free(&r);

    /* Chains share the middle operand; tab columns count one character. */
    const char *text = "def k(a):\n\tx = a < b < c\n\tif x:\n\t\ty = 1\n";
    parse_text(&r, text, strlen(text), 1);
    CHECK(r.fn != NULL, "chain parses");
    if (r.fn) {
        ast_expr *v = r.fn->body.stmts[0]->value;
        CHECK(v->kind == AST_BOOLOP && v->op == OP_AND && v->lhs->kind == AST_COMPARE &&
                  v->rhs->kind == AST_COMPARE && v->lhs->rhs == v->rhs->lhs,
              "chain shares b");
        CHECK(v->lhs->rhs->loc.col == 10, "b col %d", v->lhs->rhs->loc.col);
        CHECK(r.fn->body.stmts[0]->loc.col == 2, "tab col");
        ast_stmt *inner = r.fn->body.stmts[1]->body.stmts[0];
        CHECK(inner->loc.line == 4 && inner->loc.col == 3, "nested tab col %d:%d", inner->loc.line,
              inner->loc.col);
    }
    parsed_free(&r);

    /* The AST records the text's own lines; first_line only shifts diagnostics. */
    text = "    @sw.jit\n    def k(a):\n        pass\n";
    parse_text(&r, text, strlen(text), 40);
    CHECK(r.fn && r.fn->loc.line == 2 && r.fn->loc.col == 5, "indented def loc");
    parsed_free(&r);
}

/* ---- errors --------------------------------------------------------------- */

typedef struct error_case {
    const char *what;
    const char *text;
    int first_line;
    int line, col;
    const char *message;
} error_case;

#define D "def f(x):\n"

static const error_case error_cases[] = {
    {"while else", D "    while x:\n        pass\n    else:\n        pass\n", 1, 4, 5, "'while ... else' is not supported"},
    {"while missing colon", D "    while x\n        pass\n", 1, 2, 12, "expected ':' after 'while' condition"},
    {"with", D "    with a as b:\n        pass\n", 1, 2, 5, "'with' statements are not supported"},
    {"try", D "    try:\n        pass\n    except E:\n        pass\n", 1, 2, 5, "'try' statements are not supported"},
    {"class", D "    class A:\n        pass\n", 1, 2, 5, "'class' definitions are not supported"},
    {"nested def", D "    x = 1\n    def g():\n        pass\n", 1, 3, 5, "nested function definitions are not supported"},
    {"nested decorator", D "    @dec\n    def g():\n        pass\n", 1, 2, 5, "nested function definitions"},
    {"global", D "    global y\n", 1, 2, 5, "'global' is not supported"},
    {"nonlocal", D "    nonlocal y\n", 1, 2, 5, "'nonlocal' is not supported"},
    {"del", D "    del x\n", 1, 2, 5, "'del' is not supported"},
    {"import", D "    import math\n", 1, 2, 5, "'import' inside a kernel is not supported"},
    {"from import", D "    y = 1\n    from math import sin\n", 1, 3, 5, "'import' inside a kernel"},
    {"assert", D "    assert x > 0\n", 1, 2, 5, "'assert' is not supported"},
    {"yield statement", D "    yield x\n", 1, 2, 5, "'yield' is not supported"},
    {"yield expression", D "    y = (yield x)\n", 1, 2, 10, "'yield' is not supported"},
    {"raise", D "    raise ValueError(x)\n", 1, 2, 5, "'raise' is not supported"},
    {"async def", D "    async def g():\n        pass\n", 1, 2, 5, "'async' is not supported"},
    {"async kernel", "async def f(x):\n    pass\n", 1, 1, 1, "'async' is not supported"},
    {"await", D "    y = await x\n", 1, 2, 9, "'await' is not supported"},
    {"lambda", D "    y = sl.reduce(x, lambda a, b: a + b)\n", 1, 2, 22, "'lambda' is not supported in Swage kernels"},
    {"subscript", D "    y = x[0:1]\n", 1, 2, 10, "subscripts (x[i]) are not supported in Swage kernels; use pointer arithmetic with sl.load"},
    {"subscript assign", D "    x[0] = 1\n", 1, 2, 6, "subscripts (x[i]) are not supported"},
    {"dict literal", D "    y = {'a': 1}\n", 1, 2, 9, "dict/set literals"},
    {"set literal", D "    y = f({1, 2})\n", 1, 2, 11, "dict/set literals"},
    {"f-string", D "    y = 1\n    s = f\"{y}\"\n", 1, 3, 9, "f-strings are not supported"},
    {"starred argument", D "    y = f(1, *x)\n", 1, 2, 14, "starred arguments (*args, **kwargs)"},
    {"double-starred argument", D "    y = f(**x)\n", 1, 2, 11, "starred arguments (*args, **kwargs)"},
    {"variadic parameter", "def f(x, *args):\n    pass\n", 1, 1, 10, "variadic parameters"},
    {"tuple augassign", D "    a, b += x\n", 1, 2, 5, "augmented assignment to a tuple is not possible"},
    {"tuple target of a call", D "    a, f(b) = x\n", 1, 2, 8, "cannot assign to a function call"},
    {"empty tuple target", D "    () = x\n", 1, 2, 5, "cannot assign to an empty tuple"},
    {"attribute assignment", D "    x.y = 1\n", 1, 2, 5, "assignment to an attribute"},
    {"attribute augassign", D "    x.y += 1\n", 1, 2, 5, "assignment to an attribute"},
    {"call assignment", D "    f(x) = 1\n", 1, 2, 5, "cannot assign to a function call"},
    {"walrus", D "    if (n := x) > 1:\n        pass\n", 1, 2, 11, "walrus operator"},
    {"match", D "    match x:\n        case 1:\n            pass\n", 1, 2, 5, "'match' statements are not supported"},
    {"match with parens", D "    match (x):\n        case 1:\n            pass\n", 1, 2, 5, "'match' statements"},
    {"chained is", D "    y = a is b is c\n", 1, 2, 16, "chained comparison with 'is'/'in'"},
    {"chained in", D "    y = a < b in c\n", 1, 2, 15, "chained comparison with 'is'/'in'"},
    {"chained not in first", D "    y = a not in b < c\n", 1, 2, 20, "chained comparison with 'is'/'in'"},
    {"for else", D "    for i in range(3):\n        pass\n    else:\n        pass\n", 1, 4, 5, "'for ... else' is not supported"},
    {"for tuple target", D "    for i, j in x:\n        pass\n", 1, 2, 9, "tuple unpacking in 'for' loops"},
    {"for attribute target", D "    for x.i in y:\n        pass\n", 1, 2, 9, "must be a plain name"},
    {"for missing in", D "    for i range(3):\n        pass\n", 1, 2, 11, "expected 'in' after the loop variable"},
    {"comprehension", D "    y = [i for i in x]\n", 1, 2, 12, "comprehensions"},
    {"generator argument", D "    y = sum(i for i in x)\n", 1, 2, 15, "comprehensions"},
    {"ellipsis", D "    y = ...\n", 1, 2, 9, "Ellipsis"},
    {"positional after keyword", D "    y = sl.load(x, mask=m, 0)\n", 1, 2, 28, "positional argument follows keyword argument"},
    {"repeated keyword", D "    y = sl.load(x, mask=m, mask=m)\n", 1, 2, 28, "keyword argument 'mask' repeated"},
    {"keyword not a name", D "    y = f(a.b=1)\n", 1, 2, 11, "keyword argument must be a plain name"},
    {"annotation without value", D "    y: int\n", 1, 2, 6, "an annotated variable needs a value"},
    {"annotated tuple", D "    a, b: int = 1\n", 1, 2, 5, "only a plain name can be annotated"},
    {"unterminated string", D "    y = 'abc\n    z = 1\n", 1, 2, 9, "unterminated string"},
    {"unterminated triple string", D "    \"\"\"doc\n    y = 1\n", 1, 2, 5, "unterminated string"},
    {"unclosed paren at end", D "    y = f(x,\n          1\n", 1, 3, 12, "expected ')' (to close '(' at line 2)"},
    {"mismatched bracket", D "    y = (x + [1, 2)\n", 1, 2, 19, "expected ']' (to close '[' at line 2)"},
    {"paren then colon", D "    if (x:\n        pass\n", 1, 2, 10, "expected ')' (to close '(' at line 2)"},
    {"unmatched closer", D "    y = x)\n", 1, 2, 10, "unmatched ')'"},
    {"unmatched brace", D "    y = x }\n", 1, 2, 11, "unmatched '}'"},
    {"unexpected indent", D "    y = 1\n        z = 2\n", 1, 3, 9, "unexpected indent"},
    {"unindent mismatch", D "    if x:\n        y = 1\n      z = 2\n", 1, 4, 7, "unindent does not match any outer indentation level"},
    {"dedent below base", "    def f(x):\n        y = 1\n  z = 2\n", 1, 3, 3, "unindent does not match"},
    {"invalid character", D "    y = x $ 1\n", 1, 2, 11, "invalid character '$'"},
    {"question mark", D "    y = x ? 1 : 2\n", 1, 2, 11, "invalid character '?'"},
    {"bang", D "    if !x:\n        pass\n", 1, 2, 8, "invalid character '!'"},
    {"non-ascii", D "    y = x \xc3\x97 2\n", 1, 2, 11, "invalid character '\xc3\x97' (U+00D7)"},
    {"invalid utf-8", D "    y = \xff\n", 1, 2, 9, "not valid UTF-8"},
    {"control char", D "    y = \x01\n", 1, 2, 9, "control character"},
    {"expected expression", D "    y = \n", 1, 2, 8, "expected an expression"},
    {"expected expression after op", D "    y = x + * 2\n", 1, 2, 13, "starred expressions"},
    {"keyword as expression", D "    y = if\n", 1, 2, 9, "expected an expression, found 'if'"},
    {"missing colon after if", D "    if x > 1\n        pass\n", 1, 2, 13, "expected ':' after 'if' condition"},
    {"missing colon after elif", D "    if x:\n        pass\n    elif x\n        pass\n", 1, 4, 11, "expected ':' after 'elif' condition"},
    {"missing colon after else", D "    if x:\n        pass\n    else\n        pass\n", 1, 4, 9, "expected ':' after 'else'"},
    {"missing colon after for", D "    for i in range(3)\n        pass\n", 1, 2, 22, "expected ':' after the 'for' header"},
    {"missing colon after def", "def f(x)\n    pass\n", 1, 1, 9, "expected ':' after the function signature"},
    {"expected indented block", D "    if x:\n    y = 1\n", 1, 3, 5, "expected an indented block after 'if' statement on line 2"},
    {"empty body at end", "def f(x):\n", 1, 1, 10, "expected an indented block after function definition on line 1"},
    {"stray elif", D "    elif x:\n        pass\n", 1, 2, 5, "'elif' without a matching 'if'"},
    {"stray else", D "    y = 1\n    else:\n        pass\n", 1, 3, 5, "'else' without a matching 'if'"},
    {"junk after expression", D "    y = x 2\n", 1, 2, 11, "expected end of statement, found number '2'"},
    {"ifexp without else", D "    y = a if b\n", 1, 2, 15, "expected 'else' in the conditional expression"},
    {"if on a shared line", D "    y = 1; if x: pass\n", 1, 2, 12, "must start on a new line"},
    {"integer too large", D "    y = 18446744073709551616\n", 1, 2, 9, "integer literal is too large"},
    {"hex integer too large", D "    y = 0x1_0000_0000_0000_0000\n", 1, 2, 9, "the largest is 18446744073709551615"},
    {"leading zeros", D "    y = 0755\n", 1, 2, 9, "leading zeros"},
    {"bad hex", D "    y = 0xg1\n", 1, 2, 9, "invalid hexadecimal literal"},
    {"octal glued to a name", D "    y = 0or 1\n", 1, 2, 9, "invalid octal literal"},
    {"bad underscore", D "    y = 1__0\n", 1, 2, 9, "invalid decimal literal"},
    {"exponent without digits", D "    y = 1e+\n", 1, 2, 9, "invalid decimal literal"},
    {"complex literal", D "    y = 2j\n", 1, 2, 9, "complex literals are not supported"},
    {"backslash junk", D "    y = x \\ 1\n", 1, 2, 11, "unexpected character after line continuation character"},
    {"backslash at end", D "    y = x \\", 1, 2, 11, "unexpected end of file after line continuation"},
    {"continuation then end of file", D "    y = 1\n\\\n", 1, 2, 10, "unexpected end of file after line continuation"},
    {"lone carriage return", D "    y = 1\r    z = 2\n", 1, 2, 10, "carriage return without a line feed"},
    {"carriage return in a comment", D "    y = 1  # c\rz = 2\n", 1, 2, 15, "carriage return"},
    {"carriage return in a string", D "    y = 'a\rb'\n", 1, 2, 11, "carriage return"},
    {"second def", D "    pass\ndef g():\n    pass\n", 1, 3, 1, "exactly one 'def'"},
    {"no def", "x = 1\n", 1, 1, 1, "expected a kernel definition"},
    {"empty source", "", 1, 1, 1, "expected a kernel definition"},
    {"decorator without def", "@sw.jit\nx = 1\n", 1, 2, 1, "expected 'def' after the decorator"},
    {"class kernel", "@sw.jit\nclass K:\n    pass\n", 1, 2, 1, "'class' definitions are not supported"},
    {"duplicate parameter", "def f(x, y, x):\n    pass\n", 1, 1, 13, "duplicate parameter 'x'"},
    {"default order", "def f(x=1, y):\n    pass\n", 1, 1, 12, "parameter without a default follows parameter with a default"},
    {"positional-only marker", "def f(x, /, y):\n    pass\n", 1, 1, 10, "positional-only marker"},
    {"missing name after def", "def (x):\n    pass\n", 1, 1, 5, "expected the function name after 'def'"},
    {"bad parameter", "def f(1):\n    pass\n", 1, 1, 7, "expected a parameter name"},
    {"attribute needs a name", D "    y = x.if\n", 1, 2, 11, "expected an attribute name after '.', found 'if'"},
    {"number after a name", D "    y = x.1\n", 1, 2, 10, "expected end of statement, found number '.1'"},
    {"literal target", D "    1 = x\n", 1, 2, 5, "cannot assign to a literal"},
    {"expression target", D "    x + 1 = x\n", 1, 2, 5, "cannot assign to an expression"},
    {"augmented tuple target", D "    a, b += 1\n", 1, 2, 5, "augmented assignment to a tuple"},
    {"keyword-only marker", "def f(x, *, y):\n    pass\n", 1, 1, 10, "variadic parameters"},
    /* indentation, tabs and shifted line numbers */
    {"indented by 4", "    @sw.jit\n    def f(x):\n        with x:\n            pass\n", 1, 3, 9, "'with' statements"},
    {"first_line 40", "@sw.jit\ndef f(x):\n    y = x[1:2]\n", 40, 42, 10, "subscripts"},
    {"first_line 40 indented", "    def f(x):\n        y = (x +\n             1]\n", 40, 42, 15, "expected ')' (to close '(' at line 41)"},
    {"tab columns", "def f(x):\n\ty = x\n\tz = x $ 1\n", 1, 3, 8, "invalid character '$'"},
    {"tab/space mix", "def f(x):\n\ty = x\n        z = x\n", 1, 3, 9, "inconsistent use of tabs and spaces"},
    {"tab after spaces", "def f(x):\n    y = x\n\tz = x\n", 1, 3, 2, "inconsistent use of tabs and spaces"},
    {"tab unexpected indent", "def f(x):\n\ty = x\n\t\tz = x\n", 1, 3, 3, "unexpected indent"},
};

static void test_errors(void)
{
    size_t n = sizeof error_cases / sizeof error_cases[0];
    for (size_t i = 0; i < n; i++) {
        const error_case *c = &error_cases[i];
        expect_error(c->what, c->text, c->first_line, c->line, c->col, c->message);
    }
    /* The rendered message carries the user's file line and a caret. */
    parsed r;
    const char *text = "    def f(x):\n        y = x[1:]\n";
    parse_text(&r, text, strlen(text), 40);
    CHECK(r.d.rendered && strstr(r.d.rendered, "kernel.py:41:14: error: subscripts") &&
              strstr(r.d.rendered, "\n            y = x[1:]\n                 ^\n"),
          "rendered:\n%s", r.d.rendered ? r.d.rendered : "(none)");
    parsed_free(&r);
}

/* Pathological nesting is refused with a message, never a stack overflow. */
static void test_limits(void)
{
    strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 199; i++)
        sb_putc(&sb, '(');
    sb_putc(&sb, 'x');
    for (int i = 0; i < 199; i++)
        sb_putc(&sb, ')');
    sb_puts(&sb, "\n");
    expect_tree("199 parentheses", sb.data, "(def f (params x)\n  (assign y x))\n");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 250; i++)
        sb_putc(&sb, '(');
    sb_puts(&sb, "x\n");
    expect_error("250 parentheses", sb.data, 1, 2, 9 + 200, "too many nested parentheses");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 150; i++)
        sb_puts(&sb, "-(");
    sb_puts(&sb, "x\n");
    expect_error("negated parentheses", sb.data, 1, 2, 9 + 200, "expression nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 100; i++)
        sb_puts(&sb, "(");
    sb_puts(&sb, "x");
    for (int i = 0; i < 100; i++)
        sb_puts(&sb, ")");
    sb_puts(&sb, "\n");
    expect_tree("100 parentheses", sb.data, "(def f (params x)\n  (assign y x))\n");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 300; i++)
        sb_puts(&sb, "-");
    sb_puts(&sb, "x\n");
    expect_error("unary chain", sb.data, 1, 2, 9 + 199, "expression nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = ");
    for (int i = 0; i < 300; i++)
        sb_puts(&sb, "not ");
    sb_puts(&sb, "x\n");
    expect_error("not chain", sb.data, 1, 2, 9 + 4 * 199, "expression nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = x");
    for (int i = 0; i < 5000; i++)
        sb_puts(&sb, "+1");
    sb_puts(&sb, "\n");
    expect_error("long operator chain", sb.data, 1, 2, 9, "expression nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = x");
    for (int i = 0; i < 500; i++)
        sb_puts(&sb, "+1");
    sb_puts(&sb, "\n");
    {
        parsed r;
        parse_text(&r, sb.data, sb.len, 1);
        CHECK(r.fn != NULL, "500-term sum parses");
        parsed_free(&r);
    }
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    y = x");
    for (int i = 0; i < 300; i++)
        sb_puts(&sb, "**x");
    sb_puts(&sb, "\n");
    expect_error("power chain", sb.data, 1, 2, 10 + 3 * 199, "expression nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n    if x:\n        pass\n");
    for (int i = 0; i < 300; i++)
        sb_puts(&sb, "    elif x:\n        pass\n");
    expect_error("long elif chain", sb.data, 1, 2 + 2 * 199, 5, "statements nested too deeply");
    sb_free(&sb);

    sb_puts(&sb, "def f(x):\n");
    for (int i = 1; i <= 120; i++) {
        for (int j = 0; j < i; j++)
            sb_putc(&sb, ' ');
        sb_puts(&sb, "if x:\n");
    }
    for (int j = 0; j < 121; j++)
        sb_putc(&sb, ' ');
    sb_puts(&sb, "pass\n");
    expect_error("deep indentation", sb.data, 1, 101, 101, "too many levels of indentation");
    sb_free(&sb);

    /* Big inputs take linear time: many statements, many adjacent strings. */
    sb_puts(&sb, "def f(x):\n");
    for (int i = 0; i < 20000; i++)
        sb_printf(&sb, "    y%d = x + %d; x = y%d\n", i, i, i);
    sb_puts(&sb, "    s = ''");
    for (int i = 0; i < 20000; i++)
        sb_puts(&sb, " 'ab'");
    sb_puts(&sb, "\n");
    {
        parsed r;
        parse_text(&r, sb.data, sb.len, 1);
        CHECK(r.fn && r.fn->body.nstmts == 40001 &&
                  strlen(r.fn->body.stmts[40000]->value->name) == 40000,
              "big kernel parses");
        parsed_free(&r);
    }
    sb_free(&sb);
    sb_puts(&sb, "def f(x):\n    f(");
    int col = 0;
    for (int i = 0; i < 5000; i++) {
        if (i == 4096)
            col = (int)sb.len - (int)strlen("def f(x):\n") + 1;
        sb_printf(&sb, "a%d=1, ", i);
    }
    sb_puts(&sb, ")\n");
    expect_error("5000 keyword arguments", sb.data, 1, 2, col, "too many arguments");
    sb_free(&sb);

    /* 30 nested blocks are fine. */
    sb_puts(&sb, "def f(x):\n");
    for (int i = 1; i <= 30; i++) {
        for (int j = 0; j < i; j++)
            sb_putc(&sb, ' ');
        sb_puts(&sb, "for i in range(x):\n");
    }
    for (int j = 0; j < 31; j++)
        sb_putc(&sb, ' ');
    sb_puts(&sb, "pass\n");
    {
        parsed r;
        parse_text(&r, sb.data, sb.len, 1);
        CHECK(r.fn != NULL, "30 nested blocks parse");
        parsed_free(&r);
    }
    sb_free(&sb);
}

/* ---- extract_kernel_source ---------------------------------------------- */

static const char module_text[] =
    "import torch\n"                                   /* 1 */
    "import swage as sw\n"                             /* 2 */
    "import swage.language as sl\n"                    /* 3 */
    "\n"                                               /* 4 */
    "HELP = '''\n"                                     /* 5 */
    "def add_kernel(x):\n"                             /* 6: inside a string */
    "'''\n"                                            /* 7 */
    "\n"                                               /* 8 */
    "def helper(a):\n"                                 /* 9 */
    "    def add_kernel(b):\n"                         /* 10: nested, deeper */
    "        return b\n"                               /* 11 */
    "    return a\n"                                   /* 12 */
    "\n"                                               /* 13 */
    "# the kernel\n"                                   /* 14 */
    "@sw.jit(\n"                                       /* 15 */
    "    debug=False)\n"                               /* 16 */
    "# between\n"                                      /* 17 */
    "@other\n"                                         /* 18 */
    "def add_kernel(x_ptr, y_ptr,\n"                   /* 19 */
    "               n, BLOCK: sl.constexpr):\n"        /* 20 */
    "    \"\"\"Adds.\n"                                /* 21 */
    "\n"                                               /* 22 */
    "not code\n"                                       /* 23: docstring text at column 1 */
    "    \"\"\"\n"                                     /* 24 */
    "    pid = sl.program_id(0)\n"                     /* 25 */
    "# a comment at column 1 inside the body\n"        /* 26 */
    "    x = sl.load(x_ptr + pid, mask=(pid <\n"       /* 27 */
    "n))\n"                                            /* 28: bracket continuation */
    "    sl.store(y_ptr + pid, x)\n"                   /* 29 */
    "\n"                                               /* 30 */
    "# trailing comment\n"                             /* 31 */
    "\n"                                               /* 32 */
    "if __name__ == '__main__':\n"                     /* 33 */
    "    add_kernel.launch(arguments={})\n";           /* 34 */

static void test_extract(void)
{
    size_t n = strlen(module_text);
    char *copy = malloc(n);
    memcpy(copy, module_text, n);
    source_file file = {"module.py", copy, n, 1};
    source_file out;
    diag d;
    diag_init(&d);
    bool ok = extract_kernel_source(&file, "add_kernel", &out, &d);
    CHECK(ok, "extract finds add_kernel");
    if (ok) {
        CHECK(out.first_line == 15, "first_line %d", out.first_line);
        CHECK(out.name && strcmp(out.name, "module.py") == 0, "name");
        const char *start = strstr(module_text, "@sw.jit(");
        const char *end = strstr(module_text, "\n\n# trailing") + 1;
        CHECK(out.text == copy + (start - module_text) &&
                  out.length == (size_t)(end - start),
              "extracted range: offset %ld length %zu:\n%.*s", (long)(out.text - copy), out.length,
              (int)out.length, out.text);
        arena a;
        arena_init(&a);
        diag pd;
        diag_init(&pd);
        ast_func *fn = parse_kernel(&a, &out, &pd);
        CHECK(fn && fn->nparams == 4 && fn->body.nstmts == 3, "extracted kernel parses: %s",
              pd.rendered ? pd.rendered : "");
        if (fn)
            CHECK(fn->loc.line == 5, "def at text line 5 (file line 19)");
        arena_free(&a);
        diag_clear(&pd);
    }
    ok = extract_kernel_source(&file, "helper", &out, &d);
    CHECK(ok && out.first_line == 9 && out.length == (size_t)(strstr(module_text, "\n\n# the kernel") + 1 -
                                                              strstr(module_text, "def helper")),
          "helper extracted");

    /* An error in the extracted kernel carries the file's line numbers. */
    const char *bad = "import x\n\n\n@sw.jit\ndef k(a):\n    b = a\n    with b:\n        pass\nprint(1)\n";
    source_file bad_file = {"bad.py", bad, strlen(bad), 1};
    ok = extract_kernel_source(&bad_file, "k", &out, &d);
    CHECK(ok && out.first_line == 4, "bad kernel extracted");
    if (ok) {
        arena a;
        arena_init(&a);
        diag pd;
        diag_init(&pd);
        CHECK(!parse_kernel(&a, &out, &pd) && pd.line == 7 && pd.col == 5 &&
                  strstr(pd.rendered, "bad.py:7:5: error: 'with'"),
              "error at file line 7: %s", pd.rendered ? pd.rendered : "");
        arena_free(&a);
        diag_clear(&pd);
    }

    /* A kernel defined inside a function (uniformly indented). */
    const char *nested = "def test():\n    @sw.jit\n    def k(a):\n        pass\n    k.launch()\n";
    source_file nested_file = {"t.py", nested, strlen(nested), 10};
    ok = extract_kernel_source(&nested_file, "k", &out, &d);
    CHECK(ok && out.first_line == 11 && out.length == strlen("    @sw.jit\n    def k(a):\n        pass\n"),
          "nested kernel extracted");
    if (ok) {
        arena a;
        arena_init(&a);
        diag pd;
        diag_init(&pd);
        CHECK(parse_kernel(&a, &out, &pd) != NULL, "nested kernel parses");
        arena_free(&a);
        diag_clear(&pd);
    }

    /* Two top-level definitions: Python binds the last one. A method of the
     * same name, deeper, does not count; nor does one in a string. */
    const char *twice = "class A:\n    def k(self):\n        pass\n"
                        "def k(a):\n    pass\n"
                        "x = '''\ndef k(b):\n'''\n"
                        "@sw.jit\ndef k (c):\n    pass\n";
    source_file twice_file = {"twice.py", twice, strlen(twice), 1};
    ok = extract_kernel_source(&twice_file, "k", &out, &d);
    CHECK(ok && out.first_line == 9 && out.text == strstr(twice, "@sw.jit") &&
              out.length == strlen("@sw.jit\ndef k (c):\n    pass\n"),
          "last top-level definition: line %d", out.first_line);

    CHECK(!diag_failed(&d), "no error so far");
    ok = extract_kernel_source(&file, "missing", &out, &d);
    CHECK(!ok && d.kind == DIAG_COMPILE && d.message &&
              strcmp(d.message, "no kernel named 'missing' in module.py") == 0,
          "missing kernel: %s", d.message ? d.message : "");
    diag_clear(&d);
    ok = extract_kernel_source(&file, "add", &out, &d); /* a prefix of add_kernel */
    CHECK(!ok && d.message && strstr(d.message, "no kernel named 'add'"), "prefix is no match");
    diag_clear(&d);
    free(copy);
}

/* ---- fuzzing -------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int fuzz_ok, fuzz_errors;

/* Parses (and extracts from) one input; it must succeed, or fail with a
 * located compile error. */
static void fuzz_one(const char *text, size_t n)
{
    parsed r;
    parse_text(&r, text, n, 1);
    if (r.fn) {
        char *s = dump(r.fn);
        CHECK(!diag_failed(&r.d) && s && strncmp(s, "(def ", 5) == 0, "fuzz: success is clean");
        free(s);
        fuzz_ok++;
    } else {
        bool located = r.d.kind == DIAG_COMPILE && r.d.line >= 1 && r.d.col >= 1 && r.d.message &&
                       r.d.rendered;
        if (!located) {
            printf("input (%zu bytes): ", n);
            fwrite(text, 1, n, stdout);
            printf("\n");
        }
        CHECK(located, "fuzz: error has a location (kind %d line %d col %d): %s", (int)r.d.kind,
              r.d.line, r.d.col, r.d.message ? r.d.message : "(none)");
        fuzz_errors++;
    }
    source_file out;
    diag d;
    diag_init(&d);
    if (extract_kernel_source(&r.src, "f", &out, &d))
        CHECK(out.text >= r.src.text && out.text + out.length <= r.src.text + r.src.length,
              "fuzz: extract stays inside the file");
    diag_clear(&d);
    parsed_free(&r);
}

static void test_fuzz(void)
{
    static const char alphabet[] = "def f(x):\n    \t\\#'\"()[]{}:;,.=+-*/%<>!&|^~@0123456789eExob_jrn"
                                   " ifelsforwhile\r";
    static const char *seeds[] = {vector_add, segment_softmax,
                                  "def f(a, b: int = 3):\n    '''doc'''\n    if a < b < 3: x = a ** -b\n"
                                  "    elif not a: x = (a, [b])\n    else:\n        for i in range(b):\n"
                                  "            x += 0x1f + 1.5e-3 if a else b'\\x00'\n    return\n"};
    char buf[4096];
    /* random byte strings, from a small alphabet and from all bytes */
    for (int i = 0; i < 1000; i++) {
        size_t n = rng() % 200;
        for (size_t j = 0; j < n; j++)
            buf[j] = (i & 1) ? (char)(rng() & 0xff) : alphabet[rng() % (sizeof alphabet - 1)];
        fuzz_one(buf, n);
    }
    /* mutations of valid kernels: deletions, insertions, replacements */
    for (int i = 0; i < 1500; i++) {
        const char *seed = seeds[i % 3];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = n ? rng() % n : 0;
            int kind = (int)(rng() % 3);
            if (kind == 0 && n > 0) {
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            } else if (kind == 1 && n + 1 < sizeof buf) {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = alphabet[rng() % (sizeof alphabet - 1)];
                n++;
            } else if (n > 0) {
                buf[at] = (rng() & 7) == 0 ? (char)(rng() & 0xff) : alphabet[rng() % (sizeof alphabet - 1)];
            }
        }
        fuzz_one(buf, n);
    }
    /* every prefix of the kernels: truncated text */
    for (int s = 0; s < 3; s++)
        for (size_t n = 0; n <= strlen(seeds[s]); n++)
            fuzz_one(seeds[s], n);
    printf("fuzz: %d parsed, %d rejected with a located error\n", fuzz_ok, fuzz_errors);
}

int main(void)
{
    test_lexer();
    test_valid();
    test_locations();
    test_errors();
    test_limits();
    test_extract();
    test_fuzz();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
