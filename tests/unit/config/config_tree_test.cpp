// ConfigTree: TOML flattened to dotted keys in the document's order, with origins; bad TOML names
// the file and the line; render() writes TOML that parses back to the same keys and values.
#include "drivers/config/config_tree.hpp"

#include <gtest/gtest.h>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr const char* kText = R"([tune]
max_tuning_iterations = 100
max_tuning_duration_ms = 30.5
search = "heuristic"  # a comment
flush_cache = false

[device]
name = "NVIDIA H100"
match = ["H100"]
peak_dense_tflops.bfloat16 = 989.4
mamf = { m_range = [0, 20480, 256] }

[device.extra]
note = "x"
)";

std::vector<std::string> keys(const ConfigTree& tree) {
  std::vector<std::string> out;
  for (const auto& e : tree.entries()) out.push_back(e.key);
  return out;
}

TEST(ConfigTree, FlattensToDottedKeysInTheDocumentsOrder) {
  const ConfigTree tree = ConfigTree::parse(kText, "a.toml");
  EXPECT_EQ(keys(tree),
            (std::vector<std::string>{"tune.max_tuning_iterations", "tune.max_tuning_duration_ms",
                                      "tune.search", "tune.flush_cache", "device.name",
                                      "device.match", "device.peak_dense_tflops.bfloat16",
                                      "device.mamf.m_range", "device.extra.note"}));
  const ConfigEntry* e = tree.find("tune.max_tuning_iterations");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(e->value), 100);
  EXPECT_EQ(e->origin, "a.toml");
  EXPECT_EQ(std::get<double>(tree.find("tune.max_tuning_duration_ms")->value), 30.5);
  EXPECT_EQ(std::get<bool>(tree.find("tune.flush_cache")->value), false);
  EXPECT_EQ(std::get<ConfigArray>(tree.find("device.match")->value).size(), 1u);
  EXPECT_EQ(tree.find("tune.nope"), nullptr);
  EXPECT_EQ(tree.under("tune").size(), 4u);
  EXPECT_EQ(tree.under("device").size(), 5u);
  EXPECT_EQ(top_table("device.peak_dense_tflops.bfloat16"), "device");
}

TEST(ConfigTree, SyntaxErrorsNameFileAndLine) {
  try {
    ConfigTree::parse("[tune]\nseed = 1\nsearch = = 2\n", "configs/bad.toml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("configs/bad.toml:3: not valid TOML: ", 0), 0u) << what;
    EXPECT_NE(what.find("search = = 2"), std::string::npos) << what;  // toml11's excerpt
  }
  try {
    ConfigTree::parse("[tune]\nseed = 1\nseed = 2\n", "dup.toml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("dup.toml:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
}

TEST(ConfigTree, RefusesWhatAConfigurationCannotHold) {
  const auto refused = [](std::string_view text, std::string_view needle) {
    try {
      ConfigTree::parse(text, "x.toml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("x.toml:", 0), 0u) << e.what();
    }
  };
  refused("[a]\nwhen = 1979-05-27\n", "a.when");
  refused("[a]\nv = [[1, 2], [3]]\n", "arrays of arrays");
  refused("[[a]]\nv = 1\n", "arrays of arrays or of tables");
  refused("[a]\n\"b.c\" = 1\n", "plain words");
}

TEST(ConfigTree, SetReplacesOrAppends) {
  ConfigTree tree = ConfigTree::parse(kText, "a.toml");
  tree.set("tune.search", std::string("exhaustive"), "command line");
  EXPECT_EQ(std::get<std::string>(tree.find("tune.search")->value), "exhaustive");
  EXPECT_EQ(tree.find("tune.search")->origin, "command line");
  EXPECT_EQ(keys(tree)[2], "tune.search");  // kept in place
  tree.set("tune.new_key", std::int64_t{1}, "b.toml");
  EXPECT_EQ(keys(tree).back(), "tune.new_key");
}

TEST(ConfigTree, RendersTomlThatParsesBack) {
  ConfigTree tree = ConfigTree::parse(kText, "a.toml");
  tree.set("tune.late", std::string("z"), "b.toml");  // after [device]: still under [tune]
  const std::string text = tree.render(false);
  EXPECT_EQ(text.find("[tune]\n"), 0u) << text;
  EXPECT_LT(text.find("late = \"z\""), text.find("[device]")) << text;
  EXPECT_NE(text.find("[device.peak_dense_tflops]\nbfloat16 = 989.4\n"), std::string::npos) << text;
  const ConfigTree back = ConfigTree::parse(text, "back.toml");
  ASSERT_EQ(back.entries().size(), tree.entries().size());
  for (const auto& e : tree.entries()) {
    const ConfigEntry* b = back.find(e.key);
    ASSERT_NE(b, nullptr) << e.key;
    EXPECT_TRUE(same_value(b->value, e.value)) << e.key;
  }
}

TEST(ConfigTree, RendersOriginsAndSelectedTables) {
  ConfigTree tree = ConfigTree::parse(kText, "a.toml");
  tree.set("tune.search", std::string("exhaustive"), "GEMMTUNE_SEARCH");
  const std::string text = tree.render(true, {"tune"});
  EXPECT_NE(text.find("max_tuning_iterations = 100"), std::string::npos) << text;
  EXPECT_NE(text.find("# a.toml\n"), std::string::npos) << text;
  EXPECT_NE(text.find("search = \"exhaustive\""), std::string::npos) << text;
  EXPECT_NE(text.find("# GEMMTUNE_SEARCH\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("[device"), std::string::npos) << text;
  // Origins are comments: the text is still TOML.
  EXPECT_NO_THROW(ConfigTree::parse(text, "with_origins.toml"));
}

}  // namespace
}  // namespace gemmtune
