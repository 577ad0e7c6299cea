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

  // Runs fn(0), ..., fn(n - 1), each once, and returns when all have
  // returned. The calling thread and up to `threads` - 1 workers each take
  // the next share no one has taken until none is left; the call waits only
  // for shares that have started. So a worker that another process keeps
  // from running delays no one: the calling thread takes its shares, and a
  // worker stopped within a share delays the call by what is left of that
  // share. fn must not depend on which thread runs a share, nor on shares
  // running at the same time (all may run on the calling thread: always
  // when another call holds the workers, or in a child of fork()).
  void RunClaimed(int threads, int n, absl::FunctionRef<void(int)> fn);

 private:
  void Work(int index);
  // Posts workers 1 .. count - 1 a new call of job_, numbered call_.
  void Post(int count);
  // A worker joins the call numbered `call` if it is still open (the gate
  // then counts it), and leaves it; the call that owns the gate waits for
  // every worker inside before it returns.
  bool Enter(uint64_t call);
  void Leave() { gate_.fetch_sub(1, std::memory_order_acq_rel); }
  // Closes the gate of the current call and waits until no worker is inside.
  void CloseGate();
  // Takes and runs shares of a claimed call until none is left.
  void RunShares();

  // A worker's mailbox: a new ticket posts it a share of job_ (or the stop),
  // of the call numbered `call`. Only the workers a call needs are posted,
  // so the others stay asleep.
  struct alignas(64) Slot {
    std::atomic<uint64_t> ticket{0};
    std::atomic<uint64_t> call{0};
  };

  std::vector<Slot> slots_;  // slots_[i] belongs to share i + 1
  std::vector<std::thread> threads_;
  // One call at a time owns the workers; others do not wait for it.
  absl::Mutex owner_;
  // Written before the tickets are posted, read only by posted workers.
  const absl::FunctionRef<void(int)>* job_ = nullptr;
  std::atomic<int> pending_{0};
  // The current call: its number (counted under owner_), whether its shares
  // are claimed (RunClaimed) and how many, and the next one to take.
  std::atomic<uint64_t> call_{0};
  std::atomic<bool> claimed_{false};
  int shares_ = 0;
  std::atomic<int> next_share_{0};
  // The call's number << 32, kGateOpen while workers may join, and the
  // count of workers inside: a worker posted for a call that has closed
  // (RunClaimed returns without it) finds another number or a closed gate
  // and runs nothing.
  static constexpr uint64_t kGateOpen = uint64_t{1} << 31;
  std::atomic<uint64_t> gate_{0};
  std::atomic<int> sleeping_{0};
  std::atomic<bool> stop_{false};
  absl::Mutex sleep_mu_;
  absl::CondVar wake_;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_XLA_LAYOUT_WORKER_POOL_H_
