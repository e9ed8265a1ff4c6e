/* A cheat: a spawner process (forked at start, before the main process
 * lowers its own priority to nice 19) starts, while a move runs, children
 * that each work about CHILD_MS ms and exit, HELPERS at a time, and reaps
 * them; the main process stays runnable in a `sched_yield` loop for RUN ms
 * of wall time. No child is alive for long, so a reading of the process
 * tree rarely finds one, and a reaped child's time is in no live task's
 * counters. The children's units come back through a shared page.
 * Usage: children HELPERS RUN_MS CHILD_MS [TAG] (a test's tag, unused). */
#include "work.h"
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct shared {
    volatile int working;
    volatile long units;
};

static void spawner(struct shared *s, int helpers, double child_ms) {
    int alive = 0;
    while (s->working >= 0) {
        if (!s->working) {
            while (alive > 0 && waitpid(-1, NULL, WNOHANG) > 0) alive--;
            usleep(200);
            continue;
        }
        while (alive < helpers) {
            pid_t child = fork();
            if (child == 0) {
                uint64_t acc = (uint64_t)getpid();
                double born = now_ms();
                while (now_ms() - born < child_ms) {
                    acc += work_unit(acc);
                    __atomic_add_fetch(&s->units, 1, __ATOMIC_RELAXED);
                }
                _exit((int)(acc & 0));
            }
            if (child < 0) break;
            alive++;
        }
        if (waitpid(-1, NULL, 0) > 0) alive--;
    }
    _exit(0);
}

int main(int argc, char **argv) {
    int helpers = argc > 1 ? atoi(argv[1]) : 2;
    long run_ms = argc > 2 ? atol(argv[2]) : 1500;
    double child_ms = argc > 3 ? atof(argv[3]) : 3.0;
    if (helpers < 1 || helpers > 64) helpers = 2;
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) return 1;
    memset((void *)s, 0, sizeof *s);
    if (fork() == 0) {
        close(0);
        close(1);
        spawner(s, helpers, child_ms);
    }
    setpriority(PRIO_PROCESS, 0, 19);
    char line[8192];
    while (next_go(line, sizeof line, "cheat-children")) {
        long before = s->units;
        s->working = 1;
        double start = now_ms();
        while (now_ms() - start < (double)run_ms) sched_yield();
        s->working = 0;
        char sq[4];
        first_legal(line, sq);
        printf("info nodes %ld\n%s\n", s->units - before, sq);
        fflush(stdout);
    }
    s->working = -1;
    return 0;
}
