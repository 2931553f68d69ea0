/* parser_internal.h - parser state shared by parser.c and parse_expr.c; private. */
#ifndef SWAGE_PARSER_INTERNAL_H
#define SWAGE_PARSER_INTERNAL_H

#include "ast.h"
#include "lexer.h"

enum {
    PARSE_MAX_NESTING = 200,    /* expression recursion: brackets, unary and '**' chains */
    PARSE_MAX_STATEMENTS = 200, /* statement tree depth: nested blocks plus 'elif' links */
    PARSE_MAX_TREE = 1000,      /* height of one expression tree (long operator chains) */
    PARSE_MAX_ITEMS = 4096,     /* parameters, or arguments of one call (duplicates are
                                   found by pairwise comparison) */
};

typedef struct parser {
    arena *a;
    const source_file *src;
    diag *d;
    lexer lx;
    token tok;        /* the current token */
    token ahead;      /* one token of lookahead, valid when have_ahead */
    bool have_ahead;
    int depth;        /* expression recursion, bounded by PARSE_MAX_NESTING */
    int stmt_depth;   /* enclosing blocks and 'elif' links, bounded by PARSE_MAX_STATEMENTS */
} parser;

/* ---- parser.c: tokens and errors ---- */
void parse_py_advance(parser *p);
const token *parse_py_peek(parser *p);
bool parse_py_failed(const parser *p);
void parse_py_error_at(parser *p, src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports the current token as unexpected. Tokens that start an unsupported
 * construct (lambda, '{', ':=', ...) get that construct's message instead of
 * `fmt`; fmt may use "%s" once for a description of the token. */
void parse_py_unexpected(parser *p, const char *fmt);
/* Describes a token for messages: "name 'x'", "'('", "end of line". */
const char *parse_py_describe(parser *p, const token *t);
/* A line of the parsed text as the user's file numbers it (first_line applied). */
int parse_py_user_line(const parser *p, int line);
/* Expects the closer of a bracket opened at `open`. */
bool parse_py_expect_closer(parser *p, tok_kind closer, const token *open);
/* Recursion guard: false (and an error) past PARSE_MAX_NESTING. */
bool parse_py_enter(parser *p, src_loc loc);
void parse_py_leave(parser *p);
void parse_py_nomem(parser *p);

/* Arena array growth that reports out-of-memory instead of writing to NULL;
 * on failure the item is dropped and parse_py_failed() becomes true. */
#define PARSE_PUSH(p, vec, len, cap, item)                                           \
    do {                                                                             \
        if ((len) == (cap)) {                                                        \
            int newcap_ = (cap) ? (cap) * 2 : 4;                                     \
            void *grown_ = arena_realloc((p)->a, (vec), sizeof(*(vec)) * (size_t)(cap), \
                                         sizeof(*(vec)) * (size_t)newcap_);          \
            if (!grown_) {                                                           \
                parse_py_nomem(p);                                                      \
                break;                                                               \
            }                                                                        \
            (vec) = grown_;                                                          \
            (cap) = newcap_;                                                         \
        }                                                                            \
        (vec)[(len)++] = (item);                                                     \
    } while (0)

/* ---- parse_expr.c ---- */
/* expression: a conditional expression or anything below it. */
ast_expr *parse_py_expression(parser *p);
/* expression list: `a`, or `a, b` (an AST_TUPLE without brackets). */
ast_expr *parse_py_expression_list(parser *p);
/* assignment-like target: an expression without comparisons or boolean
 * operators, so `for x in y` stops before `in`. */
ast_expr *parse_py_target(parser *p);
/* Whether the current token can begin an expression. */
bool parse_py_starts_expression(const parser *p);

#endif
