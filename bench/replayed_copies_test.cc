#include "bench/replayed_copies.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_layout::bench {
namespace {

using ::testing::HasSubstr;

TEST(ReplayedCopiesTest, NamesAFolderItCannotRead) {
  const std::string missing = ::testing::TempDir() + "/no_such_folder";
  const ReplayedCopies found = CollectReplayedCopies({missing});
  EXPECT_TRUE(found.copies.empty());
  ASSERT_EQ(found.unreadable.size(), 1u);
  EXPECT_THAT(found.unreadable[0], HasSubstr(missing));
}

// A parameter pinned column-major that the entry returns row-major: every
// target inserts a copy of the parameter, merged by its two shapes.
TEST(ReplayedCopiesTest, CollectsTheCopiesThePassInserts) {
  const std::string dir = ::testing::TempDir() + "/replayed_copies_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/m.hlo")
      << "HloModule m, entry_computation_layout={(f32[64,128]{0,1})->f32[64,128]{1,0}}\n\n"
         "ENTRY e {\n  p = f32[64,128] parameter(0)\n  ROOT n = f32[64,128] negate(p)\n}\n";
  const ReplayedCopies found = CollectReplayedCopies({dir});
  EXPECT_TRUE(found.unreadable.empty());
  EXPECT_EQ(found.modules_skipped, 0);
  ASSERT_FALSE(found.copies.empty());
  EXPECT_EQ(found.copies[0].src.ToString(), "f32[64,128]{0,1}");
  EXPECT_GE(found.copies[0].count, 1);
  EXPECT_THAT(found.copies[0].first_seen, HasSubstr("m.hlo on "));
}

}  // namespace
}  // namespace xla_layout::bench
