#include "xla_layout/shape.h"

#include <random>

#include "absl/hash/hash_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape Parse(absl::string_view text) { return ParseTestShape(text); }

TEST(PrimitiveTypeTest, NamesAndSizes) {
  EXPECT_EQ(PrimitiveTypeName(BF16), "bf16");
  EXPECT_EQ(PrimitiveTypeName(OPAQUE_TYPE), "opaque");
  EXPECT_EQ(*ParsePrimitiveType("F8E4M3FN"), F8E4M3FN);
  EXPECT_FALSE(ParsePrimitiveType("tuple").ok());
  EXPECT_EQ(PrimitiveBitWidth(S4), 4);
  EXPECT_EQ(PrimitiveByteSize(S4), 1);
  EXPECT_EQ(PrimitiveByteSize(C128), 16);
  EXPECT_FALSE(IsArrayType(TOKEN));
}

// Field numbers and the '*' marker on the wire are XLA's. The bytes below
// were built by hand from xla_data.proto: minor_to_major=1 (packed),
// tiles=6 {dimensions=1 (packed)}, element_size_in_bits=7, memory_space=8.
TEST(ProtoTest, WireFormatMatchesXla) {
  Layout layout({1, 0});
  layout.add_tile(Tile({kCombineDimension, 2}));
  layout.set_element_size_in_bits(4).set_memory_space(1);
  std::string bytes;
  ASSERT_TRUE(layout.ToProto().SerializeToString(&bytes));
  const std::string expected(
      "\x0a\x02\x01\x00"                       // minor_to_major
      "\x32\x0d\x0a\x0b"                       // tiles { dimensions
      "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x02"  // INT64_MIN, 2 }
      "\x38\x04"                               // element_size_in_bits
      "\x40\x01",                              // memory_space
      23);
  EXPECT_EQ(bytes, expected);
  LayoutProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(expected));
  absl::StatusOr<Layout> back = Layout::FromProto(parsed);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, layout);
}

TEST(ProtoTest, MinusOneIsAcceptedAsCombineMarker) {
  LayoutProto proto;
  proto.add_minor_to_major(0);
  TileProto* tile = proto.add_tiles();
  tile->add_dimensions(-1);
  tile->add_dimensions(4);
  absl::StatusOr<Layout> layout = Layout::FromProto(proto);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->tiles()[0].dimension(0), kCombineDimension);
  EXPECT_EQ(layout->ToProto().tiles(0).dimensions(0), kCombineDimension);
}

TEST(ProtoTest, ShapeFieldsAndValidation) {
  Shape shape = Parse("(f32[<=4,?]{1,0}, token[])");
  ShapeProto proto = shape.ToProto();
  EXPECT_EQ(proto.element_type(), TUPLE);
  EXPECT_THAT(proto.tuple_shapes(0).dimensions(),
              ElementsAre(4, kUnboundedSize));
  EXPECT_THAT(proto.tuple_shapes(0).is_dynamic_dimension(),
              ElementsAre(true, true));
  EXPECT_EQ(*Shape::FromProto(proto), shape);

  ShapeProto bad;
  bad.set_element_type(F32);
  bad.add_dimensions(3);
  bad.mutable_layout()->add_minor_to_major(0);
  bad.mutable_layout()->add_minor_to_major(1);
  EXPECT_EQ(Shape::FromProto(bad).status().message(),
            "Dimensions size is 1, but minor to major size is 2.");
  LayoutProto sparse_only;
  sparse_only.set_index_primitive_type(U32);
  EXPECT_THAT(Layout::FromProto(sparse_only).status().message(),
              HasSubstr("only allowed on a sparse layout"));
  LayoutProto bad_tile;
  bad_tile.add_tiles()->add_dimensions(-1);
  EXPECT_THAT(Layout::FromProto(bad_tile).status().message(),
              HasSubstr("most minor entry"));
}

