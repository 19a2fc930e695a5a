/* The event bus's queue (src/replay/bus.h): analyses get every event they
 * subscribed to, in emission order, late but before any report (flush),
 * with copies of what the replay reuses (the access result, the
 * instruction), each cache event's and instruction's line id from the
 * shared line map, and both prefetch stages before delivery; synchronous
 * subscribers get events at once. */
#include "check.h"
#include "replay/bus.h"

#define N 200 /* events: several times the queue's depth */

struct log {
    uint32_t n;            /* events delivered */
    uint64_t line[2 * N];  /* ... their lines, in order */
    uint32_t id[2 * N];
    uint32_t outcome[2 * N];
    uint64_t lane0[2 * N]; /* INSN: first active lane */
    uint64_t lane5[2 * N]; /* INSN: lane 5 */
    uint32_t stage0, stage1, stage_errors, id_errors;
    uint64_t staged[2 * N]; /* line seen by stage 0 of the events in order */
    uint32_t nstaged;
    uint64_t sum, order_errors;
};

static void on_event(void *self, const struct gcr_event *ev)
{
    struct log *l = self;
    if (l->n >= 2 * N)
        return;
    l->line[l->n] = ev->line_addr;
    l->id[l->n] = ev->line_id;
    l->outcome[l->n] = ev->access ? (uint32_t)ev->access->outcome : 99;
    if (ev->kind == GCR_EV_INSN) {
        l->lane0[l->n] = ev->insn->addr[0];
        l->lane5[l->n] = ev->insn->addr[5];
    }
    l->n++;
}

/* Checks the stages' order: stage 0 then stage 1 of each event, both before
 * it is delivered, with its id already set. */
static void prefetch(void *self, const struct gcr_event *ev, int stage)
{
    struct log *l = self;
    if (stage == 0) {
        l->stage0++;
        if (l->nstaged < 2 * N)
            l->staged[l->nstaged++] = ev->line_addr;
    } else {
        l->stage1++;
        if (l->stage1 > l->stage0)
            l->stage_errors++;
    }
    if (l->stage0 <= l->n) /* an event is staged before it is delivered */
        l->stage_errors++;
    if (ev->kind != GCR_EV_INSN && ev->line_id == GCR_IDMAP_NONE)
        l->id_errors++;
}

static uint64_t line_of(int i)
{
    return 0x10000 + (uint64_t)(i % 37) * 128; /* lines repeat: the same line, the same id */
}

/* Counts events and checks they come in emission order (by their lines). */
static void count_event(void *self, const struct gcr_event *ev)
{
    struct log *l = self;
    if (ev->line_addr != line_of((int)l->n))
        l->order_errors++;
    l->sum += ev->line_addr;
    l->n++;
}

static const struct gcr_analysis_ops counter = {
    .name = "n", .subscribe = GCR_EV_L1_ACCESS, .on_event = count_event};

static const struct gcr_analysis_speed queued_a_speed = {
    .insn_stride_hint = true, .prefetch = prefetch,
    .prefetch_stage0 = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT,
    .prefetch_stage1 = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT};
static const struct gcr_analysis_ops queued_a = {
    .name = "a", .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT, .on_event = on_event,
    .speed = &queued_a_speed};
static const struct gcr_analysis_ops queued_b = {
    .name = "b", .subscribe = GCR_EV_INSN | GCR_EV_L1_ACCESS, .on_event = on_event};
static const struct gcr_analysis_ops synchronous = {
    .name = "sync", .subscribe = GCR_EV_L1_ACCESS, .on_event = on_event};


