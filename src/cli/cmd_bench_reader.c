/* gcreplay bench-reader: generate a synthetic Accel-Sim trace, compress copies of it in-process,
 * read each through the trace reader and print parse throughput. Figures, not pass/fail:
 * machines are shared and noisy. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "core/bits.h"
#include "cli/cli.h"
#include "core/numfmt.h"
#include "gcreplay/trace.h"

static const char usage[] =
    "usage: gcreplay bench-reader [--bytes N] [--compress none|xz|gz|zst|all] [--check-all]\n"
    "                             [--keep DIR]\n"
    "\n"
    "Generates a synthetic Accel-Sim trace (kernelslist.g and kernel-N.traceg files, tracer\n"
    "version 4) of at least N bytes of plain kernel-file text: thread blocks of 8 warps whose\n"
    "instructions mix non-memory lines with loads, stores and reductions in all three address\n"
    "modes, full and partial masks. It then compresses copies of the kernel files in-process as\n"
    "the tracer would (xz -1 in blocks, gzip, zstd), reads the plain trace and each copy through\n"
    "the trace reader, as `gcreplay run` without instruction observers does (lanes of\n"
    "shared-memory accesses left unread), and prints for each: file and text bytes, seconds,\n"
    "MB/s of text (1 MB = 10^6 bytes), warp instructions/s and records/s.\n"
    "\n"
    "  --bytes N        bytes of plain kernel-file text (default 1073741824; a k, M or G\n"
    "                   suffix multiplies by 2^10, 2^20, 2^30)\n"
    "  --compress C     also read copies compressed with C: none (default), xz, gz, zst, all\n"
    "  --check-all      read every field and check it, as `gcreplay info` and `convert` do\n"
    "  --keep DIR       write the generated traces into DIR and keep them\n"
    "  -h, --help       this text\n";

enum codec { C_NONE, C_XZ, C_GZ, C_ZST, C_COUNT };
static const char *const codec_names[C_COUNT] = {"none", "xz", "gz", "zst"};
static const char *const codec_ext[C_COUNT] = {"", ".xz", ".gz", ".zst"};

/* Kernel files are split at this size, as real traces of long applications are. */
#define KERNEL_FILE_BYTES (256ull << 20)
#define WARPS_PER_CTA 8
#define OUT_BUF (1u << 20)

/* ---- Text output ---------------------------------------------------------------------------- */

struct out {
    FILE *f;
    char *buf;
    size_t len;
    uint64_t total;
    int error;
};

static void out_flush(struct out *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
        o->error = errno ? errno : EIO;
    o->total += o->len;
    o->len = 0;
}

/* Room for n more bytes in the buffer. */
static char *out_room(struct out *o, size_t n)
{
    if (o->len + n > OUT_BUF)
        out_flush(o);
    return o->buf + o->len;
}

static void out_str(struct out *o, const char *s)
{
    size_t n = strlen(s);
    memcpy(out_room(o, n), s, n);
    o->len += n;
}

/* ---- The synthetic kernel ------------------------------------------------------------------- */

/* A 64-bit mixer (splitmix64's finaliser): repeatable pseudo-random address deltas, so that the
 * compressed copies are about as large as those of real traces (xz: a few % of the text). */
/* One warp's program, in order. Non-memory lines carry their text after the mask; memory
 * lines are built from their kind. About a third of the lines access memory, as in the real
 * traces of shared/traces/accelsim (22 to 43 %). */
enum line_kind {
    NON,        /* non-memory: text */
    LDG_STRIDE, /* 32 lanes, mode 1 */
    STG_STRIDE, /* 32 lanes, mode 1 */
    LDG_HALF,   /* lanes 0-15, mode 1 (a boundary warp) */
    LDG_GATHER, /* 32 lanes, mode 2: irregular deltas */
    LDG_LIST,   /* lanes 0-7, mode 0 */
    RED_SPARSE, /* every other byte of lanes, mode 2 */
    LDS_STRIDE, /* shared, 16-byte lanes */
    STS_STRIDE,
    EXIT_LINE   /* EXIT with an empty mask */
};

