/* The message order every L1 organisation owes the timing backend.
 *
 * The timing backend (src/timing/timing.h) chains the messages of a request
 * one after the other, so an organisation and the memory system must send
 * them in the order they travel (the contract in include/gcreplay/l1org.h,
 * "Message order"). This test drives every registered organisation (and the
 * private one over multi-chip LLCs of both kinds) with a random mix of reads
 * and writes from several SMs over lines that collide in small L1s and L2
 * slices, records the messages of each request as observers see them, and
 * checks the order:
 *   1. a request looks its line up in at least one L1;
 *   2. a request to a remote L1 (core-to-L1 message) precedes the lookup;
 *   3. nothing goes to an L2 slice before the request's first lookup;
 *   4. a reply from an L2 slice follows the request to that slice, with only
 *      that slice's DRAM messages and inter-chip hops in between;
 *   5. a DRAM message follows a request to an L2 slice (with SM-side
 *      multi-chip LLCs, the home chip's memory behind another chip's slice);
 *   6. nothing is sent below after a reply from a remote L1 to the core.
 * It also checks that the timing backend was handed exactly the messages the
 * observers saw (its per-resource message counts), since both go through the
 * same helpers (gcr_l1org_lookup, gcr_l1org_core_message, gcr_memsys_send).
 * A new organisation is covered by registering it. */
#include <stdlib.h>

#include "../orgs/shared_util.h"
#include "timing/timing.h"

struct counts {
    long lookups, l2_down, l2_up, core_down, core_up;
};

static int fail_request(const char *org, long req, const char *why, const struct seen *s)
{
    fprintf(stderr, "%s: request %ld: %s; its messages:\n", org, req, why);
    for (int i = 0; i < s->n; i++) {
        const struct gcr_event *e = &s->ev[i];
        fprintf(stderr, "  %s net %d %u -> %u bytes %u %s\n",
                e->kind == GCR_EV_L1_ACCESS ? "lookup" : "message", (int)e->net, e->from, e->to,
                e->bytes, e->downstream ? "down" : "up");
    }
    return 1;
}

/* Checks one request's messages (rules 1-6 above) and counts them. */
static int check_request(const char *org, long req, const struct seen *s, struct counts *c)
{
    int first_lookup = -1;
    long open_slice = -1; /* the slice of the last request to L2 without its reply yet */
    bool core_replied = false;
    bool l2_asked = false;
    for (int i = 0; i < s->n; i++) {
        const struct gcr_event *e = &s->ev[i];
        if (e->kind == GCR_EV_L1_EVICT)
            continue;
        if (e->kind == GCR_EV_L1_ACCESS) {
            c->lookups++;
            if (first_lookup < 0)
                first_lookup = i;
            continue;
        }
        if (core_replied && e->net != GCR_NET_CORE_L1)
            return fail_request(org, req, "a message below after the reply to the core", s);
        switch (e->net) {
        case GCR_NET_CORE_L1:
            if (e->downstream) {
                c->core_down++;
                if (first_lookup >= 0)
                    return fail_request(org, req, "a core-to-L1 request after the lookup", s);
            } else {
                c->core_up++;
                core_replied = true;
            }
            break;
        case GCR_NET_L2:
            if (first_lookup < 0)
                return fail_request(org, req, "a message to L2 before any lookup", s);
            if (e->downstream) {
                c->l2_down++;
                open_slice = e->to;
                l2_asked = true;
            } else {
                c->l2_up++;
                if (open_slice != (long)e->from)
                    return fail_request(org, req,
                                        "an L2 reply not right after its request to the slice",
                                        s);
                open_slice = -1;
            }
            break;
        case GCR_NET_DRAM:
            if (!l2_asked)
                return fail_request(org, req, "a DRAM message before any request to L2", s);
            break;
        case GCR_NET_CHIP_LINK:
            break;
        }
    }
    if (first_lookup < 0)
        return fail_request(org, req, "no L1 lookup", s);
    return 0;
}

static long resource_messages(const json_t *timing, const char *name)
{
    const json_t *m = json_object_get(json_object_get(json_object_get(timing, "resources"), name),
                                      "messages");
    return m ? (long)json_integer_value(m) : 0;
}

/* Replays `requests` random requests through organisation ops under config
 * JSON text; returns the number of failures. */
