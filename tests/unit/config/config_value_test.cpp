// ConfigValue: equality across integer and float, TOML literals, option words and back.
#include "drivers/config/config_value.hpp"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

TEST(ConfigValue, NumbersCompareByValueAcrossIntegerAndFloat) {
  EXPECT_TRUE(same_value(std::int64_t{100}, 100.0));
  EXPECT_TRUE(same_value(989.4, 989.4));
  EXPECT_FALSE(same_value(std::int64_t{100}, 100.5));
  EXPECT_FALSE(same_value(std::int64_t{1}, true));
  EXPECT_FALSE(same_value(std::string("100"), std::int64_t{100}));
  EXPECT_TRUE(
      same_value(ConfigArray{std::int64_t{0}, std::int64_t{5376}}, ConfigArray{0.0, 5376.0}));
  EXPECT_FALSE(same_value(ConfigArray{}, ConfigArray{std::string("H100")}));
  EXPECT_TRUE(same_value(ConfigArray{}, ConfigArray{}));
}

TEST(ConfigValue, TomlLiteralsParseBackToTheSameValue) {
  EXPECT_EQ(to_toml(true), "true");
  EXPECT_EQ(to_toml(std::int64_t{100}), "100");
  EXPECT_EQ(to_toml(30.0), "30.0");
  EXPECT_EQ(to_toml(989.4), "989.4");
  EXPECT_EQ(to_toml(1e-5), "1e-05");
  EXPECT_EQ(to_toml(std::string("a \"b\"\\\n")), R"("a \"b\"\\\n")");
  EXPECT_EQ(to_toml(ConfigArray{std::int64_t{0}, std::int64_t{20480}, std::int64_t{256}}),
            "[0, 20480, 256]");
  EXPECT_EQ(to_toml(ConfigArray{std::string("PCIE"), std::string("NVL")}), R"(["PCIE", "NVL"])");
}

TEST(ConfigValue, OptionWordsAndBack) {
  EXPECT_EQ(to_option_texts(std::string("on")), std::vector<std::string>{"on"});
  EXPECT_EQ(to_option_texts(30.0), std::vector<std::string>{"30"});
  EXPECT_EQ(to_option_texts(false), std::vector<std::string>{"false"});
  EXPECT_EQ(to_option_texts(ConfigArray{std::int64_t{0}, std::int64_t{97}, std::int64_t{32}}),
            (std::vector<std::string>{"0", "97", "32"}));
  EXPECT_TRUE(same_value(value_like(std::int64_t{100}, {"200"}), std::int64_t{200}));
  EXPECT_EQ(kind_name(value_like(std::int64_t{100}, {"2.5"})), "float");
  EXPECT_EQ(kind_name(value_like(30.0, {"5"})), "float");
  EXPECT_TRUE(same_value(value_like(false, {"true"}), true));
  EXPECT_TRUE(same_value(value_like(std::string("on"), {"off"}), std::string("off")));
  // A placeholder ("" = not set) takes the kind its word spells.
  EXPECT_EQ(kind_name(value_like(std::string(), {"64"})), "integer");
  EXPECT_TRUE(same_value(value_like(ConfigArray{}, {"0", "97", "32"}),
                         ConfigArray{std::int64_t{0}, std::int64_t{97}, std::int64_t{32}}));
}

TEST(ConfigValue, EmptyStringsAndArraysAreUnset) {
  EXPECT_TRUE(is_unset(std::string()));
  EXPECT_TRUE(is_unset(ConfigArray{}));
  EXPECT_FALSE(is_unset(std::int64_t{0}));
  EXPECT_FALSE(is_unset(false));
  EXPECT_FALSE(is_unset(std::string("x")));
}

}  // namespace
}  // namespace gemmtune
