/* canary.c - a deliberate data race, for make tsan to check itself with.
 *
 * canary_race() is called from two Python threads at once (canary.py):
 * each waits until the other has arrived (relaxed atomics: no
 * happens-before between them), then both increment `counter` without
 * synchronisation. ThreadSanitizer must report it. If it does not, the
 * runtime is not active in the Python process or test/tsan/tsan.supp
 * suppresses races in code that Python threads call, and make tsan would
 * miss real races in libswage too. */
#include <stdatomic.h>

static atomic_int arrived;
static long counter;

long canary_race(void)
{
    atomic_fetch_add_explicit(&arrived, 1, memory_order_relaxed);
    while (atomic_load_explicit(&arrived, memory_order_relaxed) < 2)
        ;
    for (int i = 0; i < 1000; i++)
        counter++;
    return counter;
}