static void queue(bool with_column, bool threaded)
{
    struct gcr_err err = {0};
    struct gcr_idmap lines;
    CHECK(gcr_idmap_init(&lines, 7, 5, &err) == 0);
    if (with_column)
        CHECK(gcr_idmap_add_column(&lines, 4, &err) != NULL);
    struct gcr_bus_sub subs[3];
    struct gcr_bus bus = {.subs = subs};
    static struct log a, b, s;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&s, 0, sizeof s);
    gcr_bus_add(&bus, &queued_a, &a, false);
    gcr_bus_add(&bus, &synchronous, &s, true);
    gcr_bus_add(&bus, &queued_b, &b, false);
    CHECK(gcr_bus_start(&bus, &lines, threaded) == 0);
    /* queued_b reads every lane of an instruction. */
    CHECK(bus.insn_all_lanes);

    struct gcr_warp_insn in = {.active_mask = 0x21, .space = GCR_SPACE_GLOBAL, .width = 4};
    struct gcr_access acc = {0};
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0) {
            in.addr[0] = 0x5000 + (uint64_t)i;
            in.addr[5] = 0x9000 + (uint64_t)i;
            struct gcr_event ev;
            gcr_event_fill(&ev, GCR_EV_INSN, 0, 1, 2, 3, &in, 0, 0, false, NULL);
            gcr_bus_emit(&bus, &ev);
            in.addr[0] = in.addr[5] = 0xdead; /* the replay reuses its instruction */
        }
        acc.outcome = (enum gcr_outcome)(i % 3);
        gcr_bus_emit_cache(&bus, i % 4 == 3 ? GCR_EV_L1_EVICT : GCR_EV_L1_ACCESS, 0, 1, 2, 3,
                           &in, line_of(i), 1, false, &acc);
        acc.outcome = GCR_MISS_LINE; /* and its access results */
        /* Synchronous: at once. */
        CHECK_EQ_U(s.n, (uint32_t)(i + 1 - (i + 1) / 4));
    }
    /* Queued: late (the queue holds a few dozen events, or, threaded, the
     * worker takes them when it can)... */
    if (!threaded) {
        CHECK(a.n < N && b.n < N + N / 3 + 1);
        CHECK(a.n > 0 && b.n > 0);
    }
    gcr_bus_flush(&bus);
    /* ... but all of them after a flush, in order, with the access result
     * and the instruction as they were emitted. */
    CHECK_EQ_U(a.n, N);
    CHECK_EQ_U(b.n, N - N / 4 + (N + 2) / 3);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        bad += a.line[i] != line_of(i) || a.outcome[i] != (uint32_t)(i % 3);
        bad += a.staged[i] != line_of(i);
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(a.stage0, N);
    CHECK_EQ_U(a.stage1, N);
    CHECK_EQ_U(a.stage_errors, 0);
    CHECK_EQ_U(a.id_errors, with_column ? 0 : 2 * N); /* no column: no ids */
    /* What b subscribed to, in emission order, against its log. */
    uint32_t k = 0;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0) {
            bad += b.outcome[k] != 99 || b.lane0[k] != 0x5000 + (uint64_t)i ||
                   b.lane5[k] != 0x9000 + (uint64_t)i;
            k++;
        }
        if (i % 4 != 3) {
            bad += b.line[k] != line_of(i) || b.outcome[k] != (uint32_t)(i % 3);
            k++;
        }
    }
    CHECK_EQ_U(bad, 0);
    /* Line ids: the shared map's, when some analysis keeps state there. */
    for (int i = 0; i < N; i++) {
        uint32_t want = with_column ? gcr_idmap_find(&lines, line_of(i)) : GCR_IDMAP_NONE;
        bad += a.id[i] != want;
    }
    CHECK_EQ_U(bad, 0);
    /* An instruction's is its first lane's line: 0x5000 and 0x5080 here. */
    for (uint32_t k = 0; k < b.n; k++)
        if (b.outcome[k] == 99)
            bad += b.id[k] != (with_column ? gcr_idmap_find(&lines, b.lane0[k] & ~(uint64_t)127)
                                           : GCR_IDMAP_NONE);
    CHECK_EQ_U(bad, 0);
    if (with_column)
        CHECK_EQ_U(lines.count, 37 + 2);
    gcr_bus_flush(&bus); /* nothing left: delivers nothing more */
    CHECK_EQ_U(a.n, N);
    gcr_bus_fini(&bus);
    gcr_idmap_fini(&lines);
}

/* A bus with one queued subscriber, `ops` logging into *l, over a fresh line
 * map with one column. */
static void start_one(struct gcr_bus *bus, struct gcr_bus_sub *sub, struct gcr_idmap *lines,
                      const struct gcr_analysis_ops *ops, struct log *l, bool threaded)
{
    struct gcr_err err = {0};
    CHECK(gcr_idmap_init(lines, 7, 6, &err) == 0);
    CHECK(gcr_idmap_add_column(lines, 4, &err) != NULL);
    *bus = (struct gcr_bus){.subs = sub};
    memset(l, 0, sizeof *l);
    gcr_bus_add(bus, ops, l, false);
    CHECK(gcr_bus_start(bus, lines, threaded) == 0);
}

