// mallopt(3) and its M_* parameters (M_ARENA_MAX), for POSIXThreads' MallocArenas: glibc's
// <malloc.h>, which Swift's Glibc module does not export. libc's, so nothing is linked.
#include <malloc.h>
