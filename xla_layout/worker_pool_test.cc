#include "xla_layout/worker_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

// Every share runs exactly once, on a thread of its own, and Run returns only
// after all of them: counted over many calls of every width, including
// widths beyond the workers and calls separated by more than the spin time
// (so the workers are woken from sleep).
TEST(WorkerPoolTest, RunsEveryShareOnceOnItsOwnThread) {
  WorkerPool pool(2);
  for (int n = 0; n <= 5; ++n) {
    for (int call = 0; call < 50; ++call) {
      std::vector<std::atomic<int>> ran(n);
      // A std::mutex, which ThreadSanitizer sees without an instrumented
      // Abseil.
      std::mutex mu;
      std::set<std::thread::id> ids;
      pool.Run(n, [&](int i) {
        ran[i].fetch_add(1);
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      });
      for (int i = 0; i < n; ++i) ASSERT_EQ(ran[i].load(), 1) << n << " " << i;
      ASSERT_EQ(static_cast<int>(ids.size()), n);
      if (call % 10 == 9) {
        std::this_thread::sleep_for(
            std::chrono::microseconds(3 * WorkerPool::kSpinMicros));
      }
    }
  }
}

// Shares really run at once: each waits until all have started, which would
// never end if the pool ran them one after another.
TEST(WorkerPoolTest, SharesRunConcurrently) {
  WorkerPool pool(1);
  for (int n : {2, 3}) {
    std::atomic<int> started{0};
    pool.Run(n, [&](int) {
      started.fetch_add(1);
      while (started.load() < n) std::this_thread::yield();
    });
    EXPECT_EQ(started.load(), n);
  }
}

// A call made while another holds the workers does not wait for it: it runs
// its shares on threads of its own.
TEST(WorkerPoolTest, ConcurrentCallsBothFinish) {
  WorkerPool pool(1);
  std::atomic<bool> inner_done{false};
  std::atomic<int> outer_shares{0};
  pool.Run(2, [&](int i) {
    outer_shares.fetch_add(1);
    if (i != 0) return;
    std::atomic<int> inner{0};
    pool.Run(2, [&](int) { inner.fetch_add(1); });
    EXPECT_EQ(inner.load(), 2);
    inner_done = true;
  });
  EXPECT_TRUE(inner_done.load());
  EXPECT_EQ(outer_shares.load(), 2);
}

// A child of fork() has no workers: the shared pool, used in the parent
// before the fork, still runs every share in the child (it would wait
// forever for a worker that is not there).
TEST(WorkerPoolTest, RunsInAForkedChild) {
  std::atomic<int> ran{0};
  WorkerPool::Shared().Run(2, [&](int) { ran.fetch_add(1); });
  ASSERT_EQ(ran.load(), 2);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int> in_child{0};
    WorkerPool::Shared().Run(3, [&](int) { in_child.fetch_add(1); });
    _exit(in_child.load() == 3 ? 0 : 1);
  }
  int status = 0;
  // The child either exits or, broken, spins: give it 20 s.
  for (int waited = 0; waited < 2000; ++waited) {
    if (waitpid(child, &status, WNOHANG) == child) {
      EXPECT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  FAIL() << "the forked child never finished its call";
}

TEST(WorkerPoolTest, SharedPoolHasAWorkerPerExtraHardwareThread) {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(WorkerPool::Shared().workers(), std::max(1, hw) - 1);
}

// The destructor joins workers that are asleep and workers that spin.
TEST(WorkerPoolTest, DestroysWhileWorkersSleepOrSpin) {
  for (bool sleep : {false, true}) {
    WorkerPool pool(3);
    pool.Run(4, [](int) {});
    if (sleep) {
      std::this_thread::sleep_for(
          std::chrono::microseconds(3 * WorkerPool::kSpinMicros));
    }
  }
}

}  // namespace
}  // namespace xla_layout