TEST(ShapeTest, EqualityFunctors) {
  Shape a = Parse("f32[4,4]{1,0:T(2,2)}");
  Shape b = Parse("f32[4,4]{1,0}");
  Shape c = Parse("f32[4,4]{0,1}");
  EXPECT_NE(a, b);
  EXPECT_TRUE(Shape::Equal().LayoutEqual(Layout::Equal().IgnoreTiles())(a, b));
  EXPECT_TRUE(Shape::Equal().IgnoreLayout()(a, c));
  EXPECT_FALSE(Shape::Equal().LayoutEqual(Layout::Equal().IgnoreTiles())(a, c));
  EXPECT_TRUE(Shape::Equal().IgnoreElementType()(b, Parse("s32[4,4]{1,0}")));
}

// The memos of the layout pass key by Shape: equal shapes must hash alike,
// and shapes that differ in any part the hash reads must not collide here.
TEST(ShapeTest, HashIsConsistentWithEquality) {
  std::vector<Shape> shapes;
  for (const char* text :
       {"f32[4,4]{1,0}", "f32[4,4]{0,1}", "f32[4,4]{1,0:T(2,2)}", "f32[4,4]{1,0:T(2,2)(2,1)}",
        "bf16[4,4]{1,0:T(2,2)(2,1)}", "f32[4,4]{1,0:E(32)}", "f32[4,4]{1,0:S(1)}",
        "f32[4,4]{1,0:L(4)}", "f32[4,4]", "f32[<=4,4]{1,0}", "f32[4]{0}", "(f32[4]{0}, s8[2]{0})",
        "(f32[4]{0})", "f32[4,4]{1,0:D(D,C)#(u32)*(u32)}"}) {
    shapes.push_back(Parse(text));
    shapes.push_back(Parse(text));  // an equal copy
  }
  Layout split({1, 0});
  split.add_split_config(SplitConfig{0, {2}});
  shapes.push_back(Parse("f32[4,4]"));
  shapes.back().set_layout(split);
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(shapes));
  std::vector<Layout> layouts;
  for (const Shape& s : shapes) {
    if (s.IsArray() && s.has_layout()) layouts.push_back(s.layout());
  }
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(layouts));
  // Rare attributes are copied with the layout and compared.
  Layout copy = split;
  EXPECT_EQ(copy, split);
  EXPECT_EQ(copy.split_configs().size(), 1u);
  EXPECT_NE(copy, Layout({1, 0}));
  copy = Layout({1, 0});
  EXPECT_EQ(copy, Layout({1, 0}));
  EXPECT_TRUE(copy.split_configs().empty());
}

// Shapes whose text outgrows the printers' local buffer (240 bytes) print
// whole and parse back.
// The flags are stored only once one is set: a shape whose flags were set
// and cleared again is the same shape as one never marked, and a marked
// copy stays apart from its original.
TEST(ShapeTest, DynamicFlagsStoredOnlyWhenSet) {
  Shape never(F32, {4, 5});
  Shape cleared(F32, {4, 5});
  cleared.set_dynamic_dimension(1, true);
  EXPECT_TRUE(cleared.is_dynamic_dimension(1));
  EXPECT_FALSE(cleared.is_dynamic_dimension(0));
  EXPECT_NE(cleared, never);
  EXPECT_FALSE(cleared.is_static());
  cleared.set_dynamic_dimension(1, false);
  EXPECT_EQ(cleared, never);
  EXPECT_TRUE(cleared.is_static());
  EXPECT_EQ(absl::HashOf(cleared), absl::HashOf(never));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({never, cleared, Parse("f32[4,<=5]")}));
  Shape copy = Parse("f32[4,<=5]");
  Shape marked = copy;
  EXPECT_EQ(marked, copy);
  marked.set_dynamic_dimension(0, true);
  EXPECT_FALSE(copy.is_dynamic_dimension(0)) << "a copy has flags of its own";
  ShapeProto proto = never.ToProto();
  EXPECT_EQ(proto.is_dynamic_dimension_size(), 2) << "one entry per dimension";
}

