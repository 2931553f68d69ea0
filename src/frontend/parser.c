/* parser.c - parse_kernel: one decorated def and its statements; anything else is one error. */
#include "parser_internal.h"

#include <string.h>

/* ---- tokens and errors ---------------------------------------------------- */

void parse_py_advance(parser *p)
{
    if (p->have_ahead) {
        p->tok = p->ahead;
        p->have_ahead = false;
    } else {
        p->tok = lex_py_next(&p->lx);
    }
}

const token *parse_py_peek(parser *p)
{
    if (!p->have_ahead) {
        p->ahead = lex_py_next(&p->lx);
        p->have_ahead = true;
    }
    return &p->ahead;
}

bool parse_py_failed(const parser *p) { return diag_failed(p->d); }

void parse_py_error_at(parser *p, src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror_at(p->d, DIAG_COMPILE, p->src, loc, fmt, ap);
    va_end(ap);
}

void parse_py_nomem(parser *p)
{
    diag_error_at(p->d, DIAG_NOMEM, p->src, p->tok.loc, "out of memory while parsing the kernel");
}

int parse_py_user_line(const parser *p, int line)
{
    return line + (p->src->first_line > 0 ? p->src->first_line - 1 : 0);
}

const char *parse_py_describe(parser *p, const token *t)
{
    const char *text = NULL;
    switch (t->kind) {
    case TOK_NAME:
        text = arena_printf(p->a, "name '%s'", t->str ? t->str : "");
        break;
    case TOK_INT:
    case TOK_FLOAT:
        text = arena_printf(p->a, "number '%.*s'", t->len > 40 ? 40 : (int)t->len, t->text);
        break;
    case TOK_STRING: return "a string";
    case TOK_NEWLINE: return "end of line";
    case TOK_EOF: return "end of file";
    case TOK_INDENT: return "an indented line";
    case TOK_DEDENT: return "the end of the indented block";
    case TOK_ERROR: return "an invalid token";
    default:
        text = arena_printf(p->a, "'%s'", lex_py_kind_text(t->kind));
        break;
    }
    return text ? text : "a token";
}

/* Constructs that are valid Python but outside the subset, by the token that
 * starts them; NULL for tokens that are plain syntax errors. */
static const char *unsupported_expression(const token *t)
{
    switch (t->kind) {
    case TOK_KW_LAMBDA: return "'lambda' is not supported in Swage kernels";
    case TOK_KW_AWAIT: return "'await' is not supported in Swage kernels";
    case TOK_KW_YIELD:
        return "'yield' is not supported in Swage kernels (a kernel is not a generator)";
    case TOK_KW_ASYNC: return "'async' is not supported in Swage kernels";
    case TOK_LBRACE: return "dict/set literals ({...}) are not supported in Swage kernels";
    case TOK_WALRUS: return "the walrus operator (:=) is not supported in Swage kernels";
    case TOK_ELLIPSIS: return "'...' (Ellipsis) is not supported in Swage kernels";
    case TOK_STAR: return "starred expressions (*x) are not supported in Swage kernels";
    case TOK_POW: return "'**' unpacking is not supported in Swage kernels";
    case TOK_INDENT: return "unexpected indent";
    default: return NULL;
    }
}

