/* parse_expr.c - expressions with Python precedence; recursion and tree height are bounded. */
#include "parser_internal.h"

#include <string.h>

/* Each expression node carries its tree height privately, so a long chain
 * (1+1+...+1) is refused here instead of overflowing a later recursive pass. */
typedef struct expr_node {
    ast_expr e; /* first member: an ast_expr* converts back to its node */
    int height;
} expr_node;

static int height_of(const ast_expr *e) { return e ? ((const expr_node *)e)->height : 0; }

static ast_expr *new_expr(parser *p, ast_expr_kind kind, src_loc loc)
{
    expr_node *n = arena_alloc(p->a, sizeof *n);
    if (!n) {
        parse_py_nomem(p);
        return NULL;
    }
    n->e.kind = kind;
    n->e.loc = loc;
    n->height = 1;
    return &n->e;
}

/* Computes e's height from its children; reports a tree that is too tall. */
static ast_expr *seal(parser *p, ast_expr *e)
{
    if (!e)
        return NULL;
    int h = height_of(e->lhs);
    int other[] = {height_of(e->rhs), height_of(e->cond), height_of(e->callee)};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        h = other[i] > h ? other[i] : h;
    for (int i = 0; i < e->nargs; i++)
        h = height_of(e->args[i]) > h ? height_of(e->args[i]) : h;
    for (int i = 0; i < e->nkwargs; i++)
        h = height_of(e->kwargs[i].value) > h ? height_of(e->kwargs[i].value) : h;
    ((expr_node *)e)->height = h + 1;
    if (h + 1 > PARSE_MAX_TREE) {
        parse_py_error_at(p, e->loc,
                          "expression nested too deeply (more than %d levels of operators)",
                          PARSE_MAX_TREE);
        return NULL;
    }
    return e;
}

static ast_expr *new_binary(parser *p, ast_expr_kind kind, ast_op op, ast_expr *lhs, ast_expr *rhs)
{
    ast_expr *e = new_expr(p, kind, lhs->loc);
    if (!e)
        return NULL;
    e->op = op;
    e->lhs = lhs;
    e->rhs = rhs;
    return seal(p, e);
}

/* Tokens that can begin an expression (used for trailing commas and bare
 * `return`). Unsupported starters are included so they get their message. */
static bool starts_expression(tok_kind k)
{
    switch (k) {
    case TOK_NAME: case TOK_INT: case TOK_FLOAT: case TOK_STRING:
    case TOK_KW_TRUE: case TOK_KW_FALSE: case TOK_KW_NONE:
    case TOK_LPAREN: case TOK_LBRACKET: case TOK_LBRACE:
    case TOK_MINUS: case TOK_PLUS: case TOK_TILDE: case TOK_KW_NOT:
    case TOK_KW_LAMBDA: case TOK_KW_AWAIT: case TOK_KW_YIELD:
    case TOK_STAR: case TOK_POW: case TOK_ELLIPSIS:
        return true;
    default:
        return false;
    }
}

bool parse_py_starts_expression(const parser *p) { return starts_expression(p->tok.kind); }

static ast_expr *parse_factor(parser *p);

/* ---- atoms ---------------------------------------------------------------- */

static ast_expr *parse_string_atom(parser *p)
{
    ast_expr *e = new_expr(p, AST_STRING, p->tok.loc);
    if (!e)
        return NULL;
    /* Adjacent literals concatenate: "a" "b" is "ab". The buffer doubles,
     * so many pieces cost linear time. */
    char *text = (char *)p->tok.str;
    size_t len = p->tok.str_len, cap = 0;
    parse_py_advance(p);
    while (p->tok.kind == TOK_STRING) {
        size_t need = len + p->tok.str_len + 1;
        if (need > cap) {
            size_t grown = need * 2;
            char *joined = arena_realloc(p->a, cap ? text : NULL, cap, grown);
            if (!joined) {
                parse_py_nomem(p);
                return NULL;
            }
            if (!cap)
                memcpy(joined, text, len);
            text = joined;
            cap = grown;
        }
        memcpy(text + len, p->tok.str, p->tok.str_len);
        len += p->tok.str_len;
        text[len] = 0;
        parse_py_advance(p);
    }
    e->name = text;
    return e;
}

static void comprehension_error(parser *p)
{
    parse_py_error_at(p, p->tok.loc, "comprehensions and generator expressions are not supported "
                                     "in Swage kernels");
}

