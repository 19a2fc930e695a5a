/* The CPUs this process may run on. */
#ifndef GCR_CORE_CPUS_H
#define GCR_CORE_CPUS_H

/* Those of its affinity mask (a job scheduler's cpuset included), not the
 * machine's; 1 if the mask cannot be read. Decides whether a second thread
 * has a CPU of its own. */
int gcr_cpus_usable(void);

#endif