static const char *unsupported_statement(tok_kind kind)
{
    switch (kind) {
    case TOK_KW_WITH: return "'with' statements are not supported in Swage kernels";
    case TOK_KW_TRY: return "'try' statements are not supported in Swage kernels";
    case TOK_KW_EXCEPT: return "'except' is not supported in Swage kernels (nor is 'try')";
    case TOK_KW_FINALLY: return "'finally' is not supported in Swage kernels (nor is 'try')";
    case TOK_KW_CLASS: return "'class' definitions are not supported in Swage kernels";
    case TOK_KW_DEF: return "nested function definitions are not supported in Swage kernels";
    case TOK_AT:
        return "decorators and nested function definitions are not supported inside a kernel";
    case TOK_KW_GLOBAL: return "'global' is not supported in Swage kernels";
    case TOK_KW_NONLOCAL: return "'nonlocal' is not supported in Swage kernels";
    case TOK_KW_DEL: return "'del' is not supported in Swage kernels";
    case TOK_KW_IMPORT:
    case TOK_KW_FROM:
        return "'import' inside a kernel is not supported; import modules at the top of the file";
    case TOK_KW_ASSERT: return "'assert' is not supported in Swage kernels";
    case TOK_KW_RAISE: return "'raise' is not supported in Swage kernels";
    case TOK_KW_ELIF: return "'elif' without a matching 'if'";
    case TOK_KW_ELSE: return "'else' without a matching 'if'";
    case TOK_KW_AS:
        return "'as' is only valid in 'import' and 'with', which kernels do not support";
    default: return NULL;
    }
}

void parse_py_unexpected(parser *p, const char *fmt)
{
    const token *t = &p->tok;
    if (t->kind == TOK_ERROR)
        return; /* the lexer has reported it */
    const char *special = unsupported_expression(t);
    if (!special && t->unmatched)
        special = t->kind == TOK_RPAREN ? "unmatched ')'"
                : t->kind == TOK_RBRACKET ? "unmatched ']'"
                                          : "unmatched '}'";
    if (special)
        parse_py_error_at(p, t->loc, "%s", special);
    else
        parse_py_error_at(p, t->loc, fmt, parse_py_describe(p, t));
}

bool parse_py_expect_closer(parser *p, tok_kind closer, const token *open)
{
    if (p->tok.kind == closer) {
        parse_py_advance(p);
        return true;
    }
    if (p->tok.kind == TOK_ERROR)
        return false;
    if (p->tok.kind == TOK_WALRUS || p->tok.kind == TOK_LBRACE) {
        parse_py_unexpected(p, "%s");
        return false;
    }
    parse_py_error_at(p, p->tok.loc, "expected '%s' (to close '%s' at line %d)",
                      lex_py_kind_text(closer), lex_py_kind_text(open->kind),
                      parse_py_user_line(p, open->loc.line));
    return false;
}

bool parse_py_enter(parser *p, src_loc loc)
{
    if (p->depth >= PARSE_MAX_NESTING) {
        parse_py_error_at(p, loc, "expression nested too deeply (the limit is %d levels)",
                          PARSE_MAX_NESTING);
        return false;
    }
    p->depth++;
    return true;
}

void parse_py_leave(parser *p) { p->depth--; }

/* ---- statements ----------------------------------------------------------- */

typedef struct block_builder {
    ast_block *block;
    int cap;
} block_builder;

static bool parse_statement(parser *p, block_builder *into);

/* Statement nesting is counted apart from expressions: later passes recurse
 * over blocks and 'elif' links, so their depth is bounded too. */
static bool enter_statement_level(parser *p, src_loc loc)
{
    if (p->stmt_depth >= PARSE_MAX_STATEMENTS) {
        parse_py_error_at(p, loc, "statements nested too deeply (more than %d levels of blocks and "
                                  "'elif' branches)", PARSE_MAX_STATEMENTS);
        return false;
    }
    p->stmt_depth++;
    return true;
}

static ast_stmt *new_stmt(parser *p, ast_stmt_kind kind, src_loc loc)
{
    ast_stmt *s = arena_alloc(p->a, sizeof *s);
    if (!s) {
        parse_py_nomem(p);
        return NULL;
    }
    s->kind = kind;
    s->loc = loc;
    return s;
}

static bool push_stmt(parser *p, block_builder *into, ast_stmt *s)
{
    PARSE_PUSH(p, into->block->stmts, into->block->nstmts, into->cap, s);
    return !parse_py_failed(p);
}

/* The target of `=` must be a plain name or a tuple of targets
 * (`a, b = f(x)`); that of `op=` a plain name. */
