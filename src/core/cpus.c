/* sched_getaffinity and CPU_COUNT are GNU extensions. */
#define _GNU_SOURCE
#include "core/cpus.h"

#include <sched.h>

int gcr_cpus_usable(void)
{
    cpu_set_t cpus;
    return sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
}
