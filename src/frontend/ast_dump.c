/* ast_dump.c - ast_dump: a deterministic S-expression of a kernel, one line per statement. */
#include "ast.h"

#include <stdio.h>
#include <string.h>

static const char *op_text(ast_op op)
{
    switch (op) {
    case OP_NONE: return "?";
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_FLOORDIV: return "//";
    case OP_MOD: return "%";
    case OP_POW: return "**";
    case OP_BITAND: return "&";
    case OP_BITOR: return "|";
    case OP_BITXOR: return "^";
    case OP_SHL: return "<<";
    case OP_SHR: return ">>";
    case OP_MATMUL: return "@";
    case OP_NEG: return "-";
    case OP_POS: return "+";
    case OP_INVERT: return "~";
    case OP_NOT: return "not";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_EQ: return "==";
    case OP_NE: return "!=";
    case OP_IS: return "is";
    case OP_IS_NOT: return "is-not";
    case OP_IN: return "in";
    case OP_NOT_IN: return "not-in";
    case OP_AND: return "and";
    case OP_OR: return "or";
    }
    return "?";
}

static void dump_string(strbuf *out, const char *s)
{
    sb_putc(out, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(out, "\\%c", c);
        else if (c == '\n')
            sb_puts(out, "\\n");
        else if (c == '\t')
            sb_puts(out, "\\t");
        else if (c < 0x20 || c == 0x7f)
            sb_printf(out, "\\x%02x", c);
        else
            sb_putc(out, (char)c);
    }
    sb_putc(out, '"');
}

/* %.17g round-trips; a trailing ".0" keeps 1.0 apart from the integer 1. */
static void dump_float(strbuf *out, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    sb_puts(out, buf);
    if (!strpbrk(buf, ".eEna"))
        sb_puts(out, ".0");
}

static void dump_expr(strbuf *out, const ast_expr *e)
{
    if (!e) {
        sb_puts(out, "<null>");
        return;
    }
    switch (e->kind) {
    case AST_NAME: sb_puts(out, e->name ? e->name : "<null>"); return;
    case AST_INT:
        if (e->u64)
            sb_printf(out, "%llu", (unsigned long long)(uint64_t)e->ival);
        else
            sb_printf(out, "%lld", (long long)e->ival);
        return;
    case AST_FLOAT: dump_float(out, e->fval); return;
    case AST_BOOL: sb_puts(out, e->ival ? "True" : "False"); return;
    case AST_NONE: sb_puts(out, "None"); return;
    case AST_STRING: dump_string(out, e->name); return;
    case AST_ATTR:
        sb_puts(out, "(attr ");
        dump_expr(out, e->lhs);
        sb_printf(out, " %s)", e->name ? e->name : "<null>");
        return;
    case AST_CALL:
        sb_puts(out, "(call ");
        dump_expr(out, e->callee);
        for (int i = 0; i < e->nargs; i++) {
            sb_putc(out, ' ');
            dump_expr(out, e->args[i]);
        }
        for (int i = 0; i < e->nkwargs; i++) {
            sb_printf(out, " (kw %s ", e->kwargs[i].name);
            dump_expr(out, e->kwargs[i].value);
            sb_putc(out, ')');
        }
        sb_putc(out, ')');
        return;
    case AST_BINOP:
    case AST_COMPARE:
    case AST_BOOLOP:
        sb_printf(out, "(%s ", op_text(e->op));
        dump_expr(out, e->lhs);
        sb_putc(out, ' ');
        dump_expr(out, e->rhs);
        sb_putc(out, ')');
        return;
    case AST_UNARY:
        sb_printf(out, "(%s ", op_text(e->op));
        dump_expr(out, e->lhs);
        sb_putc(out, ')');
        return;
    case AST_IFEXP:
        sb_puts(out, "(ifexp ");
        dump_expr(out, e->cond);
        sb_putc(out, ' ');
        dump_expr(out, e->lhs);
        sb_putc(out, ' ');
        dump_expr(out, e->rhs);
        sb_putc(out, ')');
        return;
    case AST_SUBSCRIPT:
        sb_puts(out, "(subscript ");
        dump_expr(out, e->lhs);
        for (int i = 0; i < e->nargs; i++) {
            sb_putc(out, ' ');
            dump_expr(out, e->args[i]);
        }
        sb_putc(out, ')');
        return;
    case AST_SLICE: sb_puts(out, ":"); return;
    case AST_ELLIPSIS: sb_puts(out, "..."); return;
    case AST_TUPLE:
        sb_puts(out, "(tuple");
        for (int i = 0; i < e->nargs; i++) {
            sb_putc(out, ' ');
            dump_expr(out, e->args[i]);
        }
        sb_putc(out, ')');
        return;
    }
    sb_puts(out, "<?>");
}

