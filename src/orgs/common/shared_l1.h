/* The machinery of a shared L1 (seed 000, Ch. 4), used by the `shared` and
 * `dyneb` organisations: which L1 is the home of a line, serving a request at
 * any L1 instance (the requester's own or a remote home) with the messages it
 * puts on the core-to-L1 network, and the statistics seen from each requester.
 *
 * L1 instance i is the L1 of SM i. A request served at instance u for SM r is
 * local when u == r and remote otherwise: the requester does not cache what a
 * remote home returns, so under a pure shared organisation a line lives in at
 * most one L1, its home's. */
#ifndef GCREPLAY_ORGS_SHARED_L1_H
#define GCREPLAY_ORGS_SHARED_L1_H

#include "gcreplay/options.h"
#include "replay/l1org.h"

/* How the home field is formed from the line address. */
enum gcr_home_hash {
    GCR_HOME_BITS = 0, /* home_bits address bits starting at home_shift (seed 000 §4.3.1) */
    GCR_HOME_XOR,      /* those bits XORed with every higher group of home_bits bits */
    GCR_HOME_HASH_COUNT
};

/* How a field value (0 .. 2^home_bits - 1) becomes an L1 index when the L1
 * count is not a power of two (the seed leaves this open). */
enum gcr_home_map {
    GCR_HOME_MODULO = 0, /* field mod N */
    GCR_HOME_SCALE,      /* floor(field x N / 2^home_bits) */
    GCR_HOME_MAP_COUNT
};

/* What a remote home sends back to the requester for a read (seed 000 §4.3.3). */
enum gcr_reply_mode {
    GCR_REPLY_CHUNK = 0, /* only the bytes the request touched ("Shared+Chunk") */
    GCR_REPLY_LINE,      /* the whole line (the plain shared design) */
    GCR_REPLY_COUNT
};

struct gcr_home {
    unsigned shift, bits;
    enum gcr_home_hash hash;
    enum gcr_home_map map;
    uint32_t n;
    uint64_t field_mask; /* 2^bits - 1 */
    bool direct;         /* the field is the home: bits hash, N == 2^bits */
};

static inline uint32_t gcr_home_of(const struct gcr_home *h, uint64_t line_addr)
{
    uint64_t f = line_addr >> h->shift;
    if (h->direct)
        return (uint32_t)(f & h->field_mask);
    if (h->bits == 0)
        return 0;
    if (h->hash == GCR_HOME_XOR) {
        uint64_t x = 0;
        for (; f; f >>= h->bits)
            x ^= f & h->field_mask;
        f = x;
    } else {
        f &= h->field_mask;
    }
    if (h->map == GCR_HOME_MODULO)
        return (uint32_t)(f % h->n);
    return (uint32_t)((f * h->n) >> h->bits); /* f < 2^32, n <= 4096: no overflow */
}

/* Options of the shared machinery as given (negative = default). */
struct gcr_shared_opts {
    int64_t home_shift; /* -1: the lowest tag bit, log2(line) + ceil(log2(sets)) */
    int64_t home_bits;  /* -1: ceil(log2(N)) */
    enum gcr_home_hash hash;
    enum gcr_home_map map;
    enum gcr_reply_mode reply;
};

/* Cumulative counts of the shared machinery; [0] reads, [1] writes. */
struct gcr_shared_counts {
    uint64_t local[2], remote[2];
    uint64_t replies;       /* read replies from a remote home */
    uint64_t chunk_bytes;   /* what they carry when only the requested bytes are sent */
    uint64_t line_bytes;    /* ... and when whole lines are sent */
    uint64_t reply_bytes;   /* what they carried under the configured reply mode */
    uint64_t request_bytes; /* store data carried to remote homes */
};

struct gcr_shared_l1 {
    struct gcr_l1org_ctx ctx;
    const char *org; /* for messages: $.l1d.<org>.<key> */
    struct gcr_home home;
    enum gcr_reply_mode reply;
    struct gcr_cache **l1;           /* one per SM */
    uint32_t n;
    struct gcr_cache_stats *charged; /* per requesting SM */
    struct gcr_shared_counts counts;
    uint64_t *served;                /* per instance: requests it served */
    uint64_t *remote_by_sm;          /* per requester: its remote requests */
};

/* What serving one request did, beyond the cache outcome. */
struct gcr_served {
    struct gcr_access a;
    uint32_t l2_replies; /* replies the serving L1 gets from L2: a fill, a write acknowledgement */
};

/* The shared machinery's options of $.l1d.<org>: the defaults, then its keys
 * read from reader o (gcreplay/options.h), whose caller may read keys of its
 * own before calling gcr_opts_done. */
void gcr_shared_opts_default(struct gcr_shared_opts *so);
int gcr_shared_opts_read(struct gcr_shared_opts *so, struct gcr_opts *o, struct gcr_err *err);

/* Creates the L1s and the home mapping; errors name $.l1d.<org>.<key>. */
int gcr_shared_l1_init(struct gcr_shared_l1 *s, const struct gcr_l1org_ctx *ctx, const char *org,
                       const struct gcr_shared_opts *o, struct gcr_err *err);
void gcr_shared_l1_fini(struct gcr_shared_l1 *s);

/* Serves req at L1 instance u (u == req->sm: local; else remote, with the
 * request and reply messages on GCR_NET_CORE_L1). */
void gcr_shared_l1_serve(struct gcr_shared_l1 *s, const struct gcr_req *req, uint32_t u,
                         struct gcr_served *out);

/* The l1org.h callbacks the organisations share. */
int gcr_shared_l1_kernel_begin(struct gcr_shared_l1 *s, const struct gcr_cache_geometry *l1,
                               struct gcr_err *err);
void gcr_shared_l1_kernel_end(struct gcr_shared_l1 *s);
void gcr_shared_l1_collect_stats(const struct gcr_shared_l1 *s, struct gcr_cache_stats *per_sm);
/* Fills the shared machinery's figures (options, local/remote, replies) into section. */
int gcr_shared_l1_report(const struct gcr_shared_l1 *s, json_t *section);
/* Adds the shared machinery's table figures to a summary object. */
void gcr_shared_l1_summary(const struct gcr_shared_l1 *s, json_t *summary);

extern const char *const gcr_home_hash_names[GCR_HOME_HASH_COUNT];
extern const char *const gcr_home_map_names[GCR_HOME_MAP_COUNT];
extern const char *const gcr_reply_mode_names[GCR_REPLY_COUNT];

#endif
