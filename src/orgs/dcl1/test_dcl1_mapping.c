/* DC-L1 with hand-computed expectations: which node serves each core and
 * line, how many copies a line can have, which L2 slices a node talks to, the
 * NoC#1/NoC#2 bytes, per-requester statistics and per-node load.
 *
 * Every config has 8 cores, a per-core L1 of 1 set x 4 ways, 128-B lines of
 * 32-B sectors and 4 L2 slices interleaved every 256 B (slice = addr/256 mod 4). */
#include "test_dcl1_org.h"

#define BASE                                                                               \
    "{\"gpu\": {\"sms\": 8}, \"l2\": {\"slices\": 4, \"interleave_bytes\": 256},"          \
    " \"l1d\": {\"organization\": \"dcl1\", \"sets\": 1, \"ways\": 4, "
#define CFG(dcl1) BASE "\"dcl1\": " dcl1 "}}"

static void pr_contiguous_and_interleaved(void)
{
    struct org o;
    /* Pr4: cores 2k and 2k+1 share node k; a node is 2 per-core L1s: 8 ways. */
    org_must_open(&o, CFG("{\"mode\": \"pr\", \"nodes\": 4}"));
    for (uint32_t c = 0; c < 8; c++)
        CHECK_EQ_U(org_read(&o, c, 0x1000), c / 2);
    json_t *s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "node_geometry", "ways"), 8);
    CHECK_EQ_U(sect_int(s, "node_geometry", "sets"), 1);
    CHECK_EQ_U(sect_int(s, "node_geometry", "size_bytes"), 8 * 128);
    CHECK_EQ_U(sect_int(s, "clusters", NULL), 4);
    json_decref(s);
    org_close(&o);

    /* Interleaved: core c -> node c mod 4. */
    org_must_open(&o, CFG("{\"mode\": \"pr\", \"nodes\": 4, \"assignment\": \"interleaved\"}"));
    for (uint32_t c = 0; c < 8; c++)
        CHECK_EQ_U(org_read(&o, c, 0x1000), c % 4);
    org_close(&o);

    /* size_factor and grow: 3 per-core L1s grown in sets = 3 sets x 4 ways. */
    org_must_open(&o, CFG("{\"nodes\": 2, \"size_factor\": 3, \"grow\": \"sets\"}"));
    s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "node_geometry", "sets"), 3);
    CHECK_EQ_U(sect_int(s, "node_geometry", "ways"), 4);
    json_decref(s);
    /* A new per-core geometry (unified L1 carve-out) resizes every node. */
    struct gcr_cache_geometry l1 = o.cfg.l1;
    l1.ways = 2;
    CHECK(gcr_l1org_dcl1.kernel_begin(o.self, &l1, &o.err) == 0);
    s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "node_geometry", "ways"), 2);
    CHECK_EQ_U(sect_int(s, "node_geometry", "sets"), 3);
    json_decref(s);
    org_close(&o);
}

