#include "xla_layout/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace xla_layout {
namespace {

// One step of a spin wait. Every 64th step yields the processor: a woken
// worker may share the caller's processor for a while, and two threads that
// both spin there would hold each other up for a whole time slice. (The
// step count is unsigned: a wait for a long share may wrap it.)
inline void SpinStep(uint32_t i) {
  if ((i & 63) == 63) {
    std::this_thread::yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// A child of fork() has none of its parent's threads, so no pool there has
// workers; its calls run on threads of their own instead of waiting forever.
std::atomic<bool> in_forked_child{false};

}  // namespace

WorkerPool& WorkerPool::Shared() {
  static WorkerPool pool(
      std::max(1, static_cast<int>(std::thread::hardware_concurrency())) - 1);
  return pool;
}

WorkerPool::WorkerPool(int workers) : slots_(std::max(workers, 0)) {
  static const int registered = pthread_atfork(
      nullptr, nullptr, [] { in_forked_child.store(true); });
  (void)registered;
  threads_.reserve(slots_.size());
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { Work(i + 1); });
}

WorkerPool::~WorkerPool() {
  stop_.store(true);
  for (Slot& slot : slots_) slot.ticket.fetch_add(1);
  {
    absl::MutexLock lock(&sleep_mu_);
    wake_.SignalAll();
  }
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Work(int index) {
  Slot& slot = slots_[index - 1];
  uint64_t seen = 0, served = 0;
  while (true) {
    // Spin first: parallel calls tend to come one after another.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::microseconds(kSpinMicros);
    for (uint32_t i = 0; slot.ticket.load(std::memory_order_acquire) == seen; ++i) {
      SpinStep(i);
      if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) {
        // The sleeper count and the tickets are both seq_cst, so either the
        // poster sees this worker asleep and signals, or this worker sees
        // the new ticket and does not wait.
        absl::MutexLock lock(&sleep_mu_);
        sleeping_.fetch_add(1);
        while (slot.ticket.load() == seen) wake_.Wait(&sleep_mu_);
        sleeping_.fetch_sub(1);
        break;
      }
    }
    seen = slot.ticket.load(std::memory_order_acquire);
    if (stop_.load()) return;
    // A call posts a worker once, but a worker may see the call's number
    // before its ticket (woken late by the call before), and then wake
    // again for the same post: it serves each call once.
    const uint64_t call = slot.call.load(std::memory_order_acquire);
    if (call == served || !Enter(call)) continue;
    served = call;
    if (claimed_.load(std::memory_order_acquire)) {
      RunShares();
    } else {
      (*job_)(index);
      pending_.fetch_sub(1, std::memory_order_release);
    }
    Leave();
  }
}

bool WorkerPool::Enter(uint64_t call) {
  uint64_t gate = gate_.load(std::memory_order_acquire);
  while ((gate >> 32) == (call & 0xffffffff) && (gate & kGateOpen) != 0) {
    if (gate_.compare_exchange_weak(gate, gate + 1, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void WorkerPool::CloseGate() {
  gate_.fetch_and(~kGateOpen, std::memory_order_acq_rel);
  for (uint32_t i = 0; (gate_.load(std::memory_order_acquire) & (kGateOpen - 1)) != 0; ++i) {
    SpinStep(i);
  }
}

void WorkerPool::RunShares() {
  for (int i = next_share_.fetch_add(1, std::memory_order_relaxed); i < shares_;
       i = next_share_.fetch_add(1, std::memory_order_relaxed)) {
    (*job_)(i);
  }
}

void WorkerPool::Post(int count) {
  const uint64_t call = call_.load(std::memory_order_relaxed) + 1;
  call_.store(call, std::memory_order_relaxed);
  gate_.store(((call & 0xffffffff) << 32) | kGateOpen, std::memory_order_release);
  // seq_cst posts: see Work().
  for (int i = 1; i < count; ++i) {
    slots_[i - 1].call.store(call, std::memory_order_release);
    slots_[i - 1].ticket.fetch_add(1);
  }
  if (sleeping_.load() > 0) {
    absl::MutexLock lock(&sleep_mu_);
    wake_.SignalAll();
  }
}

void WorkerPool::RunClaimed(int threads, int n, absl::FunctionRef<void(int)> fn) {
  if (threads <= 1 || n <= 1 || workers() == 0 ||
      in_forked_child.load(std::memory_order_relaxed) || !owner_.TryLock()) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  job_ = &fn;
  shares_ = n;
  next_share_.store(0, std::memory_order_relaxed);
  claimed_.store(true, std::memory_order_relaxed);
  Post(std::min(threads, workers() + 1));
  RunShares();
  CloseGate();
  job_ = nullptr;
  owner_.Unlock();
}

void WorkerPool::Run(int n, absl::FunctionRef<void(int)> fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
  std::vector<std::thread> extra;
  auto run_extra = [&](int from) {
    for (int i = from; i < n; ++i) extra.emplace_back([&fn, i] { fn(i); });
  };
  auto join_extra = [&] {
    for (std::thread& t : extra) t.join();
  };
  if (workers() == 0 || in_forked_child.load(std::memory_order_relaxed) ||
      !owner_.TryLock()) {
    run_extra(1);
    fn(0);
    join_extra();
    return;
  }
  const int pooled = std::min(n, workers() + 1);
  job_ = &fn;
  pending_.store(pooled - 1, std::memory_order_relaxed);
  claimed_.store(false, std::memory_order_relaxed);
  Post(pooled);
  run_extra(pooled);
  fn(0);
  for (uint32_t i = 0; pending_.load(std::memory_order_acquire) != 0; ++i) SpinStep(i);
  CloseGate();
  join_extra();
  job_ = nullptr;
  owner_.Unlock();
}

}  // namespace xla_layout
