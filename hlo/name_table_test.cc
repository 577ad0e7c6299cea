#include "hlo/name_table.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace xla_layout {
namespace {

class NameTableTest : public ::testing::Test {
 protected:
  HloInstruction* Make(std::string name) {
    made_.push_back(std::make_unique<HloInstruction>(std::move(name), HloOpcode::kParameter,
                                                     Shape(F32, {})));
    return made_.back().get();
  }
  std::vector<std::unique_ptr<HloInstruction>> made_;
};

TEST_F(NameTableTest, FindsWhatItHoldsAndNothingElse) {
  InstructionNameTable table;
  EXPECT_EQ(table.Find("a"), nullptr) << "an empty table";
  HloInstruction* a = Make("a");
  HloInstruction* b = Make("b.1");
  EXPECT_TRUE(table.Insert(a));
  EXPECT_TRUE(table.Insert(b));
  EXPECT_EQ(table.Find("a"), a);
  EXPECT_EQ(table.Find("b.1"), b);
  EXPECT_EQ(table.Find("b"), nullptr);
  EXPECT_EQ(table.Find(""), nullptr);
  EXPECT_EQ(table.size(), 2u);
}

TEST_F(NameTableTest, RefusesASecondInstructionOfOneName) {
  InstructionNameTable table;
  HloInstruction* first = Make("x");
  EXPECT_TRUE(table.Insert(first));
  EXPECT_FALSE(table.Insert(Make("x")));
  EXPECT_EQ(table.Find("x"), first) << "the first keeps the name";
  EXPECT_EQ(table.size(), 1u);
}

TEST_F(NameTableTest, FindsEveryNameAfterGrowing) {
  InstructionNameTable table;  // from its smallest size, growing many times
  std::vector<HloInstruction*> all;
  for (int k = 0; k < 20000; ++k) {
    all.push_back(Make(absl::StrCat("v.", k)));
    ASSERT_TRUE(table.Insert(all.back())) << k;
  }
  for (int k = 0; k < 20000; ++k) {
    ASSERT_EQ(table.Find(absl::StrCat("v.", k)), all[k]) << k;
    ASSERT_FALSE(table.Insert(Make(absl::StrCat("v.", k)))) << k;
  }
  EXPECT_EQ(table.Find("v.20000"), nullptr);
  EXPECT_EQ(table.size(), 20000u);
}

TEST_F(NameTableTest, NamesThatHashAlikeStayApart) {
  // Every name in one slot with one tag: only the names tell them apart.
  InstructionNameTable table([](absl::string_view) -> uint64_t { return 7; });
  std::vector<HloInstruction*> all;
  for (int k = 0; k < 300; ++k) {
    all.push_back(Make(absl::StrCat("n", k)));
    ASSERT_TRUE(table.Insert(all.back())) << k;
  }
  EXPECT_FALSE(table.Insert(Make("n17")));
  for (int k = 0; k < 300; ++k) ASSERT_EQ(table.Find(absl::StrCat("n", k)), all[k]) << k;
  EXPECT_EQ(table.Find("n300"), nullptr);
}

TEST_F(NameTableTest, ProbesWrapAroundTheEnd) {
  // Hashes at the last slot: the run continues at slot 0.
  InstructionNameTable table([](absl::string_view name) -> uint64_t {
    return name == "tail" ? 0 : ~uint64_t{0};
  });
  HloInstruction* a = Make("a");
  HloInstruction* b = Make("b");
  HloInstruction* tail = Make("tail");
  ASSERT_TRUE(table.Insert(a));
  ASSERT_TRUE(table.Insert(b));
  ASSERT_TRUE(table.Insert(tail));
  EXPECT_EQ(table.Find("a"), a);
  EXPECT_EQ(table.Find("b"), b);
  EXPECT_EQ(table.Find("tail"), tail);
}

TEST_F(NameTableTest, OverloadsWithAHashUseTheHashGiven) {
  InstructionNameTable table;
  HloInstruction* a = Make("a");
  ASSERT_TRUE(table.Insert(a, table.Hash("a")));
  EXPECT_EQ(table.Find("a"), a) << "the same slot as the overload that hashes";
  EXPECT_EQ(table.Find("a", table.Hash("a")), a);
  EXPECT_FALSE(table.Insert(Make("a"), table.Hash("a")));
  // Given another name's hash, the name is looked for where that hash
  // points: the hash is not computed again.
  EXPECT_EQ(table.Find("a", table.Hash("a") ^ 1), nullptr);
  table.Prefetch(table.Hash("b"));  // a hint only
  EXPECT_EQ(table.size(), 1u);
}

TEST_F(NameTableTest, ReserveAndClear) {
  InstructionNameTable table;
  table.Reserve(1000);
  HloInstruction* a = Make("a");
  ASSERT_TRUE(table.Insert(a));
  table.Reserve(5000);  // rehashes what it holds
  EXPECT_EQ(table.Find("a"), a);
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.Find("a"), nullptr);
  EXPECT_TRUE(table.Insert(a)) << "usable after Clear";
  EXPECT_EQ(table.Find("a"), a);
}

}  // namespace
}  // namespace xla_layout
