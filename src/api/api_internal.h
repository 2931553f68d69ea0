/* api_internal.h - what the public-API files share: the error object, the
 * export macro, and the compiled-kernel record the cache owns. */
#ifndef SWAGE_API_INTERNAL_H
#define SWAGE_API_INTERNAL_H

#include "swage.h"
#include "../support/support.h"

#define SWAGE_API __attribute__((visibility("default")))

struct swage_error {
    swage_status status;
    char *message;
    char *rendered;
    char *file;
    int line, col;
};

swage_status api_status_of(diag_kind kind);
/* Converts a failed diag into *error (when error is non-NULL), clears d,
 * and returns the status. */
swage_status api_fail(swage_error **error, diag *d);
/* Reports a DIAG_ARGUMENT error with a message and returns its status. */
swage_status api_fail_argument(swage_error **error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
