#ifndef XLA_LAYOUT_XLA_LAYOUT_WORKER_POOL_H_
#define XLA_LAYOUT_XLA_LAYOUT_WORKER_POOL_H_

// Worker threads that are started once and run the shares of parallel calls.
// Starting a std::thread per call costs about what a second thread saves on
// a copy of a few MB in cache; a worker of this pool that is still waiting
// for work (it spins for kSpinMicros after each share before it sleeps)
// starts a share without a thread start or a wake-up.

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"

namespace xla_layout {

class WorkerPool {
 public:
  // How long a worker spins for the next share before it sleeps. A call
  // that comes later pays a wake-up (tens of microseconds on a VM).
  static constexpr int64_t kSpinMicros = 200;

  // The pool every caller shares: one worker per hardware thread but one.
  static WorkerPool& Shared();

  explicit WorkerPool(int workers);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  // Stops and joins the workers. No call may be running.
  ~WorkerPool();

  int workers() const { return static_cast<int>(threads_.size()); }

  // Runs fn(0), ..., fn(n - 1) and returns when all have returned: fn(0) on
  // the calling thread, the others on the workers. Shares the workers cannot
  // take (n - 1 > workers(), another call holds them, or this process is a
  // child of fork(), which has no workers) run on threads started for this
  // call, so every share still runs concurrently.
  void Run(int n, absl::FunctionRef<void(int)> fn);

 private:
  void Work(int index);

  // A worker's mailbox: a new ticket posts it a share of job_ (or the stop).
  // Only the workers a call needs are posted, so the others stay asleep.
  struct alignas(64) Slot {
    std::atomic<uint64_t> ticket{0};
  };

  std::vector<Slot> slots_;  // slots_[i] belongs to share i + 1
  std::vector<std::thread> threads_;
  // One call at a time owns the workers; others do not wait for it.
  absl::Mutex owner_;
  // Written before the tickets are posted, read only by posted workers.
  const absl::FunctionRef<void(int)>* job_ = nullptr;
  std::atomic<int> pending_{0};
  std::atomic<int> sleeping_{0};
  std::atomic<bool> stop_{false};
  absl::Mutex sleep_mu_;
  absl::CondVar wake_;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_XLA_LAYOUT_WORKER_POOL_H_
