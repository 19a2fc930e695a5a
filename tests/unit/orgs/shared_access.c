/* The shared organisation serving requests: local and remote accesses, where
 * each line lives (only at its home: at most one copy), the messages on the
 * core-to-L1 and L2 networks, chunk and whole-line replies, and the
 * statistics charged to each requesting SM. */
#include <math.h>

#include "orgs/common/shared_l1.h"
#include "shared_util.h"

extern const struct gcr_l1org_ops gcr_l1org_shared;

/* 4 SMs, 4 sets x 2 ways, write-through without write allocation (seed 000
 * Table 4.1); the home is address bits 9-10. */
#define CONFIG(reply)                                                                         \
    "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"organization\": \"shared\", \"sets\": 4, \"ways\": 2, " \
    "\"write_policy\": \"write_through\", \"write_allocate\": \"none\", "                      \
    "\"shared\": {\"reply\": \"" reply "\"}}, \"l2\": {\"slices\": 1}}"

#define A 0x000u /* home 0 */
#define B 0x200u /* home 1 */
#define C 0x800u /* home 0 */

static int copies(struct rig *r, uint64_t line, uint32_t *where)
{
    struct gcr_shared_l1 *s = r->org;
    int n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (gcr_cache_probe(s->l1[i], line, NULL)) {
            n++;
            *where = i;
        }
    return n;
}