static bool check_target(parser *p, const ast_expr *t, bool augmented)
{
    const char *why = NULL;
    if (t->kind == AST_TUPLE && !augmented) {
        if (t->nargs == 0) {
            parse_py_error_at(p, t->loc, "cannot assign to an empty tuple");
            return false;
        }
        for (int i = 0; i < t->nargs; i++)
            if (!check_target(p, t->args[i], false))
                return false;
        return true;
    }
    switch (t->kind) {
    case AST_NAME: return true;
    case AST_ATTR:
        why = "assignment to an attribute (x.y = ...) is not supported in Swage kernels";
        break;
    case AST_TUPLE:
        why = "augmented assignment to a tuple is not possible";
        break;
    case AST_CALL: why = "cannot assign to a function call"; break;
    case AST_SUBSCRIPT:
        parse_py_error_at(p, t->open, "subscripts (x[i]) are not supported in Swage kernels; use "
                                      "pointer arithmetic with sl.store");
        return false;
    case AST_INT: case AST_FLOAT: case AST_BOOL: case AST_NONE: case AST_STRING:
        why = "cannot assign to a literal";
        break;
    default: why = "cannot assign to an expression; the target of an assignment must be a name";
    }
    parse_py_error_at(p, t->loc, "%s", why);
    return false;
}

static ast_op augmented_operator(tok_kind k)
{
    switch (k) {
    case TOK_ADD_ASSIGN: return OP_ADD;
    case TOK_SUB_ASSIGN: return OP_SUB;
    case TOK_MUL_ASSIGN: return OP_MUL;
    case TOK_DIV_ASSIGN: return OP_DIV;
    case TOK_FLOORDIV_ASSIGN: return OP_FLOORDIV;
    case TOK_MOD_ASSIGN: return OP_MOD;
    case TOK_POW_ASSIGN: return OP_POW;
    case TOK_AND_ASSIGN: return OP_BITAND;
    case TOK_OR_ASSIGN: return OP_BITOR;
    case TOK_XOR_ASSIGN: return OP_BITXOR;
    case TOK_SHL_ASSIGN: return OP_SHL;
    case TOK_SHR_ASSIGN: return OP_SHR;
    case TOK_MATMUL_ASSIGN: return OP_MATMUL;
    default: return OP_NONE;
    }
}

/* `match` is a soft keyword: `match x:` starts a match statement, while
 * `match = 1` and `match(x)` are ordinary code. */
static bool is_match_name(const token *t)
{
    return t->kind == TOK_NAME && t->str && strcmp(t->str, "match") == 0;
}

static bool match_statement_follows(parser *p)
{
    switch (parse_py_peek(p)->kind) {
    case TOK_NAME: case TOK_INT: case TOK_FLOAT: case TOK_STRING: case TOK_LBRACE:
    case TOK_KW_TRUE: case TOK_KW_FALSE: case TOK_KW_NONE:
        return true;
    default:
        return false;
    }
}

/* `name: annotation = value` (the ':' is the current token); irgen
 * accepts sl.constexpr as the annotation. */
static ast_stmt *parse_annotated_assignment(parser *p, ast_expr *target)
{
    token colon = p->tok;
    if (target->kind != AST_NAME) {
        parse_py_error_at(p, target->loc, "only a plain name can be annotated (x: sl.constexpr = "
                                          "value)");
        return NULL;
    }
    parse_py_advance(p);
    ast_expr *annotation = parse_py_expression(p);
    if (!annotation)
        return NULL;
    if (p->tok.kind != TOK_ASSIGN) {
        if (p->tok.kind == TOK_NEWLINE || p->tok.kind == TOK_SEMI)
            parse_py_error_at(p, colon.loc, "an annotated variable needs a value in a Swage kernel "
                                            "(x: sl.constexpr = 4)");
        else
            parse_py_unexpected(p, "expected '=' after the annotation, found %s");
        return NULL;
    }
    parse_py_advance(p);
    ast_expr *value = parse_py_expression_list(p);
    ast_stmt *s = value ? new_stmt(p, AST_ASSIGN, target->loc) : NULL;
    if (!s)
        return NULL;
    int cap = 0;
    PARSE_PUSH(p, s->targets, s->ntargets, cap, target);
    s->annotation = annotation;
    s->value = value;
    return parse_py_failed(p) ? NULL : s;
}