static void shared_home_selection(void)
{
    struct org o;
    /* Sh4: one cluster of 4 nodes over 4 slices, home = slice (1 slice per node). */
    org_must_open(&o, CFG("{\"mode\": \"sh\", \"nodes\": 4}"));
    CHECK_EQ_U(org_read(&o, 6, 0x300), 3);
    CHECK_EQ_U(org_read(&o, 0, 0x100), 1);
    CHECK_EQ_U(org_read(&o, 3, 0x480), 0); /* granule 4 -> slice 0 */
    CHECK_EQ_U(org_read(&o, 7, 0x280), 2);
    json_t *s = org_report(&o);
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(s, "home"), "rule")),
                 "slice") == 0);
    json_decref(s);
    org_close(&o);

    /* Home bits on 128-B granules: home = (addr / 128) mod 4. */
    org_must_open(&o, CFG("{\"mode\": \"sh\", \"nodes\": 4, \"home\": \"bits\","
                          " \"home_granule_bytes\": 128}"));
    CHECK_EQ_U(org_read(&o, 5, 0x180), 3);
    CHECK_EQ_U(org_read(&o, 5, 0x200), 0);
    CHECK_EQ_U(org_read(&o, 1, 0x280), 1);
    org_close(&o);

    /* The default home for 3 nodes, which do not divide 4 slices, is the bits
     * above the L2 interleave: (addr / 256) mod 3. */
    org_must_open(&o, "{\"gpu\": {\"sms\": 6}, \"l2\": {\"slices\": 4},"
                      " \"l1d\": {\"organization\": \"dcl1\", \"dcl1\": {\"mode\": \"sh\","
                      " \"nodes\": 3}}}");
    CHECK_EQ_U(org_read(&o, 0, 0x500), 2);
    CHECK_EQ_U(org_read(&o, 0, 0x300), 0);
    s = org_report(&o);
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(s, "home"), "rule")),
                 "bits") == 0);
    CHECK_EQ_U(sect_int(s, "home", "granule_bytes"), 256);
    json_decref(s);
    org_close(&o);

    /* "auto" is "slice" when the 2 nodes of a cluster divide the 4 slices. */
    org_must_open(&o, CFG("{\"mode\": \"sh\", \"nodes\": 2, \"home\": \"auto\"}"));
    CHECK_EQ_U(org_read(&o, 0, 0x100), 0); /* slice 1 / 2 */
    CHECK_EQ_U(org_read(&o, 0, 0x200), 1); /* slice 2 / 2 */
    s = org_report(&o);
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(s, "home"), "rule")),
                 "slice") == 0);
    json_decref(s);
    org_close(&o);

    /* Hash: every line's home is in range and the same for every core. */
    org_must_open(&o, CFG("{\"mode\": \"sh\", \"nodes\": 4, \"home\": \"hash\"}"));
    for (uint64_t line = 0; line < 64 * 128; line += 128) {
        uint32_t n = org_read(&o, 0, line);
        CHECK(n < 4);
        CHECK_EQ_U(org_read(&o, 7, line), n);
    }
    org_close(&o);
}

/* Sh4+C2: clusters of 4 cores (contiguous) and 2 nodes; home = slice / 2, so
 * node 2k+h serves slices 2h and 2h+1 only. */
static void clusters_and_their_slices(void)
{
    struct org o;
    org_must_open(&o, CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2}"));
    CHECK_EQ_U(org_read(&o, 5, 0x200), 3); /* cluster 1, slice 2 -> home 1 */
    CHECK_EQ_U(org_read(&o, 2, 0x100), 0); /* cluster 0, slice 1 -> home 0 */
    CHECK_EQ_U(org_read(&o, 7, 0x300), 3);
    CHECK_EQ_U(org_read(&o, 4, 0x080), 2);
    /* Many lines from every core: each NoC#2 message of node n goes to (or
     * comes from) one of its slices, and the request leaves from port n. */
    o.seen.n = 0;
    int l2_msgs = 0;
    for (uint64_t i = 0; i < 32; i++)
        for (uint32_t c = 0; c < 8; c += 3) {
            int before = o.seen.n;
            uint32_t n = org_access(&o, c, i * 128 * 5, 0xf, i % 3 == 0, 16);
            for (int e = before; e < o.seen.n; e++) {
                const struct gcr_event *ev = &o.seen.ev[e];
                if (ev->kind != GCR_EV_TRANSFER || ev->net != GCR_NET_L2)
                    continue;
                uint32_t node = ev->downstream ? ev->from : ev->to;
                uint32_t slice = ev->downstream ? ev->to : ev->from;
                CHECK_EQ_U(node, n);
                CHECK_EQ_U(slice / 2, n % 2);
                l2_msgs++;
            }
            o.seen.n = 0;
        }
    CHECK(l2_msgs > 32);
    json_t *s = org_report(&o);
    const json_t *sl = json_object_get(s, "node_l2_slices");
    static const int want[4][2] = {{0, 1}, {2, 3}, {0, 1}, {2, 3}};
    for (size_t n = 0; n < 4; n++) {
        CHECK_EQ_U(json_integer_value(json_array_get(json_array_get(sl, n), 0)), want[n][0]);
        CHECK_EQ_U(json_integer_value(json_array_get(json_array_get(sl, n), 1)), want[n][1]);
    }
    json_decref(s);
    org_close(&o);

    /* An explicit assignment: cores 0,1,4,5 in cluster 1, the others in 0. */
    org_must_open(&o, CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2,"
                          " \"assignment\": [1, 1, 0, 0, 1, 1, 0, 0]}"));
    CHECK_EQ_U(org_read(&o, 0, 0x000), 2);
    CHECK_EQ_U(org_read(&o, 6, 0x300), 1);
    org_close(&o);
}