static const struct {
    enum line_kind kind;
    const char *text;
} program[] = {
    {NON, "1 R0 S2R 0 0 "},           {NON, "1 R3 S2R 0 0 "},
    {NON, "1 R1 MOV 0 0 "},           {NON, "1 R2 IMAD 3 R0 R3 R1 0 "},
    {NON, "0 ISETP.GE.AND 2 R2 R1 0 "}, {NON, "1 R4 IMAD.WIDE 2 R2 R1 0 "},
    {LDG_STRIDE, NULL},               {NON, "1 R6 IMAD.WIDE 2 R2 R1 0 "},
    {LDG_STRIDE, NULL},               {NON, "1 R8 FFMA 3 R4 R5 R8 0 "},
    {STS_STRIDE, NULL},               {NON, "0 BAR.SYNC 0 0 "},
    {LDS_STRIDE, NULL},               {NON, "1 R9 FFMA 3 R8 R6 R9 0 "},
    {LDS_STRIDE, NULL},               {NON, "1 R10 FFMA 3 R9 R7 R10 0 "},
    {NON, "1 R11 IADD3 3 R2 R10 R1 0 "}, {LDG_GATHER, NULL},
    {NON, "1 R12 LEA 2 R11 R2 0 "},   {NON, "1 R13 LEA.HI.X 2 R11 R3 0 "},
    {LDG_HALF, NULL},                 {NON, "1 R14 FADD 2 R12 R13 0 "},
    {NON, "1 R15 FMUL 2 R14 R14 0 "}, {RED_SPARSE, NULL},
    {NON, "1 R16 SHF.L.U32 1 R15 0 "}, {LDG_LIST, NULL},
    {NON, "1 R17 IADD3 3 R16 R1 R2 0 "}, {NON, "0 ISETP.NE.AND 2 R17 R1 0 "},
    {STG_STRIDE, NULL},               {NON, "0 BRA 0 0 "},
    {NON, "1 R18 MOV 0 0 "},          {EXIT_LINE, NULL},
};
#define PROGRAM_LINES (sizeof program / sizeof program[0])

/* Writes one instruction line of warp `gw` (global warp number), instruction k. */
static void insn_line(struct out *o, uint64_t gw, unsigned k)
{
    char *p = out_room(o, 700), *start = p;
    uint64_t base = 0x7f0000000000ull + gw * 0x10000 + (uint64_t)k * 256;
    uint32_t mask = 0xffffffffu;
    switch (program[k].kind) {
    case LDG_HALF: mask = 0x0000ffffu; break;
    case LDG_LIST: mask = 0x000000ffu; break;
    case RED_SPARSE: mask = 0x55555555u; break;
    case EXIT_LINE: mask = 0; break;
    default: break;
    }
    p = gcr_put_hex(p, 0x80 + (uint64_t)k * 16, 4);
    *p++ = ' ';
    p = gcr_put_hex(p, mask, 8);
    *p++ = ' ';
    switch (program[k].kind) {
    case NON: p = gcr_put_str(p, program[k].text); break;
    case EXIT_LINE: p = gcr_put_str(p, "0 EXIT 0 0 "); break;
    case LDG_STRIDE:
    case LDG_HALF:
        p = gcr_put_str(p, "1 R4 LDG.E.SYS 1 R4 4 1 0x");
        p = gcr_put_str(gcr_put_hex(p, base, 1), " 4 ");
        break;
    case STG_STRIDE:
        p = gcr_put_str(p, "0 STG.E.SYS 2 R2 R17 4 1 0x");
        p = gcr_put_str(gcr_put_hex(p, base, 1), " 4 ");
        break;
    case LDS_STRIDE:
        p = gcr_put_str(p, "1 R5 LDS.U.128 1 R3 16 1 0x");
        p = gcr_put_str(gcr_put_hex(p, (gw % WARPS_PER_CTA) * 512 + k * 16, 1), " 16 ");
        break;
    case STS_STRIDE:
        p = gcr_put_str(p, "0 STS 2 R3 R4 4 1 0x");
        p = gcr_put_str(gcr_put_hex(p, (gw % WARPS_PER_CTA) * 128, 1), " 4 ");
        break;
    case LDG_GATHER:
        p = gcr_put_str(p, "1 R6 LDG.E.64.SYS 1 R12 8 2 0x");
        p = gcr_put_hex(p, base, 1);
        for (uint64_t lane = 1; lane < 32; lane++) { /* a gather: deltas of +-8 KB */
            *p++ = ' ';
            uint64_t h = gcr_hash_splitmix64(gw << 16 | k << 8 | lane);
            p = gcr_put_sdec(p, (int64_t)(h % 2048) * 8 - 8192);
        }
        *p++ = ' ';
        break;
    case LDG_LIST:
        p = gcr_put_str(p, "1 R7 LDG.E 1 R16 4 0");
        for (int lane = 0; lane < 8; lane++) {
            p = gcr_put_str(p, " 0x");
            p = gcr_put_hex(p, base + (uint64_t)lane * 132, 16);
        }
        *p++ = ' ';
        break;
    case RED_SPARSE:
        p = gcr_put_str(p, "0 RED.E.ADD.STRONG.GPU 2 R6 R15 4 2 0x");
        p = gcr_put_hex(p, base, 1);
        for (uint64_t lane = 1; lane < 16; lane++) { /* histogram bins: random in 1 KB */
            *p++ = ' ';
            uint64_t h = gcr_hash_splitmix64(gw << 16 | k << 8 | lane);
            p = gcr_put_sdec(p, (int64_t)(h % 256) * 4 - 512);
        }
        *p++ = ' ';
        break;
    }
    *p++ = '\n';
    o->len += (size_t)(p - start);
}

