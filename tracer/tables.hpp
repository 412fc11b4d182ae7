// The tracer's two containers (tracer.cpp), in a header of their own so that tests reach them:
// both keep allocation off the path of an MPI call in the common case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sonde::tracer {

// An open-addressing table from handles to values: no allocation per insert, unlike
// std::unordered_map, so that an Isend costs no malloc. Linear probing, backward-shift erase.
template <typename Value>
class HandleTable {
 public:
  // `capacity`: a power of two; the table doubles when half full.
  explicit HandleTable(std::size_t capacity = 1024) : slots_(capacity) {}

  Value* find(std::uint64_t key) {
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].key == key) return &slots_[i].value;
    }
  }

  void insert(std::uint64_t key, const Value& value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask();
    if (!slots_[i].used) ++size_;
    slots_[i] = {key, value, true};
  }

  bool take(std::uint64_t key, Value& value) {
    std::size_t i = home(key);
    while (true) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
      i = (i + 1) & mask();
    }
    value = slots_[i].value;
    slots_[i].used = false;
    --size_;
    // Moves back the entries of the run after i that would no longer be found.
    for (std::size_t j = (i + 1) & mask(); slots_[j].used; j = (j + 1) & mask()) {
      const std::size_t k = home(slots_[j].key);
      const bool stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      slots_[j].used = false;
      i = j;
    }
    return true;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    Value value{};
    bool used = false;
  };
  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask();
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& slot : old)
      if (slot.used) insert(slot.key, slot.value);
  }
  std::vector<Slot> slots_;  // a power of two
  std::size_t size_ = 0;
};

// Records appended in chunks that never move: no copy of the records so far when one fills (a
// std::vector's growth would stall the program at that call for a time that grows with the run),
// and each chunk written whole when it is made, so that appending does not take page faults.
template <typename T>
class Log {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << 16;

  void push_back(const T& value) {
    if (used_ == kChunk) add_chunk();
    chunks_.back()[used_++] = value;
  }
  T& back() { return chunks_.back()[used_ - 1]; }
  void prepare() {
    if (chunks_.empty()) add_chunk();
  }
  T& operator[](std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  std::size_t size() const { return chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunk + used_; }
  // The chunks' filled parts, in order.
  template <typename Visit>
  void each_part(Visit&& visit) const {
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      visit(chunks_[c].get(), c + 1 == chunks_.size() ? used_ : kChunk);
  }

 private:
  void add_chunk() {
    chunks_.push_back(std::make_unique<T[]>(kChunk));  // value-initialized: every page written
    used_ = 0;
  }
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t used_ = kChunk;  // the first push_back makes the first chunk
};

}  // namespace sonde::tracer
