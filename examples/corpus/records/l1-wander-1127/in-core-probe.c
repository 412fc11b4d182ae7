// Four small probes of the calling core, printed on one line with the time: a dependent add chain
// (ns a step), ten independent FMA chains of 4 doubles (Gflop/s), an update c[j] += a b[j] over
// 4 KiB (GB/s, 24 B a point) and a read of 16 KiB with eight vector accumulators (GB/s). Does the
// blocked multiply's own time follow the core's clock, its FMA units or its first cache?
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef double v4 __attribute__((vector_size(32)));
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double add_chain(long n) {
  double x = 1e-9, d = 1e-12;
  double t0 = now();
  for (long i = 0; i < n; ++i) {
    x += d;
    __asm__ volatile("" : "+x"(x));
  }
  double t = now() - t0;
  if (x < 0) puts("");
  return t / n * 1e9;
}
static double fma_tp(long steps) {
  v4 m = {1.0000001, 1.0000001, 1.0000001, 1.0000001}, a = {1e-9, 1e-9, 1e-9, 1e-9};
  v4 c0 = a, c1 = a + 1, c2 = a + 2, c3 = a + 3, c4 = a + 4, c5 = a + 5, c6 = a + 6, c7 = a + 7,
     c8 = a + 8, c9 = a + 9;
  double t0 = now();
  for (long i = 0; i < steps; ++i) {
#define S(c) c = c * m + a;
    S(c0)
    S(c1) S(c2) S(c3) S(c4) S(c5) S(c6) S(c7) S(c8)
        S(c9) __asm__ volatile(""
                               : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5),
                                 "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9));
  }
  double t = now() - t0;
  double s = c0[0] + c1[0] + c2[0] + c3[0] + c4[0] + c5[0] + c6[0] + c7[0] + c8[0] + c9[0];
  if (s < 0) puts("");
  return steps * 80.0 / t / 1e9;
}
static double l1_axpy(double* c, const double* b, int n, long reps) {
  double t0 = now();
  for (long r = 0; r < reps; ++r) {
    double a = 1e-9 * (r & 7);
    for (int j = 0; j < n; ++j) c[j] += a * b[j];
    __asm__ volatile("" ::: "memory");
  }
  double t = now() - t0;
  return reps * (double)n * 24 / t / 1e9;
}
static double l1_read(const double* b, int n, long reps) {
  double t0 = now();
  v4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
  for (long r = 0; r < reps; ++r) {
    const v4* v = (const v4*)b;
    for (int j = 0; j < n / 4; j += 8) {
      s0 += v[j];
      s1 += v[j + 1];
      s2 += v[j + 2];
      s3 += v[j + 3];
      s4 += v[j + 4];
      s5 += v[j + 5];
      s6 += v[j + 6];
      s7 += v[j + 7];
    }
    __asm__ volatile(""
                     : "+x"(s0), "+x"(s1), "+x"(s2), "+x"(s3), "+x"(s4), "+x"(s5), "+x"(s6),
                       "+x"(s7)::"memory");
  }
  double t = now() - t0;
  if (s0[0] + s1[0] + s2[0] + s3[0] < -1) puts("");
  return reps * (double)n * 8 / t / 1e9;
}
int main(void) {
  int n = 512;
  double *b = aligned_alloc(64, n * 8), *c = aligned_alloc(64, n * 8);
  for (int i = 0; i < n; ++i) {
    b[i] = i;
    c[i] = 0;
  }
  double* r = aligned_alloc(64, 2048 * 8);
  for (int i = 0; i < 2048; ++i) r[i] = i;
  double rd = l1_read(r, 2048, 100000);
  double al = add_chain(50000000), ft = fma_tp(10000000), l1 = l1_axpy(c, b, n, 200000);
  printf("%.3f add_ns %.4f fma_gflops %.1f l1axpy_GBs %.1f l1read_GBs %.1f\n", now(), al, ft, l1,
         rd);
  return c[3] < 0;
}
