/* npusim: the two helpers npusim's okk.h adds, for a kernel linked against Sophgo's C-model
   (the differential route, cmodel_route.py). Everything else comes from libcmodel/libbackend. */
#define OKK_NO_SOURCE_MACROS
#include "okk.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void okk_log_at(const char *file, int line, const char *format, ...) {
    va_list ap;
    (void)file;
    (void)line;
    va_start(ap, format);
    vprintf(format, ap);
    va_end(ap);
}

void okk_assert_fail_at(const char *file, int line, const char *func, const char *assertion) {
    printf("%s:%d: %s: Assertion \"%s\" failed.\n", file, line, func, assertion);
    fflush(stdout);
    abort();
}
