/* Decoding ahead on a thread of its own (decode_ahead.h). */
#include "trace/decode_ahead.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A chunk holds about a quarter of a megabyte of records; four of them keep
 * the decoding thread a few thousand records ahead, enough to smooth out a
 * kernel file's opening or a zstd block, while the memory stays small and the
 * consumer's first records come soon. Runs are asked for as the replay asks
 * (LOAD_RUN_RECORDS), so it gets the runs it would have had. */
enum { CHUNK_RECORDS = 1024, CHUNKS = 4, RUN_MAX = 64 };

struct chunk {
    struct gcr_record recs[CHUNK_RECORDS];
    uint32_t run_end[CHUNK_RECORDS]; /* where each run ends: recs[run_end[i - 1]..run_end[i]) */
    uint32_t nrecs, nruns;
    char **names; /* the copies of this chunk's kernel names */
    uint32_t nnames;
    uint64_t bytes_done;
    bool ended; /* the trace's end (end_rc 0) or an error (end_rc -1, err) follows recs */
    int end_rc;
    struct gcr_err err;
};

struct gcr_decode_ahead {
    struct gcr_decode_source src;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled_cond, free_cond;
    struct chunk *chunks;
    uint32_t nfilled;  /* chunks decoded and not yet given back: the consumer's, in order */
    bool stop;
    /* The decoding thread's side. */
    uint32_t fill_at;
    /* The consumer's side: the chunk it reads (NULL: none yet) and its place in it. */
    struct chunk *cur;
    uint32_t take_at, pos, run;
};

static void chunk_forget_names(struct chunk *c)
{
    for (uint32_t i = 0; i < c->nnames; i++)
        free(c->names[i]);
    c->nnames = 0;
}

/* Keeps a copy of rec's kernel name in c, pointing the record at it; false
 * when out of memory. */
static bool chunk_keep_name(struct chunk *c, struct gcr_record *rec)
{
    char **names = realloc(c->names, (c->nnames + 1) * sizeof *names);
    if (!names)
        return false;
    c->names = names;
    char *copy = strdup(rec->u.kbegin.name);
    if (!copy)
        return false;
    c->names[c->nnames++] = copy;
    rec->u.kbegin.name = copy;
    return true;
}

/* Decodes runs into c until it is full or the trace ends or fails. */
static void fill(struct gcr_decode_ahead *d, struct chunk *c)
{
    chunk_forget_names(c);
    c->nrecs = c->nruns = 0;
    c->ended = false;
    while (c->nrecs + RUN_MAX <= CHUNK_RECORDS) {
        struct gcr_record *run = &c->recs[c->nrecs];
        int rc = d->src.next_run(d->src.ctx, run, RUN_MAX, &c->err);
        if (rc <= 0) {
            c->ended = true;
            c->end_rc = rc;
            break;
        }
        for (int i = 0; i < rc; i++)
            if (run[i].kind == GCR_REC_KERNEL_BEGIN && !chunk_keep_name(c, &run[i])) {
                c->ended = true;
                c->end_rc = gcr_fail(&c->err, GCR_E_NOMEM, "out of memory decoding ahead");
                return; /* the run is dropped with its kernel begin: the error comes first */
            }
        c->nrecs += (uint32_t)rc;
        c->run_end[c->nruns++] = c->nrecs;
    }
    c->bytes_done = d->src.bytes_done ? d->src.bytes_done(d->src.ctx) : 0;
}

static void *decode(void *arg)
{
    struct gcr_decode_ahead *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (d->nfilled == CHUNKS && !d->stop)
            pthread_cond_wait(&d->free_cond, &d->lock);
        bool stop = d->stop;
        pthread_mutex_unlock(&d->lock);
        if (stop)
            return NULL;
        /* Not handed out: this chunk is the decoding thread's until nfilled counts it. */
        struct chunk *c = &d->chunks[d->fill_at];
        fill(d, c);
        d->fill_at = (d->fill_at + 1) % CHUNKS;
        pthread_mutex_lock(&d->lock);
        d->nfilled++;
        pthread_cond_signal(&d->filled_cond);
        pthread_mutex_unlock(&d->lock);
        if (c->ended)
            return NULL;
    }
}

int gcr_decode_ahead_start(struct gcr_decode_ahead **out, const struct gcr_decode_source *src,
                           struct gcr_err *err)
{
    *out = NULL;
    struct gcr_decode_ahead *d = calloc(1, sizeof *d);
    if (!d || !(d->chunks = calloc(CHUNKS, sizeof *d->chunks))) {
        free(d);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for decoding ahead");
    }
    d->src = *src;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->filled_cond, NULL);
    pthread_cond_init(&d->free_cond, NULL);
    if (pthread_create(&d->thread, NULL, decode, d) != 0) {
        pthread_cond_destroy(&d->free_cond);
        pthread_cond_destroy(&d->filled_cond);
        pthread_mutex_destroy(&d->lock);
        free(d->chunks);
        free(d);
        return gcr_fail(err, GCR_E_INTERNAL, "cannot start the decoding thread");
    }
    *out = d;
    return 0;
}

int gcr_decode_ahead_next_run(struct gcr_decode_ahead *d, struct gcr_record *recs, size_t max,
                              struct gcr_err *err)
{
    for (;;) {
        struct chunk *c = d->cur;
        if (c && d->pos < c->nrecs) {
            uint32_t end = c->run_end[d->run];
            size_t n = end - d->pos < max ? end - d->pos : max;
            memcpy(recs, &c->recs[d->pos], n * sizeof *recs);
            d->pos += (uint32_t)n;
            if (d->pos == end)
                d->run++;
            return (int)n;
        }
        if (c && c->ended) { /* the end, or the error, on every later call too */
            if (c->end_rc < 0 && err)
                *err = c->err;
            return c->end_rc;
        }
        pthread_mutex_lock(&d->lock);
        if (c) { /* read to its end: the decoding thread may fill it again */
            d->nfilled--;
            d->take_at = (d->take_at + 1) % CHUNKS;
            pthread_cond_signal(&d->free_cond);
        }
        while (d->nfilled == 0)
            pthread_cond_wait(&d->filled_cond, &d->lock);
        d->cur = &d->chunks[d->take_at];
        pthread_mutex_unlock(&d->lock);
        d->pos = d->run = 0;
    }
}

uint64_t gcr_decode_ahead_bytes_done(const struct gcr_decode_ahead *d)
{
    return d->cur ? d->cur->bytes_done : 0;
}

void gcr_decode_ahead_stop(struct gcr_decode_ahead *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->stop = true;
    pthread_cond_signal(&d->free_cond);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    for (uint32_t i = 0; i < CHUNKS; i++) {
        chunk_forget_names(&d->chunks[i]);
        free(d->chunks[i].names);
    }
    pthread_cond_destroy(&d->free_cond);
    pthread_cond_destroy(&d->filled_cond);
    pthread_mutex_destroy(&d->lock);
    free(d->chunks);
    free(d);
}
