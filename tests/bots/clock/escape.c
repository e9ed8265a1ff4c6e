/* A cheat: at start it double-forks helpers that leave its process tree
 * (their parent exits: they are
 * reparented to init), sharing a page with it, then lowers its own
 * priority (nice 19, allowed to any process). At every `go` the helpers work
 * while the main process stays runnable in a `sched_yield` loop — beside
 * the helpers it gets almost no CPU, so its time reads as "waiting for a
 * CPU" — for RUN ms of wall time; then it answers with the helpers' units as
 * `info nodes N`. With `ponder` the helpers work all the time, the
 * opponent's included, and the units since its previous reply are reported.
 * Usage: escape HELPERS RUN_MS steady|ponder [TAG] (a test's tag, unused). */
#include "work.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
    volatile int working;
    volatile long units[64];
};

static void helper(struct shared *s, int index) {
    uint64_t acc = (uint64_t)index;
    while (s->working >= 0) {
        if (s->working) {
            acc += work_unit(acc);
            __atomic_add_fetch(&s->units[index], 1, __ATOMIC_RELAXED);
        } else {
            usleep(200);
        }
    }
    _exit((int)(acc & 0));
}

int main(int argc, char **argv) {
    int helpers = argc > 1 ? atoi(argv[1]) : 2;
    long run_ms = argc > 2 ? atol(argv[2]) : 1500;
    int ponder = argc > 3 && strcmp(argv[3], "ponder") == 0;
    if (helpers < 1 || helpers > 64) helpers = 2;
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) return 1;
    memset((void *)s, 0, sizeof *s);
    for (int i = 0; i < helpers; i++) {
        pid_t child = fork();
        if (child == 0) {
            if (fork() == 0) {
                close(0);
                close(1);
                helper(s, i);
            }
            _exit(0);
        }
        if (child > 0) waitpid(child, NULL, 0);
    }
    setpriority(PRIO_PROCESS, 0, 19);
    char line[8192];
    long before = 0;
    s->working = ponder;
    while (next_go(line, sizeof line, "cheat-escape")) {
        long after = 0;
        if (!ponder) {
            before = 0;
            for (int i = 0; i < helpers; i++) before += s->units[i];
        }
        s->working = 1;
        double start = now_ms();
        while (now_ms() - start < (double)run_ms) sched_yield();
        s->working = ponder;
        for (int i = 0; i < helpers; i++) after += s->units[i];
        char sq[4];
        first_legal(line, sq);
        printf("info nodes %ld\n%s\n", after - before, sq);
        fflush(stdout);
        before = after;
    }
    s->working = -1;
    return 0;
}
