#ifndef CATSPI_SHIM_H
#define CATSPI_SHIM_H
#include <atspi/atspi.h>
#endif