int main(void)
{
    struct rig r;
    CHECK(rig_open(&r, &gcr_l1org_shared, CONFIG("chunk")) == 0);

    CHECK_EQ_U(rig_access(&r, 0, A, 0xf, 128, false), GCR_MISS_LINE); /* 1: local miss */
    CHECK_EQ_U(rig_access(&r, 1, A, 0x1, 4, false), GCR_HIT);         /* 2: remote hit at 0 */
    CHECK_EQ_U(rig_access(&r, 1, B, 0xf, 128, false), GCR_MISS_LINE); /* 3: local miss */
    CHECK_EQ_U(rig_access(&r, 2, B, 0x3, 40, false), GCR_HIT);        /* 4: remote hit at 1 */
    CHECK_EQ_U(rig_access(&r, 3, B, 0x1, 8, true), GCR_HIT);          /* 5: remote write at 1 */
    CHECK_EQ_U(rig_access(&r, 3, C, 0xf, 128, false), GCR_MISS_LINE); /* 6: remote miss at 0 */

    /* Each line is cached once, at its home, whoever read it. */
    uint32_t where = 99;
    CHECK_EQ_U(copies(&r, A, &where), 1);
    CHECK_EQ_U(where, 0);
    CHECK_EQ_U(copies(&r, B, &where), 1);
    CHECK_EQ_U(where, 1);
    CHECK_EQ_U(copies(&r, C, &where), 1);
    CHECK_EQ_U(where, 0);

    /* Events: L1 accesses name the serving instance and the requester. */
    static const uint32_t units[] = {0, 0, 1, 1, 1, 0}, sms[] = {0, 1, 1, 2, 3, 3};
    /* Core-to-L1 messages: (from, to, bytes, downstream). Reads go out empty
     * and come back with the requested bytes; the store carries its 8 bytes
     * and has no reply. */
    static const uint32_t core_l1[][4] = {{1, 0, 0, 1}, {0, 1, 4, 0},  {2, 1, 0, 1}, {1, 2, 40, 0},
                                          {3, 1, 8, 1}, {3, 0, 0, 1}, {0, 3, 128, 0}};
    /* L2 requests leave from the serving L1's port, for the requester. */
    static const uint32_t l2_port[] = {0, 1, 1, 0}, l2_sm[] = {0, 1, 3, 3};
    int na = 0, nc = 0, nl = 0;
    for (int i = 0; i < r.seen.n; i++) {
        const struct gcr_event *e = &r.seen.ev[i];
        if (e->kind == GCR_EV_L1_ACCESS && na < 6) {
            CHECK_EQ_U(e->unit, units[na]);
            CHECK_EQ_U(e->sm, sms[na]);
            na++;
        } else if (e->kind == GCR_EV_TRANSFER && e->net == GCR_NET_CORE_L1 && nc < 7) {
            CHECK_EQ_U(e->from, core_l1[nc][0]);
            CHECK_EQ_U(e->to, core_l1[nc][1]);
            CHECK_EQ_U(e->bytes, core_l1[nc][2]);
            CHECK_EQ_U(e->downstream, core_l1[nc][3]);
            nc++;
        } else if (e->kind == GCR_EV_TRANSFER && e->net == GCR_NET_L2 && e->downstream &&
                   nl < 4) {
            CHECK_EQ_U(e->from, l2_port[nl]);
            CHECK_EQ_U(e->sm, l2_sm[nl]);
            nl++;
        }
    }
    CHECK_EQ_U(na, 6);
    CHECK_EQ_U(nc, 7);
    CHECK_EQ_U(nl, 4);

    /* Counts: reads 1 and 3 local; 2, 4 and 6 remote; write 5 remote. */
    json_t *rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "accesses.local.reads"), 2);
    CHECK_EQ_U(jint(rep, "accesses.local.writes"), 0);
    CHECK_EQ_U(jint(rep, "accesses.remote.reads"), 3);
    CHECK_EQ_U(jint(rep, "accesses.remote.writes"), 1);
    CHECK_NEAR(jnum(rep, "accesses.remote_share"), 4.0 / 6.0);
    CHECK_EQ_U(jint(rep, "remote_replies.count"), 3);
    CHECK_EQ_U(jint(rep, "remote_replies.chunk_bytes"), 4 + 40 + 128);
    CHECK_EQ_U(jint(rep, "remote_replies.line_bytes"), 3 * 128);
    CHECK_EQ_U(jint(rep, "remote_replies.bytes"), 4 + 40 + 128);
    CHECK_EQ_U(jint(rep, "remote_replies.request_bytes"), 8);
    CHECK_EQ_U(jint(rep, "served_per_l1.0"), 3);
    CHECK_EQ_U(jint(rep, "served_per_l1.1"), 3);
    CHECK_EQ_U(jint(rep, "served_per_l1.2"), 0);
    CHECK_EQ_U(jint(rep, "remote_per_sm.3"), 2);
    CHECK_EQ_U(jint(rep, "mapping.home_shift"), 9);
    CHECK_STR(jstr(rep, "mapping.reply"), "chunk");
    CHECK_EQ_U(jint(rep, "summary.remote"), 4);
    json_decref(rep);

    /* Statistics as seen from each requester, whichever L1 served it. */
    struct gcr_cache_stats st[4];
    r.ops->collect_stats(r.org, st);
    CHECK_EQ_U(st[0].accesses[0], 1);
    CHECK_EQ_U(st[0].outcomes[0][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st[1].accesses[0], 2);
    CHECK_EQ_U(st[1].outcomes[0][GCR_HIT], 1);
    CHECK_EQ_U(st[1].outcomes[0][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st[2].accesses[0], 1);
    CHECK_EQ_U(st[2].outcomes[0][GCR_HIT], 1);
    CHECK_EQ_U(st[2].sectors_requested[0], 2);
    CHECK_EQ_U(st[3].accesses[1], 1);
    CHECK_EQ_U(st[3].sectors_forwarded, 1);
    CHECK_EQ_U(st[3].accesses[0], 1);
    CHECK_EQ_U(st[3].sectors_fetched, 4);

    /* Kernel boundary: instance 0 holds A and C, instance 1 holds B; the
     * invalidations count for the SM owning the instance. */
    r.ops->kernel_end(r.org);
    r.ops->collect_stats(r.org, st);
    CHECK_EQ_U(st[0].invalidations, 2);
    CHECK_EQ_U(st[1].invalidations, 1);
    CHECK_EQ_U(st[3].invalidations, 0);
    CHECK_EQ_U(copies(&r, A, &where), 0);
    rig_close(&r);

    /* Whole-line replies: the same remote reads carry 128 bytes each; the
     * chunk figure still says what only the requested bytes would cost. */
    CHECK(rig_open(&r, &gcr_l1org_shared, CONFIG("line")) == 0);
    rig_access(&r, 0, A, 0xf, 128, false);
    rig_access(&r, 1, A, 0x1, 4, false);
    rig_access(&r, 2, A, 0x3, 40, false);
    rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "remote_replies.bytes"), 256);
    CHECK_EQ_U(jint(rep, "remote_replies.chunk_bytes"), 44);
    CHECK_EQ_U(jint(rep, "remote_replies.line_bytes"), 256);
    int replies = 0;
    for (int i = 0; i < r.seen.n; i++)
        if (r.seen.ev[i].kind == GCR_EV_TRANSFER && r.seen.ev[i].net == GCR_NET_CORE_L1 &&
            !r.seen.ev[i].downstream) {
            CHECK_EQ_U(r.seen.ev[i].bytes, 128);
            replies++;
        }
    CHECK_EQ_U(replies, 2);
    json_decref(rep);
    rig_close(&r);
    CHECK_DONE();
}