/* Every core reads the same 8 lines: PrY holds them Y times, ShY+CZ Z times,
 * ShY once. Sampled at the kernel end. */
static void copies_per_line(void)
{
    static const struct {
        const char *cfg;
        unsigned copies;
    } cases[] = {
        {CFG("{\"mode\": \"pr\", \"nodes\": 4}"), 4},
        {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2}"), 2},
        {CFG("{\"mode\": \"sh\", \"nodes\": 4}"), 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct org o;
        /* Nodes have 2 x 4 = 8 ways: a Pr4 node holds all 8 lines, an Sh4+C2
         * node the 4 of its 2 slices, an Sh4 node the 2 of its slice. */
        org_must_open(&o, cases[k].cfg);
        for (uint32_t c = 0; c < 8; c++)
            for (uint64_t i = 0; i < 8; i++)
                org_read(&o, c, i * 128);
        gcr_l1org_dcl1.kernel_end(o.self);
        json_t *s = org_report(&o);
        CHECK_EQ_U(sect_int(s, "copies_at_kernel_end", "distinct_lines"), 8);
        CHECK_EQ_U(sect_int(s, "copies_at_kernel_end", "samples"), 1);
        CHECK_EQ_U(sect_int(s, "copies_at_kernel_end", "max"), cases[k].copies);
        CHECK_EQ_U(sect_int(s, "copies_at_kernel_end", "line_copies"), 8 * cases[k].copies);
        CHECK(sect_int(s, "copies_at_kernel_end", "max") <=
              sect_int(s, "copies_at_kernel_end", "limit"));
        json_decref(s);
        org_close(&o);
    }
}

static void traffic_and_requester_statistics(void)
{
    struct org o;
    org_must_open(&o, CFG("{\"mode\": \"pr\", \"nodes\": 4}"));
    org_access(&o, 1, 0x000, 0x3, false, 64); /* node 0: line miss, 2 sectors fetched */
    org_access(&o, 0, 0x000, 0x3, false, 64); /* node 0: hit for core 0 */
    org_access(&o, 0, 0x000, 0x1, true, 4);   /* write-evict: 4 bytes through to L2 */
    static const struct {
        uint32_t from, to, bytes;
        bool down;
    } noc1[] = {{1, 0, 0, true}, {0, 1, 64, false}, {0, 0, 0, true}, {0, 0, 64, false},
                {0, 0, 4, true}};
    size_t k = 0;
    for (int e = 0; e < o.seen.n; e++) {
        const struct gcr_event *ev = &o.seen.ev[e];
        if (ev->kind != GCR_EV_TRANSFER || ev->net != GCR_NET_CORE_L1)
            continue;
        CHECK(k < 5);
        if (k < 5) {
            CHECK_EQ_U(ev->from, noc1[k].from);
            CHECK_EQ_U(ev->to, noc1[k].to);
            CHECK_EQ_U(ev->bytes, noc1[k].bytes);
            CHECK_EQ_U(ev->downstream, noc1[k].down);
        }
        k++;
    }
    CHECK_EQ_U(k, 5);
    json_t *s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "noc1", "requests"), 3);
    CHECK_EQ_U(sect_int(s, "noc1", "request_bytes"), 4);
    CHECK_EQ_U(sect_int(s, "noc1", "replies"), 2);
    CHECK_EQ_U(sect_int(s, "noc1", "reply_bytes"), 128);
    CHECK_EQ_U(sect_int(s, "noc1", "bytes"), 132);
    CHECK_EQ_U(sect_int(s, "noc2", "read_requests"), 1);
    CHECK_EQ_U(sect_int(s, "noc2", "fill_bytes"), 64);
    CHECK_EQ_U(sect_int(s, "noc2", "write_bytes"), 4);
    CHECK_EQ_U(sect_int(s, "noc2", "writeback_bytes"), 0);
    CHECK_EQ_U(sect_int(s, "noc2", "bytes"), 68);
    const json_t *pn = json_object_get(s, "per_node");
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(pn, "accesses"), 0)), 3);
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(pn, "misses"), 0)), 1);
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(pn, "noc1_bytes"), 0)), 132);
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(pn, "noc2_bytes"), 0)), 68);
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(pn, "accesses"), 1)), 0);
    json_decref(s);
    /* The L1D figures per requesting core, not per node. */
    struct gcr_cache_stats st[8];
    gcr_l1org_dcl1.collect_stats(o.self, st);
    CHECK_EQ_U(st[1].accesses[0], 1);
    CHECK_EQ_U(st[1].outcomes[0][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st[1].sectors_fetched, 2);
    CHECK_EQ_U(st[0].accesses[0], 1);
    CHECK_EQ_U(st[0].outcomes[0][GCR_HIT], 1);
    CHECK_EQ_U(st[0].accesses[1], 1);
    CHECK_EQ_U(st[0].invalidations, 1);
    CHECK_EQ_U(st[0].sectors_fetched, 0);
    org_close(&o);
}