/* Events keep their order and every stage across flushes at any point of
 * a batch (a report can come at any event). */
static void flushes(bool threaded)
{
    struct gcr_idmap lines;
    struct gcr_bus_sub sub;
    struct gcr_bus bus;
    static struct log a;
    start_one(&bus, &sub, &lines, &queued_a, &a, threaded);
    struct gcr_access acc = {0};
    int sent = 0;
    const int chunk[] = {5, 50, 1, 16, 33, 95};
    for (size_t c = 0; c < sizeof chunk / sizeof *chunk; c++) {
        for (int i = 0; i < chunk[c]; i++, sent++)
            gcr_bus_emit_cache(&bus, GCR_EV_L1_ACCESS, 0, 0, 0, 0, NULL, line_of(sent), 1, false,
                               &acc);
        gcr_bus_flush(&bus);
        CHECK_EQ_U(a.n, sent);
    }
    int bad = 0;
    for (int i = 0; i < sent; i++)
        bad += a.line[i] != line_of(i) || a.id[i] != gcr_idmap_find(&lines, line_of(i));
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(a.stage0, sent);
    CHECK_EQ_U(a.stage1, sent);
    CHECK_EQ_U(a.stage_errors, 0);
    gcr_bus_fini(&bus);
    gcr_idmap_fini(&lines);
}

/* Many times the threaded ring's size, with flushes now and then: the
 * worker and the replay wait for each other without losing an event. */
static void threaded_long_run(bool threaded)
{
    struct gcr_idmap lines;
    struct gcr_bus_sub sub;
    struct gcr_bus bus;
    static struct log a;
    start_one(&bus, &sub, &lines, &counter, &a, threaded);
    struct gcr_access acc = {0};
    uint64_t sum = 0;
    for (uint32_t i = 0; i < 400000; i++) {
        gcr_bus_emit_cache(&bus, GCR_EV_L1_ACCESS, 0, 0, 0, 0, NULL, line_of((int)i), 1, false,
                           &acc);
        sum += line_of((int)i);
        if (i % 150001 == 0) /* rarely: the ring (65,536) fills up in between */
            gcr_bus_flush(&bus);
    }
    gcr_bus_flush(&bus);
    CHECK_EQ_U(a.n, 400000);
    CHECK_EQ_U(a.sum, sum);
    CHECK_EQ_U(a.order_errors, 0);
    gcr_bus_fini(&bus);
    gcr_idmap_fini(&lines);
}

/* An instruction whose subscribers all take the stride hint keeps only its
 * first active lane. */
static void stride_hint(void)
{
    static const struct gcr_analysis_speed hint = {.insn_stride_hint = true};
    static const struct gcr_analysis_ops hinted = {
        .name = "h", .subscribe = GCR_EV_INSN, .on_event = on_event, .speed = &hint};
    struct gcr_bus_sub subs[1];
    struct gcr_bus bus = {.subs = subs};
    static struct log h;
    memset(&h, 0, sizeof h);
    gcr_bus_add(&bus, &hinted, &h, false);
    CHECK(gcr_bus_start(&bus, NULL, false) == 0);
    CHECK(!bus.insn_all_lanes);
    struct gcr_warp_insn in = {.active_mask = 0x21, .strided = true, .stride = 4, .width = 4};
    in.addr[0] = 0x100;
    in.addr[5] = 0x104;
    struct gcr_event ev;
    gcr_event_fill(&ev, GCR_EV_INSN, 0, 0, 0, 0, &in, 0, 0, false, NULL);
    gcr_bus_emit(&bus, &ev);
    gcr_bus_flush(&bus);
    CHECK_EQ_U(h.n, 1);
    CHECK_EQ_U(h.lane0[0], 0x100);
    gcr_bus_fini(&bus);
}

/* Without a thread, line ids or prefetch hooks, nothing happens between
 * emission and delivery: the bus delivers at once (direct mode), as it
 * would from the queue: the access result, no
 * instruction on a cache event, every lane of an instruction. */
