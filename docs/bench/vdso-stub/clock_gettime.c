// The C reference points for exact mode: ns per call of the vDSO's clock_gettime(CLOCK_MONOTONIC)
// through glibc, of a bare rdtscp and of a bare rdtsc, interleaved in one run. Build and run (development
// aid; the product compiles nothing):  gcc -O2 -o /tmp/cg clock_gettime.c && /tmp/cg
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

#define N 20000000L

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void) {
    volatile uint64_t sink = 0;
    for (int round = 0; round < 5; round++) {
        struct timespec ts;
        unsigned aux;
        double t0 = now();
        for (long i = 0; i < N; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); sink += ts.tv_nsec; }
        double t1 = now();
        for (long i = 0; i < N; i++) { sink += __rdtscp(&aux); }
        double t2 = now();
        for (long i = 0; i < N; i++) { sink += __rdtsc(); }
        double t3 = now();
        printf("round %d: clock_gettime(MONOTONIC) %.2f ns, rdtscp %.2f ns, rdtsc %.2f ns\n", round,
               (t1 - t0) / N, (t2 - t1) / N, (t3 - t2) / N);
    }
    return (int) (sink & 0);
}