static int drive(const struct gcr_l1org_ops *ops, const char *label, const char *config,
                 uint32_t seed, long requests)
{
    struct rig r;
    if (rig_open(&r, ops, config) != 0) {
        fprintf(stderr, "%s: create: %s\n", label, r.err.msg);
        return 1;
    }
    r.info.num_l1s = ops->num_instances(r.org);
    r.mem.num_ports = r.info.num_l1s;
    struct gcr_cache_geometry l1 = r.cfg.l1;
    CHECK(!ops->kernel_begin || ops->kernel_begin(r.org, &l1, &r.err) == 0);
    struct gcr_timing *t;
    CHECK(gcr_timing_create(&t, &r.info, &r.err) == 0);
    r.mem.timing = t;
    gcr_timing_kernel_begin(t);

    int failures = 0;
    struct counts c = {0};
    uint32_t x = seed;
    double now = 0;
    for (long q = 0; q < requests && !failures; q++) {
        x = x * 1103515245u + 12345u;
        uint32_t sm = (x >> 8) % r.cfg.num_sms;
        /* 24 lines, 4 KB apart: they share L1 and L2 sets, so lines are evicted,
         * written back and fetched again. */
        uint64_t line = (uint64_t)((x >> 12) % 24) * 4096 + ((x >> 20) % 2) * 128;
        uint32_t sectors = 1u << ((x >> 22) % 4) | ((x >> 26) & 1 ? 0xf : 0);
        bool is_write = (x >> 28) % 3 == 0;
        uint32_t bytes = (uint32_t)__builtin_popcount(sectors) * r.cfg.sector_bytes;
        gcr_timing_insn_begin(t, sm, now, is_write ? GCR_OP_STORE : GCR_OP_LOAD,
                              GCR_SPACE_GLOBAL, bytes);
        r.seen.n = 0;
        rig_access(&r, sm, line, sectors, bytes, is_write);
        double accepted, acked;
        now = gcr_timing_insn_end(t, &accepted, &acked) + 1;
        CHECK(r.seen.n < SEEN_MAX);
        failures += check_request(label, q, &r.seen, &c);
    }
    if (ops->kernel_end)
        ops->kernel_end(r.org); /* write-backs outside any instruction */

    /* The timing backend saw what observers saw. */
    json_t *total = gcr_timing_report_total(t);
    /* every lookup enters its L1's banks as one access (these configs are not sectored) */
    CHECK_EQ_U(resource_messages(total, "l1_bank"), c.lookups);
    CHECK_EQ_U(resource_messages(total, "core_l1_in"), c.core_down);
    CHECK_EQ_U(resource_messages(total, "core_l1_out"), c.core_up);
    /* Write-backs at kernel end are sent outside requests: at least those. */
    CHECK(resource_messages(total, "noc_sm_inject") >= c.l2_down);
    CHECK(resource_messages(total, "noc_sm_eject") >= c.l2_up);
    CHECK(c.lookups >= requests && c.l2_down > 0 && c.l2_up > 0);
    json_decref(total);
    fprintf(stderr, "%-24s %ld requests: %ld lookups, %ld/%ld L2 requests/replies, %ld/%ld "
                    "core-L1 requests/replies\n",
            label, requests, c.lookups, c.l2_down, c.l2_up, c.core_down, c.core_up);
    r.mem.timing = NULL;
    gcr_timing_destroy(t);
    rig_close(&r);
    return failures;
}

int main(void)
{
    /* 4 SMs; L1s of 32 sets x 2 ways (the smallest tsc and dsc index), a
     * write-back L2 of 2 slices x 4 sets x 2 ways. */
    static const char *const base =
        "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"organization\": \"%s\", \"sets\": 32, \"ways\": 2,"
        " \"write_policy\": \"%s\"}, \"l2\": {\"slices\": 2, \"sets\": 4, \"ways\": 2, "
        "\"index\": \"linear\", \"write_policy\": \"write_back\"}%s}";
    char config[512];
    int failures = 0, orgs = 0;
    for (size_t i = 0; gcr_l1orgs[i]; i++) {
        const struct gcr_l1org_ops *ops = gcr_l1orgs[i];
        /* Write-evict is what every organisation models; tsc and dsc allow no other. */
        snprintf(config, sizeof config, base, ops->name, "write_evict", "");
        failures += drive(ops, ops->name, config, 7 + (uint32_t)i, 3000);
        orgs++;
    }
    /* The private L1 over 2 chips, with memory-side and SM-side LLCs (the
     * replayed organisation sends the messages). */
    const struct gcr_l1org_ops *priv = NULL;
    for (size_t i = 0; gcr_l1orgs[i]; i++)
        if (strcmp(gcr_l1orgs[i]->name, "private") == 0)
            priv = gcr_l1orgs[i];
    CHECK(priv != NULL);
    static const char *const kinds[] = {"memory_side", "sm_side"};
    for (int k = 0; k < 2; k++) {
        char chips[128], label[64];
        snprintf(chips, sizeof chips,
                 ", \"chips\": {\"count\": 2, \"llc\": \"%s\", \"crd\": {\"sets\": 2}}",
                 kinds[k]);
        snprintf(config, sizeof config, base, "private", "write_through", chips);
        snprintf(label, sizeof label, "private, 2 chips %s", kinds[k]);
        failures += drive(priv, label, config, 99 + (uint32_t)k, 3000);
    }
    CHECK(orgs >= 7);
    CHECK_EQ_U(failures, 0);
    CHECK_DONE();
}