/* Items of a parenthesised tuple or a list, after the first; the opener has
 * been consumed. Both become AST_TUPLE. */
static ast_expr *parse_items(parser *p, ast_expr *tuple, int cap, tok_kind closer,
                             const token *open)
{
    while (p->tok.kind == TOK_COMMA) {
        parse_py_advance(p);
        if (p->tok.kind == closer)
            break;
        ast_expr *item = parse_py_expression(p);
        if (!item)
            return NULL;
        PARSE_PUSH(p, tuple->args, tuple->nargs, cap, item);
        if (parse_py_failed(p))
            return NULL;
    }
    if (p->tok.kind == TOK_KW_FOR) {
        comprehension_error(p);
        return NULL;
    }
    if (!parse_py_expect_closer(p, closer, open))
        return NULL;
    return seal(p, tuple);
}

static ast_expr *parse_bracketed(parser *p)
{
    token open = p->tok;
    tok_kind closer = open.kind == TOK_LPAREN ? TOK_RPAREN : TOK_RBRACKET;
    parse_py_advance(p);
    ast_expr *tuple = new_expr(p, AST_TUPLE, open.loc);
    if (!tuple)
        return NULL;
    if (p->tok.kind == closer) {
        parse_py_advance(p);
        return tuple;
    }
    ast_expr *first = parse_py_expression(p);
    if (!first)
        return NULL;
    if (p->tok.kind == TOK_KW_FOR) {
        comprehension_error(p);
        return NULL;
    }
    if (open.kind == TOK_LPAREN && p->tok.kind != TOK_COMMA) {
        if (!parse_py_expect_closer(p, closer, &open))
            return NULL;
        return first; /* (x) is x; its location stays that of x */
    }
    int cap = 0;
    PARSE_PUSH(p, tuple->args, tuple->nargs, cap, first);
    if (parse_py_failed(p))
        return NULL;
    return parse_items(p, tuple, cap, closer, &open);
}

static ast_expr *parse_atom(parser *p)
{
    token t = p->tok;
    ast_expr *e = NULL;
    switch (t.kind) {
    case TOK_NAME:
        e = new_expr(p, AST_NAME, t.loc);
        if (e)
            e->name = t.str;
        break;
    case TOK_INT:
        e = new_expr(p, AST_INT, t.loc);
        if (e) {
            e->ival = t.ival;
            e->u64 = t.u64;
        }
        break;
    case TOK_FLOAT:
        e = new_expr(p, AST_FLOAT, t.loc);
        if (e)
            e->fval = t.fval;
        break;
    case TOK_KW_TRUE:
    case TOK_KW_FALSE:
        e = new_expr(p, AST_BOOL, t.loc);
        if (e)
            e->ival = t.kind == TOK_KW_TRUE;
        break;
    case TOK_KW_NONE:
        e = new_expr(p, AST_NONE, t.loc);
        break;
    case TOK_STRING:
        return parse_string_atom(p);
    case TOK_LPAREN:
    case TOK_LBRACKET:
        return parse_bracketed(p);
    default:
        parse_py_unexpected(p, "expected an expression, found %s");
        return NULL;
    }
    if (!e)
        return NULL;
    parse_py_advance(p);
    return e;
}

/* ---- primaries: attribute access and calls -------------------------------- */

