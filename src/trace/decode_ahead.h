/* Decoding ahead: a reader's records decoded on a thread of their own and
 * handed to the consumer through a bounded queue (gcr_reader_decode_ahead).
 *
 * The decoding thread calls the reader's own run function (what
 * gcr_reader_next_run does without a thread) into chunks of records; the
 * consumer takes them back run by run, so it gets exactly the records, runs,
 * end and error that it would have read itself. Kernel names are copied into
 * the chunk, which the consumer holds until its next call: a name stays valid
 * as long as the reader's contract says. Only the chunks change hands, under
 * one mutex; the reader's state belongs to the decoding thread until stop. */
#ifndef GCREPLAY_TRACE_DECODE_AHEAD_H
#define GCREPLAY_TRACE_DECODE_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_decode_ahead;

/* What the decoding thread calls: the next run of up to max records (1..max,
 * 0 at the end, -1 with err on error), and the input bytes consumed so far. */
struct gcr_decode_source {
    int (*next_run)(void *ctx, struct gcr_record *recs, size_t max, struct gcr_err *err);
    uint64_t (*bytes_done)(void *ctx);
    void *ctx;
};

/* Starts the thread; -1 with err if it (or its memory) could not be had. */
int gcr_decode_ahead_start(struct gcr_decode_ahead **out, const struct gcr_decode_source *src,
                           struct gcr_err *err);
/* The next run, as src->next_run would have returned it (split when longer
 * than max). */
int gcr_decode_ahead_next_run(struct gcr_decode_ahead *d, struct gcr_record *recs, size_t max,
                              struct gcr_err *err);
/* Input bytes consumed when the records handed out so far were decoded. */
uint64_t gcr_decode_ahead_bytes_done(const struct gcr_decode_ahead *d);
/* Stops and joins the thread; records decoded and not taken are dropped. */
void gcr_decode_ahead_stop(struct gcr_decode_ahead *d);

#endif
