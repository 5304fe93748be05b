// How far a thread's own data is after it sleeps: a dependent walk through a random cycle of
// cache lines, timed straight after the previous walk and after a sleep of each length.
//
//   cc -O2 -o /tmp/cache-after-sleep docs/models/cache-after-sleep.c && /tmp/cache-after-sleep
//
// Each load waits for the one before, so misses do not overlap: the time per line is the latency
// of wherever the lines are. On a machine whose caches keep a sleeping thread's lines, every row
// reads alike. `segments-bench run fanout-sweep` measures the same in Swift
// (`floor.cacheLineHotNs`, `floor.cacheLineAfterIdleNs`) for the sparse checks' idle time.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

enum { LINES = 256, ROUNDS = 200 };

int main(void) {
    void **lines = aligned_alloc(64, LINES * 64);
    int order[LINES];
    for (int i = 0; i < LINES; i++) order[i] = i;
    srand(1);
    for (int i = LINES - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    // Each line's first word points at the next line of the shuffled order.
    for (int i = 0; i < LINES; i++) lines[order[i] * 8] = &lines[order[(i + 1) % LINES] * 8];
    const long sleeps_us[] = {0, 50, 200, 1000, 2000, 7000, 20000};
    void **p = &lines[order[0] * 8];
    for (unsigned s = 0; s < sizeof sleeps_us / sizeof *sleeps_us; s++) {
        uint64_t times[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            if (sleeps_us[s] > 0) usleep((useconds_t)sleeps_us[s]);
            uint64_t start = now_ns();
            for (int i = 0; i < LINES; i++) p = (void **)*p;
            times[round] = now_ns() - start;
        }
        qsort(times, ROUNDS, sizeof *times, compare);
        printf("after %6ld us asleep: %6.1f ns per line (p50 of %d walks of %d lines)\n", sleeps_us[s],
               (double)times[ROUNDS / 2] / LINES, ROUNDS, LINES);
    }
    return p == NULL;
}
