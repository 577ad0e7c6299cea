#include "xla_layout/worker_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

// Runs `fn` on a thread of its own and says whether it returned within
// `limit`. A test of a call that would hang when broken fails this way
// instead of hanging until Bazel's timeout (the stuck thread is left
// behind, detached: the test has already failed).
bool ReturnsWithin(std::chrono::seconds limit, std::function<void()> fn) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread([done, fn = std::move(fn)] {
    fn();
    done->store(true);
  }).detach();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done->load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The threads of this process, from /proc.
int ProcessThreads() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

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

// Shares really run at once: each waits until all have started (or a
// deadline passes), which a pool running them one after another fails.
TEST(WorkerPoolTest, SharesRunConcurrently) {
  WorkerPool pool(1);
  for (int n : {2, 3}) {
    std::atomic<int> started{0}, gave_up{0};
    pool.Run(n, [&](int) {
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < n) {
        if (std::chrono::steady_clock::now() > deadline) {
          gave_up.fetch_add(1);
          return;
        }
        std::this_thread::yield();
      }
    });
    EXPECT_EQ(started.load(), n);
    EXPECT_EQ(gave_up.load(), 0) << "shares ran one after another";
  }
}

// A call made while another holds the workers does not wait for it: it runs
// its shares on threads of its own (waiting would deadlock: the outer share
// waits for the inner call).
TEST(WorkerPoolTest, ConcurrentCallsBothFinish) {
  auto pool = std::make_shared<WorkerPool>(1);
  auto inner_done = std::make_shared<std::atomic<bool>>(false);
  auto outer_shares = std::make_shared<std::atomic<int>>(0);
  auto inner = std::make_shared<std::atomic<int>>(0);
  ASSERT_TRUE(ReturnsWithin(std::chrono::seconds(20), [=] {
    pool->Run(2, [&](int i) {
      outer_shares->fetch_add(1);
      if (i != 0) return;
      pool->Run(2, [&](int) { inner->fetch_add(1); });
      inner_done->store(true);
    });
  })) << "a nested call waited for the workers its caller holds";
  EXPECT_TRUE(inner_done->load());
  EXPECT_EQ(inner->load(), 2);
  EXPECT_EQ(outer_shares->load(), 2);
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

// RunClaimed runs every share once, on the caller and at most threads - 1
// workers, over widths above and below the threads, with calls separated
// by more than the spin time (so workers come late, from sleep).
TEST(WorkerPoolTest, ClaimedRunsEveryShareOnce) {
  WorkerPool pool(2);
  for (int threads = 1; threads <= 3; ++threads) {
    for (int n = 0; n <= 9; ++n) {
      for (int call = 0; call < 30; ++call) {
        std::vector<std::atomic<int>> ran(n);
        std::mutex mu;
        std::set<std::thread::id> ids;
        pool.RunClaimed(threads, n, [&](int i) {
          ran[i].fetch_add(1);
          std::lock_guard<std::mutex> lock(mu);
          ids.insert(std::this_thread::get_id());
        });
        for (int i = 0; i < n; ++i) ASSERT_EQ(ran[i].load(), 1) << threads << " " << n << " " << i;
        ASSERT_LE(static_cast<int>(ids.size()), std::max(threads, 1));
        if (call % 10 == 9) {
          std::this_thread::sleep_for(std::chrono::microseconds(3 * WorkerPool::kSpinMicros));
        }
      }
    }
  }
}

// A worker posted for a claimed call that returned without it must run
// nothing of the calls after it: here a claimed call posts both workers and
// takes every share itself while they wake, then a plain call posts only
// the first. A late second worker running the plain call's job would run
// share 2 of 2, or run share 1 twice.
TEST(WorkerPoolTest, LateWorkersRunNothingOfLaterCalls) {
  WorkerPool pool(2);
  for (int round = 0; round < 2000; ++round) {
    std::atomic<int> claimed{0};
    pool.RunClaimed(3, 2, [&](int) { claimed.fetch_add(1); });
    ASSERT_EQ(claimed.load(), 2);
    std::atomic<int> ran[3] = {{0}, {0}, {0}};
    pool.Run(2, [&](int i) { ran[std::min(i, 2)].fetch_add(1); });
    ASSERT_EQ(ran[0].load(), 1);
    ASSERT_EQ(ran[1].load(), 1);
    ASSERT_EQ(ran[2].load(), 0) << "a late worker ran a share of a call that did not post it";
    if (round % 100 == 99) {
      std::this_thread::sleep_for(std::chrono::microseconds(3 * WorkerPool::kSpinMicros));
    }
  }
}

// A claimed call made while another holds the workers runs its shares on
// the calling thread, one after another.
TEST(WorkerPoolTest, NestedClaimedCallRunsOnTheCaller) {
  auto pool = std::make_shared<WorkerPool>(1);
  auto inner = std::make_shared<std::atomic<int>>(0);
  ASSERT_TRUE(ReturnsWithin(std::chrono::seconds(20), [=] {
    pool->Run(2, [&](int i) {
      if (i != 0) return;
      const std::thread::id self = std::this_thread::get_id();
      pool->RunClaimed(2, 5, [&](int) {
        if (std::this_thread::get_id() == self) inner->fetch_add(1);
      });
    });
  }));
  EXPECT_EQ(inner->load(), 5);
}

// The shared pool keeps one worker per hardware thread beside the caller's:
// once it has run a call, the process has a thread per hardware thread, and
// a call as wide as the machine starts no other.
TEST(WorkerPoolTest, SharedPoolFillsTheMachineWithoutStartingMore) {
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::atomic<int> ran{0};
  WorkerPool::Shared().Run(hw, [&](int) { ran.fetch_add(1); });
  ASSERT_EQ(ran.load(), hw);
  EXPECT_EQ(ProcessThreads(), hw);
  std::mutex mu;
  std::set<std::thread::id> ids;
  int during = 0;
  WorkerPool::Shared().Run(hw, [&](int i) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    if (i == 0) during = ProcessThreads();
  });
  EXPECT_EQ(static_cast<int>(ids.size()), hw);
  EXPECT_EQ(during, hw);
}

// The destructor joins workers that are asleep and workers that spin.
TEST(WorkerPoolTest, DestroysWhileWorkersSleepOrSpin) {
  for (bool sleep : {false, true}) {
    EXPECT_TRUE(ReturnsWithin(std::chrono::seconds(20), [sleep] {
      WorkerPool pool(3);
      pool.Run(4, [](int) {});
      if (sleep) {
        std::this_thread::sleep_for(
            std::chrono::microseconds(3 * WorkerPool::kSpinMicros));
      }
    })) << (sleep ? "sleeping" : "spinning") << " workers were never joined";
  }
}

}  // namespace
}  // namespace xla_layout
