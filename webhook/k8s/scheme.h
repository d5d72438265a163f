#ifndef WH_K8S_SCHEME_H
#define WH_K8S_SCHEME_H

/* The kinds kruise-manager's runtime.Scheme knows, by group version (client-go's built-in types,
 * kruise's apps and policy groups, meta.k8s.io's options): what its decoders can create. The
 * table is webhook/k8s/scheme.txt, written by `kwh-oracle scheme` from upstream's own scheme
 * (make diff checks it is still that). Thread rule: immutable; thread-safe. */

#include <stdbool.h>
#include <stddef.h>

/* The scheme's name in its errors: kruise-manager makes it at line 75 of its main.go. */
#define WH_SCHEME_NAME "main.go:75"

/* True when group/version (slices; group "" for the core group) has kind. */
bool wh_scheme_registered(const char *group, size_t glen, const char *version, size_t vlen,
                          const char *kind);

#endif
