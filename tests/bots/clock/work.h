/* Shared by the clock test bots: the protocol loop's few needs and one
 * "work unit", a fixed computation of about a quarter of a millisecond, so
 * that the work a bot reports (`info nodes N`) measures the CPU it got. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One unit of work: a chain of multiplications the compiler cannot skip. */
static uint64_t work_unit(uint64_t seed) {
    uint64_t x = seed | 1;
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* The value of `key` (e.g. "time") in a `go` line, or `fallback`. */
__attribute__((unused)) static long go_field(const char *line, const char *key, long fallback) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, " %s ", key);
    const char *at = strstr(line, pattern);
    return at ? strtol(at + strlen(pattern), NULL, 10) : fallback;
}

/* The first square of the `legal` list of a `go` line, copied into `out`. */
static void first_legal(const char *line, char out[4]) {
    const char *at = strstr(line, " legal ");
    out[0] = 0;
    if (at) {
        at += 7;
        int n = 0;
        while (n < 3 && at[n] && at[n] != ' ' && at[n] != ',' && at[n] != '\n') {
            out[n] = at[n];
            n++;
        }
        out[n] = 0;
    }
}

/* Answers the handshake; returns 0 at end of input. Each line of input that
 * is not `go` is handled here; `go` lines are returned to the caller. */
static int next_go(char *line, size_t size, const char *name) {
    while (fgets(line, (int)size, stdin)) {
        if (strncmp(line, "uttt ", 5) == 0) {
            printf("id name %s\nready\n", name);
            fflush(stdout);
        } else if (strncmp(line, "go", 2) == 0) {
            return 1;
        } else if (strncmp(line, "quit", 4) == 0) {
            return 0;
        }
    }
    return 0;
}
