/* Traces read from memory (gcr_reader_open_memory, gcr_reader_open_memory_files) read exactly
 * as the same files read from the file system: the same records, the same end, the same error
 * message (the buffers carry the files' paths as names), the same sizes and description. Every
 * fixture of every format is read both ways, detected and with its format named; directories
 * (Accel-Sim kernel lists) go into memory file by file. Every fixture that is one file also
 * reads the same compressed with each codec (src/io/bytesrc.h): every format reads compressed
 * input. Then what only memory has: a name missing from the set, even one the file system
 * holds, and an empty buffer. */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "compress_util.h"
#include "gcreplay/trace.h"

/* Everything a reader said, as text: one line per record, then the end or the error, the
 * byte counts and the description. */
struct outcome {
    char *text;
    size_t len, cap;
};

static void say(struct outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct outcome *o, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    if (o->len + (size_t)n + 1 > o->cap) {
        o->cap = (o->len + (size_t)n + 1) * 2;
        if (!(o->text = realloc(o->text, o->cap)))
            exit(2);
    }
    memcpy(o->text + o->len, line, (size_t)n + 1);
    o->len += (size_t)n;
}

static void say_record(struct outcome *o, const struct gcr_record *r)
{
    switch (r->kind) {
    case GCR_REC_KERNEL_BEGIN: {
        const struct gcr_kernel_begin *k = &r->u.kbegin;
        say(o, "begin %u %s %u,%u,%u %u,%u,%u %u %u\n", k->id, k->name, k->grid[0], k->grid[1],
            k->grid[2], k->block[0], k->block[1], k->block[2], k->shmem_bytes,
            k->regs_per_thread);
        break;
    }
    case GCR_REC_KERNEL_END: say(o, "end %u\n", r->u.kend.id); break;
    case GCR_REC_NONMEM:
        say(o, "nonmem %u %u %u\n", r->u.nonmem.cta, r->u.nonmem.warp, r->u.nonmem.count);
        break;
    case GCR_REC_MEMCPY:
        say(o, "memcpy %" PRIx64 " %" PRIu64 "\n", r->u.memcpy.dst, r->u.memcpy.bytes);
        break;
    case GCR_REC_WARP_INSN: {
        const struct gcr_warp_insn *w = &r->u.insn;
        say(o, "insn %u %u %" PRIx64 " %u %u %u %u %08x %d %" PRId64 ":", w->cta, w->warp, w->pc,
            w->op, w->space, w->cache_op, w->width, w->active_mask, w->strided, w->stride);
        for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
            if (w->active_mask >> lane & 1)
                say(o, " %" PRIx64, w->addr[lane]);
        say(o, "\n");
        break;
    }
    }
}

/* Reads a trace opened (or not) by open_rc to its end or first error. Without sizes, what
 * depends on the file's bytes rather than its content (sizes, the description) is left out. */
static void read_all(struct outcome *o, int open_rc, struct gcr_reader *r,
                     const struct gcr_err *open_err, bool sizes)
{
    if (open_rc != 0) {
        say(o, "open failed: %s: %s\n", gcr_status_name(open_err->status), open_err->msg);
        return;
    }
    say(o, "format %s\n", gcr_reader_format_name(r));
    if (sizes)
        say(o, "%" PRIu64 " bytes\n", gcr_reader_bytes_total(r));
    struct gcr_record rec;
    struct gcr_err err = {GCR_OK, ""};
    int rc;
    while ((rc = gcr_reader_next(r, &rec, &err)) == 1)
        say_record(o, &rec);
    if (rc < 0)
        say(o, "error: %s: %s\n", gcr_status_name(err.status), err.msg);
    else
        say(o, "end\n");
    if (!sizes) {
        gcr_reader_close(r);
        return;
    }
    say(o, "%" PRIu64 " bytes read\n", gcr_reader_bytes_done(r));
    json_t *info = json_object();
    gcr_reader_describe(r, info);
    char *text = json_dumps(info, JSON_SORT_KEYS);
    say(o, "%s\n", text ? text : "(no description)");
    free(text);
    json_decref(info);
    gcr_reader_close(r);
}

static void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += got) == cap && !(buf = realloc(buf, cap *= 2)))
            break;
    fclose(f);
    *size = len;
    return buf;
}

/* The files of a directory (not below it), named "dir/name" as the reader will ask for them. */
struct memdir {
    struct gcr_memfile files[16];
    size_t count;
};

