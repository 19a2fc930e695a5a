/* The shared and DynEB organisations under the replay engine: the report's
 * L1D figures are seen from the requesting SMs, the organisation's section
 * is in L1D.<name>, the replication analysis finds no replica under a shared
 * L1, and DynEB's decisions carry the kernel and step they were taken at. */
#include "replay/replay_util.h"

/* 2 SMs, 4 sets x 4 ways: the shared home is address bit 9. */
#define CONFIG(org, extra)                                                                   \
    "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"" org "\", \"sets\": 4, "          \
    "\"ways\": 4" extra "}, \"l2\": {\"slices\": 1}, \"analyses\": {\"replication\": {}}}"

#define X 0x1000ull /* home 0 */
#define Y 0x1200ull /* home 1 */

/* Two one-warp CTAs (one per SM) each load X then Y, then compute for 3
 * instructions: in step 0 both SMs load X, in step 1 both load Y. */
static void both_read_both(void)
{
    struct tb t;
    tb_open(&t, "shared-both");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    for (uint32_t c = 0; c < 2; c++) {
        tb_load(&t, c, 0, X);
        tb_load(&t, c, 0, Y);
        tb_nonmem(&t, c, 0, 3);
    }
    tb_end(&t, 1);
    tb_close(&t);

    /* Private: 4 misses; SM 1's two misses find the line in SM 0's L1. */
    json_t *r = must_replay(CONFIG("private", ""), t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    CHECK_EQ_U(jget(r, "total.analyses.replication.replicated_misses.all"), 2);
    CHECK_EQ_U(jget(r, "total.analyses.replication.max_copies"), 2);
    json_decref(r);

    /* Shared: SM 0 misses X at home (local), SM 1 hits it there (remote); SM 0
     * misses Y at SM 1 (remote), SM 1 hits it (local). One copy of each line. */
    r = must_replay(CONFIG("shared", ""), t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 4);
    CHECK_EQ_U(jget(r, "total.instructions.warp_total"), 10);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.per_sm.accesses.0"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.per_sm.accesses.1"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.per_sm.misses.0"), 2); /* X and Y */
    CHECK_EQ_U(jget(r, "total.L1D.per_sm.misses.1"), 0);
    CHECK_EQ_U(jget(r, "kernels.0.L1D.hits"), 2);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.shared.accesses.local.reads"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.shared.accesses.remote.reads"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.shared.remote_replies.chunk_bytes"), 256);
    CHECK_EQ_U(jget(r, "total.analyses.replication.replicated_misses.all"), 0);
    CHECK_EQ_U(jget(r, "total.analyses.replication.max_copies"), 1);
    CHECK_REAL(r, "total.analyses.replication.replicas_per_resident_line", 0.0);
    json_decref(r);
    unlink(t.path);
}

/* DynEB with 2 sets (bit 7) and home bit 8, deciding after one local access
 * per half: SM 0 loads 0x000 (even) then 0x080 (odd, home 0); SM 1 loads
 * 0x100 (even) then 0x180 (odd, home 1). All four miss; both SMs decide in
 * step 1 of kernel 7 with EB 1 / 1 = 1 on both sides: a tie, private. */
static void dyneb_decision_times(void)
{
    struct tb t;
    tb_open(&t, "dyneb-times");
    tb_kernel(&t, 7, 2, 32, 0, 0);
    tb_load(&t, 0, 0, 0x000);
    tb_load(&t, 0, 0, 0x080);
    tb_load(&t, 1, 0, 0x100);
    tb_load(&t, 1, 0, 0x180);
    tb_end(&t, 7);
    tb_close(&t);
    json_t *r = must_replay(
        "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"dyneb\", \"sets\": 2, \"ways\": 4,"
        " \"dyneb\": {\"sample_accesses\": 1, \"execution_accesses\": 100}},"
        " \"l2\": {\"slices\": 1}}",
        t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    CHECK_EQ_U(jget(r, "total.L1D.dyneb.decisions.total"), 2);
    for (int i = 0; i < 2; i++) {
        char p[96];
        snprintf(p, sizeof p, "total.L1D.dyneb.decisions.log.%d.kernel", i);
        CHECK_EQ_U(jget(r, p), 7);
        snprintf(p, sizeof p, "total.L1D.dyneb.decisions.log.%d.step", i);
        CHECK_EQ_U(jget(r, p), 1);
        snprintf(p, sizeof p, "total.L1D.dyneb.decisions.log.%d.core", i);
        CHECK_EQ_U(jget(r, p), i);
        snprintf(p, sizeof p, "total.L1D.dyneb.decisions.log.%d.shared.eb", i);
        CHECK_REAL(r, p, 1.0);
    }
    CHECK_EQ_U(jget(r, "total.L1D.dyneb.decisions.private"), 2);
    json_decref(r);
    unlink(t.path);
}

int main(void)
{
    both_read_both();
    dyneb_decision_times();
    CHECK_DONE();
}
