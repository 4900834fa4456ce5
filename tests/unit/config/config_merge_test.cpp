// FlagPerf's merge rules: a key the base lacks → warning; a changed value → a logged change; an
// override equal to the base value → an error naming the key and the file.
#include "drivers/config/config_merge.hpp"

#include <gtest/gtest.h>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

const ConfigTree kBase = ConfigTree::parse(R"([tune]
max_tuning_iterations = 100
search = "heuristic"
[device]
name = "unknown"
match = []
)",
                                           "configs/default.toml");

TEST(ConfigMerge, AKeyTheBaseLacksIsAddedWithAWarning) {
  ConfigTree tree = kBase;
  MergeNotes notes;
  merge_layer(tree, ConfigTree::parse("[tune]\nmax_tuning_iteration = 5\n", "my.toml"), notes);
  ASSERT_EQ(notes.warnings.size(), 1u);
  EXPECT_EQ(notes.warnings[0],
            "my.toml: tune.max_tuning_iteration is not in configs/default.toml; added (check the "
            "spelling)");
  EXPECT_TRUE(notes.changes.empty());
  ASSERT_NE(tree.find("tune.max_tuning_iteration"), nullptr);
  EXPECT_EQ(tree.find("tune.max_tuning_iteration")->origin, "my.toml");
  EXPECT_EQ(std::get<std::int64_t>(tree.find("tune.max_tuning_iterations")->value), 100);
}

TEST(ConfigMerge, AChangedValueIsOverriddenAndLogged) {
  ConfigTree tree = kBase;
  MergeNotes notes;
  merge_layer(
      tree,
      ConfigTree::parse("[tune]\nmax_tuning_iterations = 200\n[device]\nmatch = [\"H100\"]\n",
                        "configs/devices/h100_sxm.toml"),
      notes);
  EXPECT_TRUE(notes.warnings.empty());
  EXPECT_EQ(notes.changes,
            (std::vector<std::string>{
                "tune.max_tuning_iterations: 100 → 200 (configs/devices/h100_sxm.toml)",
                "device.match: [] → [\"H100\"] (configs/devices/h100_sxm.toml)"}));
  EXPECT_EQ(std::get<std::int64_t>(tree.find("tune.max_tuning_iterations")->value), 200);
  EXPECT_EQ(tree.find("tune.max_tuning_iterations")->origin, "configs/devices/h100_sxm.toml");
  EXPECT_EQ(tree.find("tune.search")->origin, "configs/default.toml");
}

TEST(ConfigMerge, AnOverrideEqualToTheBaseIsAnErrorNamingKeyAndFile) {
  ConfigTree tree = kBase;
  MergeNotes notes;
  try {
    merge_layer(tree, ConfigTree::parse("[tune]\nmax_tuning_iterations = 100.0\n", "my.toml"),
                notes);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "my.toml: tune.max_tuning_iterations = 100.0 is the same as in "
                 "configs/default.toml; remove it");
  }
}

TEST(ConfigMerge, TheErrorNamesTheLayerTheBaseValueCameFrom) {
  ConfigTree tree = kBase;
  MergeNotes notes;
  merge_layer(tree, ConfigTree::parse("[tune]\nsearch = \"exhaustive\"\n", "dev.toml"), notes);
  try {
    merge_layer(tree, ConfigTree::parse("[tune]\nsearch = \"exhaustive\"\n", "user.toml"), notes);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "user.toml: tune.search = \"exhaustive\" is the same as in dev.toml; remove it");
  }
}

}  // namespace
}  // namespace gemmtune