// The layout sits beside a flag in the element type's padding, not in a
// std::optional: a shape is 152 bytes, not 160. A layout set and cleared
// again makes the same shape as one never set (equal, same hash, printed
// alike), and only a shape with a layout gives a mutable one.
TEST(ShapeTest, LayoutIsFlaggedBesideTheElementType) {
  EXPECT_LE(sizeof(Shape), 152u);
  Shape never = Shape(F32, {4, 5}).clear_layout();
  Shape cleared = Parse("f32[4,5]{0,1:T(2,2)}");
  ASSERT_TRUE(cleared.has_layout());
  ASSERT_NE(cleared.mutable_layout(), nullptr);
  EXPECT_EQ(cleared.layout(), Parse("f32[4,5]{0,1:T(2,2)}").layout());
  EXPECT_NE(absl::HashOf(cleared), absl::HashOf(never));
  cleared.clear_layout();
  EXPECT_FALSE(cleared.has_layout());
  EXPECT_EQ(cleared.mutable_layout(), nullptr);
  EXPECT_EQ(cleared, never);
  EXPECT_EQ(absl::HashOf(cleared), absl::HashOf(never));
  EXPECT_EQ(cleared.ToString(), "f32[4,5]");
  Shape copy = Parse("f32[4,5]{1,0}");
  Shape moved = copy;
  EXPECT_EQ(Shape(std::move(moved)), copy);
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(
      {never, Parse("f32[4,5]{0,1}"), Parse("f32[4,5]{1,0}"), Parse("f32[4,5]{1,0:T(2,2)}")}));
}

// Tuple elements live out of line: copies are deep, and an empty tuple is
// the same whether its vector was ever made or not.
TEST(ShapeTest, TupleElementsCopyDeeply) {
  Shape t = Shape::MakeTuple({Shape(F32, {2}), Shape(S32, {})});
  Shape u = t;
  u.mutable_tuple_shapes()[0] = Shape(F32, {3});
  EXPECT_EQ(t.tuple_shapes()[0], Shape(F32, {2}));
  EXPECT_NE(t, u);
  Shape empty = Shape::MakeTuple({});
  Shape emptied = Shape::MakeTuple({Shape(F32, {2})});
  emptied.mutable_tuple_shapes().clear();
  EXPECT_EQ(empty, emptied);
  EXPECT_EQ(absl::HashOf(empty), absl::HashOf(emptied));
  EXPECT_TRUE(Shape(F32, {2}).tuple_shapes().empty());
}

// The dynamic flags and the tuple elements share one block out of line:
// making either leaves the other as it was, and a block made for the one
// does not count as flags for the other.
TEST(ShapeTest, DynamicFlagsAndTupleElementsShareABlock) {
  Shape array(F32, {4, 5});
  array.mutable_tuple_shapes();  // makes the block, no flags in it
  EXPECT_TRUE(array.is_static());
  EXPECT_FALSE(array.is_dynamic_dimension(0));
  EXPECT_TRUE(array.Validate().ok());
  EXPECT_EQ(array, Shape(F32, {4, 5}));
  array.set_dynamic_dimension(1, true);
  EXPECT_TRUE(array.is_dynamic_dimension(1));
  EXPECT_TRUE(array.Validate().ok()) << "one flag per dimension";
  EXPECT_TRUE(array.tuple_shapes().empty());
  Shape copy = array;
  copy.set_dynamic_dimension(1, false);
  EXPECT_TRUE(array.is_dynamic_dimension(1)) << "a copy has a block of its own";
  EXPECT_EQ(copy, Shape(F32, {4, 5}));
}

