/* lexer.h - Python tokenizer for kernel sources: tokens, INDENT/DEDENT, one error at most. */
#ifndef SWAGE_LEXER_H
#define SWAGE_LEXER_H

#include "../support/support.h"

/* Keywords: the enum name and the spelling. Soft keywords (match, case,
 * type) are plain names; the parser recognises them in context. */
#define LEX_KEYWORDS(X)                                                        \
    X(KW_FALSE, "False") X(KW_NONE, "None") X(KW_TRUE, "True")                 \
    X(KW_AND, "and") X(KW_AS, "as") X(KW_ASSERT, "assert")                     \
    X(KW_ASYNC, "async") X(KW_AWAIT, "await") X(KW_BREAK, "break")             \
    X(KW_CLASS, "class") X(KW_CONTINUE, "continue") X(KW_DEF, "def")           \
    X(KW_DEL, "del") X(KW_ELIF, "elif") X(KW_ELSE, "else")                     \
    X(KW_EXCEPT, "except") X(KW_FINALLY, "finally") X(KW_FOR, "for")           \
    X(KW_FROM, "from") X(KW_GLOBAL, "global") X(KW_IF, "if")                   \
    X(KW_IMPORT, "import") X(KW_IN, "in") X(KW_IS, "is")                       \
    X(KW_LAMBDA, "lambda") X(KW_NONLOCAL, "nonlocal") X(KW_NOT, "not")         \
    X(KW_OR, "or") X(KW_PASS, "pass") X(KW_RAISE, "raise")                     \
    X(KW_RETURN, "return") X(KW_TRY, "try") X(KW_WHILE, "while")               \
    X(KW_WITH, "with") X(KW_YIELD, "yield")

/* Operators and delimiters, longest spellings first within each table so a
 * linear scan finds the longest match. */
#define LEX_OPERATORS(X)                                                       \
    X(POW_ASSIGN, "**=") X(FLOORDIV_ASSIGN, "//=") X(SHL_ASSIGN, "<<=")        \
    X(SHR_ASSIGN, ">>=") X(ELLIPSIS, "...")                                    \
    X(POW, "**") X(FLOORDIV, "//") X(SHL, "<<") X(SHR, ">>") X(LE, "<=")       \
    X(GE, ">=") X(EQ, "==") X(NE, "!=") X(ARROW, "->") X(WALRUS, ":=")         \
    X(ADD_ASSIGN, "+=") X(SUB_ASSIGN, "-=") X(MUL_ASSIGN, "*=")                \
    X(DIV_ASSIGN, "/=") X(MOD_ASSIGN, "%=") X(AND_ASSIGN, "&=")                \
    X(OR_ASSIGN, "|=") X(XOR_ASSIGN, "^=") X(MATMUL_ASSIGN, "@=")              \
    X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%")      \
    X(AT, "@") X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(TILDE, "~")            \
    X(LT, "<") X(GT, ">") X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[")       \
    X(RBRACKET, "]") X(LBRACE, "{") X(RBRACE, "}") X(COMMA, ",")               \
    X(COLON, ":") X(DOT, ".") X(SEMI, ";") X(ASSIGN, "=")

typedef enum tok_kind {
    TOK_EOF,
    TOK_ERROR,   /* the lexer reported an error; every later token is TOK_ERROR */
    TOK_NEWLINE, /* end of a logical line */
    TOK_INDENT,
    TOK_DEDENT,
    TOK_NAME,
    TOK_INT,
    TOK_FLOAT,
    TOK_STRING,
#define LEX_ENUM_(id, text) TOK_##id,
    LEX_KEYWORDS(LEX_ENUM_) LEX_OPERATORS(LEX_ENUM_)
#undef LEX_ENUM_
    TOK_COUNT
} tok_kind;

typedef struct token {
    tok_kind kind;
    src_loc loc;          /* first character (INDENT/DEDENT: first character of the line) */
    src_loc end;          /* just past the last character */
    const char *text;     /* raw spelling in the source, not NUL-terminated */
    size_t len;
    const char *str;      /* NAME: identifier; STRING: decoded text (arena, NUL-terminated) */
    size_t str_len;
    int64_t ival;         /* INT (u64: the bits of a value from 2^63 to 2^64 - 1) */
    bool u64;             /* INT: a literal from 2^63 to 2^64 - 1 (a uint64) */
    double fval;          /* FLOAT */
    bool unmatched;       /* a closing bracket with no open bracket before it */
} token;

enum {
    LEX_MAX_INDENT = 100, /* levels of indentation, as CPython */
    LEX_MAX_PAREN = 200,  /* nested open brackets, as CPython */
};

/* The whole state is a plain struct: the parser embeds it. */
typedef struct lexer {
    arena *a;
    const source_file *src;
    diag *d;
    const char *p, *end, *line_start;
    int line;
    int indent[LEX_MAX_INDENT];     /* columns, a tab advancing to a multiple of 8 */
    int alt_indent[LEX_MAX_INDENT]; /* columns, a tab counting 1: detects tab/space mixes */
    int nindent;                    /* 0 until the first non-blank line sets the base */
    int pending_dedents;
    src_loc dedent_loc;
    int paren_depth;
    bool at_line_start;
    bool line_has_tokens;
    bool failed;
    src_loc last_end; /* end of the last real token: where NEWLINE/EOF are placed */
} lexer;

void lex_py_init(lexer *lx, arena *a, const source_file *src, diag *d);
/* Returns the next token; after an error (reported into d), TOK_ERROR. */
token lex_py_next(lexer *lx);
/* The fixed spelling of an operator or keyword ("(", "if"); a word for the
 * others ("end of line", "name"). */
const char *lex_py_kind_text(tok_kind kind);

#endif
