/* Files by name, from the file system or from memory; see files.h. */
#include "io/files.h"

#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct gcr_files {
    size_t count;
    struct gcr_memfile files[]; /* their names follow the array, in the same allocation */
};

int gcr_files_create(struct gcr_files **out, const struct gcr_memfile *files, size_t count)
{
    *out = NULL;
    size_t names = 0;
    for (size_t i = 0; i < count; i++)
        names += strlen(files[i].name) + 1;
    if (count > (SIZE_MAX - sizeof(struct gcr_files) - names) / sizeof files[0]) {
        errno = ENOMEM;
        return -1;
    }
    struct gcr_files *fs = malloc(sizeof *fs + count * sizeof files[0] + names);
    if (!fs)
        return -1;
    char *name = (char *)&fs->files[count];
    fs->count = count;
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(files[i].name) + 1;
        fs->files[i] = files[i];
        fs->files[i].name = memcpy(name, files[i].name, n);
        name += n;
    }
    *out = fs;
    return 0;
}

void gcr_files_free(struct gcr_files *fs) { free(fs); }

const struct gcr_memfile *gcr_files_find(const struct gcr_files *fs, const char *path)
{
    for (size_t i = 0; i < fs->count; i++)
        if (strcmp(fs->files[i].name, path) == 0)
            return &fs->files[i];
    return NULL;
}

/* Whether some file's name is path followed by a '/' and more. */
static bool is_directory(const struct gcr_files *fs, const char *path)
{
    size_t n = strlen(path);
    if (n == 0)
        return false;
    bool slash = path[n - 1] == '/';
    for (size_t i = 0; i < fs->count; i++) {
        const char *name = fs->files[i].name;
        if (strncmp(name, path, n) == 0 && (slash ? name[n] != '\0' : name[n] == '/'))
            return true;
    }
    return false;
}

int gcr_files_stat(const struct gcr_files *fs, const char *path, struct stat *st)
{
    if (!fs)
        return stat(path, st);
    memset(st, 0, sizeof *st);
    const struct gcr_memfile *f = gcr_files_find(fs, path);
    if (f) {
        st->st_mode = S_IFREG | 0444;
        st->st_size = (off_t)f->size;
        return 0;
    }
    if (is_directory(fs, path)) {
        st->st_mode = S_IFDIR | 0555;
        return 0;
    }
    errno = ENOENT;
    return -1;
}

FILE *gcr_files_fopen(const struct gcr_files *fs, const char *path)
{
    if (!fs)
        return fopen(path, "rb");
    const struct gcr_memfile *f = gcr_files_find(fs, path);
    if (!f) {
        errno = is_directory(fs, path) ? EISDIR : ENOENT;
        return NULL;
    }
    /* fmemopen wants a buffer even for no bytes; it never writes in mode "r". */
    static char no_bytes[1];
    return fmemopen(f->size ? (void *)f->data : no_bytes, f->size, "r");
}