static ast_expr *parse_call(parser *p, ast_expr *callee)
{
    token open = p->tok;
    parse_py_advance(p);
    ast_expr *call = new_expr(p, AST_CALL, callee->loc);
    if (!call)
        return NULL;
    call->callee = callee;
    int cap = 0, kwcap = 0;
    while (p->tok.kind != TOK_RPAREN) {
        if (call->nargs + call->nkwargs >= PARSE_MAX_ITEMS) {
            parse_py_error_at(p, p->tok.loc, "too many arguments in one call (the limit is %d)",
                              PARSE_MAX_ITEMS);
            return NULL;
        }
        if (p->tok.kind == TOK_STAR || p->tok.kind == TOK_POW) {
            parse_py_error_at(p, p->tok.loc, "starred arguments (*args, **kwargs) are not "
                                             "supported in Swage kernels");
            return NULL;
        }
        ast_expr *arg = parse_py_expression(p);
        if (!arg)
            return NULL;
        if (p->tok.kind == TOK_ASSIGN) {
            if (arg->kind != AST_NAME) {
                parse_py_error_at(p, arg->loc, "a keyword argument must be a plain name "
                                               "(name=value); use '==' to compare");
                return NULL;
            }
            for (int i = 0; i < call->nkwargs; i++)
                if (strcmp(call->kwargs[i].name, arg->name) == 0) {
                    parse_py_error_at(p, arg->loc, "keyword argument '%s' repeated", arg->name);
                    return NULL;
                }
            parse_py_advance(p);
            ast_expr *value = parse_py_expression(p);
            if (!value)
                return NULL;
            ast_keyword kw = {arg->name, value, arg->loc};
            PARSE_PUSH(p, call->kwargs, call->nkwargs, kwcap, kw);
        } else if (p->tok.kind == TOK_KW_FOR) {
            comprehension_error(p);
            return NULL;
        } else {
            if (call->nkwargs > 0) {
                parse_py_error_at(p, arg->loc, "positional argument follows keyword argument");
                return NULL;
            }
            PARSE_PUSH(p, call->args, call->nargs, cap, arg);
        }
        if (parse_py_failed(p))
            return NULL;
        if (p->tok.kind != TOK_COMMA)
            break;
        parse_py_advance(p);
    }
    if (!parse_py_expect_closer(p, TOK_RPAREN, &open))
        return NULL;
    return seal(p, call);
}

/* x[i0, i1, ...] where every item is None, a bare ':' or '...' (Triton's
 * x[:, None]); any other subscript is an error at the '['. */
static ast_expr *parse_subscript(parser *p, ast_expr *base)
{
    token open = p->tok;
    parse_py_advance(p);
    ast_expr *sub = new_expr(p, AST_SUBSCRIPT, base->loc);
    if (!sub)
        return NULL;
    sub->lhs = base;
    sub->open = open.loc;
    int cap = 0;
    if (p->tok.kind != TOK_KW_NONE && p->tok.kind != TOK_COLON && p->tok.kind != TOK_ELLIPSIS &&
        p->tok.kind != TOK_RBRACKET) {
        /* t[i]: one index (a tuple's item; irgen rejects it on a tile) */
        ast_expr *index = parse_py_expression(p);
        if (!index)
            return NULL;
        if (p->tok.kind == TOK_RBRACKET) {
            PARSE_PUSH(p, sub->args, sub->nargs, cap, index);
            if (parse_py_failed(p))
                return NULL;
            parse_py_advance(p);
            return seal(p, sub);
        }
        goto unsupported;
    }
    for (;;) {
        ast_expr_kind kind;
        if (p->tok.kind == TOK_KW_NONE)
            kind = AST_NONE;
        else if (p->tok.kind == TOK_COLON)
            kind = AST_SLICE;
        else if (p->tok.kind == TOK_ELLIPSIS)
            kind = AST_ELLIPSIS;
        else
            break;
        ast_expr *item = new_expr(p, kind, p->tok.loc);
        if (!item)
            return NULL;
        parse_py_advance(p);
        if (p->tok.kind != TOK_COMMA && p->tok.kind != TOK_RBRACKET)
            break;
        if (sub->nargs >= PARSE_MAX_ITEMS)
            break;
        PARSE_PUSH(p, sub->args, sub->nargs, cap, item);
        if (parse_py_failed(p))
            return NULL;
        if (p->tok.kind == TOK_RBRACKET) {
            parse_py_advance(p);
            return seal(p, sub);
        }
        parse_py_advance(p); /* ',' */
        if (p->tok.kind == TOK_RBRACKET) {
            parse_py_advance(p);
            return seal(p, sub);
        }
    }
unsupported:
    parse_py_error_at(p, open.loc, "subscripts (x[i]) are not supported in Swage kernels; use pointer "
                                   "arithmetic with sl.load (only None, ':' and '...' may index a "
                                   "tile: x[:, None], x[None, :])");
    return NULL;
}

static ast_expr *parse_primary(parser *p)
{
    ast_expr *e = parse_atom(p);
    while (e) {
        if (p->tok.kind == TOK_DOT) {
            parse_py_advance(p);
            if (p->tok.kind != TOK_NAME) {
                parse_py_unexpected(p, "expected an attribute name after '.', found %s");
                return NULL;
            }
            ast_expr *attr = new_expr(p, AST_ATTR, e->loc);
            if (!attr)
                return NULL;
            attr->lhs = e;
            attr->name = p->tok.str;
            parse_py_advance(p);
            e = seal(p, attr);
        } else if (p->tok.kind == TOK_LPAREN) {
            e = parse_call(p, e);
        } else if (p->tok.kind == TOK_LBRACKET) {
            e = parse_subscript(p, e);
        } else {
            break;
        }
    }
    return e;
}

