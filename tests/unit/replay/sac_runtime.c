/* gcreplay sac --timing: the runtime winner merged from two timed reports. */
#include <jansson.h>

#include "../check.h"
#include "report/report.h"

/* A functional report of n kernels with the multichip.sac sections. */
static json_t *functional(int n)
{
    json_t *r = json_pack("{s:[], s:{s:{s:{s:n}}}}", "kernels", "total", "multichip", "sac",
                          "runtime_winner");
    for (int i = 0; i < n; i++)
        json_array_append_new(json_object_get(r, "kernels"),
                              json_pack("{s:{s:{s:n}}}", "multichip", "sac", "runtime_winner"));
    return r;
}

/* A timed report whose kernels took the given cycles (total: their sum). */
static json_t *timed(int n, const long long *cycles, const char *limit)
{
    json_t *r = json_pack("{s:[]}", "kernels");
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        json_array_append_new(json_object_get(r, "kernels"),
                              json_pack("{s:{s:I, s:s}}", "timing", "cycles",
                                        (json_int_t)cycles[i], "limiting_resource", limit));
        sum += cycles[i];
    }
    json_object_set_new(r, "total", json_pack("{s:{s:I}}", "timing", "cycles", (json_int_t)sum));
    return r;
}

static const json_t *rt(const json_t *period)
{
    return json_object_get(json_object_get(json_object_get(period, "multichip"), "sac"),
                           "runtime");
}

static const char *winner(const json_t *period)
{
    return json_string_value(json_object_get(
        json_object_get(json_object_get(period, "multichip"), "sac"), "runtime_winner"));
}

int main(void)
{
    /* Fewer cycles win; a tie keeps the baseline, memory-side. */
    CHECK(!strcmp(gcr_sac_runtime_winner(100, 99), "sm_side"));
    CHECK(!strcmp(gcr_sac_runtime_winner(99, 100), "memory_side"));
    CHECK(!strcmp(gcr_sac_runtime_winner(100, 100), "memory_side"));

    /* Kernel 0: SM-side 800 against 1000 (speed-up 1.25); kernel 1: a tie;
     * kernel 2: memory-side faster. Total: 1000+500+300 = 1800 against
     * 800+500+400 = 1700. */
    static const long long mem[] = {1000, 500, 300}, sm[] = {800, 500, 400};
    json_t *f = functional(3), *tm = timed(3, mem, "chip_link_reply"),
           *ts = timed(3, sm, "latency");
    struct gcr_err err = {0};
    CHECK(gcr_report_sac_runtime(f, tm, ts, &err) == 0);
    const json_t *k0 = json_array_get(json_object_get(f, "kernels"), 0);
    const json_t *k1 = json_array_get(json_object_get(f, "kernels"), 1);
    const json_t *k2 = json_array_get(json_object_get(f, "kernels"), 2);
    const json_t *total = json_object_get(f, "total");
    CHECK(!strcmp(winner(k0), "sm_side"));
    CHECK(!strcmp(winner(k1), "memory_side"));
    CHECK(!strcmp(winner(k2), "memory_side"));
    CHECK(!strcmp(winner(total), "sm_side"));
    CHECK(!strcmp(json_string_value(json_object_get(rt(k0), "winner")), "sm_side"));
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(rt(k0), "memory_side"),
                                                  "cycles")), 1000);
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(rt(k0), "sm_side"),
                                                  "cycles")), 800);
    CHECK(!strcmp(json_string_value(json_object_get(json_object_get(rt(k0), "memory_side"),
                                                    "limiting_resource")), "chip_link_reply"));
    CHECK(json_real_value(json_object_get(rt(k0), "sm_side_speedup")) == 1.25);
    CHECK(json_real_value(json_object_get(rt(k2), "sm_side_speedup")) == 0.75);
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(rt(total), "sm_side"),
                                                  "cycles")), 1700);
    /* The total has no limiting resource of its own: null, not absent. */
    CHECK(json_is_null(json_object_get(json_object_get(rt(total), "sm_side"),
                                       "limiting_resource")));
    json_decref(f);

    /* Kernel counts that differ are refused, naming the organisation. */
    f = functional(2);
    CHECK(gcr_report_sac_runtime(f, tm, ts, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "memory_side timing replay has 3 kernels");
    json_decref(f);
    /* So is a timed report without cycles (a functional one). */
    json_t *untimed = json_pack("{s:[{}], s:{}}", "kernels", "total");
    f = functional(1);
    json_t *one = timed(1, mem, "latency");
    CHECK(gcr_report_sac_runtime(f, one, untimed, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "kernel 0: the sm_side timing replay has no cycles");
    json_decref(f);
    json_decref(one);
    json_decref(untimed);
    json_decref(tm);
    json_decref(ts);
    CHECK_DONE();
}
