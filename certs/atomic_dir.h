#ifndef WH_CERTS_ATOMIC_DIR_H
#define WH_CERTS_ATOMIC_DIR_H

/* The kubelet "atomic writer" directory layout (spec certs.md CERT-47), so that readers never
 * see a mix of two generations of files:
 *
 *   dir/..2026_07_01_10_00_00.Ab12Cd/   one generation: the real files, dir mode 0755
 *   dir/..data -> ..2026_07_01_10_00_00.Ab12Cd   switched with rename(2), the commit point
 *   dir/<name> -> ..data/<name>         one visible symlink per file
 *
 * A write makes a new generation directory, fsyncs its files, then renames a "..data_tmp"
 * symlink over "..data"; afterwards it removes visible names that left the payload, the
 * previous generation and generation directories abandoned by a crashed writer.
 * Thread rule: one writer per directory at a time (callers serialise; several processes
 * writing one directory are not supported, as with kubelet). Readers may run concurrently
 * with a writer, in this process or others. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

struct wh_certs_atomic_file {
    const char *name; /* a plain name: no '/', not empty, not starting with '.' */
    const void *data;
    size_t len;
    mode_t mode; /* applied with fchmod, so the umask does not matter */
};

/* Publishes files as the new content of dir (which must exist). When the current generation
 * already holds exactly these names with identical bytes and modes, nothing is written and
 * *changed (may be NULL) is false; visible symlinks are (re)created either way. Visible names
 * that exist but are not symlinks make the write fail (WH_ERR_IO): removing foreign files is
 * the caller's decision. On failure before the switch the previous generation stays
 * visible and the new directory is removed; failures in the clean-up after the switch are
 * only logged. */
WH_NODISCARD enum wh_err wh_certs_atomic_dir_write(const char *dir,
                                                   const struct wh_certs_atomic_file *files,
                                                   size_t n, bool *changed, struct wh_errbuf *eb);

/* Reads names[0..n) from one generation: "..data" is resolved once and every file is read
 * below that target, retrying (a few times) when a writer switches generations meanwhile.
 * Without "..data" (a directory written by some other tool) the plain names are read, and so
 * is any name that is not the layout's own link (a file renamed over it is what is served).
 * Each result is a new NUL-terminated buffer (caller frees; out_data[i] NULL on failure),
 * at most cap bytes. WH_ERR_NOT_FOUND when a file is missing, WH_ERR_TOO_BIG, WH_ERR_IO. */
WH_NODISCARD enum wh_err wh_certs_atomic_dir_read(const char *dir, const char *const *names,
                                                  size_t n, size_t cap, char **out_data,
                                                  size_t *out_len, struct wh_errbuf *eb);

#endif
