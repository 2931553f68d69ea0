/* parse_internal.h - what parse.c (the grammar) and parse_lex.c (tokens and
 * error reporting) share. Private to the IR text parser. */
#ifndef SWAGE_IR_PARSE_INTERNAL_H
#define SWAGE_IR_PARSE_INTERNAL_H

#include "ir.h"

typedef enum tok_kind {
    T_EOF,
    T_BARE,    /* module, func.func, i32, tensor, loc, true */
    T_PERCENT, /* %name (text includes the '%') */
    T_CARET,   /* ^bb0 */
    T_AT,      /* @name or @"name" */
    T_BANG,    /* !sw.ptr */
    T_HASH,    /* #0 */
    T_STRING,  /* "text" (text includes the quotes, escapes undecoded) */
    T_INT,     /* 42, 0x7F800000 */
    T_FLOAT,   /* 0.5, 1.0e+30, 1e5 */
    T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LSQUARE, T_RSQUARE,
    T_LESS, T_GREATER, T_COMMA, T_COLON, T_EQUAL, T_ARROW, T_MINUS, T_PLUS,
    T_QUESTION, T_STAR,
} tok_kind;

typedef struct token {
    tok_kind kind;
    const char *start;
    size_t len;
    src_loc loc;
} token;

/* The lexer reports errors itself: it writes the diagnostic and longjmps
 * to `fail`, so the grammar never sees a bad token. */
typedef struct lexer {
    const source_file *src; /* the IR text, for carets */
    const char *p, *end;
    const char *line_start;
    int32_t line;
    src_loc after_last;     /* just past the last token: where EOF is reported */
    diag *d;
    jmp_buf *fail;
} lexer;

void lex_init(lexer *lx, const source_file *src, diag *d, jmp_buf *fail);
token lex_next(lexer *lx);

/* Reports a syntax error at loc and longjmps out of the parse. */
_Noreturn void lex_error(lexer *lx, src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool tok_is(const token *t, tok_kind kind, const char *text);

/* Decodes a T_STRING token (quotes and escapes) into the arena; reports
 * bad escapes and embedded NULs. */
char *lex_string_value(lexer *lx, arena *a, const token *t);

#endif