static ast_stmt *parse_assignment_or_expression(parser *p)
{
    token first = p->tok;
    if (is_match_name(&first) && match_statement_follows(p)) {
        parse_py_error_at(p, first.loc, "'match' statements are not supported in Swage kernels");
        return NULL;
    }
    ast_expr *e = parse_py_expression_list(p);
    if (!e)
        return NULL;
    if (p->tok.kind == TOK_COLON) {
        if (is_match_name(&first) && e->kind != AST_NAME) { /* `match (x):`, not `match: T` */
            parse_py_error_at(p, first.loc,
                              "'match' statements are not supported in Swage kernels");
            return NULL;
        }
        return parse_annotated_assignment(p, e);
    }
    ast_op aug = augmented_operator(p->tok.kind);
    if (aug != OP_NONE) {
        if (!check_target(p, e, true))
            return NULL;
        parse_py_advance(p);
        ast_expr *value = parse_py_expression_list(p);
        ast_stmt *s = value ? new_stmt(p, AST_AUGASSIGN, e->loc) : NULL;
        if (!s)
            return NULL;
        int cap = 0;
        PARSE_PUSH(p, s->targets, s->ntargets, cap, e);
        s->op = aug;
        s->value = value;
        return parse_py_failed(p) ? NULL : s;
    }
    if (p->tok.kind != TOK_ASSIGN) {
        ast_stmt *s = new_stmt(p, AST_EXPR, e->loc);
        if (s)
            s->value = e;
        return s;
    }
    ast_stmt *s = new_stmt(p, AST_ASSIGN, e->loc);
    if (!s)
        return NULL;
    int cap = 0;
    ast_expr *value = e;
    while (p->tok.kind == TOK_ASSIGN) { /* a = b = c: every side but the last is a target */
        if (!check_target(p, value, false))
            return NULL;
        PARSE_PUSH(p, s->targets, s->ntargets, cap, value);
        parse_py_advance(p);
        value = parse_py_expression_list(p);
        if (!value)
            return NULL;
    }
    s->value = value;
    return parse_py_failed(p) ? NULL : s;
}

static ast_stmt *parse_simple_statement(parser *p)
{
    token t = p->tok;
    const char *unsupported = unsupported_statement(t.kind);
    if (unsupported) {
        parse_py_error_at(p, t.loc, "%s", unsupported);
        return NULL;
    }
    switch (t.kind) {
    case TOK_KW_PASS:
        parse_py_advance(p);
        return new_stmt(p, AST_PASS, t.loc);
    case TOK_KW_BREAK:
    case TOK_KW_CONTINUE:
        parse_py_advance(p);
        return new_stmt(p, t.kind == TOK_KW_BREAK ? AST_BREAK : AST_CONTINUE, t.loc);
    case TOK_KW_RETURN: {
        parse_py_advance(p);
        ast_stmt *s = new_stmt(p, AST_RETURN, t.loc);
        if (s && parse_py_starts_expression(p)) {
            s->value = parse_py_expression_list(p);
            if (!s->value)
                return NULL;
        }
        return s;
    }
    case TOK_KW_IF:
    case TOK_KW_FOR:
    case TOK_KW_WHILE:
        parse_py_error_at(p, t.loc, "'%s' statements must start on a new line",
                          lex_py_kind_text(t.kind));
        return NULL;
    case TOK_INDENT:
        parse_py_error_at(p, t.loc, "unexpected indent");
        return NULL;
    default:
        return parse_assignment_or_expression(p);
    }
}

