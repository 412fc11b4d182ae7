/*
 * lat_mem_rd_like: an lmbench-style memory load latency reference, to check sonde's pointer chase
 * against a measurement that shares none of its code (no Google Benchmark, no sonde kernel, no
 * sonde permutation, plain C).
 *
 * lmbench 3 is not packaged by Debian, so this file re-implements the method of its lat_mem_rd
 * (described in lmbench 3's lib_mem.c, line_initialize, and lat_mem_rd.c): the chain visits every
 * line of a page before it moves on; the lines of a page are taken in bit-reversed order; the pages
 * in a random order; one pointer per line; the timed loop is a hundred unrolled `p = *p` loads,
 * repeated until a try lasts long enough; the result is the median of eleven tries, in ns per load.
 * With -p, the lines of each page are taken in a random order instead of the bit-reversed one (the
 * pattern of sonde's `in_page` variant); with -r, the lines of the whole working set are visited in
 * one random order (the pattern of sonde's `random` variant).
 *
 * usage: lat_mem_rd_like [-r | -p] [-l line_bytes] size_bytes...
 * prints: size_bytes ns_per_load
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRIES 11
#define ENOUGH_NS 50000000.0 /* 50 ms a try */

#define ONE p = (char **)*p;
#define TEN ONE ONE ONE ONE ONE ONE ONE ONE ONE ONE
#define HUNDRED TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static char **walk(char **p, uint64_t hundreds) {
  while (hundreds-- > 0) {
    HUNDRED
  }
  return p;
}

static size_t bit_reverse(size_t i, unsigned bits) {
  size_t r = 0;
  for (unsigned b = 0; b < bits; ++b)
    if (i & ((size_t)1 << b)) r |= (size_t)1 << (bits - b - 1);
  return r;
}

static void shuffle(size_t *a, size_t n) {
  for (size_t i = n - 1; i > 0; --i) {
    size_t j = (size_t)(((double)rand() / ((double)RAND_MAX + 1.0)) * (double)(i + 1));
    size_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int random_order = 0, random_in_page = 0;
  size_t line = 64;
  int c;
  while ((c = getopt(argc, argv, "rpl:")) != -1) {
    if (c == 'r') random_order = 1;
    else if (c == 'p') random_in_page = 1;
    else if (c == 'l') line = (size_t)atol(optarg);
    else {
      fprintf(stderr, "usage: %s [-r | -p] [-l line_bytes] size_bytes...\n", argv[0]);
      return 2;
    }
  }
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  srand(1);
  for (int arg = optind; arg < argc; ++arg) {
    const size_t bytes = (size_t)atoll(argv[arg]);
    const size_t lines = bytes / line;
    if (lines < 2) {
      fprintf(stderr, "%s: %zu bytes is fewer than two lines\n", argv[0], bytes);
      return 2;
    }
    char *base = aligned_alloc(page, (bytes + page - 1) / page * page);
    size_t *order = malloc(lines * sizeof(size_t));
    if (!base || !order) return 1;
    memset(base, 0, bytes);
    if (random_order) {
      for (size_t i = 0; i < lines; ++i) order[i] = i;
      shuffle(order, lines);
    } else {
      const size_t per_page = page / line;
      unsigned bits = 0;
      while (((size_t)1 << bits) < per_page) ++bits;
      const size_t pages = (lines + per_page - 1) / per_page;
      size_t *page_order = malloc(pages * sizeof(size_t));
      for (size_t i = 0; i < pages; ++i) page_order[i] = i;
      shuffle(page_order, pages);
      size_t *in_page = malloc(per_page * sizeof(size_t));
      size_t k = 0;
      for (size_t i = 0; i < pages; ++i) {
        for (size_t j = 0; j < per_page; ++j) in_page[j] = bit_reverse(j, bits);
        if (random_in_page) shuffle(in_page, per_page);
        for (size_t j = 0; j < per_page; ++j) {
          const size_t l = page_order[i] * per_page + in_page[j];
          if (l < lines) order[k++] = l;
        }
      }
      free(in_page);
      free(page_order);
    }
    for (size_t i = 0; i < lines; ++i)
      *(char **)(base + order[i] * line) = base + order[(i + 1) % lines] * line;

    char **p = (char **)(base + order[0] * line);
    p = walk(p, lines / 100 + 1); /* warm: one trip around */
    uint64_t hundreds = 1;
    double result[TRIES];
    for (int t = 0; t < TRIES; ++t) {
      double elapsed;
      for (;;) {
        const double start = now_ns();
        p = walk(p, hundreds);
        elapsed = now_ns() - start;
        if (elapsed >= ENOUGH_NS * 0.95) break;
        hundreds = elapsed > 1e6 ? (uint64_t)(hundreds * 1.1 * ENOUGH_NS / elapsed) + 1 : hundreds * 8;
      }
      result[t] = elapsed / (double)(hundreds * 100);
    }
    qsort(result, TRIES, sizeof(double), compare);
    printf("%zu %.3f\n", bytes, result[TRIES / 2]);
    fflush(stdout);
    if (p == NULL) puts("");
    free(order);
    free(base);
  }
  return 0;
}
