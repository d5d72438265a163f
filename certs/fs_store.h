#ifndef WH_CERTS_FS_STORE_H
#define WH_CERTS_FS_STORE_H

/* The certificate directory (spec certs.md §7 and §9): reading and writing a bundle as the
 * six files of CERT-45 in the atomic layout of CERT-47, and the file-system writer's sync
 * (CERT-39): keep the stored set while it is valid, otherwise generate a new CA and serving
 * certificate and publish them.
 *
 * Files written (all through symlinks dir/<name> -> ..data/<name>):
 *   ca-cert.pem, cert.pem, tls.crt  mode 0644
 *   ca-key.pem, key.pem, tls.key    mode 0600
 * Upstream writes all six 0666 (with a TODO to tighten it); private keys readable by every
 * local user are not something to keep. cert.pem/tls.crt and key.pem/tls.key hold the same
 * bytes. The HTTPS server reads tls.crt + tls.key (or cert.pem + key.pem), the readiness check
 * ca-cert.pem.
 *
 * Thread rule: writes and syncs to one directory must be serialised by the caller (one
 * controller thread); reads may run at any time from any thread. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "certs/bundle.h"
#include "certs/keypair.h"
#include "certs/verify.h"
#include "util/err.h"

#define WH_CERTS_FILE_CA_KEY "ca-key.pem"
#define WH_CERTS_FILE_CA_CERT "ca-cert.pem"
#define WH_CERTS_FILE_CERT "cert.pem"
#define WH_CERTS_FILE_KEY "key.pem"
#define WH_CERTS_FILE_TLS_CRT "tls.crt"
#define WH_CERTS_FILE_TLS_KEY "tls.key"
#define WH_CERTS_CERT_MODE 0644
#define WH_CERTS_KEY_MODE 0600

/* CERT-39 "exists": all six names resolve (stat follows symlinks, so a broken link is
 * missing). *all_present false is not an error; WH_ERR_IO for other stat failures. */
WH_NODISCARD enum wh_err wh_certs_fs_exists(const char *dir, bool *all_present,
                                            struct wh_errbuf *eb);

/* A cheap summary of what the six names resolve to now (device, inode, size, mtime, mode;
 * a missing name counts as zeros): it changes when anything replaces, rewrites or deletes
 * them, so a watcher compares it with the value taken after its own write instead of reading
 * the files. */
uint64_t wh_certs_fs_fingerprint(const char *dir);

/* Reads ca-key.pem, ca-cert.pem, cert.pem and key.pem from one generation of dir (see
 * wh_certs_atomic_dir_read). WH_ERR_NOT_FOUND when any of the six CERT-45 names is missing
 * (CERT-39); WH_ERR_TOO_BIG when a file exceeds WH_CERTS_PEM_MAX; WH_ERR_IO.
 * Returns: a new bundle in *out. */
WH_NODISCARD enum wh_err wh_certs_fs_read(const char *dir, struct wh_certs_bundle **out,
                                          struct wh_errbuf *eb);

/* For the HTTPS server: tls.crt and tls.key from one generation, falling back to cert.pem and
 * key.pem when the tls.* pair is absent. Both buffers are new (caller frees; wipe the key).
 * Reading both through one resolution of ..data is what keeps a reload from pairing an old
 * certificate with a new key. */
WH_NODISCARD enum wh_err wh_certs_fs_read_serving(const char *dir, char **cert, size_t *cert_len,
                                                  char **key, size_t *key_len,
                                                  struct wh_errbuf *eb);

/* Publishes b in dir (CERT-45..47): creates dir with its parents when missing (0777 before
 * umask, CERT-46), moves entries with the six names that are not symlinks aside as
 * "<name>.orig-<UTC time>" (CERT-46 deletes them; they may be the user's), then writes
 * atomically; nothing is written when the directory already holds exactly these bytes and
 * modes. b must have its four items. *changed (may be NULL) says whether a new generation
 * was published. WH_ERR_INVALID for an incomplete bundle, WH_ERR_IO otherwise. */
WH_NODISCARD enum wh_err wh_certs_fs_write(const char *dir, const struct wh_certs_bundle *b,
                                           bool *changed, struct wh_errbuf *eb);

struct wh_certs_fs_sync_opts {
    const char *dir;               /* WEBHOOK_CERT_DIR */
    struct wh_certs_target target; /* gives dnsName (CERT-10) and the SANs */
    struct wh_certs_gen_opts gen;  /* gen.now is also the clock of the validity check */
    int64_t renew_before_secs;     /* CERT-03 */
};

struct wh_certs_fs_sync_result {
    struct wh_certs_bundle *bundle; /* new: what dir now holds (its CA is the caBundle) */
    bool generated;                 /* a new CA and serving certificate were made */
    bool changed;                   /* a new generation was published in dir */
    enum wh_certs_verdict verdict;  /* the stored set as found (WH_CERTS_VALID when kept) */
    bool user_owned;                /* a pair without a CA key: served, never written */
    char reason[256];               /* the verdict in words */
};

/* One sync of the file-system writer (CERT-39 with CERT-40, then CERT-45..47): read dir;
 * if a name is missing or the set is invalid for dnsName at now + renew margin, generate a
 * brand-new CA and serving certificate (the fs writer never reuses the CA); publish. The
 * standalone server calls this at start-up and then periodically. Logs what it did.
 * Two departures from CERT-39, so that no user file is ever lost:
 *  - dir holding a serving pair (tls.crt/tls.key or cert.pem/key.pem) and no (or an empty)
 *    ca-key.pem is the user's own: it is checked, the verdict logged and put in res
 *    (user_owned, verdict, reason; bundle NULL), and nothing is written, valid or not;
 *  - before a regeneration replaces files, each is kept beside as "<name>.orig-<UTC time>".
 * Returns: res->bundle new (release with wh_certs_fs_sync_result_fini) on success. */
WH_NODISCARD enum wh_err wh_certs_fs_sync(const struct wh_certs_fs_sync_opts *o,
                                          struct wh_certs_fs_sync_result *res,
                                          struct wh_errbuf *eb);
void wh_certs_fs_sync_result_fini(struct wh_certs_fs_sync_result *res);

#endif