static void dump_block(strbuf *out, const ast_block *b, int indent);

static void newline(strbuf *out, int indent)
{
    sb_putc(out, '\n');
    for (int i = 0; i < indent; i++)
        sb_putc(out, ' ');
}

static void dump_stmt(strbuf *out, const ast_stmt *s, int indent)
{
    switch (s->kind) {
    case AST_ASSIGN:
        sb_puts(out, "(assign");
        if (s->annotation) {
            sb_puts(out, " :");
            dump_expr(out, s->annotation);
        }
        for (int i = 0; i < s->ntargets; i++) {
            sb_putc(out, ' ');
            dump_expr(out, s->targets[i]);
        }
        sb_putc(out, ' ');
        dump_expr(out, s->value);
        sb_putc(out, ')');
        return;
    case AST_AUGASSIGN:
        sb_puts(out, "(augassign ");
        dump_expr(out, s->ntargets > 0 ? s->targets[0] : NULL);
        sb_printf(out, " %s= ", op_text(s->op));
        dump_expr(out, s->value);
        sb_putc(out, ')');
        return;
    case AST_EXPR:
        sb_puts(out, "(expr ");
        dump_expr(out, s->value);
        sb_putc(out, ')');
        return;
    case AST_IF:
        sb_puts(out, "(if ");
        dump_expr(out, s->cond);
        dump_block(out, &s->body, indent + 2);
        if (s->orelse.nstmts > 0) {
            newline(out, indent + 1);
            sb_puts(out, "else");
            dump_block(out, &s->orelse, indent + 2);
        }
        sb_putc(out, ')');
        return;
    case AST_FOR:
        sb_puts(out, "(for ");
        dump_expr(out, s->ntargets > 0 ? s->targets[0] : NULL);
        sb_putc(out, ' ');
        dump_expr(out, s->value);
        dump_block(out, &s->body, indent + 2);
        sb_putc(out, ')');
        return;
    case AST_RETURN:
        sb_puts(out, "(return");
        if (s->value) {
            sb_putc(out, ' ');
            dump_expr(out, s->value);
        }
        sb_putc(out, ')');
        return;
    case AST_WHILE:
        sb_puts(out, "(while ");
        dump_expr(out, s->cond);
        dump_block(out, &s->body, indent + 2);
        sb_putc(out, ')');
        return;
    case AST_BREAK: sb_puts(out, "(break)"); return;
    case AST_CONTINUE: sb_puts(out, "(continue)"); return;
    case AST_PASS: sb_puts(out, "(pass)"); return;
    }
    sb_puts(out, "(?)");
}

static void dump_block(strbuf *out, const ast_block *b, int indent)
{
    for (int i = 0; i < b->nstmts; i++) {
        newline(out, indent);
        dump_stmt(out, b->stmts[i], indent);
    }
}

void ast_dump(const ast_func *fn, strbuf *out)
{
    if (!fn) {
        sb_puts(out, "(null)\n");
        return;
    }
    sb_printf(out, "(def %s (params", fn->name ? fn->name : "<null>");
    for (int i = 0; i < fn->nparams; i++) {
        const ast_param *prm = &fn->params[i];
        sb_putc(out, ' ');
        if (!prm->annotation && !prm->default_value) {
            sb_puts(out, prm->name);
            continue;
        }
        sb_printf(out, "(%s", prm->name);
        if (prm->annotation) {
            sb_puts(out, " : ");
            dump_expr(out, prm->annotation);
        }
        if (prm->default_value) {
            sb_puts(out, " = ");
            dump_expr(out, prm->default_value);
        }
        sb_putc(out, ')');
    }
    sb_putc(out, ')');
    dump_block(out, &fn->body, 2);
    sb_puts(out, ")\n");
}