/* simple_stmt (';' simple_stmt)* [';'] NEWLINE */
static bool parse_simple_statements(parser *p, block_builder *into)
{
    for (;;) {
        ast_stmt *s = parse_simple_statement(p);
        if (!s || !push_stmt(p, into, s))
            return false;
        if (p->tok.kind != TOK_SEMI)
            break;
        parse_py_advance(p);
        if (p->tok.kind == TOK_NEWLINE)
            break;
    }
    if (p->tok.kind != TOK_NEWLINE) {
        parse_py_unexpected(p, "expected end of statement, found %s");
        return false;
    }
    parse_py_advance(p);
    return true;
}

/* After the ':' of a compound statement: an indented block, or simple
 * statements on the same line. */
static bool parse_block(parser *p, ast_block *out, const char *what, src_loc header)
{
    block_builder into = {out, 0};
    if (p->tok.kind != TOK_NEWLINE)
        return parse_simple_statements(p, &into);
    parse_py_advance(p);
    if (p->tok.kind != TOK_INDENT) {
        if (p->tok.kind != TOK_ERROR)
            parse_py_error_at(p, p->tok.loc, "expected an indented block after %s on line %d", what,
                              parse_py_user_line(p, header.line));
        return false;
    }
    parse_py_advance(p);
    if (!enter_statement_level(p, header))
        return false;
    bool ok = true;
    while (ok && p->tok.kind != TOK_DEDENT && p->tok.kind != TOK_EOF)
        ok = parse_statement(p, &into);
    p->stmt_depth--;
    if (ok && p->tok.kind == TOK_DEDENT)
        parse_py_advance(p);
    return ok;
}

/* The `if`/`elif` keyword, its condition, ':' and body. */
static ast_stmt *parse_if_clause(parser *p)
{
    token kw = p->tok;
    parse_py_advance(p);
    ast_expr *cond = parse_py_expression(p);
    if (!cond)
        return NULL;
    if (p->tok.kind != TOK_COLON) {
        parse_py_unexpected(p, kw.kind == TOK_KW_IF
                                   ? "expected ':' after 'if' condition, found %s"
                                   : "expected ':' after 'elif' condition, found %s");
        return NULL;
    }
    parse_py_advance(p);
    ast_stmt *s = new_stmt(p, AST_IF, kw.loc);
    if (!s)
        return NULL;
    s->cond = cond;
    if (!parse_block(p, &s->body, kw.kind == TOK_KW_IF ? "'if' statement" : "'elif' statement",
                     kw.loc))
        return NULL;
    return s;
}

/* elif chains are built iteratively; each link counts as a statement level. */
static ast_stmt *parse_if(parser *p)
{
    ast_stmt *head = parse_if_clause(p);
    ast_stmt *last = head;
    int links = 0;
    while (last && p->tok.kind == TOK_KW_ELIF) {
        if (!enter_statement_level(p, p->tok.loc)) {
            last = NULL;
            break;
        }
        links++;
        ast_stmt *next = parse_if_clause(p);
        block_builder into = {&last->orelse, 0};
        if (!next || !push_stmt(p, &into, next))
            last = NULL;
        else
            last = next;
    }
    p->stmt_depth -= links;
    if (!last)
        return NULL;
    if (p->tok.kind == TOK_KW_ELSE) {
        token kw = p->tok;
        parse_py_advance(p);
        if (p->tok.kind != TOK_COLON) {
            parse_py_unexpected(p, "expected ':' after 'else', found %s");
            return NULL;
        }
        parse_py_advance(p);
        if (!parse_block(p, &last->orelse, "'else'", kw.loc))
            return NULL;
    }
    return head;
}