// One tile is held inline; more go to the heap, and copy and compare alike.
TEST(ShapeTest, TilesBeyondTheFirstCopyDeeply) {
  const Shape two = Parse("bf16[16,256]{1,0:T(8,128)(2,1)}");
  ASSERT_EQ(two.layout().tiles().size(), 2u);
  Shape copy = two;
  EXPECT_EQ(copy, two);
  EXPECT_EQ(copy.ToString(), "bf16[16,256]{1,0:T(8,128)(2,1)}");
  copy.mutable_layout()->set_tiles({two.layout().tiles()[0]});
  EXPECT_EQ(two.layout().tiles().size(), 2u);
  EXPECT_NE(copy, two);
  EXPECT_EQ(copy, Parse("bf16[16,256]{1,0:T(8,128)}"));
}

TEST(ShapeTest, LongShapesPrintWholeAndRoundTrip) {
  std::vector<int64_t> dims(48, 1);
  dims[0] = 123456789;
  dims[47] = 7;
  Shape shape(F32, dims);
  std::vector<int64_t> m2m(48);
  for (int i = 0; i < 48; ++i) m2m[i] = i;
  Layout layout(m2m);
  layout.add_tile(Tile({7})).set_memory_space(3);
  shape.set_layout(layout);
  const std::string text = shape.ToString();
  EXPECT_GT(text.size(), 240u);
  EXPECT_EQ(text.substr(0, 15), "f32[123456789,1");
  EXPECT_NE(text.find(",46,47:T(7)S(3)}"), std::string::npos) << text;
  EXPECT_EQ(Parse(text), shape);
}

TEST(ShapeTest, SettersChainAndDefaultLayouts) {
  Layout layout({0});
  layout.set_element_size_in_bits(4).set_memory_space(1);
  EXPECT_EQ(layout.ToString(), "{0:E(4)S(1)}");
  Shape t = Parse("(f32[2,3], (s8[4]))");
  SetDefaultLayouts(t);
  EXPECT_EQ(t.ToString(), "(f32[2,3]{1,0}, (s8[4]{0}))");
  std::ostringstream os;
  os << t.tuple_shapes()[0] << " " << t.tuple_shapes()[0].layout() << " "
     << Tile({8, 128});
  EXPECT_EQ(os.str(), "f32[2,3]{1,0} {1,0} (8,128)");
}

// Tiles alone are attributes, but not attributes beyond tiles; every other
// attribute is both.
TEST(ShapeTest, AttributesBeyondTiles) {
  Layout plain({1, 0});
  EXPECT_FALSE(plain.HasAttributes());
  EXPECT_FALSE(plain.HasAttributesBeyondTiles());
  Layout tiled({1, 0});
  tiled.add_tile(Tile({8, 128}));
  EXPECT_TRUE(tiled.HasAttributes());
  EXPECT_FALSE(tiled.HasAttributesBeyondTiles());
  for (int k = 0; k < 4; ++k) {
    Layout l = tiled;
    if (k == 0) l.set_memory_space(1);
    if (k == 1) l.set_element_size_in_bits(4);
    if (k == 2) l.set_tail_padding_alignment_in_elements(2);
    if (k == 3) l.add_dim_level_type(DimLevelType::DIM_DENSE);
    EXPECT_TRUE(l.HasAttributesBeyondTiles()) << l.ToString();
    l.clear_tiles();
    EXPECT_TRUE(l.HasAttributes()) << l.ToString();
    EXPECT_TRUE(l.HasAttributesBeyondTiles()) << l.ToString();
  }
}

TEST(ProtoPropertyTest, RandomShapesRoundTripThroughTheWire) {
  std::mt19937_64 rng(99);
  RandomShapeOptions options;
  options.max_slots = 1 << 20;
  for (int i = 0; i < 10000; ++i) {
    Shape shape = RandomArrayShape(rng, options);
    std::string bytes;
    ASSERT_TRUE(shape.ToProto().SerializeToString(&bytes));
    ShapeProto proto;
    ASSERT_TRUE(proto.ParseFromString(bytes));
    absl::StatusOr<Shape> back = Shape::FromProto(proto);
    ASSERT_TRUE(back.ok()) << shape << ": " << back.status();
    ASSERT_EQ(*back, shape) << shape;
  }
}

}  // namespace
}  // namespace xla_layout
