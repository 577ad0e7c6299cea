#include "tools/background_writer.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace xla_layout::cli {
namespace {

TEST(BackgroundWriterTest, WritesEveryPieceInOrderOnAnotherThread) {
  std::vector<std::string> written;
  std::vector<std::thread::id> threads;
  BackgroundWriter writer([&](absl::string_view piece) {
    written.emplace_back(piece);
    threads.push_back(std::this_thread::get_id());
    return absl::OkStatus();
  });
  std::vector<std::string> expected;
  for (int i = 0; i < 100; ++i) {
    std::string piece = absl::StrCat("piece ", i, "\n");
    expected.push_back(piece);
    writer.Write(piece);
    EXPECT_TRUE(piece.empty());
  }
  EXPECT_TRUE(writer.Finish().ok());
  EXPECT_EQ(written, expected);
  for (std::thread::id id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

// The point of it: the producer goes on while a piece is being written.
TEST(BackgroundWriterTest, TheProducerRunsAheadOfASlowWrite) {
  absl::Notification release;
  bool waited_in_vain = false;
  std::string written;
  BackgroundWriter writer([&](absl::string_view piece) {
    if (written.empty()) {
      waited_in_vain = !release.WaitForNotificationWithTimeout(absl::Seconds(20));
    }
    absl::StrAppend(&written, piece);
    return absl::OkStatus();
  });
  std::string first = "a", second = "b";
  writer.Write(first);   // taken, and its write waits for `release`
  writer.Write(second);  // handed over while the first is being written
  release.Notify();
  EXPECT_TRUE(writer.Finish().ok());
  EXPECT_FALSE(waited_in_vain);
  EXPECT_EQ(written, "ab");
}

TEST(BackgroundWriterTest, StopsAtTheFirstErrorAndReportsIt) {
  int calls = 0;
  BackgroundWriter writer([&](absl::string_view piece) {
    ++calls;
    if (piece == "bad") return absl::ResourceExhaustedError("disk full");
    if (piece == "worse") return absl::InternalError("not reported");
    return absl::OkStatus();
  });
  for (std::string piece : {"good", "bad", "worse", "good"}) writer.Write(piece);
  absl::Status s = writer.Finish();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "disk full");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(writer.Finish().message(), "disk full") << "finishing twice";
}

}  // namespace
}  // namespace xla_layout::cli
