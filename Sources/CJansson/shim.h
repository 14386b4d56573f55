#include <jansson.h>

/* Function-like macros of jansson.h that Swift cannot import. */
static inline json_type cjansson_typeof(const json_t *json) { return json_typeof(json); }
