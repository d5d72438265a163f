#ifndef WH_UTIL_UUID_H
#define WH_UTIL_UUID_H

/* Random UUIDs (RFC 4122 version 4) from the kernel's CSPRNG, as Go's uuid.NewUUID text:
 * 36 lower-case characters, "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx" with V one of 8, 9, a, b.
 * Thread rule: thread-safe. */

#define WH_UUID_LEN 36

/* Writes a new UUID and its NUL into out. Aborts when the kernel has no randomness to give,
 * which only a broken system does: a predictable id would let two Pods share one. */
void wh_uuid_v4(char out[WH_UUID_LEN + 1]);

#endif