static void thread_block(struct out *o, uint32_t cta)
{
    char line[64];
    out_str(o, "#BEGIN_TB\n\n");
    snprintf(line, sizeof line, "thread block = %" PRIu32 ",0,0\n\n", cta);
    out_str(o, line);
    for (unsigned w = 0; w < WARPS_PER_CTA; w++) {
        snprintf(line, sizeof line, "warp = %u\ninsts = %u\n", w, (unsigned)PROGRAM_LINES);
        out_str(o, line);
        for (unsigned k = 0; k < PROGRAM_LINES; k++)
            insn_line(o, (uint64_t)cta * WARPS_PER_CTA + w, k);
    }
    out_str(o, "#END_TB\n\n");
}

static uint64_t thread_block_bytes(void)
{
    struct out o = {NULL, malloc(OUT_BUF), 0, 0, 0};
    if (!o.buf)
        return 0;
    thread_block(&o, 12345);
    free(o.buf);
    return o.len;
}

/* Writes kernel-<id>.traceg of about `bytes` bytes; returns its warp instruction count, 0 on
 * error (message printed). */
static uint64_t write_kernel(const char *path, uint32_t id, uint64_t bytes, uint64_t *written)
{
    uint64_t per_tb = thread_block_bytes();
    uint64_t tbs = per_tb ? (bytes + per_tb - 1) / per_tb : 0;
    struct out o = {fopen(path, "wb"), malloc(OUT_BUF), 0, 0, 0};
    if (!o.f || !o.buf || !tbs || tbs > UINT32_MAX) {
        fprintf(stderr, "gcreplay bench-reader: %s: %s\n", path, strerror(errno ? errno : ENOMEM));
        if (o.f)
            fclose(o.f);
        free(o.buf);
        return 0;
    }
    char head[1024];
    snprintf(head, sizeof head,
             "-kernel name = _Z12bench_kernelPfS_S_i\n-kernel id = %" PRIu32 "\n"
             "-grid dim = (%" PRIu64 ",1,1)\n-block dim = (%d,1,1)\n-shmem = 4096\n"
             "-nregs = 32\n-binary version = 70\n-cuda stream id = 0\n"
             "-shmem base_addr = 0x00007f2b5a000000\n-local mem base_addr = 0x00007f2b58000000\n"
             "-nvbit version = 1.5.5\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
             "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
             "mem_width [adrrescompress?] [mem_addresses]\n\n\n",
             id, tbs, WARPS_PER_CTA * 32);
    out_str(&o, head);
    for (uint64_t t = 0; t < tbs; t++)
        thread_block(&o, (uint32_t)t);
    out_flush(&o);
    if (fclose(o.f) != 0 && !o.error)
        o.error = errno;
    free(o.buf);
    if (o.error) {
        fprintf(stderr, "gcreplay bench-reader: %s: %s\n", path, strerror(o.error));
        return 0;
    }
    *written = o.total;
    return tbs * WARPS_PER_CTA * PROGRAM_LINES;
}