/* ---- operators ------------------------------------------------------------ */

static ast_expr *parse_power(parser *p)
{
    ast_expr *base = parse_primary(p);
    if (!base || p->tok.kind != TOK_POW)
        return base;
    token op = p->tok;
    parse_py_advance(p);
    if (!parse_py_enter(p, op.loc))
        return NULL;
    ast_expr *exponent = parse_factor(p); /* right-assoc; 2 ** -1 is allowed */
    parse_py_leave(p);
    if (!exponent)
        return NULL;
    return new_binary(p, AST_BINOP, OP_POW, base, exponent);
}

static ast_expr *parse_factor(parser *p)
{
    ast_op op = p->tok.kind == TOK_MINUS ? OP_NEG
              : p->tok.kind == TOK_PLUS  ? OP_POS
              : p->tok.kind == TOK_TILDE ? OP_INVERT
                                         : OP_NONE;
    if (op == OP_NONE)
        return parse_power(p);
    token t = p->tok;
    parse_py_advance(p);
    if (!parse_py_enter(p, t.loc))
        return NULL;
    ast_expr *operand = parse_factor(p);
    parse_py_leave(p);
    if (!operand)
        return NULL;
    ast_expr *e = new_expr(p, AST_UNARY, t.loc);
    if (!e)
        return NULL;
    e->op = op;
    e->lhs = operand;
    return seal(p, e);
}

/* Binary arithmetic and bitwise levels, loosest first: | ^ & shifts + * */
static int binary_precedence(tok_kind k, ast_op *op)
{
    switch (k) {
    case TOK_PIPE: *op = OP_BITOR; return 1;
    case TOK_CARET: *op = OP_BITXOR; return 2;
    case TOK_AMP: *op = OP_BITAND; return 3;
    case TOK_SHL: *op = OP_SHL; return 4;
    case TOK_SHR: *op = OP_SHR; return 4;
    case TOK_PLUS: *op = OP_ADD; return 5;
    case TOK_MINUS: *op = OP_SUB; return 5;
    case TOK_STAR: *op = OP_MUL; return 6;
    case TOK_SLASH: *op = OP_DIV; return 6;
    case TOK_FLOORDIV: *op = OP_FLOORDIV; return 6;
    case TOK_PERCENT: *op = OP_MOD; return 6;
    case TOK_AT: *op = OP_MATMUL; return 6;
    default: *op = OP_NONE; return 0;
    }
}

/* Precedence climbing; recursion depth is bounded by the number of levels. */
static ast_expr *parse_binary(parser *p, int min_prec)
{
    ast_expr *lhs = parse_factor(p);
    for (;;) {
        if (!lhs)
            return NULL;
        ast_op op;
        int prec = binary_precedence(p->tok.kind, &op);
        if (prec == 0 || prec < min_prec)
            return lhs;
        parse_py_advance(p);
        ast_expr *rhs = parse_binary(p, prec + 1);
        if (!rhs)
            return NULL;
        lhs = new_binary(p, AST_BINOP, op, lhs, rhs);
    }
}

/* The comparison operator at the current token, without consuming it;
 * `ntokens` is 2 for `not in` and `is not`. */
static ast_op comparison_operator(parser *p, int *ntokens)
{
    *ntokens = 1;
    switch (p->tok.kind) {
    case TOK_LT: return OP_LT;
    case TOK_LE: return OP_LE;
    case TOK_GT: return OP_GT;
    case TOK_GE: return OP_GE;
    case TOK_EQ: return OP_EQ;
    case TOK_NE: return OP_NE;
    case TOK_KW_IN: return OP_IN;
    case TOK_KW_IS:
        if (parse_py_peek(p)->kind == TOK_KW_NOT) {
            *ntokens = 2;
            return OP_IS_NOT;
        }
        return OP_IS;
    case TOK_KW_NOT:
        if (parse_py_peek(p)->kind == TOK_KW_IN) {
            *ntokens = 2;
            return OP_NOT_IN;
        }
        return OP_NONE;
    default:
        return OP_NONE;
    }
}

static bool is_identity_or_membership(ast_op op)
{
    return op == OP_IS || op == OP_IS_NOT || op == OP_IN || op == OP_NOT_IN;
}

