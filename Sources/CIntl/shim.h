// glibc's message catalogs (dgettext, dngettext, bindtextdomain), which Swift's Glibc module does
// not expose. They are part of libc itself: nothing to link.
#include <libintl.h>
