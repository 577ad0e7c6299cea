#include "runtime/logical.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// A version 1.0 .npy file with `header` (padded as numpy pads it) and `data`.
std::string Npy(std::string header, const std::string& data) {
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

absl::StatusOr<LogicalArray> Decode(const std::string& bytes, absl::string_view shape) {
  return DecodeNpy(bytes, *ParseShape(shape), "x.npy");
}

std::string Error(const std::string& bytes, absl::string_view shape) {
  absl::StatusOr<LogicalArray> a = Decode(bytes, shape);
  return a.ok() ? "ok" : std::string(a.status().message());
}

TEST(NpyTest, WhatWeWriteReadsBack) {
  absl::StatusOr<LogicalArray> a = Decode(
      Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0')),
      "f32[2]");
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<LogicalArray> b = Decode(EncodeNpy(*a), "f32[2]");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->bytes, b->bytes);
  // Double quotes, another key order and no trailing comma, as Python allows.
  EXPECT_EQ(Error(Npy("{\"shape\": (2, 1), \"descr\": \"<f4\", \"fortran_order\": False}",
                      std::string(8, '\0')),
                  "f32[2,1]"),
            "ok");
  EXPECT_EQ(Error(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': ()}",
                      std::string(4, '\0')),
                  "f32[]"),
            "ok");
}

// The header is read as the dict literal it is: text inside a string is
// not a key, a key is given once, and numpy's three keys are all it takes.
TEST(NpyTest, HeaderIsADictLiteral) {
  const std::string data(16, '\0');
  EXPECT_THAT(Error(Npy("{'descr': \"<f4 'shape': (2, 3)\", 'fortran_order': False, "
                        "'shape': (4,), }", data),
                    "f32[4]"),
              HasSubstr("x.npy: holds '<f4 'shape': (2, 3)' but f32 needs '<f4'"));
  EXPECT_THAT(Error(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), "
                        "'shape': (2, 2)}", data),
                    "f32[4]"),
              HasSubstr("header key 'shape' is given twice"));
  EXPECT_THAT(Error(Npy("{'note': \"'shape': (2, 2)\", 'descr': '<f4', "
                        "'fortran_order': False, 'shape': (4,)}", data),
                    "f32[4]"),
              HasSubstr("unknown header key 'note'"));
  EXPECT_THAT(Error(Npy("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,)}", data),
                    "f32[4]"),
              HasSubstr("fortran_order must be True or False"));
  EXPECT_THAT(Error(Npy("{'descr': '<f4', 'shape': (4,)}", data), "f32[4]"),
              HasSubstr("the header lacks descr, fortran_order or shape"));
  EXPECT_THAT(Error(Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}", data),
                    "f32[4]"),
              HasSubstr("shape must hold non-negative integers"));
  EXPECT_THAT(Error(Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (4,)}", data),
                    "f32[4]"),
              HasSubstr("Fortran order is not supported"));
}

// One byte per s4, u4 or pred element: a value outside the type is refused.
TEST(NpyTest, SubByteAndPredValuesAreInRange) {
  const std::string s4 = "{'descr': '|i1', 'fortran_order': False, 'shape': (3,)}";
  EXPECT_EQ(Error(Npy(s4, std::string("\x07\xf8\x00", 3)), "s4[3]"), "ok");
  EXPECT_THAT(Error(Npy(s4, std::string("\x01\x17\x00", 3)), "s4[3]"),
              HasSubstr("x.npy: element 1 holds 23, outside s4's range [-8, 7]"));
  EXPECT_THAT(Error(Npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2,)}",
                        std::string("\x0f\x10", 2)),
                    "u4[2]"),
              HasSubstr("element 1 holds 16, outside u4's range [0, 15]"));
  EXPECT_THAT(Error(Npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}",
                        std::string("\x01\x00\x02", 3)),
                    "pred[3]"),
              HasSubstr("element 2 holds 2, outside pred's range [0, 1]"));
}

}  // namespace
}  // namespace xla_layout::runtime