static void direct(void)
{
    struct gcr_bus_sub subs[2];
    struct gcr_bus bus = {.subs = subs};
    static struct log b, n;
    memset(&b, 0, sizeof b);
    memset(&n, 0, sizeof n);
    gcr_bus_add(&bus, &queued_b, &b, false);
    gcr_bus_add(&bus, &counter, &n, false);
    CHECK(gcr_bus_start(&bus, NULL, false) == 0);
    CHECK(bus.direct);
    struct gcr_warp_insn in = {.active_mask = 0x21, .space = GCR_SPACE_GLOBAL, .width = 4};
    in.addr[0] = 0x5000;
    in.addr[5] = 0x9000;
    gcr_bus_emit_insn(&bus, 1, &in);
    CHECK_EQ_U(b.n, 1); /* at once */
    CHECK(b.lane0[0] == 0x5000 && b.lane5[0] == 0x9000);
    struct gcr_access acc = {.outcome = GCR_MISS_LINE};
    gcr_bus_emit_cache(&bus, GCR_EV_L1_ACCESS, 0, 1, 2, 3, &in, line_of(0), 1, false, &acc);
    CHECK_EQ_U(b.n, 2);
    CHECK_EQ_U(n.n, 1);
    CHECK_EQ_U(b.outcome[1], GCR_MISS_LINE);
    CHECK(b.line[1] == line_of(0) && b.id[1] == GCR_IDMAP_NONE);
    CHECK_EQ_U(n.order_errors, 0);
    gcr_bus_flush(&bus);
    CHECK_EQ_U(b.n, 2);
    gcr_bus_fini(&bus);
    CHECK(!bus.direct);

    /* A hook, or a thread, takes the queue again. */
    static struct log a;
    memset(&a, 0, sizeof a);
    struct gcr_bus_sub subs2[1];
    struct gcr_bus hooked = {.subs = subs2};
    gcr_bus_add(&hooked, &queued_a, &a, false);
    CHECK(gcr_bus_start(&hooked, NULL, false) == 0);
    CHECK(!hooked.direct);
    gcr_bus_fini(&hooked);
    struct gcr_bus_sub subs3[1];
    struct gcr_bus threaded = {.subs = subs3};
    gcr_bus_add(&threaded, &counter, &n, false);
    CHECK(gcr_bus_start(&threaded, NULL, true) == 0);
    CHECK(!threaded.direct);
    gcr_bus_fini(&threaded);
}

/* A kernel event, built by its emitter with an initialiser list (line_id 0,
 * a valid id), carries no line id to a synchronous subscriber (the timing
 * model, an analysis delivered at emission) either, as the queue delivers it. */
static void kernel_events_have_no_line(void)
{
    static const struct gcr_analysis_ops sync_kernel = {
        .name = "sk", .subscribe = GCR_EV_KERNEL_BEGIN, .on_event = on_event};
    static const struct gcr_analysis_ops queued_kernel = {
        .name = "qk", .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_L1_ACCESS, .on_event = on_event};
    struct gcr_err err = {0};
    struct gcr_idmap lines;
    CHECK(gcr_idmap_init(&lines, 7, 5, &err) == 0);
    CHECK(gcr_idmap_add_column(&lines, 4, &err) != NULL);
    static struct log s, q;
    memset(&s, 0, sizeof s);
    memset(&q, 0, sizeof q);
    struct gcr_bus_sub subs[2];
    struct gcr_bus bus = {.subs = subs};
    gcr_bus_add(&bus, &sync_kernel, &s, true);
    gcr_bus_add(&bus, &queued_kernel, &q, false);
    CHECK(gcr_bus_start(&bus, &lines, false) == 0);
    struct gcr_kernel_begin kb = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .name = "k"};
    bus.kernel = &kb;
    struct gcr_event ev = {.kind = GCR_EV_KERNEL_BEGIN, .sm = UINT32_MAX};
    gcr_bus_emit(&bus, &ev);
    CHECK_EQ_U(s.n, 1);
    CHECK_EQ_U(s.id[0], GCR_IDMAP_NONE);
    gcr_bus_flush(&bus);
    CHECK_EQ_U(q.n, 1);
    CHECK_EQ_U(q.id[0], GCR_IDMAP_NONE);
    gcr_bus_fini(&bus);
    gcr_idmap_fini(&lines);
}

int main(void)
{
    kernel_events_have_no_line();
    direct();
    for (int threaded = 0; threaded < 2; threaded++) {
        queue(true, threaded);
        queue(false, threaded);
        flushes(threaded);
        threaded_long_run(threaded);
    }
    stride_hint();
    CHECK_DONE();
}
