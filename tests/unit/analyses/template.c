/* The walkthrough's analysis (analyses/README.md, "Adding an analysis: a
 * walkthrough"), compiled from the README's text as it stands and driven
 * through its ops the way the replay drives an analysis: create with the
 * config's options, events of the kinds it subscribes to, a report at each
 * kernel's end and one for the run. If the walkthrough's code stops
 * compiling or counting right, this fails. */
#include "check.h"
#include "gcreplay/analysis.h"
#include "gcreplay/config.h"

extern const struct gcr_analysis_ops gcr_analysis_access_mix;

static void access(const struct gcr_analysis_ops *a, void *self, bool is_write,
                   enum gcr_outcome outcome)
{
    struct gcr_access acc = {.outcome = outcome};
    struct gcr_event ev = {.kind = GCR_EV_L1_ACCESS, .line_addr = 0x1000, .sector_mask = 1,
                           .is_write = is_write, .access = &acc};
    a->on_event(self, &ev);
}

static void check_period(const json_t *s, long long reads, long long writes, double rate)
{
    CHECK_EQ_U(json_integer_value(json_object_get(s, "reads")), reads);
    CHECK_EQ_U(json_integer_value(json_object_get(s, "writes")), writes);
    double got = json_number_value(json_object_get(s, "read_hit_rate"));
    CHECK(got > rate - 1e-9 && got < rate + 1e-9);
}

int main(void)
{
    const struct gcr_analysis_ops *a = &gcr_analysis_access_mix;
    struct gcr_err err = {0};
    struct gcr_config cfg;
    CHECK(gcr_config_parse(&cfg, "{\"gpu\": {\"sms\": 2}}", "config.json", &err) == 0);
    struct gcr_sim_info info = {.config = &cfg, .num_sms = 2, .num_l1s = 2, .num_l2_slices = 1,
                                .line_bytes = 128, .sector_bytes = 32};
    CHECK(strcmp(a->name, "access_mix") == 0);
    CHECK_EQ_U(a->subscribe, GCR_EV_L1_ACCESS);

    /* An option it does not have: the shared wording, naming the JSON path. */
    void *self = NULL;
    json_t *bad = json_pack("{s:i}", "window", 3);
    CHECK(a->create(&self, bad, &info, &err) != 0);
    CHECK(strcmp(err.msg, "config.json: $.analyses.access_mix.window: unknown key (access_mix "
                          "has no options)") == 0 ||
          (fprintf(stderr, "  got \"%s\"\n", err.msg), 0));
    json_decref(bad);

    json_t *none = json_object();
    CHECK(a->create(&self, none, &info, &err) == 0);
    json_decref(none);
    /* Kernel 1: two read hits, a read miss, a write. */
    access(a, self, false, GCR_HIT);
    access(a, self, false, GCR_HIT);
    access(a, self, false, GCR_MISS_SECTOR);
    access(a, self, true, GCR_MISS_LINE);
    json_t *k1 = json_object();
    CHECK(a->report_kernel(self, k1, &err) == 0);
    check_period(k1, 3, 1, 2.0 / 3.0);
    /* Kernel 2: one read miss; the kernel's figures start from zero. */
    access(a, self, false, GCR_MISS_LINE);
    json_t *k2 = json_object();
    CHECK(a->report_kernel(self, k2, &err) == 0);
    check_period(k2, 1, 0, 0.0);
    json_t *total = json_object();
    CHECK(a->report_total(self, total, &err) == 0);
    check_period(total, 4, 1, 0.5);
    json_decref(k1);
    json_decref(k2);
    json_decref(total);
    a->destroy(self);
    gcr_config_free(&cfg);
    CHECK_DONE();
}
