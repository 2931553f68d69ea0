/* cpu_print.c - sl.device_print on the CPU executors: sw.print (reference
 * executor) and simt.print (SIMT executor) write each program's values to
 * stdout, element by element in index order (docs/language.md, "Printing").
 * Requires a checked op (cpu_setup.c); never fails on user data. */
#include "cpu_internal.h"

#include "ir/scalar.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void format_value(char *out, size_t size, ir_dtype dt, ir_scalar v, bool hex)
{
    int bits = ir_dtypes[dt].bits;
    if (hex) {
        unsigned char bytes[8] = {0};
        ir_scalar_store(dt, bytes, v);
        uint64_t u = 0;
        memcpy(&u, bytes, sizeof u); /* little-endian hosts only, as the executors */
        if (bits < 64)
            u &= (UINT64_C(1) << (bits < 8 ? 8 : bits)) - 1;
        snprintf(out, size, "0x%0*" PRIx64, (bits < 8 ? 8 : bits) / 4, u);
        return;
    }
    if (dt == DT_I1)
        snprintf(out, size, "%s", v.i ? "True" : "False");
    else if (ir_dtype_is_float(dt))
        snprintf(out, size, "%.*g", dt == DT_F64 ? 17 : 9, v.f);
    else
        snprintf(out, size, "%" PRId64, v.i);
}

/* The element count of operand k (0: a scalar) from the op's "lens". */
static int64_t operand_len(const ir_op *op, int k)
{
    const ir_attr *a = ir_attr_get(op, "lens");
    if (!a || a->kind != ATTR_STR)
        return 0;
    const char *s = a->s;
    for (int i = 0; i < k && s; i++) {
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    return s ? strtoll(s, NULL, 10) : 0;
}

bool cpu_exec_print(cpu_ctx *c, const ir_op *op)
{
    const ir_attr *pa = ir_attr_get(op, "prefix");
    const ir_attr *ha = ir_attr_get(op, "hex");
    const char *prefix = pa && pa->kind == ATTR_STR ? pa->s : "";
    bool hex = ha && ha->kind == ATTR_INT && ha->i != 0;
    char value[64];
    for (int k = 0; k < op->noperands; k++) {
        ir_value v = op->operands[k];
        ir_dtype dt = cpu_dtype(c, v);
        const ir_scalar *vals = cpu_vals(c, v);
        int64_t len = operand_len(op, k);
        char operand[32] = "";
        if (op->noperands > 1)
            snprintf(operand, sizeof operand, "(operand %d) ", k);
        for (int64_t e = 0; e < (len ? len : 1); e++) {
            ir_scalar x = vals[0];
            if (len && c->threads == 1) {
                x = vals[e];
            } else if (len) { /* SIMT: the first thread and slot holding element e */
                int32_t per = cpu_slots(c, v);
                bool found = false;
                for (int64_t t = 0; t < c->threads && !found; t++)
                    for (int32_t j = 0; j < per && !found; j++)
                        if (ir_simt_element(len, per, 0, t, j) == e)
                            x = vals[t * per + j], found = true;
            }
            format_value(value, sizeof value, dt, x, hex);
            char idx[32] = "";
            if (len)
                snprintf(idx, sizeof idx, "%" PRId64, e);
            printf("pid (%" PRId64 ", %" PRId64 ", %" PRId64 ") idx (%s) %s%s%s\n", c->pid[0],
                   c->pid[1], c->pid[2], idx, prefix, operand, value);
        }
    }
    fflush(stdout);
    return true;
}
