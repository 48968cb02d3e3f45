/* A minimal test harness: CHECK(cond) records a failure with its line; tests end with DONE(). */
#ifndef DD_CHECK_H
#define DD_CHECK_H

#include <stdio.h>
#include <string.h>

static int dd_checks = 0;
static int dd_failures = 0;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        dd_checks++;                                                                     \
        if (!(cond)) {                                                                   \
            dd_failures++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0)

#define DONE(name)                                                                       \
    do {                                                                                 \
        printf("%s: %d checks, %d failed\n", (name), dd_checks, dd_failures);            \
        return dd_failures == 0 ? 0 : 1;                                                 \
    } while (0)

#endif