static void memdir_load(struct memdir *m, const char *dir)
{
    m->count = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && m->count < 16) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        struct gcr_memfile *f = &m->files[m->count++];
        f->name = strdup(path);
        f->data = slurp(path, &f->size);
        CHECK(f->name && f->data);
    }
    if (d)
        closedir(d);
}

static void memdir_free(struct memdir *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free((char *)m->files[i].name);
        free((void *)m->files[i].data);
    }
}

/* Reads path from the file system and from memory with that format (NULL: detected). */
static void compare(const char *path, const char *format)
{
    struct outcome disk = {0}, mem = {0};
    struct gcr_reader *r;
    struct gcr_err err = {GCR_OK, ""};
    int rc = gcr_reader_open(&r, path, format, &err);
    read_all(&disk, rc, r, &err, true);

    struct stat st;
    CHECK(stat(path, &st) == 0);
    if (S_ISDIR(st.st_mode)) {
        struct memdir m;
        memdir_load(&m, path);
        rc = gcr_reader_open_memory_files(&r, path, m.files, m.count, format, &err);
        read_all(&mem, rc, r, &err, true);
        memdir_free(&m);
    } else {
        size_t size = 0;
        void *data = slurp(path, &size);
        CHECK(data != NULL);
        rc = gcr_reader_open_memory(&r, path, data, size, format, &err);
        read_all(&mem, rc, r, &err, true);
        free(data);
    }
    if (strcmp(disk.text, mem.text) != 0) {
        fprintf(stderr, "%s (format %s) reads differently from memory:\n--- file system\n%s"
                "--- memory\n%s", path, format ? format : "detected", disk.text, mem.text);
        check_failures++;
    }
    free(disk.text);
    free(mem.text);
}

/* A message of a compressed file's reader as the plain file's reader words it: offsets of the
 * decompressed content are offsets of the content, and "<codec>-compressed, but what it holds is
 * not a trace" is "not a trace". */
static void as_plain(char *text)
{
    static const char *const drop[] = {
        " of the decompressed content",
        "gzip-compressed, but what it holds is ",
        "xz-compressed, but what it holds is ",
        "zstd-compressed, but what it holds is ",
    };
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        size_t n = strlen(drop[i]);
        for (char *p; (p = strstr(text, drop[i])) != NULL;)
            memmove(p, p + n, strlen(p + n) + 1);
    }
}

/* A fixture of one file, compressed in memory with each codec, reads as the plain one does. */
static void compare_compressed(const char *path, const char *format)
{
    size_t size = 0;
    unsigned char *data = slurp(path, &size);
    CHECK(data != NULL);
    if (!data || size == 0 || gcr_codec_detect(data, size) != GCR_CODEC_NONE) {
        free(data); /* an empty file compresses to a non-empty one; compressed ones are */
        return;     /* compared as they are */
    }
    struct outcome plain = {0};
    struct gcr_reader *r;
    struct gcr_err err = {GCR_OK, ""};
    int rc = gcr_reader_open_memory(&r, path, data, size, format, &err);
    read_all(&plain, rc, r, &err, false);
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        struct buf z = {0};
        struct outcome packed = {0};
        codecs[c].fn(&z, data, size);
        rc = gcr_reader_open_memory(&r, path, z.p, z.len, format, &err);
        read_all(&packed, rc, r, &err, false);
        as_plain(packed.text);
        if (strcmp(plain.text, packed.text) != 0) {
            fprintf(stderr, "%s (format %s, compressed with %s) reads differently:\n--- plain\n"
                    "%s--- compressed\n%s", path, format ? format : "detected", codecs[c].ext,
                    plain.text, packed.text);
            check_failures++;
        }
        free(packed.text);
        free(z.p);
    }
    free(plain.text);
    free(data);
}

static int fixtures_compared;

static void compare_dir(const char *dir, const char *format)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    CHECK(d != NULL);
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        compare(path, NULL);
        compare(path, format);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            compare_compressed(path, NULL);
            compare_compressed(path, format);
        }
        fixtures_compared++;
    }
    if (d)
        closedir(d);
}

