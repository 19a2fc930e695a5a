/* Import of GPGPU-Sim / Accel-Sim configuration files into a gcreplay config.
 *
 * GPGPU-Sim reads "-option value" pairs from gpgpusim.config and then from
 * Accel-Sim's trace.config (later ones override earlier ones); '#' starts a
 * comment outside double quotes, and a quoted value may span lines. Only the
 * options that describe what a functional cache replay models are used; the
 * rest (pipeline, latencies, DRAM timing...) are ignored here. The mapping of
 * every option used is documented in examples/configs/README.md. */
#include "gcreplay/config.h"
#include "io/files.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct option_value {
    char *name;  /* without the leading '-' */
    char *value;
    const char *file;
    int line;
};

struct options {
    struct option_value *v;
    size_t n, cap;
    char **files; /* names kept for messages */
    size_t nfiles;
};

static void options_free(struct options *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->v[i].name);
        free(o->v[i].value);
    }
    free(o->v);
    for (size_t i = 0; i < o->nfiles; i++)
        free(o->files[i]);
    free(o->files);
}

static struct option_value *find(const struct options *o, const char *name)
{
    for (size_t i = o->n; i-- > 0;) /* the last setting wins */
        if (strcmp(o->v[i].name, name) == 0)
            return &o->v[i];
    return NULL;
}

static int add(struct options *o, const char *name, size_t nlen, const char *value, size_t vlen,
               const char *file, int line, struct gcr_err *err)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        struct option_value *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        o->v = v;
        o->cap = cap;
    }
    struct option_value *ov = &o->v[o->n];
    ov->name = strndup(name, nlen);
    ov->value = strndup(value, vlen);
    ov->file = file;
    ov->line = line;
    if (!ov->name || !ov->value) {
        free(ov->name);
        free(ov->value);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    o->n++;
    return 0;
}

#define MAX_CONFIG_BYTES (16 << 20)

/* Splits a config file into tokens: whitespace separates them, a double-quoted
 * token may contain spaces and newlines, '#' outside quotes ends the line. An
 * option token ("-name") takes the next token as its value. */
static int parse_file(struct options *o, const struct gcr_files *fs, const char *path,
                      struct gcr_err *err)
{
    FILE *f = gcr_files_fopen(fs, path);
    if (!f)
        return gcr_fail(err, GCR_E_IO, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        /* Option files are kilobytes: a cap keeps /dev/zero or a trace given by mistake from
         * filling memory. */
        if (len > MAX_CONFIG_BYTES) {
            free(text);
            fclose(f);
            return gcr_fail(err, GCR_E_CONFIG, "%s: longer than %d MiB, far more than an option "
                            "file holds: is it a GPGPU-Sim config?", path, MAX_CONFIG_BYTES >> 20);
        }
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
            }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return gcr_fail(err, GCR_E_IO, "%s: read error", path);
    }
    text[len] = '\0';
    char **files = realloc(o->files, (o->nfiles + 1) * sizeof *files);
    if (!files || !(files[o->nfiles] = strdup(path))) {
        free(files ? files : o->files);
        o->files = NULL;
        o->nfiles = 0;
        free(text);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    o->files = files;
    const char *file = o->files[o->nfiles++];

    int line = 1, rc = 0;
    const char *name = NULL;
    size_t name_len = 0;
    int name_line = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        char c = text[i];
        if (c == '\n') {
            line++;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '#') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        size_t start = i, end;
        int tok_line = line;
        if (c == '"') {
            start = ++i;
            while (i < len && text[i] != '"')
                line += text[i++] == '\n';
            if (i == len) {
                rc = gcr_fail(err, GCR_E_FORMAT, "%s:%d: unterminated double quote", file,
                              tok_line);
                break;
            }
            end = i++;
        } else {
            while (i < len && !isspace((unsigned char)text[i]) && text[i] != '#')
                i++;
            end = i;
        }
        bool is_option = c == '-' && end - start > 1 && isalpha((unsigned char)text[start + 1]);
        if (!name) {
            if (!is_option) {
                rc = gcr_fail(err, GCR_E_FORMAT, "%s:%d: expected an option (\"-name value\"),"
                              " found \"%.*s\"", file, tok_line, (int)(end - start > 60 ? 60 :
                              end - start), text + start);
                break;
            }
            name = text + start + 1;
            name_len = end - start - 1;
            name_line = tok_line;
        } else {
            /* Values may themselves start with '-' (negative numbers), so the
             * token after an option is always its value. */
            rc = add(o, name, name_len, text + start, end - start, file, name_line, err);
            name = NULL;
        }
    }
    if (rc == 0 && name)
        rc = gcr_fail(err, GCR_E_FORMAT, "%s:%d: option -%.*s has no value", file, name_line,
                      (int)name_len, name);
    free(text);
    return rc;
}

