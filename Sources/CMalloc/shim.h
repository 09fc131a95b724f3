#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

/* glibc's malloc tuning (mallopt), which the Glibc module does not include. No logic. */
#include <malloc.h>

#endif /* CMALLOC_SHIM_H */
