/*
 * Cost of seqlock-read variants beyond the bare ordered counter read, in ns per call, on this machine.
 * Each variant is a flat binary (objcopy -O binary of one of the .s files here) copied into executable
 * memory and called as int64_t f(page, record, limit_select) in a loop whose result feeds a sum, the way a
 * JMH loop consumes it. The baseline, rdtscp; shl; or; ret, is the product's counter read. Runs are
 * interleaved (baseline, then each variant, 400 times over) and each variant's figure is the median of its
 * per-run difference to the baseline of the same run, because this shared machine drifts.
 * The page has huge limits and an even seq, so every variant takes its fast path.
 * Measurement tool only: the product never compiles or runs C.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef long (*read3)(long, long, long);
typedef long (*read0)(void);

enum { RUNS = 400, CALLS = 2000000, MAX_VARIANTS = 16 };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int n = argc - 1;
    if (n < 1 || n > MAX_VARIANTS) {
        fprintf(stderr, "usage: harness variant.bin...\n");
        return 2;
    }
    unsigned char *code = mmap(NULL, 1024 * (n + 1), PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    static const unsigned char counter[] = {0x0f, 0x01, 0xf9, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};
    memcpy(code, counter, sizeof counter);
    read3 variant[MAX_VARIANTS];
    for (int v = 0; v < n; v++) {
        FILE *f = fopen(argv[v + 1], "rb");
        if (!f || fread(code + 1024 * (v + 1), 1, 1024, f) == 0) {
            fprintf(stderr, "cannot read %s\n", argv[v + 1]);
            return 1;
        }
        fclose(f);
        variant[v] = (read3) (code + 1024 * (v + 1));
    }
    read0 base = (read0) code;
    static uint64_t page[64] __attribute__((aligned(64)));
    uint64_t *record = page + 8;
    page[0] = 2;                 /* seq: even */
    record[1] = 0x123456789ULL;  /* mult' */
    record[4] = ~0ULL >> 1;      /* fresh limit */
    record[5] = ~0ULL >> 1;      /* any limit */
    static double diff[MAX_VARIANTS][RUNS];
    volatile long sink = 0;
    for (int r = 0; r < RUNS; r++) {
        long sum = 0;
        double t0 = now_ns();
        for (long i = 0; i < CALLS; i++) sum += base();
        double baseline = (now_ns() - t0) / CALLS;
        for (int v = 0; v < n; v++) {
            double t1 = now_ns();
            for (long i = 0; i < CALLS; i++) sum += variant[v]((long) page, (long) record, 8);
            diff[v][r] = (now_ns() - t1) / CALLS - baseline;
        }
        sink += sum;
    }
    for (int v = 0; v < n; v++) {
        qsort(diff[v], RUNS, sizeof(double), by_value);
        printf("%-28s +%.2f ns (p25 %+.2f, p75 %+.2f)\n", argv[v + 1], diff[v][RUNS / 2], diff[v][RUNS / 4],
               diff[v][3 * RUNS / 4]);
    }
    return 0;
}
