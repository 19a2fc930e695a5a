/* Files held in memory, read in place of the file system.
 *
 * A trace reader (gcr_reader_open_memory_files) and the GPGPU-Sim config importer
 * (gcr_config_import_gpgpusim_memory) can read named buffers instead of files: a program that
 * has its input in memory needs no temporary file, and nothing is read from the file system.
 * Each buffer stands for the file of that name; names are paths as the files' would be
 * ("trace/kernelslist.g"), compared as strings ("a/./b" is not "a/b"). A name is a directory
 * when another file's name begins with it and a '/'. Errors name the files as they would name
 * paths, and a name that is not among them is "No such file or directory". */
#ifndef GCREPLAY_MEMFILE_H
#define GCREPLAY_MEMFILE_H

#include <stddef.h>

struct gcr_memfile {
    const char *name;
    const void *data; /* size bytes, read in place: they must outlive their reader */
    size_t size;
};

#endif