static ast_stmt *parse_for(parser *p)
{
    token kw = p->tok;
    parse_py_advance(p);
    if (p->tok.kind != TOK_NAME && p->tok.kind != TOK_LPAREN && p->tok.kind != TOK_LBRACKET) {
        parse_py_unexpected(p, "expected a loop variable name after 'for', found %s");
        return NULL;
    }
    ast_expr *target = parse_py_target(p);
    if (!target)
        return NULL;
    if (p->tok.kind == TOK_COMMA || target->kind == AST_TUPLE) {
        parse_py_error_at(p, target->loc, "tuple unpacking in 'for' loops is not supported in "
                                          "Swage kernels");
        return NULL;
    }
    if (target->kind != AST_NAME) {
        parse_py_error_at(p, target->loc, "the loop variable of 'for' must be a plain name");
        return NULL;
    }
    if (p->tok.kind != TOK_KW_IN) {
        parse_py_unexpected(p, "expected 'in' after the loop variable, found %s");
        return NULL;
    }
    parse_py_advance(p);
    ast_expr *iter = parse_py_expression_list(p);
    if (!iter)
        return NULL;
    if (p->tok.kind != TOK_COLON) {
        parse_py_unexpected(p, "expected ':' after the 'for' header, found %s");
        return NULL;
    }
    parse_py_advance(p);
    ast_stmt *s = new_stmt(p, AST_FOR, kw.loc);
    if (!s)
        return NULL;
    int cap = 0;
    PARSE_PUSH(p, s->targets, s->ntargets, cap, target);
    s->value = iter;
    if (parse_py_failed(p) || !parse_block(p, &s->body, "'for' statement", kw.loc))
        return NULL;
    if (p->tok.kind == TOK_KW_ELSE) {
        parse_py_error_at(p, p->tok.loc, "'for ... else' is not supported in Swage kernels");
        return NULL;
    }
    return s;
}

static ast_stmt *parse_while(parser *p)
{
    token kw = p->tok;
    parse_py_advance(p);
    ast_expr *cond = parse_py_expression(p);
    if (!cond)
        return NULL;
    if (p->tok.kind != TOK_COLON) {
        parse_py_unexpected(p, "expected ':' after 'while' condition, found %s");
        return NULL;
    }
    parse_py_advance(p);
    ast_stmt *s = new_stmt(p, AST_WHILE, kw.loc);
    if (!s)
        return NULL;
    s->cond = cond;
    if (!parse_block(p, &s->body, "'while' statement", kw.loc))
        return NULL;
    if (p->tok.kind == TOK_KW_ELSE) {
        parse_py_error_at(p, p->tok.loc, "'while ... else' is not supported in Swage kernels");
        return NULL;
    }
    return s;
}

static bool parse_statement(parser *p, block_builder *into)
{
    ast_stmt *s;
    switch (p->tok.kind) {
    case TOK_KW_IF: s = parse_if(p); break;
    case TOK_KW_FOR: s = parse_for(p); break;
    case TOK_KW_WHILE: s = parse_while(p); break;
    default: return parse_simple_statements(p, into);
    }
    return s && push_stmt(p, into, s);
}

/* ---- the function --------------------------------------------------------- */

static bool parse_parameters(parser *p, ast_func *fn)
{
    token open = p->tok;
    parse_py_advance(p);
    int cap = 0;
    bool seen_default = false;
    while (p->tok.kind != TOK_RPAREN) {
        if (fn->nparams >= PARSE_MAX_ITEMS) {
            parse_py_error_at(p, p->tok.loc, "too many parameters (the limit is %d)",
                              PARSE_MAX_ITEMS);
            return false;
        }
        if (p->tok.kind == TOK_STAR || p->tok.kind == TOK_POW) {
            parse_py_error_at(p, p->tok.loc, "variadic parameters (*args, **kwargs) and '*' "
                                             "are not supported in Swage kernels");
            return false;
        }
        if (p->tok.kind == TOK_SLASH) {
            parse_py_error_at(p, p->tok.loc, "the positional-only marker '/' is not supported in "
                                             "Swage kernels");
            return false;
        }
        if (p->tok.kind != TOK_NAME) {
            parse_py_unexpected(p, "expected a parameter name, found %s");
            return false;
        }
        ast_param param = {p->tok.str, NULL, NULL, p->tok.loc};
        for (int i = 0; i < fn->nparams; i++)
            if (strcmp(fn->params[i].name, param.name) == 0) {
                parse_py_error_at(p, param.loc, "duplicate parameter '%s'", param.name);
                return false;
            }
        parse_py_advance(p);
        if (p->tok.kind == TOK_COLON) {
            parse_py_advance(p);
            if (!(param.annotation = parse_py_expression(p)))
                return false;
        }
        if (p->tok.kind == TOK_ASSIGN) {
            parse_py_advance(p);
            if (!(param.default_value = parse_py_expression(p)))
                return false;
            seen_default = true;
        } else if (seen_default) {
            parse_py_error_at(p, param.loc, "parameter without a default follows parameter with a "
                                            "default");
            return false;
        }
        PARSE_PUSH(p, fn->params, fn->nparams, cap, param);
        if (parse_py_failed(p))
            return false;
        if (p->tok.kind != TOK_COMMA)
            break;
        parse_py_advance(p);
    }
    return parse_py_expect_closer(p, TOK_RPAREN, &open);
}

