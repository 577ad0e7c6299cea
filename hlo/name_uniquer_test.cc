#include "hlo/name_uniquer.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

TEST(NameUniquerTest, FreeBasesStayAndTakenOnesGetTheFirstFreeSuffix) {
  const std::vector<std::string> names = {"copy", "copy.1", "add", "copy.3"};
  NameUniquer uniquer;
  for (const std::string& n : names) EXPECT_TRUE(uniquer.Take(n));
  EXPECT_FALSE(uniquer.Take(names[0]));
  EXPECT_EQ(uniquer.Unique("mul"), "mul");
  EXPECT_EQ(uniquer.Unique("mul"), "mul.1");
  EXPECT_EQ(uniquer.Unique("copy"), "copy.2");  // .1 is taken
  EXPECT_EQ(uniquer.Unique("copy"), "copy.4");  // .3 is taken
  EXPECT_EQ(uniquer.Unique("copy.1"), "copy.1.1");
  // Handed-out names are taken too, and stay valid after many more.
  for (int k = 0; k < 1000; ++k) uniquer.Unique("t");
  EXPECT_FALSE(uniquer.Take("t.999"));
  EXPECT_FALSE(uniquer.Take("mul.1"));
  EXPECT_TRUE(uniquer.Take("t.1000x"));
}

TEST(NameUniquerTest, GathersTheNamesInUseAtTheFirstUniqueOnly) {
  const std::vector<std::string> names = {"copy", "copy.1"};
  int gathers = 0;
  NameUniquer uniquer([&](NameUniquer& taken) {
    ++gathers;
    for (const std::string& n : names) taken.Take(n);
  });
  EXPECT_EQ(gathers, 0) << "nothing named yet";
  EXPECT_EQ(uniquer.Unique("copy"), "copy.2");
  EXPECT_EQ(uniquer.Unique("copy"), "copy.3");
  EXPECT_EQ(gathers, 1);
  EXPECT_FALSE(uniquer.Take("copy.1"));
}

}  // namespace
}  // namespace xla_layout
