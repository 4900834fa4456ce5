// Merge: the faster time wins every conflict, each conflict is reported, and tables from
// another environment are refused with the differing keys.
#include "db/merge.hpp"

#include <gtest/gtest.h>

#include "db/csv_results.hpp"
#include "temp_dir.hpp"

namespace gemmtune {
namespace {

ResultsTable parse(std::string_view text) {
  Diagnostics d;
  return parse_results_csv(text, "mem.csv", d);
}

TEST(Merge, FasterTimeWinsAndEveryConflictIsReported) {
  const std::vector<MergeSource> sources{
      {"a.csv", parse("Validator,PT_VERSION,2.11.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.500\n"
                      "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.3\n")},
      {"b.csv", parse("Validator,PT_VERSION,2.11.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Lt_1,0.4\n"
                      "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Lt_2,0.35\n"
                      "GemmTunableOp_Half_NN,nn_32_32_32_ld_32_32_32,Default,0.9\n")},
      {"c.csv", parse("Validator,PT_VERSION,2.11.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Lt_1,0.4\n")},  // identical
  };
  const MergeResult r = merge_tables(sources);
  EXPECT_TRUE(r.refused.empty());
  ASSERT_EQ(r.table.entries.size(), 3u);
  EXPECT_EQ(r.table.entries[0].solution, "Lt_1");  // 0.4 beats 0.5, in the first entry's place
  EXPECT_EQ(r.table.entries[1].solution, "Default");  // 0.3 beats 0.35
  EXPECT_EQ(r.table.entries[2].solution, "Default");
  ASSERT_EQ(r.conflicts.size(), 2u);
  EXPECT_EQ(r.conflicts[0].winner_source, "b.csv");
  EXPECT_EQ(r.conflicts[0].loser_source, "a.csv");
  EXPECT_EQ(r.conflicts[0].loser.solution, "Default");
  EXPECT_EQ(r.conflicts[0].describe(),
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8: Lt_1 from b.csv (0.4 ms) beats Default from "
            "a.csv (0.5 ms)");
  EXPECT_EQ(r.conflicts[1].winner_source, "a.csv");
  EXPECT_EQ(r.conflicts[1].loser.solution, "Lt_2");
  // Original spellings travel with the winners.
  EXPECT_EQ(format_results_csv(r.table),
            "Validator,PT_VERSION,2.11.0\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Lt_1,0.4\n"
            "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.3\n"
            "GemmTunableOp_Half_NN,nn_32_32_32_ld_32_32_32,Default,0.9\n");
}

TEST(Merge, TieKeepsTheFirst) {
  const std::vector<MergeSource> sources{
      {"a", parse("GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,A,0.5\n")},
      {"b", parse("GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,B,0.5\n")}};
  const MergeResult r = merge_tables(sources);
  EXPECT_EQ(r.table.entries.at(0).solution, "A");
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].winner_source, "a");
}

TEST(Merge, AnotherEnvironmentIsRefusedWithTheDifferingKeys) {
  const std::vector<MergeSource> sources{
      {"a.csv", parse("Validator,PT_VERSION,2.11.0\nValidator,GEMMTUNE_VERSION,0.1.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,A,0.5\n")},
      {"b.csv", parse("Validator,PT_VERSION,2.12.0\nValidator,CUBLASLT_VERSION,130100\n"
                      "Validator,GEMMTUNE_VERSION,0.1.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,B,0.1\n")}};
  const MergeResult r = merge_tables(sources);
  EXPECT_EQ(r.table.entries.at(0).solution, "A");
  EXPECT_TRUE(r.conflicts.empty());
  ASSERT_EQ(r.refused.size(), 1u);
  EXPECT_EQ(r.refused[0].name, "b.csv");
  const auto differences = r.refused[0].comparison.differences();
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_EQ(differences[0].key, "PT_VERSION");
  EXPECT_EQ(differences[1].key, "CUBLASLT_VERSION");
  EXPECT_FALSE(differences[1].recorded.has_value());
  EXPECT_EQ(r.refused[0].describe("a.csv"),
            "b.csv: refused, its environment differs from a.csv's: PT_VERSION: a.csv '2.11.0', "
            "b.csv '2.12.0'; CUBLASLT_VERSION: a.csv lacks it, b.csv '130100'");
}

TEST(Merge, NothingToMerge) {
  EXPECT_TRUE(merge_tables({}).table.entries.empty());
}

}  // namespace
}  // namespace gemmtune