/* a < b < c becomes (a < b) and (b < c), both comparisons sharing b. */
static ast_expr *parse_comparison(parser *p)
{
    ast_expr *left = parse_binary(p, 1);
    ast_expr *result = NULL;
    ast_op first_op = OP_NONE;
    for (int count = 1; left; count++) {
        int ntokens;
        ast_op op = comparison_operator(p, &ntokens);
        if (op == OP_NONE)
            break;
        if (count == 1) {
            first_op = op;
        } else if (is_identity_or_membership(op) || is_identity_or_membership(first_op)) {
            parse_py_error_at(p, p->tok.loc, "chained comparison with 'is'/'in' is not supported "
                                             "in Swage kernels; split it with 'and'");
            return NULL;
        }
        for (int i = 0; i < ntokens; i++)
            parse_py_advance(p);
        ast_expr *right = parse_binary(p, 1);
        if (!right)
            return NULL;
        ast_expr *cmp = new_binary(p, AST_COMPARE, op, left, right);
        if (!cmp)
            return NULL;
        result = result ? new_binary(p, AST_BOOLOP, OP_AND, result, cmp) : cmp;
        if (!result)
            return NULL;
        left = right;
    }
    return result ? result : left;
}

static ast_expr *parse_not(parser *p)
{
    if (p->tok.kind != TOK_KW_NOT)
        return parse_comparison(p);
    token t = p->tok;
    parse_py_advance(p);
    if (!parse_py_enter(p, t.loc))
        return NULL;
    ast_expr *operand = parse_not(p);
    parse_py_leave(p);
    if (!operand)
        return NULL;
    ast_expr *e = new_expr(p, AST_UNARY, t.loc);
    if (!e)
        return NULL;
    e->op = OP_NOT;
    e->lhs = operand;
    return seal(p, e);
}

static ast_expr *parse_boolean(parser *p, tok_kind kw)
{
    ast_expr *lhs = kw == TOK_KW_OR ? parse_boolean(p, TOK_KW_AND) : parse_not(p);
    while (lhs && p->tok.kind == kw) {
        parse_py_advance(p);
        ast_expr *rhs = kw == TOK_KW_OR ? parse_boolean(p, TOK_KW_AND) : parse_not(p);
        if (!rhs)
            return NULL;
        lhs = new_binary(p, AST_BOOLOP, kw == TOK_KW_OR ? OP_OR : OP_AND, lhs, rhs);
    }
    return lhs;
}

ast_expr *parse_py_expression(parser *p)
{
    if (!parse_py_enter(p, p->tok.loc))
        return NULL;
    ast_expr *e = parse_boolean(p, TOK_KW_OR);
    if (e && p->tok.kind == TOK_KW_IF) {
        parse_py_advance(p);
        ast_expr *cond = parse_boolean(p, TOK_KW_OR);
        if (cond && p->tok.kind != TOK_KW_ELSE) {
            parse_py_unexpected(p, "expected 'else' in the conditional expression "
                                   "(a if condition else b), found %s");
            cond = NULL;
        }
        ast_expr *otherwise = NULL;
        if (cond) {
            parse_py_advance(p);
            otherwise = parse_py_expression(p);
        }
        ast_expr *ifexp = otherwise ? new_expr(p, AST_IFEXP, e->loc) : NULL;
        if (ifexp) {
            ifexp->lhs = e;
            ifexp->cond = cond;
            ifexp->rhs = otherwise;
        }
        e = seal(p, ifexp);
    }
    parse_py_leave(p);
    return e;
}

ast_expr *parse_py_expression_list(parser *p)
{
    ast_expr *first = parse_py_expression(p);
    if (!first || p->tok.kind != TOK_COMMA)
        return first;
    ast_expr *tuple = new_expr(p, AST_TUPLE, first->loc);
    if (!tuple)
        return NULL;
    int cap = 0;
    PARSE_PUSH(p, tuple->args, tuple->nargs, cap, first);
    while (!parse_py_failed(p) && p->tok.kind == TOK_COMMA) {
        parse_py_advance(p);
        if (!starts_expression(p->tok.kind))
            break;
        ast_expr *item = parse_py_expression(p);
        if (!item)
            return NULL;
        PARSE_PUSH(p, tuple->args, tuple->nargs, cap, item);
    }
    if (parse_py_failed(p))
        return NULL;
    return seal(p, tuple);
}

ast_expr *parse_py_target(parser *p) { return parse_binary(p, 1); }
