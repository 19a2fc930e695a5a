/* Files by name, for readers: the file system, or a set of files held in memory.
 *
 * A reader is given a set with its path, and opens the path and every file the path names
 * through these calls with that set. NULL is the file system: stat(2) and fopen(3) as they are.
 * A set answers from its buffers only, never from the file system (gcreplay/memfile.h), and
 * fails as those calls would, with errno ENOENT for a name it lacks, so that messages built
 * with strerror(errno) read the same for both. */
#ifndef GCREPLAY_IO_FILES_H
#define GCREPLAY_IO_FILES_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gcreplay/memfile.h"

struct gcr_files;

/* A set of the given files. Their names and the array are copied, the data is not. Returns 0,
 * or -1 with errno ENOMEM. */
int gcr_files_create(struct gcr_files **out, const struct gcr_memfile *files, size_t count);
void gcr_files_free(struct gcr_files *fs);

/* The file of the set with that name, or NULL (for a directory too). */
const struct gcr_memfile *gcr_files_find(const struct gcr_files *fs, const char *path);

/* stat(2). A set's file is a read-only regular file of its size; a directory of the set, a
 * read-only directory. */
int gcr_files_stat(const struct gcr_files *fs, const char *path, struct stat *st);

/* fopen(path, "rb"); for a set, a stream reading the file's buffer. NULL with errno. */
FILE *gcr_files_fopen(const struct gcr_files *fs, const char *path);

#endif
