// Do two vCPUs share one core? Runs a chain-parallel FMA loop on cpu 0 alone, then on cpu 0 and
// cpu k at once for every k, and prints each one's rate over its rate alone. Two hardware threads
// of one core share its FMA units: each then gets about half; two cores get about all.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef double v4 __attribute__((vector_size(32)));
enum { CHAINS = 10 };
static long steps = 40000000;
static pthread_barrier_t start;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct job { int cpu; double rate; double sink; };

static void* run(void* arg) {
  struct job* j = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  v4 m = {1.0000001, 1.0000001, 1.0000001, 1.0000001}, a = {1e-9, 1e-9, 1e-9, 1e-9};
  v4 c0 = a, c1 = a + 1, c2 = a + 2, c3 = a + 3, c4 = a + 4, c5 = a + 5, c6 = a + 6, c7 = a + 7,
     c8 = a + 8, c9 = a + 9;
  pthread_barrier_wait(&start);
  double t0 = now();
  for (long i = 0; i < steps; ++i) {
#define STEP(c) c = c * m + a;
    STEP(c0) STEP(c1) STEP(c2) STEP(c3) STEP(c4) STEP(c5) STEP(c6) STEP(c7) STEP(c8) STEP(c9)
    __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5), "+x"(c6),
                     "+x"(c7), "+x"(c8), "+x"(c9));
  }
  double t = now() - t0;
  j->rate = (double)steps * CHAINS * 8 / t / 1e9;  // Gflop/s (4 lanes, 2 flops)
  double s = 0;
  s = c0[0] + c1[0] + c2[0] + c3[0] + c4[0] + c5[0] + c6[0] + c7[0] + c8[0] + c9[0];
  j->sink = s;
  return NULL;
}

static void together(struct job* jobs, int n) {
  pthread_t t[256];
  pthread_barrier_init(&start, NULL, n);
  for (int i = 0; i < n; ++i) pthread_create(&t[i], NULL, run, &jobs[i]);
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
}

int main(int argc, char** argv) {
  int cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (argc > 1) steps = atol(argv[1]);
  struct job solo = {0};
  together(&solo, 1);
  printf("cpus %d; cpu 0 alone %.1f Gflop/s\n", cpus, solo.rate);
  for (int k = 1; k < cpus; ++k) {
    struct job pair[2] = {{0}, {k}};
    together(pair, 2);
    printf("cpu 0 with cpu %2d: %.2f and %.2f of alone\n", k, pair[0].rate / solo.rate,
           pair[1].rate / solo.rate);
  }
  struct job all[256];
  for (int i = 0; i < cpus; ++i) all[i] = (struct job){i};
  together(all, cpus);
  double sum = 0, lo = 1e30;
  for (int i = 0; i < cpus; ++i) { sum += all[i].rate; if (all[i].rate < lo) lo = all[i].rate; }
  printf("all %d at once: %.1f Gflop/s in all, %.2f times one alone; slowest %.2f of alone\n",
         cpus, sum, sum / solo.rate, lo / solo.rate);
  return 0;
}