/* Write-back nodes: the kernel-end flush writes back dirty sectors, which no
 * request caused; they count for the node's owner (its lowest core). */
static void flush_goes_to_the_owner(void)
{
    struct org o;
    org_must_open(&o, BASE "\"write_policy\": \"write_back\", \"write_allocate\": \"validate\","
                           " \"dcl1\": {\"nodes\": 4, \"assignment\": \"interleaved\"}}}");
    org_access(&o, 5, 0x000, 0x3, true, 64); /* core 5 -> node 1, 2 dirty sectors */
    o.seen.n = 0;
    gcr_l1org_dcl1.kernel_end(o.self);
    int wb = 0;
    for (int e = 0; e < o.seen.n; e++) {
        const struct gcr_event *ev = &o.seen.ev[e];
        if (ev->kind == GCR_EV_TRANSFER && ev->net == GCR_NET_L2) {
            CHECK_EQ_U(ev->from, 1);
            CHECK_EQ_U(ev->to, 0);
            CHECK_EQ_U(ev->bytes, 64);
            wb++;
        }
    }
    CHECK_EQ_U(wb, 1);
    struct gcr_cache_stats st[8];
    gcr_l1org_dcl1.collect_stats(o.self, st);
    CHECK_EQ_U(st[1].sectors_written_back, 2); /* node 1's owner: core 1 */
    CHECK_EQ_U(st[1].invalidations, 1);
    CHECK_EQ_U(st[5].sectors_written_back, 0);
    CHECK_EQ_U(st[5].accesses[1], 1);
    json_t *s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "noc2", "writeback_bytes"), 64);
    json_decref(s);
    org_close(&o);
}

/* Camping: every line homed at node 0 (slice 0) loads it alone. */
static void node_load(void)
{
    struct org o;
    org_must_open(&o, CFG("{\"mode\": \"sh\", \"nodes\": 4}"));
    for (uint32_t c = 0; c < 8; c++)
        for (uint64_t i = 0; i < 5; i++)
            org_read(&o, c, i * 1024); /* slices 0 only */
    org_read(&o, 0, 0x100);           /* one access at node 1 */
    json_t *s = org_report(&o);
    CHECK_EQ_U(sect_int(s, "load", "max_accesses"), 40);
    CHECK_EQ_U(sect_int(s, "load", "busiest_node"), 0);
    const json_t *load = json_object_get(s, "load");
    CHECK(fabs(json_real_value(json_object_get(load, "mean_accesses")) - 41.0 / 4) < 1e-12);
    CHECK(fabs(json_real_value(json_object_get(load, "max_over_mean")) - 40.0 * 4 / 41) <
          1e-12);
    json_decref(s);
    org_close(&o);
}

int main(void)
{
    pr_contiguous_and_interleaved();
    shared_home_selection();
    clusters_and_their_slices();
    copies_per_line();
    traffic_and_requester_statistics();
    flush_goes_to_the_owner();
    node_load();
    CHECK_DONE();
}