/* ---- Compression ---------------------------------------------------------------------------- */

#define CHUNK (1u << 20)

/* Compresses src into dst with the codec; 0 or -1 (message printed). */
static int compress_file(const char *src, const char *dst, enum codec c)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    unsigned char *ib = malloc(CHUNK), *ob = malloc(CHUNK);
    int rc = -1;
    lzma_stream xs = LZMA_STREAM_INIT;
    z_stream zs;
    ZSTD_CCtx *zc = NULL;
    bool ready = false;
    memset(&zs, 0, sizeof zs);
    if (!in || !out || !ib || !ob)
        goto done;
    if (c == C_XZ) {
        /* Like the tracer's `xz -1 -T0`: preset 1, independent blocks, two threads here. */
        lzma_mt mt = {.flags = 0, .threads = 2, .block_size = 0, .timeout = 0, .preset = 1,
                      .filters = NULL, .check = LZMA_CHECK_CRC64};
        ready = lzma_stream_encoder_mt(&xs, &mt) == LZMA_OK;
    } else if (c == C_GZ) {
        ready = deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    } else {
        ready = (zc = ZSTD_createCCtx()) != NULL;
        if (ready) {
            ZSTD_CCtx_setParameter(zc, ZSTD_c_compressionLevel, 3);
            ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1);
            ZSTD_CCtx_setParameter(zc, ZSTD_c_nbWorkers, 2); /* ignored without threads */
        }
    }
    if (!ready)
        goto done;
    for (bool end = false; !end;) {
        size_t n = fread(ib, 1, CHUNK, in);
        if (ferror(in))
            goto done;
        end = n < CHUNK;
        if (c == C_XZ) {
            xs.next_in = ib;
            xs.avail_in = n;
            lzma_ret r;
            do {
                xs.next_out = ob;
                xs.avail_out = CHUNK;
                r = lzma_code(&xs, end ? LZMA_FINISH : LZMA_RUN);
                if (r != LZMA_OK && r != LZMA_STREAM_END)
                    goto done;
                if (fwrite(ob, 1, CHUNK - xs.avail_out, out) != CHUNK - xs.avail_out)
                    goto done;
            } while (xs.avail_in || (end && r != LZMA_STREAM_END));
        } else if (c == C_GZ) {
            zs.next_in = ib;
            zs.avail_in = (uInt)n;
            int r;
            do {
                zs.next_out = ob;
                zs.avail_out = CHUNK;
                r = deflate(&zs, end ? Z_FINISH : Z_NO_FLUSH);
                if (r == Z_STREAM_ERROR)
                    goto done;
                if (fwrite(ob, 1, CHUNK - zs.avail_out, out) != CHUNK - zs.avail_out)
                    goto done;
            } while (zs.avail_in || (end && r != Z_STREAM_END));
        } else {
            ZSTD_inBuffer zin = {ib, n, 0};
            size_t left;
            do {
                ZSTD_outBuffer zout = {ob, CHUNK, 0};
                left = ZSTD_compressStream2(zc, &zout, &zin, end ? ZSTD_e_end : ZSTD_e_continue);
                if (ZSTD_isError(left) || fwrite(ob, 1, zout.pos, out) != zout.pos)
                    goto done;
            } while (zin.pos < zin.size || (end && left));
        }
    }
    rc = 0;
done:
    if (rc != 0)
        fprintf(stderr, "gcreplay bench-reader: cannot compress %s into %s\n", src, dst);
    lzma_end(&xs);
    if (c == C_GZ && ready)
        deflateEnd(&zs);
    ZSTD_freeCCtx(zc);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    free(ib);
    free(ob);
    return rc;
}

