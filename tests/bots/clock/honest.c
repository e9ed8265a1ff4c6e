/* An honest one-thread bot: work units until 80% of the move's `time` has
 * passed by the wall clock, then the first legal square, with the units done
 * as `info nodes N`. Usage: honest [TAG] (a test's tag, unused). */
#include "work.h"

int main(void) {
    char line[8192];
    uint64_t acc = 0;
    while (next_go(line, sizeof line, "honest-c")) {
        double start = now_ms();
        double budget = (double)go_field(line, "time", 100) * 0.8;
        long units = 0;
        while (now_ms() - start < budget) {
            acc += work_unit(acc + (uint64_t)units);
            units++;
        }
        char sq[4];
        first_legal(line, sq);
        printf("info nodes %ld\n%s\n", units, sq);
        fflush(stdout);
    }
    return (int)(acc & 0);
}
