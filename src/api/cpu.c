/* cpu.c - the public side of CPU launch interrupts: the calling thread's
 * cancel flag (swage.h), polled by the CPU executors (cpu_exec.h). */
#include "api_internal.h"
#include "../backends/cpu/cpu_exec.h"

SWAGE_API const volatile int *swageCpuSetCancelFlag(const volatile int *flag)
{
    return cpu_set_cancel_flag(flag);
}
