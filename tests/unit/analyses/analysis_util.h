/* Drives an analysis directly, as the replay's event bus does: the sim info
 * carries a shared line map (gcr_sim_info.lines), and each event reaches the
 * analysis with its line id set, after both prefetch stages. */
#ifndef GCR_TEST_ANALYSIS_UTIL_H
#define GCR_TEST_ANALYSIS_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "gcreplay/analysis.h"

static struct gcr_idmap test_lines_map;
static bool test_lines_ready;

static void test_lines_free(void)
{
    gcr_idmap_fini(&test_lines_map);
}

/* The line map of every analysis a test makes (ids are arbitrary, so one map
 * can serve them all). Keys are not grouped: any line size works. */
static struct gcr_idmap *test_lines(void)
{
    if (!test_lines_ready) {
        struct gcr_err err = {0};
        if (gcr_idmap_init(&test_lines_map, 0, 0, &err) != 0) {
            fprintf(stderr, "line map: %s\n", err.msg);
            exit(2);
        }
        test_lines_ready = true;
        atexit(test_lines_free);
    }
    return &test_lines_map;
}

/* What the bus does with an event before on_event: the line id of cache
 * events, then prefetch stages 0 and 1. */
static void test_deliver(const struct gcr_analysis_ops *ops, void *self, struct gcr_event *ev)
{
    unsigned line_kinds = GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS | GCR_EV_L1_EVICT | GCR_EV_L2_EVICT;
    ev->line_id = ((unsigned)ev->kind & line_kinds) ? gcr_idmap_get(test_lines(), ev->line_addr)
                                                    : GCR_IDMAP_NONE;
    const struct gcr_analysis_speed *sp = ops->speed;
    for (int stage = 0; sp && sp->prefetch && stage < 2; stage++) {
        unsigned kinds = sp->prefetch_kinds ? sp->prefetch_kinds(self, stage)
                         : stage ? sp->prefetch_stage1
                                 : sp->prefetch_stage0;
        if (kinds & (unsigned)ev->kind)
            sp->prefetch(self, ev, stage);
    }
    ops->on_event(self, ev);
}

#endif