/* Only the set is read: a path it lacks is missing even where the file system has it. */
static void test_only_the_set(void)
{
    const char *real = GCR_SOURCE_ROOT "/examples/traces/vecadd.txt";
    const struct gcr_memfile other = {"other.txt", "#gcreplay-text 1\n", 17};
    struct gcr_reader *r;
    struct gcr_err err = {GCR_OK, ""};
    CHECK(gcr_reader_open_memory_files(&r, real, &other, 1, NULL, &err) == -1 && !r);
    CHECK_EQ_U(err.status, GCR_E_IO);
    char want[4200];
    snprintf(want, sizeof want, "%s: No such file or directory", real);
    CHECK(strcmp(err.msg, want) == 0);

    /* A kernel list in memory names a kernel file that exists only on disk. */
    char list[4300];
    int n = snprintf(list, sizeof list, "kernel-1.traceg\n");
    const struct gcr_memfile listed = {GCR_SOURCE_ROOT "/trace-formats/accelsim/fixtures/"
                                       "bad-missing-kernel/kernelslist.g", list, (size_t)n};
    CHECK(gcr_reader_open_memory_files(&r, listed.name, &listed, 1, "accelsim", &err) == 0);
    struct gcr_record rec;
    CHECK(gcr_reader_next(r, &rec, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "cannot open kernel file");
    CHECK_STR_CONTAINS(err.msg, "No such file or directory");
    gcr_reader_close(r);
}

/* No bytes at all, and no data pointer: read as an empty file is. */
static void test_empty(void)
{
    struct gcr_reader *r;
    struct gcr_err err = {GCR_OK, ""};
    CHECK(gcr_reader_open_memory(&r, "empty.txt", NULL, 0, "text", &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "empty.txt:1: empty file");
    CHECK(gcr_reader_open_memory(&r, "empty.gcrt", NULL, 0, "gcrt", &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "empty.gcrt");
    /* An empty Accel-Sim file is a kernel list of no kernels: an error, as from a file. */
    CHECK(gcr_reader_open_memory(&r, "kernelslist.g", NULL, 0, "accelsim", &err) == 0);
    struct gcr_record rec;
    CHECK(r && gcr_reader_next(r, &rec, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "kernelslist.g: the kernel list names no kernel file");
    gcr_reader_close(r);
    CHECK(gcr_reader_open_memory(&r, "empty", NULL, 0, NULL, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "empty: not a trace in any known format");
}

/* A directory of the set: its kernel list and files, found under the directory's name. */
static void test_directory(void)
{
    static const char list[] = "MemcpyHtoD,0x1000,256\nkernel-1.traceg\n";
    static const char kernel[] =
        "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
        "-shmem = 0\n-nregs = 8\n-binary version = 70\n-cuda stream id = 0\n"
        "-shmem base_addr = 0x0\n-local mem base_addr = 0x0\n-nvbit version = 1.5.5\n"
        "-accelsim tracer version = 3\n\n#traces format = threadblock_x threadblock_y "
        "threadblock_z warpid_tb PC mask dest_num reg_dests opcode src_num reg_srcs mem_width "
        "[adrrescompress?] [mem_addresses]\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\n"
        "warp = 0\ninsts = 1\n0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000 4\n\n#END_TB\n";
    const struct gcr_memfile files[] = {
        {"t/kernelslist.g", list, sizeof list - 1},
        {"t/kernel-1.traceg", kernel, sizeof kernel - 1},
    };
    struct gcr_reader *r;
    struct gcr_err err = {GCR_OK, ""};
    CHECK(gcr_reader_open_memory_files(&r, "t", files, 2, NULL, &err) == 0);
    if (!r)
        return;
    CHECK(strcmp(gcr_reader_format_name(r), "accelsim") == 0);
    struct gcr_record rec;
    int rc, records = 0;
    while ((rc = gcr_reader_next(r, &rec, &err)) == 1)
        records++;
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_U(rc, 0);
    CHECK_EQ_U(records, 4); /* memcpy, begin, one instruction, end */
    gcr_reader_close(r);
}

int main(void)
{
    compare_dir(GCR_SOURCE_ROOT "/trace-formats/text/fixtures", "text");
    compare_dir(GCR_SOURCE_ROOT "/trace-formats/gcrt/fixtures", "gcrt");
    compare_dir(GCR_SOURCE_ROOT "/trace-formats/accelsim/fixtures", "accelsim");
    compare_dir(GCR_SOURCE_ROOT "/examples/traces", "text");
    CHECK(fixtures_compared > 100);
    test_only_the_set();
    test_empty();
    test_directory();
    CHECK_DONE();
}