static int opt_fail(struct gcr_err *err, const struct option_value *ov, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int opt_fail(struct gcr_err *err, const struct option_value *ov, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gcr_fail(err, GCR_E_CONFIG, "%s:%d: -%s %s: %s", ov->file, ov->line, ov->name,
                    ov->value, what);
}

static int required(const struct options *o, const char *name, const struct option_value **out,
                    struct gcr_err *err)
{
    *out = find(o, name);
    if (!*out)
        return gcr_fail(err, GCR_E_CONFIG, "%s: option -%s is missing", o->files[0], name);
    return 0;
}

/* An unsigned option; absent → def (or an error when def < 0). */
static int get_uint(const struct options *o, const char *name, long long def, uint64_t *out,
                    struct gcr_err *err)
{
    const struct option_value *ov = find(o, name);
    if (!ov) {
        if (def < 0)
            return gcr_fail(err, GCR_E_CONFIG, "%s: option -%s is missing", o->files[0], name);
        *out = (uint64_t)def;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(ov->value, &end, 10);
    if (errno || end == ov->value || *end || ov->value[0] == '-')
        return opt_fail(err, ov, "expected a non-negative integer");
    /* GPGPU-Sim reads these as 32-bit unsigned; the import multiplies some of them (sizes in
     * KB, channels x sub-partitions), which 32 bits keep from overflowing. */
    if (v > UINT32_MAX)
        return opt_fail(err, ov, "%llu is out of range (maximum 4294967295)", v);
    *out = v;
    return 0;
}

/* The fields of a GPGPU-Sim cache string, e.g. "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32":
 * <sector?>:<nsets>:<line>:<assoc>,<rep>:<write>:<alloc>:<write alloc>:<set index>,
 * <mshr type>:<entries>:<max merge>,<miss queue>[:<result fifo>][,<data port width>]. */
struct cache_string {
    char type, rep, wp, alloc, walloc, index, mshr;
    unsigned sets, line, assoc, entries, merge, miss_queue, fifo, port;
    int fields;
};

static int parse_cache_string(const struct option_value *ov, struct cache_string *c,
                              struct gcr_err *err)
{
    memset(c, 0, sizeof *c);
    /* sscanf's %u takes "-32" as 2^32 - 32 and wraps numbers past 32 bits: refuse both first,
     * at the option's line. */
    for (const char *p = ov->value; *p; p++) {
        if (*p == '-')
            return opt_fail(err, ov, "a cache string holds no negative number");
        if (isdigit((unsigned char)*p) && (p == ov->value || !isdigit((unsigned char)p[-1]))) {
            errno = 0;
            unsigned long long v = strtoull(p, NULL, 10);
            if (errno || v > UINT32_MAX)
                return opt_fail(err, ov, "number %.*s is out of range (maximum 4294967295)",
                                (int)strspn(p, "0123456789"), p);
        }
    }
    char tail;
    int n = sscanf(ov->value, "%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u,%u%c", &c->type,
                   &c->sets, &c->line, &c->assoc, &c->rep, &c->wp, &c->alloc, &c->walloc,
                   &c->index, &c->mshr, &c->entries, &c->merge, &c->miss_queue, &c->fifo,
                   &c->port, &tail);
    if (n < 13 || n > 15)
        return opt_fail(err, ov, "not a GPGPU-Sim cache string "
                        "(<S|N>:<sets>:<line>:<assoc>,<rep>:<write>:<alloc>:<write alloc>:"
                        "<index>,<mshr>:<entries>:<merge>,<miss queue>...)");
    c->fields = n;
    if (!c->sets || !c->line || !c->assoc)
        return opt_fail(err, ov, "sets, line size and associativity must be at least 1");
    if (n < 15)
        c->port = c->line; /* GPGPU-Sim's default data port width */
    return 0;
}

static const char *map_char(char c, const char *from, const char *const *to)
{
    const char *p = strchr(from, c);
    return c && p ? to[p - from] : NULL;
}

/* One cache section of the gcreplay config from a cache string. */
static int cache_section(const struct option_value *ov, json_t *section, struct gcr_err *err)
{
    struct cache_string c;
    if (parse_cache_string(ov, &c, err) != 0)
        return -1;
    if (c.type != 'S' && c.type != 'N')
        return opt_fail(err, ov, "cache type must be S (sectored) or N (normal), got '%c'",
                        c.type);
    static const char *const reps[] = {"lru", "fifo"};
    /* R read-only, B write-back, T write-through, E write-evict, L local
     * write-back/global write-through (modelled as write-through: see README). */
    static const char *const wps[] = {"write_evict", "write_back", "write_through",
                                      "write_evict", "write_through"};
    static const char *const allocs[] = {"on_miss", "on_fill", "streaming"};
    static const char *const wallocs[] = {"none", "fetch", "fetch", "validate"};
    static const char *const indexes[] = {"linear", "xor", "ipoly", "fermi"};
    static const char *const mshrs[] = {"assoc", "sector_assoc", "tex_fifo", "sector_tex_fifo"};
    const char *rep = map_char(c.rep, "LF", reps);
    const char *wp = map_char(c.wp, "RBTEL", wps);
    const char *alloc = map_char(c.alloc, "mfs", allocs);
    const char *walloc = map_char(c.walloc, "NWFL", wallocs);
    const char *index = map_char(c.index, "LXPH", indexes);
    const char *mshr = map_char(c.mshr, "ASFT", mshrs);
    if (!rep)
        return opt_fail(err, ov, "replacement must be L or F, got '%c'", c.rep);
    if (!wp)
        return opt_fail(err, ov, "write policy must be R, B, T, E or L, got '%c'", c.wp);
    if (!alloc)
        return opt_fail(err, ov, "allocation must be m, f or s, got '%c'", c.alloc);
    if (!walloc)
        return opt_fail(err, ov, "write allocation must be N, W, F or L, got '%c'", c.walloc);
    if (!index)
        return opt_fail(err, ov, "set index function '%c' is not supported (L, X, P, H are)",
                        c.index);
    if (!mshr)
        return opt_fail(err, ov, "MSHR type must be A, S, F or T, got '%c'", c.mshr);
    /* A write-evict (or read-only) cache never allocates on a write. */
    if (!strcmp(wp, "write_evict"))
        walloc = "none";
    json_object_set_new(section, "sets", json_integer(c.sets));
    json_object_set_new(section, "ways", json_integer(c.assoc));
    json_object_set_new(section, "sectored", json_boolean(c.type == 'S'));
    json_object_set_new(section, "replacement", json_string(rep));
    json_object_set_new(section, "index", json_string(index));
    json_object_set_new(section, "write_policy", json_string(wp));
    json_object_set_new(section, "write_allocate", json_string(walloc));
    json_object_set_new(section, "allocation", json_string(alloc));
    json_object_set_new(section, "mshr",
                        json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "type", mshr, "entries",
                                  c.entries, "max_merge", c.merge, "miss_queue", c.miss_queue,
                                  "result_fifo", c.fifo, "data_port_width", c.port));
    return 0;
}

/* "0,8,16,32,64,96" (KB) → bytes. */
static int kb_list(const struct option_value *ov, json_t **out, struct gcr_err *err)
{
    *out = json_array();
    const char *p = ov->value;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || v > UINT32_MAX) {
            json_decref(*out); /* the caller keeps nothing of a list that failed */
            *out = NULL;
            return opt_fail(err, ov, "expected a comma-separated list of sizes in KB, each at "
                            "most 4294967295");
        }
        json_array_append_new(*out, json_integer((json_int_t)v * 1024));
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* The channel-select granule of -gpgpu_mem_addr_mapping: "dramid@N" gives its
 * lowest address bit; otherwise the lowest 'D' of the 64-character bit mask. */
static int interleave_bytes(const struct option_value *ov, uint64_t *out, struct gcr_err *err)
{
    const char *at = strstr(ov->value, "dramid@");
    if (at) {
        unsigned bit = (unsigned)strtoul(at + 7, NULL, 10);
        if (bit < 5 || bit > 40)
            return opt_fail(err, ov, "dramid@%u is outside 5..40", bit);
        *out = 1ull << bit;
        return 0;
    }
    const char *mask = strchr(ov->value, ';');
    mask = mask ? mask + 1 : ov->value;
    int bit = -1, pos = 0;
    size_t len = strlen(mask);
    for (size_t i = len; i-- > 0;) {
        if (mask[i] == '.')
            continue;
        if (mask[i] == 'D') {
            bit = pos;
            break;
        }
        pos++;
    }
    if (bit < 0)
        return opt_fail(err, ov, "no channel bits (D) in the address mapping");
    /* The same range as dramid@N: a mask longer than an address has no such granule. */
    if (bit < 5 || bit > 40)
        return opt_fail(err, ov, "the lowest channel bit (D) of the address mapping is bit %d, "
                        "outside 5..40", bit);
    *out = 1ull << bit;
    return 0;
}

/* The first integer of a comma-separated list ("4,13,4,5,145,21" -> 4), or def. */
static int first_uint(const struct options *o, const char *name, unsigned def, unsigned *out,
                      struct gcr_err *err)
{
    const struct option_value *ov = find(o, name);
    *out = def;
    if (!ov)
        return 0;
    char *end;
    unsigned long v = strtoul(ov->value, &end, 10);
    if (end == ov->value || (*end && *end != ',') || v == 0 || v > (1ul << 20))
        return opt_fail(err, ov, "expected a list of latencies starting with one from 1 to %lu",
                        1ul << 20);
    *out = (unsigned)v;
    return 0;
}

/* The specialised unit (-specialized_unit_<n> "<enabled>,<units>,<max latency>,<ID_OC>,
 * <OC_EX>,<NAME>") whose name is `name`, enabled: its number n (1..8), and in *units its
 * count; 0 when there is none. */
static int special_unit(const struct options *o, const char *name, uint64_t *units)
{
    for (int n = 1; n <= 8; n++) {
        char opt[32];
        snprintf(opt, sizeof opt, "specialized_unit_%d", n);
        const struct option_value *ov = find(o, opt);
        unsigned enabled, count;
        char unit_name[32];
        if (ov && sscanf(ov->value, "%u,%u,%*u,%*u,%*u,%31s", &enabled, &count, unit_name) == 3 &&
            enabled && count && strcmp(unit_name, name) == 0) {
            *units = count;
            return n;
        }
    }
    return 0;
}

/* timing.units from Accel-Sim's trace.config: each unit's "-trace_opcode_latency_initiation_*
 * <latency>,<initiation interval>" and its count (-gpgpu_num_*_units, or the specialised
 * unit's), for the units the files name; the others keep gcreplay's defaults (src/timing/
 * README.md, "Non-memory instructions"). Accel-Sim runs its tensor-core, branch and texture
 * instructions on specialised units named TENSOR, BRA and TEX where the config has them. */
static int import_units(const struct options *o, json_t *timing, struct gcr_err *err)
{
    static const struct {
        const char *unit, *latency, *count, *special;
    } map[] = {
        {"int", "trace_opcode_latency_initiation_int", "gpgpu_num_int_units", NULL},
        {"sp", "trace_opcode_latency_initiation_sp", "gpgpu_num_sp_units", NULL},
        {"dp", "trace_opcode_latency_initiation_dp", "gpgpu_num_dp_units", NULL},
        {"sfu", "trace_opcode_latency_initiation_sfu", "gpgpu_num_sfu_units", NULL},
        {"tensor", "trace_opcode_latency_initiation_tensor", "gpgpu_num_tensor_core_units",
         "TENSOR"},
        {"branch", NULL, NULL, "BRA"},
        {"tex", NULL, NULL, "TEX"},
    };
    json_t *units = json_object();
    if (!units)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        char opt[64];
        const char *lat_opt = map[i].latency;
        uint64_t count = 0;
        int n = map[i].special ? special_unit(o, map[i].special, &count) : 0;
        if (n) {
            snprintf(opt, sizeof opt, "trace_opcode_latency_initiation_spec_op_%d", n);
            lat_opt = opt;
        } else if (!map[i].count) {
            continue;
        } else if (get_uint(o, map[i].count, 0, &count, err)) {
            json_decref(units);
            return -1;
        }
        const struct option_value *ov = lat_opt ? find(o, lat_opt) : NULL;
        if (!ov)
            continue;
        unsigned latency, initiation;
        char extra;
        if (sscanf(ov->value, "%u,%u%c", &latency, &initiation, &extra) != 2 || !latency ||
            !initiation || latency > 65536 || initiation > 65536) {
            json_decref(units);
            return opt_fail(err, ov, "expected <latency>,<initiation interval>, each 1 to 65536");
        }
        json_t *u = json_pack("{s:I, s:I}", "latency", (json_int_t)latency, "initiation",
                              (json_int_t)initiation);
        /* Without units of its own an instruction class runs on another unit: keep the
         * default count. */
        if (u && count)
            json_object_set_new(u, "count", json_integer((json_int_t)(count < 1024 ? count : 1024)));
        if (!u || json_object_set_new(units, map[i].unit, u) != 0) {
            json_decref(units);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    }
    if (json_object_size(units))
        json_object_set_new(timing, "units", units);
    else
        json_decref(units);
    return 0;
}

/* "nbk=16:CCD=1:RRD=3:RCD=12:...": the value of key, or def when absent. */
static unsigned dram_timing(const char *opt, const char *key, unsigned def)
{
    size_t n = strlen(key);
    for (const char *p = opt; p && *p;) {
        while (*p == ':' || isspace((unsigned char)*p))
            p++;
        if (strncmp(p, key, n) == 0 && p[n] == '=')
            return (unsigned)strtoul(p + n + 1, NULL, 10);
        p = strchr(p, ':');
    }
    return def;
}

/* The timing section (src/timing/README.md; mapping in examples/configs/README.md):
 * clocks, latencies, bandwidths and DRAM timing. It is left disabled; `run
 * --timing` or timing.enabled switches it on. */
static int timing_section(const struct options *o, json_t *cfg, struct gcr_err *err)
{
    const struct option_value *clk = find(o, "gpgpu_clock_domains");
    double core = 1000, noc = 1000, l2 = 1000, dram = 1000;
    if (clk && (sscanf(clk->value, "%lf:%lf:%lf:%lf", &core, &noc, &l2, &dram) != 4 ||
                core <= 0 || noc <= 0 || l2 <= 0 || dram <= 0 || core > 1e6 || noc > 1e6 ||
                l2 > 1e6 || dram > 1e6))
        return opt_fail(err, clk, "expected <core>:<interconnect>:<L2>:<DRAM> clocks in MHz");
    uint64_t sched = 0, launch = 0, l1 = 0, smem = 0, rop = 0, dlat = 0, flit = 0, bus = 0,
             per_ctrl = 0, ratio = 0, nmem = 0, banks = 0, sched_kind = 0, l1_banks = 0;
    unsigned alu;
    if (get_uint(o, "gpgpu_num_sched_per_core", 1, &sched, err) ||
        get_uint(o, "gpgpu_kernel_launch_latency", 0, &launch, err) ||
        get_uint(o, "gpgpu_l1_latency", 20, &l1, err) ||
        get_uint(o, "gpgpu_smem_latency", 20, &smem, err) ||
        get_uint(o, "gpgpu_l2_rop_latency", 85, &rop, err) ||
        get_uint(o, "dram_latency", 30, &dlat, err) ||
        get_uint(o, "icnt_flit_size", 32, &flit, err) ||
        get_uint(o, "gpgpu_dram_buswidth", 4, &bus, err) ||
        get_uint(o, "gpgpu_n_mem_per_ctrlr", 1, &per_ctrl, err) ||
        get_uint(o, "dram_data_command_freq_ratio", 2, &ratio, err) ||
        get_uint(o, "gpgpu_n_mem", -1, &nmem, err) ||
        get_uint(o, "gpgpu_shmem_num_banks", 16, &banks, err) ||
        get_uint(o, "gpgpu_dram_scheduler", 1, &sched_kind, err) ||
        get_uint(o, "gpgpu_l1_banks", 1, &l1_banks, err) ||
        first_uint(o, "ptx_opcode_latency_int", 4, &alu, err))
        return -1;
    /* GPGPU-Sim's channel moves buswidth x chips x data:command ratio bytes per
     * DRAM (command) cycle. */
    uint64_t dram_bytes;
    if (__builtin_mul_overflow(bus * per_ctrl, ratio, &dram_bytes)) /* each 32 bits: see get_uint */
        dram_bytes = UINT64_MAX; /* refused by the config check, with its path */
    /* GPGPU-Sim's FR-FCFS scheduler (gpgpu_dram_scheduler 1) is what the
     * open-row model stands for; its FIFO scheduler (0) is the plain bus. */
    int frfcfs = sched_kind == 1;
    const struct option_value *dt = find(o, "gpgpu_dram_timing_opt");
    const char *t = dt ? dt->value : "";
    json_t *sec = json_pack(
        "{s:b, s:{s:f, s:f, s:f, s:f}, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, "
        "s:{s:I, s:I, s:I, s:I}, s:I, s:I, s:{s:b, s:I, s:I, s:I, s:I, s:I}}",
        "enabled", 0, "clocks_mhz", "core", core, "noc", noc, "l2", l2, "dram", dram,
        "issue_per_cycle", (json_int_t)(sched ? sched : 1), "kernel_launch_latency",
        (json_int_t)launch, "latency", "alu", (json_int_t)alu, "shared",
        (json_int_t)(smem ? smem : 1), "l1", (json_int_t)(l1 ? l1 : 1), "noc", (json_int_t)8,
        "l2", (json_int_t)rop, "dram", (json_int_t)dlat, "bandwidth", "noc_port_bytes",
        (json_int_t)(flit ? flit : 1), "l2_slice_bytes", (json_int_t)32,
        "dram_channel_bytes", (json_int_t)(dram_bytes ? dram_bytes : 1), "shared_bytes",
        (json_int_t)(banks ? 4 * banks : 4),
        "dram_channels", (json_int_t)nmem, "l1_banks",
        (json_int_t)l1_banks, "dram_rows", "enabled", frfcfs, "banks",
        (json_int_t)dram_timing(t, "nbk", 16), "tRCD", (json_int_t)dram_timing(t, "RCD", 12),
        "tRP", (json_int_t)dram_timing(t, "RP", 12), "CL", (json_int_t)dram_timing(t, "CL", 12),
        "tRAS", (json_int_t)dram_timing(t, "RAS", 28));
    if (!sec)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (import_units(o, sec, err) != 0) {
        json_decref(sec);
        return -1;
    }
    json_object_set_new(cfg, "timing", sec);
    return 0;
}

/* The import of paths, read from fs (NULL: the file system). */
static json_t *import(const struct gcr_files *fs, const char *const *paths, size_t npaths,
                      const char *name, struct gcr_err *err)
{
    struct options o = {0};
    json_t *cfg = NULL;
    for (size_t i = 0; i < npaths; i++)
        if (parse_file(&o, fs, paths[i], err) != 0)
            goto fail;

    uint64_t clusters = 0, cores = 0, nmem = 0, nsub = 0, cta = 0, regs = 0, shmem = 0, arch = 0;
    uint64_t flush = 0, skip = 0, memcpy_l2 = 0;
    uint64_t indexing = 0, adaptive = 0, unified = 0;
    const struct option_value *pipe, *dl1, *dl2, *mapping;
    if (get_uint(&o, "gpgpu_n_clusters", -1, &clusters, err) ||
        get_uint(&o, "gpgpu_n_cores_per_cluster", 1, &cores, err) ||
        get_uint(&o, "gpgpu_n_mem", -1, &nmem, err) ||
        get_uint(&o, "gpgpu_n_sub_partition_per_mchannel", 1, &nsub, err) ||
        get_uint(&o, "gpgpu_shader_cta", 8, &cta, err) ||
        get_uint(&o, "gpgpu_shader_registers", 8192, &regs, err) ||
        get_uint(&o, "gpgpu_shmem_size", 16384, &shmem, err) ||
        get_uint(&o, "gpgpu_coalesce_arch", 13, &arch, err) ||
        get_uint(&o, "gpgpu_flush_l1_cache", 0, &flush, err) ||
        get_uint(&o, "gpgpu_gmem_skip_L1D", 0, &skip, err) ||
        get_uint(&o, "gpgpu_perf_sim_memcpy", 1, &memcpy_l2, err) ||
        get_uint(&o, "gpgpu_memory_partition_indexing", 0, &indexing, err) ||
        get_uint(&o, "gpgpu_adaptive_cache_config", 0, &adaptive, err) ||
        required(&o, "gpgpu_shader_core_pipeline", &pipe, err) ||
        required(&o, "gpgpu_cache:dl1", &dl1, err) || required(&o, "gpgpu_cache:dl2", &dl2, err) ||
        required(&o, "gpgpu_mem_addr_mapping", &mapping, err))
        goto fail;

    unsigned threads = 0, warp = 0;
    if (sscanf(pipe->value, "%u:%u", &threads, &warp) != 2 || warp != 32 || threads < 32) {
        opt_fail(err, pipe, "expected <threads per SM>:32");
        goto fail;
    }
    if (strcmp(dl1->value, "none") == 0) {
        opt_fail(err, dl1, "a disabled L1 data cache is not supported; use "
                 "-gpgpu_gmem_skip_L1D 1 with a cache string instead");
        goto fail;
    }
    static const char *const slice_hashes[] = {"linear", "xor", "ipoly"};
    if (indexing > 2) {
        opt_fail(err, find(&o, "gpgpu_memory_partition_indexing"),
                 "only 0 (none), 1 (bitwise XOR) and 2 (IPOLY) are supported");
        goto fail;
    }
    const struct option_value *sched = find(&o, "gpgpu_scheduler");
    const char *warp_policy = "lrr";
    if (sched && strncmp(sched->value, "gto", 3) == 0)
        warp_policy = "gto";
    else if (sched && strcmp(sched->value, "lrr") != 0) {
        opt_fail(err, sched, "only the lrr and gto warp schedulers have a functional "
                 "counterpart");
        goto fail;
    }

    json_t *l1 = json_object(), *l2 = json_object();
    cfg = json_pack("{s:s, s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:{s:s, s:s}, s:o, s:o}",
                    "name", name, "comment", "", "seed", (json_int_t)1, "gpu", "sms",
                    (json_int_t)(clusters * cores), "max_ctas_per_sm", (json_int_t)cta,
                    "max_warps_per_sm", (json_int_t)(threads / 32), "shared_mem_per_sm",
                    (json_int_t)shmem, "registers_per_sm", (json_int_t)regs, "scheduling",
                    "cta_policy", "round_robin", "warp_policy", warp_policy, "l1d", l1, "l2", l2);
    if (!cfg)
        goto nomem;
    if (cache_section(dl1, l1, err) || cache_section(dl2, l2, err))
        goto fail;
    struct cache_string c1;
    parse_cache_string(dl1, &c1, err);
    /* Volta and later (coalesce arch >= 40) coalesce into 32-B sectors and
     * count one cache access per sector (SECTOR_SIZE is fixed at 32 B). */
    json_object_set_new(cfg, "coalescer",
                        json_pack("{s:i, s:i, s:s}", "line_bytes", c1.line, "sector_bytes", 32,
                                  "granularity", arch >= 40 ? "sector" : "line"));
    json_object_set_new(l1, "organization", json_string("private"));
    json_object_set_new(l1, "invalidate_at_kernel_end", json_boolean(flush != 0));
    json_object_set_new(l1, "bypass_global", json_boolean(skip != 0));
    if (adaptive) {
        const struct option_value *opts;
        json_t *list;
        if (get_uint(&o, "gpgpu_unified_l1d_size", -1, &unified, err) ||
            required(&o, "gpgpu_shmem_option", &opts, err) || kb_list(opts, &list, err))
            goto fail;
        json_object_set_new(l1, "adaptive", json_pack("{s:I, s:o}", "unified_bytes",
                                                      (json_int_t)unified * 1024,
                                                      "shmem_options_bytes", list));
    }
    uint64_t granule = 0;
    if (interleave_bytes(mapping, &granule, err) != 0)
        goto fail;
    json_object_set_new(l2, "slices", json_integer((json_int_t)(nmem * nsub)));
    json_object_set_new(l2, "interleave_bytes", json_integer((json_int_t)granule));
    json_object_set_new(l2, "slice_hash", json_string(slice_hashes[indexing]));
    json_object_set_new(l2, "prefill_memcpy", json_boolean(memcpy_l2 != 0));

    if (timing_section(&o, cfg, err) != 0)
        goto fail;

    char comment[1024];
    int used = snprintf(comment, sizeof comment, "imported by gcreplay import-config from");
    for (size_t i = 0; i < o.nfiles && used < (int)sizeof comment; i++)
        used += snprintf(comment + used, sizeof comment - (size_t)used, " %s", o.files[i]);
    json_object_set_new(cfg, "comment", json_string(comment));

    /* The result must be a config gcreplay accepts as it stands. */
    char *text = json_dumps(cfg, 0);
    char origin[512];
    snprintf(origin, sizeof origin, "%s (as imported)", o.files[0]);
    struct gcr_config check;
    int ok = text && gcr_config_parse(&check, text, origin, err) == 0;
    free(text);
    if (!ok)
        goto fail;
    gcr_config_free(&check);
    options_free(&o);
    return cfg;
nomem:
    gcr_fail(err, GCR_E_NOMEM, "out of memory");
fail:
    json_decref(cfg);
    options_free(&o);
    return NULL;
}

json_t *gcr_config_import_gpgpusim(const char *const *paths, size_t npaths, const char *name,
                                   struct gcr_err *err)
{
    return import(NULL, paths, npaths, name, err);
}

json_t *gcr_config_import_gpgpusim_memory(const struct gcr_memfile *files, size_t count,
                                          const char *name, struct gcr_err *err)
{
    struct gcr_files *fs = NULL;
    const char **paths = malloc((count ? count : 1) * sizeof *paths);
    if (!paths || gcr_files_create(&fs, files, count) != 0) {
        free(paths);
        gcr_fail(err, GCR_E_NOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        paths[i] = files[i].name;
    json_t *cfg = import(fs, paths, count, name, err);
    gcr_files_free(fs);
    free(paths);
    return cfg;
}