/* ---- Measurement ---------------------------------------------------------------------------- */

struct result {
    double seconds;
    uint64_t records, warp_insns;
};

/* Reads the trace in dir as a replay without instruction observers does (src/replay/replay.c),
 * or with check_all as `gcreplay info` does. */
static int read_all(const char *dir, bool check_all, struct result *res)
{
    struct gcr_err err = {0};
    struct gcr_reader *r;
    struct gcr_record rec;
    double t0 = cli_now();
    if (gcr_reader_open(&r, dir, NULL, &err) != 0)
        return cli_error(&err);
    if (!check_all) {
        gcr_reader_set_lazy_addresses(r, true);
        gcr_reader_set_skips(r, GCR_READ_SKIP_ONCHIP_LANES | GCR_READ_SKIP_ALU);
    }
    int rc;
    memset(res, 0, sizeof *res);
    while ((rc = gcr_reader_next(r, &rec, &err)) == 1) {
        res->records++;
        if (rec.kind == GCR_REC_WARP_INSN)
            res->warp_insns++;
        else if (rec.kind == GCR_REC_NONMEM)
            res->warp_insns += rec.u.nonmem.count;
    }
    gcr_reader_close(r);
    res->seconds = cli_now() - t0;
    return rc == 0 ? CLI_OK : cli_error(&err);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static bool parse_bytes(const char *s, uint64_t *out)
{
    char num[32];
    size_t n = strlen(s);
    unsigned shift = 0;
    if (n && (s[n - 1] == 'k' || s[n - 1] == 'K' || s[n - 1] == 'M' || s[n - 1] == 'G')) {
        shift = s[n - 1] == 'G' ? 30 : s[n - 1] == 'M' ? 20 : 10;
        n--;
    }
    if (n == 0 || n >= sizeof num)
        return false;
    memcpy(num, s, n);
    num[n] = '\0';
    if (!cli_parse_u64(num, out) || *out > (UINT64_MAX >> shift))
        return false;
    *out <<= shift;
    return true;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gcreplay bench-reader: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int cmd_bench_reader(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bytes", required_argument, NULL, 'b'}, {"compress", required_argument, NULL, 'c'},
        {"keep", required_argument, NULL, 'k'},  {"check-all", no_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    uint64_t bytes = 1ull << 30;
    const char *keep = NULL;
    bool check_all = false;
    bool want[C_COUNT] = {true, false, false, false};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (!parse_bytes(optarg, &bytes) || bytes < 4096)
                return cli_usage_error("bench-reader", "--bytes must be at least 4096, got '%s'",
                                       optarg);
            break;
        case 'c': {
            int found = -1;
            for (int i = 0; i < C_COUNT; i++)
                if (!strcmp(optarg, codec_names[i]))
                    found = i;
            if (found < 0 && strcmp(optarg, "all") != 0)
                return cli_usage_error("bench-reader", "--compress must be none, xz, gz, zst or "
                                       "all, got '%s'", optarg);
            for (int i = 1; i < C_COUNT; i++)
                want[i] = found < 0 || i == found;
            break;
        }
        case 'k': keep = optarg; break;
        case 'a': check_all = true; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("bench-reader", c, argv);
        }
    }
    if (optind != argc)
        return cli_usage_error("bench-reader", "unexpected argument '%s'", argv[optind]);

    char dir[4096];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        if (make_dir(dir) != 0)
            return CLI_FAIL;
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gcreplay-bench-reader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("gcreplay bench-reader: mkdtemp");
            return CLI_FAIL;
        }
    }

    /* dir/<codec>/kernelslist.g and kernel-N.traceg[.ext] */
    uint32_t kernels = (uint32_t)((bytes + KERNEL_FILE_BYTES - 1) / KERNEL_FILE_BYTES);
    uint64_t text_bytes = 0, insns = 0;
    int rc = CLI_OK;
    char path[4400], src[4400];
    printf("gcreplay bench-reader: generating %" PRIu32 " kernel file%s, %.1f MB of text, in %s\n",
           kernels, kernels == 1 ? "" : "s", (double)bytes / 1e6, dir);
    fflush(stdout);
    double t0 = cli_now();
    for (int k = 0; k < C_COUNT && rc == CLI_OK; k++) {
        if (!want[k])
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, codec_names[k]);
        if (make_dir(path) != 0) {
            rc = CLI_FAIL;
            break;
        }
        snprintf(path, sizeof path, "%s/%s/kernelslist.g", dir, codec_names[k]);
        FILE *list = fopen(path, "w");
        if (!list) {
            fprintf(stderr, "gcreplay bench-reader: %s: %s\n", path, strerror(errno));
            rc = CLI_FAIL;
            break;
        }
        fprintf(list, "MemcpyHtoD,0x00007f0000000000,%" PRIu64 "\n", bytes / 16);
        for (uint32_t id = 1; id <= kernels; id++)
            fprintf(list, "kernel-%" PRIu32 ".traceg%s\n", id, codec_ext[k]);
        if (fclose(list) != 0)
            rc = CLI_FAIL;
        for (uint32_t id = 1; id <= kernels && rc == CLI_OK; id++) {
            snprintf(src, sizeof src, "%s/none/kernel-%" PRIu32 ".traceg", dir, id);
            if (k == C_NONE) {
                uint64_t part = bytes - (uint64_t)(id - 1) * KERNEL_FILE_BYTES, written = 0;
                if (part > KERNEL_FILE_BYTES)
                    part = KERNEL_FILE_BYTES;
                uint64_t n = write_kernel(src, id, part, &written);
                if (!n)
                    rc = CLI_FAIL;
                insns += n;
                text_bytes += written;
                continue;
            }
            snprintf(path, sizeof path, "%s/%s/kernel-%" PRIu32 ".traceg%s", dir,
                     codec_names[k], id, codec_ext[k]);
            if (compress_file(src, path, (enum codec)k) != 0)
                rc = CLI_FAIL;
        }
        printf("  %-4s ready after %.1f s\n", codec_names[k], cli_now() - t0);
        fflush(stdout);
    }

    if (rc == CLI_OK) {
        printf("%-6s %12s %12s %9s %11s %14s %13s\n", "codec", "file-MB", "text-MB", "seconds",
               "text-MB/s", "warp-insn/s", "records/s");
        for (int k = 0; k < C_COUNT && rc == CLI_OK; k++) {
            if (!want[k])
                continue;
            uint64_t fbytes = 0;
            for (uint32_t id = 1; id <= kernels; id++) {
                snprintf(path, sizeof path, "%s/%s/kernel-%" PRIu32 ".traceg%s", dir,
                         codec_names[k], id, codec_ext[k]);
                fbytes += file_size(path);
            }
            struct result res;
            snprintf(path, sizeof path, "%s/%s", dir, codec_names[k]);
            rc = read_all(path, check_all, &res);
            if (rc != CLI_OK)
                break;
            if (res.warp_insns != insns) {
                fprintf(stderr, "gcreplay bench-reader: %s: read %" PRIu64 " warp instructions, "
                        "generated %" PRIu64 "\n", path, res.warp_insns, insns);
                rc = CLI_FAIL;
                break;
            }
            printf("%-6s %12.1f %12.1f %9.2f %11.1f %14.0f %13.0f\n", codec_names[k],
                   (double)fbytes / 1e6, (double)text_bytes / 1e6, res.seconds,
                   (double)text_bytes / 1e6 / res.seconds, (double)res.warp_insns / res.seconds,
                   (double)res.records / res.seconds);
            fflush(stdout);
        }
    }

    if (!keep) {
        for (int k = 0; k < C_COUNT; k++) {
            for (uint32_t id = 1; id <= kernels; id++) {
                snprintf(path, sizeof path, "%s/%s/kernel-%" PRIu32 ".traceg%s", dir,
                         codec_names[k], id, codec_ext[k]);
                unlink(path);
            }
            snprintf(path, sizeof path, "%s/%s/kernelslist.g", dir, codec_names[k]);
            unlink(path);
            snprintf(path, sizeof path, "%s/%s", dir, codec_names[k]);
            rmdir(path);
        }
        rmdir(dir);
    }
    return rc;
}
