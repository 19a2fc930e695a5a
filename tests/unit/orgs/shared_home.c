/* The home of a line under the shared organisation: the default field (the
 * lowest tag bits), wider fields, XOR folding, the two ways of mapping a field
 * onto a core count that is not a power of two, and option errors. */
#include <math.h>

#include "orgs/common/shared_l1.h"
#include "shared_util.h"

extern const struct gcr_l1org_ops gcr_l1org_shared;

/* The home mapping of an organisation made with these SMs and options. */
static struct gcr_home home_with(struct rig *r, unsigned sms, const char *options)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": %u}, \"l1d\": {\"organization\": \"shared\", \"sets\": 4, "
             "\"ways\": 2, \"shared\": %s}, \"l2\": {\"slices\": 1}}", sms, options);
    CHECK(rig_open(r, &gcr_l1org_shared, cfg) == 0);
    return ((struct gcr_shared_l1 *)r->org)->home;
}

static void expect_error(unsigned sms, const char *options, const char *text)
{
    char cfg[512];
    struct rig r;
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": %u}, \"l1d\": {\"organization\": \"shared\", \"sets\": 4, "
             "\"ways\": 2, \"shared\": %s}, \"l2\": {\"slices\": 1}}", sms, options);
    CHECK(rig_open(&r, &gcr_l1org_shared, cfg) == -1);
    CHECK_STR_CONTAINS(r.err.msg, text);
    CHECK_STR_CONTAINS(r.err.msg, "test.json");
}

int main(void)
{
    struct rig r;
    struct gcr_home h;

    /* 4 sets of 128-B lines: offset bits 0-6, set bits 7-8, so the home is
     * bits 9-10 and changes every 512 bytes. */
    h = home_with(&r, 4, "{}");
    CHECK_EQ_U(h.shift, 9);
    CHECK_EQ_U(h.bits, 2);
    CHECK_EQ_U(gcr_home_of(&h, 0x000), 0);
    CHECK_EQ_U(gcr_home_of(&h, 0x180), 0); /* same 512-B granule */
    CHECK_EQ_U(gcr_home_of(&h, 0x200), 1);
    CHECK_EQ_U(gcr_home_of(&h, 0x400), 2);
    CHECK_EQ_U(gcr_home_of(&h, 0x600), 3);
    CHECK_EQ_U(gcr_home_of(&h, 0x800), 0); /* wraps: bit 11 is not a home bit */
    rig_close(&r);

    /* XOR: 0x800 >> 9 = 0b100; its 2-bit groups 00 and 01 XOR to 01. */
    h = home_with(&r, 4, "{\"home_hash\": \"xor\"}");
    CHECK_EQ_U(gcr_home_of(&h, 0x800), 1);
    CHECK_EQ_U(gcr_home_of(&h, 0xa00), 0); /* 0b101: 01 ^ 01 */
    CHECK_EQ_U(gcr_home_of(&h, 0x600), 3); /* 0b011 */
    rig_close(&r);

    /* 3 SMs: 2 bits give fields 0-3. Modulo sends field 3 to home 0 (home 0
     * then holds twice the lines of the others); scale spreads them as
     * floor(field x 3 / 4) = 0, 0, 1, 2. */
    h = home_with(&r, 3, "{}");
    CHECK_EQ_U(gcr_home_of(&h, 0x000), 0);
    CHECK_EQ_U(gcr_home_of(&h, 0x200), 1);
    CHECK_EQ_U(gcr_home_of(&h, 0x400), 2);
    CHECK_EQ_U(gcr_home_of(&h, 0x600), 0);
    rig_close(&r);
    h = home_with(&r, 3, "{\"home_map\": \"scale\"}");
    CHECK_EQ_U(gcr_home_of(&h, 0x000), 0);
    CHECK_EQ_U(gcr_home_of(&h, 0x200), 0);
    CHECK_EQ_U(gcr_home_of(&h, 0x400), 1);
    CHECK_EQ_U(gcr_home_of(&h, 0x600), 2);
    rig_close(&r);

    /* A wider field evens the load out: 4 bits at bit 12, 0xa000 -> 10 mod 3 = 1. */
    h = home_with(&r, 3, "{\"home_bits\": 4, \"home_shift\": 12}");
    CHECK_EQ_U(gcr_home_of(&h, 0xa000), 1);
    CHECK_EQ_U(gcr_home_of(&h, 0xf000), 0);
    CHECK_EQ_U(gcr_home_of(&h, 0x1b000), 2); /* bit 16 is outside the field: 11 mod 3 */
    rig_close(&r);

    /* The dissertation's case: 28 cores, 16-KB 4-way L1 (32 sets): bits 12-16. */
    CHECK(rig_open(&r, &gcr_l1org_shared,
                   "{\"gpu\": {\"sms\": 28}, \"l1d\": {\"organization\": \"shared\", "
                   "\"size_bytes\": 16384, \"ways\": 4}, \"l2\": {\"slices\": 1}}") == 0);
    h = ((struct gcr_shared_l1 *)r.org)->home;
    CHECK_EQ_U(h.shift, 12);
    CHECK_EQ_U(h.bits, 5);
    CHECK_EQ_U(gcr_home_of(&h, 27u << 12), 27);
    CHECK_EQ_U(gcr_home_of(&h, 30u << 12), 2);
    CHECK_EQ_U(gcr_home_of(&h, (1u << 17) | (5u << 12)), 5);
    rig_close(&r);

    /* One SM: everything is local. */
    h = home_with(&r, 1, "{}");
    CHECK_EQ_U(gcr_home_of(&h, 0x12345680), 0);
    rig_close(&r);

    expect_error(4, "{\"home_bits\": 1}", "$.l1d.shared.home_bits: 1 bits name only 2 homes");
    expect_error(4, "{\"home_bits\": 33}", "$.l1d.shared.home_bits: expected an integer");
    expect_error(4, "{\"home_shift\": 3}", "$.l1d.shared.home_shift: bit 3 is inside");
    expect_error(4, "{\"home_shift\": 63}", "$.l1d.shared.home_shift: 63 + 2 home bits");
    expect_error(4, "{\"home_shift\": \"low\"}", "$.l1d.shared.home_shift: expected \"tag\"");
    expect_error(4, "{\"home_hash\": \"crc\"}", "$.l1d.shared.home_hash: unknown value \"crc\"");
    expect_error(4, "{\"home_map\": 1}", "$.l1d.shared.home_map: expected one of");
    expect_error(4, "{\"reply\": \"bytes\"}", "$.l1d.shared.reply: unknown value");
    expect_error(4, "{\"sample_accesses\": 5}", "$.l1d.shared.sample_accesses: unknown key");
    CHECK_DONE();
}
