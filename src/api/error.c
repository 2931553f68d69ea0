/* error.c - swage_error objects: built from a failed diag, owned by the
 * caller, destroyed with swageErrorDestroy. */
#include "api_internal.h"

#include <stdlib.h>
#include <string.h>

swage_status api_status_of(diag_kind kind)
{
    switch (kind) {
    case DIAG_NONE: return SWAGE_OK;
    case DIAG_COMPILE: return SWAGE_ERROR_COMPILE;
    case DIAG_ARGUMENT: return SWAGE_ERROR_INVALID_ARGUMENT;
    case DIAG_RUNTIME: return SWAGE_ERROR_RUNTIME;
    case DIAG_NOMEM: return SWAGE_ERROR_OUT_OF_MEMORY;
    case DIAG_INTERNAL: return SWAGE_ERROR_INTERNAL;
    case DIAG_INTERRUPTED: return SWAGE_ERROR_INTERRUPTED;
    }
    return SWAGE_ERROR_INTERNAL;
}

swage_status api_fail(swage_error **error, diag *d)
{
    swage_status status = api_status_of(d->kind);
    if (status == SWAGE_OK)
        status = SWAGE_ERROR_INTERNAL; /* a failure path with no diagnostic */
    if (error) {
        swage_error *e = calloc(1, sizeof *e);
        if (e) {
            e->status = status;
            e->message = d->message;
            e->rendered = d->rendered;
            e->file = d->file;
            e->line = d->line;
            e->col = d->col;
            d->message = d->rendered = d->file = NULL;
        }
        *error = e;
    }
    diag_clear(d);
    return status;
}

swage_status api_fail_argument(swage_error **error, const char *fmt, ...)
{
    diag d;
    diag_init(&d);
    va_list ap;
    va_start(ap, fmt);
    src_loc none = {0, 0};
    diag_verror_at(&d, DIAG_ARGUMENT, NULL, none, fmt, ap);
    va_end(ap);
    return api_fail(error, &d);
}

SWAGE_API swage_status swageErrorStatus(const swage_error *e)
{
    return e ? e->status : SWAGE_ERROR_INTERNAL;
}
SWAGE_API const char *swageErrorMessage(const swage_error *e)
{
    return e && e->message ? e->message : "out of memory while reporting an error";
}
SWAGE_API const char *swageErrorRendered(const swage_error *e)
{
    return e && e->rendered ? e->rendered : swageErrorMessage(e);
}
SWAGE_API const char *swageErrorFile(const swage_error *e) { return e ? e->file : NULL; }
SWAGE_API int swageErrorLine(const swage_error *e) { return e ? e->line : 0; }
SWAGE_API int swageErrorColumn(const swage_error *e) { return e ? e->col : 0; }

SWAGE_API void swageErrorDestroy(swage_error *e)
{
    if (!e)
        return;
    free(e->message);
    free(e->rendered);
    free(e->file);
    free(e);
}

SWAGE_API void swageFree(void *text) { free(text); }

SWAGE_API const char *swageVersionString(void) { return "0.1.0"; }
