/* sonde's phase markers: a program marks its phases (BSP supersteps) so that `sonde counters`
 * can attribute times and counts to them, per thread.
 *
 *   sonde_phase_begin("sort");  ...  sonde_phase_end("sort");        (C)
 *   { sonde::Phase phase("sort"); ... }                                (C++)
 *
 * Every thread that works in a phase marks it itself; phases do not nest within a thread; a
 * phase entered several times is summed over its occurrences. When sonde is not collecting (the
 * environment has no SONDE_PHASE_RECORD), a marker is one load and one untaken branch: the
 * program runs as it would without them. Link with -lsonde_phase. */
#ifndef SONDE_PHASE_H
#define SONDE_PHASE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero while sonde collects; set once, before main, from the environment. */
extern int sonde_phase_collecting;

/* Names the calling thread's processor (0, 1, ...) in the counts; without it threads are
 * numbered in the order of their first marker, which may differ from run to run. */
void sonde_phase_set_processor(int processor);

void sonde_phase_record_begin(const char* name);
void sonde_phase_record_end(const char* name);

static inline void sonde_phase_begin(const char* name) {
  if (__builtin_expect(sonde_phase_collecting, 0)) sonde_phase_record_begin(name);
}

static inline void sonde_phase_end(const char* name) {
  if (__builtin_expect(sonde_phase_collecting, 0)) sonde_phase_record_end(name);
}

#ifdef __cplusplus
}

namespace sonde {

/* Marks a phase for the lifetime of the object. */
class Phase {
 public:
  explicit Phase(const char* name) : name_(name) { sonde_phase_begin(name_); }
  ~Phase() { sonde_phase_end(name_); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
};

}  // namespace sonde
#endif

#endif /* SONDE_PHASE_H */
