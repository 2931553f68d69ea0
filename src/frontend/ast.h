/* ast.h - the syntax tree of one kernel in Swage's restricted Python subset.
 *
 * Produced by parse_kernel (parser.c) from a source_file; consumed by irgen.
 * All nodes, strings and arrays live in the compilation arena. Every node
 * carries the src_loc of its first character in the parsed text.
 */
#ifndef SWAGE_AST_H
#define SWAGE_AST_H

#include "../support/support.h"

typedef struct ast_expr ast_expr;
typedef struct ast_stmt ast_stmt;

typedef enum ast_expr_kind {
    AST_NAME,      /* name */
    AST_INT,       /* ival (u64: a uint64 from 2^63 up; beyond 2^64 - 1 a parse error) */
    AST_FLOAT,     /* fval */
    AST_BOOL,      /* ival: 0 or 1 */
    AST_NONE,      /* None */
    AST_STRING,    /* name holds the decoded text (only for docstrings/keywords) */
    AST_ATTR,      /* base.name */
    AST_CALL,      /* callee(args..., kw=value...) */
    AST_BINOP,     /* lhs op rhs */
    AST_UNARY,     /* op operand (lhs) */
    AST_COMPARE,   /* lhs op rhs; a chain a < b < c is parsed as (a<b) and (b<c) */
    AST_BOOLOP,    /* lhs and/or rhs (left-assoc chain) */
    AST_IFEXP,     /* then if cond else otherwise */
    AST_TUPLE,     /* (a, b) or [a, b]: items */
    AST_SUBSCRIPT, /* lhs[args...]: each item None, a bare ':' or '...'; or lhs[index], one
                      expression (a tuple's item; irgen rejects it on a tile) */
    AST_SLICE,     /* a bare ':' (only as a subscript item) */
    AST_ELLIPSIS,  /* '...' (only as a subscript item) */
} ast_expr_kind;

typedef enum ast_op {
    OP_NONE,
    /* binary arithmetic */
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
    OP_BITAND, OP_BITOR, OP_BITXOR, OP_SHL, OP_SHR, OP_MATMUL,
    /* unary */
    OP_NEG, OP_POS, OP_INVERT, OP_NOT,
    /* comparison */
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
    OP_IS, OP_IS_NOT, OP_IN, OP_NOT_IN, /* parsed, rejected by irgen */
    /* boolean */
    OP_AND, OP_OR,
} ast_op;

typedef struct ast_keyword {
    const char *name;
    ast_expr *value;
    src_loc loc;
} ast_keyword;

struct ast_expr {
    ast_expr_kind kind;
    src_loc loc;
    ast_op op;           /* BINOP, UNARY, COMPARE, BOOLOP */
    const char *name;    /* NAME, ATTR (the attribute), STRING */
    int64_t ival;        /* INT, BOOL */
    bool u64;            /* INT: ival holds the bits of a value from 2^63 to 2^64 - 1 */
    double fval;         /* FLOAT */
    ast_expr *lhs, *rhs; /* BINOP/COMPARE/BOOLOP; UNARY uses lhs; ATTR base is lhs */
    ast_expr *cond;      /* IFEXP: then = lhs, else = rhs */
    ast_expr *callee;    /* CALL */
    ast_expr **args;     /* CALL positional arguments; TUPLE items */
    int nargs;
    ast_keyword *kwargs; /* CALL keyword arguments */
    int nkwargs;
    src_loc open;        /* SUBSCRIPT: the '[' */
};

typedef enum ast_stmt_kind {
    AST_ASSIGN,    /* target = value (targets: a name or a tuple of targets; `a = b = c`
                      gives ntargets > 1); `name: annotation = value` sets annotation */
    AST_AUGASSIGN, /* target op= value */
    AST_EXPR,      /* value (a call, usually) */
    AST_IF,        /* if cond: body  else: orelse (elif is an AST_IF inside orelse) */
    AST_FOR,       /* for target in iter: body */
    AST_WHILE,     /* while cond: body */
    AST_RETURN,    /* return [value] (a tuple when several values are returned) */
    AST_BREAK,
    AST_CONTINUE,
    AST_PASS,
} ast_stmt_kind;

typedef struct ast_block {
    ast_stmt **stmts;
    int nstmts;
} ast_block;

struct ast_stmt {
    ast_stmt_kind kind;
    src_loc loc;
    ast_expr **targets;  /* ASSIGN: names (AST_NAME exprs); AUGASSIGN/FOR: targets[0] */
    int ntargets;
    ast_op op;           /* AUGASSIGN */
    ast_expr *value;     /* ASSIGN/AUGASSIGN/EXPR/RETURN; FOR: the iterable call */
    ast_expr *cond;      /* IF, WHILE */
    ast_expr *annotation;/* ASSIGN with an annotation (x: sl.constexpr = 4), else NULL */
    ast_block body;      /* IF then, FOR and WHILE body */
    ast_block orelse;    /* IF else */
};

typedef struct ast_param {
    const char *name;
    ast_expr *annotation; /* NULL when absent */
    ast_expr *default_value; /* NULL when absent */
    src_loc loc;
} ast_param;

typedef struct ast_func {
    const char *name;
    src_loc loc;          /* of the `def` keyword */
    ast_param *params;
    int nparams;
    ast_block body;       /* docstring removed */
} ast_func;

/* Parses exactly one (optionally decorated) `def` from src. Leading blank and
 * comment lines are allowed, and the whole text may be uniformly indented (a
 * kernel defined inside a function). On error, reports into d and returns
 * NULL. All memory comes from `a`. */
ast_func *parse_kernel(arena *a, const source_file *src, diag *d);

/* Finds the top-level (column-1, or uniformly indented) definition of
 * `kernel_name` in a whole Python file, including its decorators, and returns
 * it as a source_file view into the same text with first_line set so that
 * diagnostics carry the real file's line numbers. Returns false (and reports
 * into d) when there is no such definition. */
bool extract_kernel_source(const source_file *file, const char *kernel_name,
                           source_file *out, diag *d);

/* Debug printer used by tests: an S-expression of the tree. */
void ast_dump(const ast_func *fn, strbuf *out);

#endif