static ast_func *parse_function(parser *p)
{
    bool decorated = false;
    while (p->tok.kind == TOK_AT) { /* decorators are evaluated by Python, not by us */
        decorated = true;
        parse_py_advance(p);
        if (!parse_py_expression(p))
            return NULL;
        if (p->tok.kind != TOK_NEWLINE) {
            parse_py_unexpected(p, "expected end of line after the decorator, found %s");
            return NULL;
        }
        parse_py_advance(p);
    }
    if (p->tok.kind == TOK_KW_ASYNC || p->tok.kind == TOK_KW_CLASS) {
        parse_py_error_at(p, p->tok.loc, "%s",
                          p->tok.kind == TOK_KW_ASYNC
                              ? "'async' is not supported in Swage kernels"
                              : "'class' definitions are not supported in Swage kernels");
        return NULL;
    }
    if (p->tok.kind != TOK_KW_DEF) {
        parse_py_unexpected(p, decorated
                                   ? "expected 'def' after the decorator, found %s"
                                   : "expected a kernel definition ('def name(...):'), found %s");
        return NULL;
    }
    ast_func *fn = arena_alloc(p->a, sizeof *fn);
    if (!fn) {
        parse_py_nomem(p);
        return NULL;
    }
    fn->loc = p->tok.loc;
    parse_py_advance(p);
    if (p->tok.kind != TOK_NAME) {
        parse_py_unexpected(p, "expected the function name after 'def', found %s");
        return NULL;
    }
    fn->name = p->tok.str;
    parse_py_advance(p);
    if (p->tok.kind != TOK_LPAREN) {
        parse_py_unexpected(p, "expected '(' after the function name, found %s");
        return NULL;
    }
    if (!parse_parameters(p, fn))
        return NULL;
    if (p->tok.kind == TOK_ARROW) { /* the return annotation (-> None) is ignored */
        parse_py_advance(p);
        if (!parse_py_expression(p))
            return NULL;
    }
    if (p->tok.kind != TOK_COLON) {
        parse_py_unexpected(p, "expected ':' after the function signature, found %s");
        return NULL;
    }
    parse_py_advance(p);
    if (!parse_block(p, &fn->body, "function definition", fn->loc))
        return NULL;
    ast_block *body = &fn->body;
    if (body->nstmts > 0 && body->stmts[0]->kind == AST_EXPR &&
        body->stmts[0]->value->kind == AST_STRING) { /* the docstring */
        body->stmts++;
        body->nstmts--;
    }
    return fn;
}

ast_func *parse_kernel(arena *a, const source_file *src, diag *d)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.src = src;
    p.d = d;
    if (diag_failed(d))
        return NULL;
    lex_py_init(&p.lx, a, src, d);
    parse_py_advance(&p);
    ast_func *fn = parse_function(&p);
    if (fn && p.tok.kind != TOK_EOF)
        parse_py_unexpected(&p, "unexpected %s after the kernel; the source must hold exactly "
                                "one 'def'");
    if (parse_py_failed(&p))
        return NULL;
    if (!fn) /* every failure path reports; one that did not is a parser bug */
        sw_unreachable(d, "parse_kernel failed without a message");
    return fn;
}
