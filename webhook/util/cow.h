#ifndef WH_UTIL_COW_H
#define WH_UTIL_COW_H

/* Copy-on-write editing of JSON trees: the one editor for changing a value that shares parts
 * with the request, a cache or a conversion source. The tree being edited has a private root
 * (wh_cow_root). A container in it is private when its refcount is 1 and its parent is private:
 * nothing else can reach it. Any other container is shared -- with the request, with a frozen
 * cached object, with another place in the tree -- and is replaced by a shallow copy of itself
 * before it is changed; the values below it stay shared until they are changed in turn. So an
 * edit costs copies of the containers on the edited paths only, and shared values are never
 * changed.
 * Rule for callers: change only containers these functions returned (or values you created),
 * never one reached with plain json_object_get from an unowned parent.
 * Thread rule: a tree being edited belongs to one thread; shared values may be read by others. */

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Returns: new ref, a private shallow copy of v when it is an object or an array, else {}. */
json_t *wh_cow_root(const json_t *v);

/* True when container v (in a tree whose every ancestor of v is private) is private. */
bool wh_cow_private(const json_t *v);

/* Returns: borrowed; member key of obj (private), made private. When the member is missing, or
 * is not an object (array for _array), it becomes a new empty one if create, else NULL. */
json_t *wh_cow_object(json_t *obj, const char *key, bool create);
json_t *wh_cow_array(json_t *obj, const char *key, bool create);

/* Returns: borrowed; element i of arr (private) made private, or NULL when it is not an object
 * or an array. */
json_t *wh_cow_elem(json_t *arr, size_t i);

/* Returns: borrowed; member key of obj (private) made private whatever container it is (object
 * or array), or NULL when it is missing or not a container; never created. For an edit that
 * follows the shape of another value (conversion walks the source and edits the copy), which
 * checks the type itself. */
json_t *wh_cow_member(json_t *obj, const char *key);

/* Returns: borrowed; the object at the path of member names (NULL-terminated) under root
 * (private), each step made private, missing or mistyped steps created as {}. */
json_t *wh_cow_path(json_t *root, ...);

/* The same for the names ap holds (NULL-terminated), for functions that take such a path. */
json_t *wh_cow_vpath(json_t *root, va_list ap);

/* The same for the n member names keys; missing or mistyped steps are created as {} when
 * create, else the answer is NULL. */
json_t *wh_cow_keys(json_t *root, const char *const *keys, size_t n, bool create);

#endif
