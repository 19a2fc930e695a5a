/* Damaged input: every prefix of a valid file is reported as truncated (never as a clean,
 * shorter trace); every single-byte change is detected (the whole file is covered by magics
 * and checksums); and payloads changed behind the checksums' back (checksums recomputed) or
 * replaced by random bytes never crash the decoder. Run under the sanitizers to catch any
 * out-of-bounds read. */
#include "gcrt_test.h"

static char path[256];

static struct read_result read_bytes(const unsigned char *p, size_t len)
{
    spit(path, p, len);
    return read_trace(path, NULL, 0, NULL);
}

static void prefixes(const char *fixture)
{
    char src[512];
    snprintf(src, sizeof src, "%s/%s", FIXTURES, fixture);
    size_t len;
    unsigned char *full = slurp(src, &len);
    struct read_result whole = read_bytes(full, len);
    CHECK_EQ_U(whole.rc, 0);
    size_t bad = 0;
    for (size_t n = 0; n < len; n++) {
        struct read_result res = read_bytes(full, n);
        if (res.rc != -1 || res.err.status != GCR_E_TRUNCATED || !strstr(res.err.msg, path) ||
            !strstr(res.err.msg, "byte offset")) {
            if (bad++ < 5)
                fprintf(stderr, "%s cut to %zu bytes: rc %d, %s: %s\n", fixture, n, res.rc,
                        gcr_status_name(res.err.status), res.err.msg);
        }
        /* Records come only from complete, verified blocks. */
        CHECK(res.count <= whole.count);
    }
    CHECK_EQ_U(bad, 0);
    free(full);
}

static void flips(const char *fixture)
{
    char src[512];
    snprintf(src, sizeof src, "%s/%s", FIXTURES, fixture);
    size_t len;
    unsigned char *full = slurp(src, &len);
    static const unsigned char patterns[] = {0x01, 0x80, 0xff, 0x10};
    size_t undetected = 0, tried = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t k = 0; k < sizeof patterns; k++) {
            full[i] ^= patterns[k];
            struct read_result res = read_bytes(full, len);
            full[i] ^= patterns[k];
            tried++;
            if (res.rc != -1) {
                if (undetected++ < 5)
                    fprintf(stderr, "%s: byte %zu ^ 0x%02x not detected\n", fixture, i,
                            patterns[k]);
                continue;
            }
            CHECK(res.err.status != GCR_OK);
            CHECK_STR_CONTAINS(res.err.msg, path);
        }
    /* Every byte is inside a magic or a checksummed region, or is a checksum. */
    CHECK_EQ_U(undetected, 0);
    printf("%s: %zu single-byte changes, all detected\n", fixture, tried);
    free(full);
}

/* Every bit of every payload byte of the uncompressed fixture, checksums fixed up. */
static void payload_bitflips(void)
{
    char src[512];
    snprintf(src, sizeof src, "%s/ok-small.gcrt", FIXTURES);
    size_t len;
    unsigned char *full = slurp(src, &len);
    unsigned char *work = malloc(len);
    size_t errors = 0, tried = 0;
    size_t off = 32;
    while (off + 40 <= len && memcmp(full + off, "GBLK", 4) == 0) {
        uint32_t stored = get32(full + off + 12);
        for (size_t i = off + 40; i < off + 40 + stored; i++)
            for (int bit = 0; bit < 8; bit++) {
                memcpy(work, full, len);
                work[i] ^= (unsigned char)(1u << bit);
                rehash(work, len);
                struct read_result res = read_bytes(work, len);
                tried++;
                if (res.rc == -1) {
                    errors++;
                    CHECK(res.err.status == GCR_E_FORMAT);
                    CHECK_STR_CONTAINS(res.err.msg, "record");
                }
            }
        off += 40 + stored;
    }
    /* Most changes break a record or the stream structure; some only change a value. */
    printf("payload bit flips with valid checksums: %zu tried, %zu rejected\n", tried, errors);
    CHECK(errors > tried / 4);
    free(work);
    free(full);
}

/* Random payloads (checksums valid) of random lengths, from a fixed seed. */
static void random_payloads(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned char payload[600];
    size_t ok = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 1;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        n += (size_t)(seed >> 33) % sizeof payload;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            unsigned char c = (unsigned char)(seed >> 56);
            /* Bias towards valid types and small values so decoding gets somewhere. */
            if (iter % 2 && (seed >> 20) % 4 == 0)
                c = (unsigned char)(1 + (seed >> 40) % 5);
            payload[i] = c;
        }
        uint32_t count = 1 + (uint32_t)(seed >> 24) % 8;
        struct buf b = {0};
        enc_header(&b);
        enc_block(&b, 0, payload, (uint32_t)n, count, 0);
        enc_trailer(&b, count, 1);
        struct read_result res = read_bytes(b.p, b.len);
        ok += res.rc == 0;
        CHECK(res.rc == 0 || res.err.status == GCR_E_FORMAT);
        free(b.p);
    }
    printf("random payloads: 3000 tried, %zu valid\n", ok);
}

int main(void)
{
    tmp_path(path, sizeof path, "corrupt");
    prefixes("ok-small.gcrt");
    prefixes("ok-zstd.gcrt");
    prefixes("ok-alu.gcrt");
    flips("ok-small.gcrt");
    flips("ok-zstd.gcrt");
    flips("ok-alu.gcrt");
    payload_bitflips();
    random_payloads();
    remove(path);
    CHECK_DONE();
}
