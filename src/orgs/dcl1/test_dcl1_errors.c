/* Impossible DC-L1 options are errors naming the config and $.l1d.dcl1.<key>. */
#include "test_dcl1_org.h"

/* 8 cores, 4 L2 slices, per-core L1 of 4 sets x 4 ways. */
#define CFG(dcl1)                                                                          \
    "{\"gpu\": {\"sms\": 8}, \"l2\": {\"slices\": 4},"                                      \
    " \"l1d\": {\"organization\": \"dcl1\", \"sets\": 4, \"ways\": 4, \"dcl1\": " dcl1 "}}"

static const struct {
    const char *config, *message;
} cases[] = {
    {CFG("{\"nodes\": 3}"), "$.l1d.dcl1.nodes: 3 nodes do not divide the 8 cores"},
    {CFG("{\"nodes\": 0}"), "$.l1d.dcl1.nodes: expected an integer between 1 and 8"},
    {CFG("{\"nodes\": 16}"), "$.l1d.dcl1.nodes: expected an integer between 1 and 8"},
    {CFG("{\"nodes\": \"4\"}"),
     "$.l1d.dcl1.nodes: expected an integer between 1 and 8, got a string"},
    {CFG("{\"nodez\": 4}"), "$.l1d.dcl1.nodez: unknown key"},
    {CFG("{\"mode\": \"private\"}"), "$.l1d.dcl1.mode: unknown value \"private\""},
    {CFG("{\"mode\": 2}"),
     "$.l1d.dcl1.mode: expected one of \"pr\", \"sh\", \"shc\", got an integer"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4}"), "$.l1d.dcl1.clusters: mode \"shc\" needs"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 3}"),
     "$.l1d.dcl1.clusters: 3 clusters do not divide the 4 nodes"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 8}"),
     "$.l1d.dcl1.clusters: expected an integer between 1 and 4"},
    {CFG("{\"mode\": \"pr\", \"nodes\": 4, \"clusters\": 2}"),
     "$.l1d.dcl1.clusters: mode \"pr\" has one cluster per node"},
    {CFG("{\"mode\": \"sh\", \"nodes\": 4, \"clusters\": 2}"),
     "$.l1d.dcl1.clusters: mode \"sh\" is one cluster"},
    {CFG("{\"mode\": \"sh\", \"nodes\": 8, \"home\": \"slice\"}"),
     "$.l1d.dcl1.home: \"slice\" needs the 8 nodes of a cluster to divide the 4 L2 slices"},
    {CFG("{\"home\": \"nearest\"}"),
     "$.l1d.dcl1.home: unknown value \"nearest\" (known: \"slice\", \"bits\", \"hash\", \"auto\")"},
    {CFG("{\"mode\": \"sh\", \"home\": \"bits\", \"home_granule_bytes\": 96}"),
     "$.l1d.dcl1.home_granule_bytes: must be a power of two"},
    {CFG("{\"home_granule_bytes\": 64}"), "$.l1d.dcl1.home_granule_bytes: must be a power"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2, \"assignment\": [0, 1]}"),
     "$.l1d.dcl1.assignment: expected one cluster index per core: 8 entries, got 2"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2,"
         " \"assignment\": [0, 1, 0, 1, 0, 2, 0, 1]}"),
     "$.l1d.dcl1.assignment[5]: expected a cluster index between 0 and 1"},
    {CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2,"
         " \"assignment\": [0, 0, 0, 0, 0, 0, 0, 0]}"),
     "$.l1d.dcl1.assignment: cluster 1 has no core"},
    {CFG("{\"assignment\": \"random\"}"), "$.l1d.dcl1.assignment: unknown value \"random\""},
    {CFG("{\"assignment\": 3}"), "$.l1d.dcl1.assignment: expected \"contiguous\""},
    {CFG("{\"size_factor\": 70000}"), "$.l1d.dcl1.size_factor: expected an integer between"},
    {CFG("{\"size_factor\": 20000}"),
     "$.l1d.dcl1.size_factor: a node of 20000 per-core L1s grown in ways is impossible: "
     "ways must be between 1 and 65535"},
    {CFG("{\"grow\": \"lines\"}"), "$.l1d.dcl1.grow: unknown value \"lines\""},
    /* IPOLY indexing needs 16, 32 or 64 sets: 32 x 4 is not possible. */
    {"{\"gpu\": {\"sms\": 8}, \"l1d\": {\"organization\": \"dcl1\", \"sets\": 32, "
     "\"ways\": 4, \"index\": \"ipoly\", \"dcl1\": {\"nodes\": 2, \"grow\": \"sets\"}}}",
     "$.l1d.dcl1.size_factor: a node of 4 per-core L1s grown in sets is impossible: index "
     "ipoly needs 16, 32 or 64 sets (got 128)"},
    {"{\"gpu\": {\"sms\": 8}, \"l1d\": {\"organization\": \"dcl1\", \"dcl1\": 4}}",
     "$.l1d.dcl1: expected an object"},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct org o;
        if (org_open(&o, cases[i].config) == 0) {
            fprintf(stderr, "accepted: %s\n", cases[i].config);
            CHECK(0);
            org_close(&o);
            continue;
        }
        CHECK_EQ_U(o.err.status, GCR_E_CONFIG);
        CHECK_STR_CONTAINS(o.err.msg, cases[i].message);
        CHECK_STR_CONTAINS(o.err.msg, "test-config: ");
    }
    /* The same options, made possible, are accepted. */
    struct org o;
    org_must_open(&o, CFG("{\"mode\": \"shc\", \"nodes\": 4, \"clusters\": 2,"
                          " \"assignment\": [0, 1, 0, 1, 0, 1, 0, 1], \"home\": \"slice\","
                          " \"size_factor\": 3, \"grow\": \"ways\"}"));
    org_close(&o);
    CHECK_DONE();
}
