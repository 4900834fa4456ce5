// mamf takes argparse's abbreviated long options, as mamf-finder.py does: a prefix that begins
// exactly one of mamf's long options is that option; one that begins several is refused with the
// candidates; exact names, values, other subcommands and what follows "--" are left alone.
#include "cli/option_abbreviations.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/app.hpp"

namespace gemmtune::cli {
namespace {

ExpandedArguments expand(std::vector<std::string> args) {
  const auto app = make_app();
  args.insert(args.begin(), "gemmtune");
  return expand_abbreviations(*app->get_subcommand("mamf"), std::move(args));
}

std::vector<std::string> line(std::vector<std::string> args) {
  args.insert(args.begin(), "gemmtune");
  return args;
}

TEST(OptionAbbreviations, AUniquePrefixBecomesItsOption) {
  const auto out = expand({"mamf", "--m_r", "0", "4096", "1024", "--num_iter", "5", "--k", "64",
                           "--n", "64", "--out=r.txt", "--no-v"});
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.args, line({"mamf", "--m_range", "0", "4096", "1024", "--num_iterations", "5",
                            "--k", "64", "--n", "64", "--output_file=r.txt", "--no-verbose"}));
}

TEST(OptionAbbreviations, AnExactNameIsNeverAPrefix) {
  // --n and --k are options of their own as well as the beginnings of --n_range, --k_range, ...
  const auto out = expand({"mamf", "--n", "8", "--k", "8", "--m", "8", "--notes", "x"});
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.args, line({"mamf", "--n", "8", "--k", "8", "--m", "8", "--notes", "x"}));
}

TEST(OptionAbbreviations, AnAmbiguousPrefixIsRefusedWithItsCandidates) {
  const auto out = expand({"mamf", "--m", "8", "--num", "5"});
  EXPECT_EQ(out.error,
            "ambiguous option: --num could match --num_iterations, --num_warmup_iterations, "
            "--numerical-check");
  EXPECT_NE(expand({"mamf", "--no=1"}).error.find("--no could match --no-verbose, --notes"),
            std::string::npos);
}

TEST(OptionAbbreviations, LeavesWhatIsNotAnAbbreviatedMamfOption) {
  // No option begins --zz (CLI11 refuses it); values and words after "--" are not options.
  EXPECT_EQ(expand({"mamf", "--zz", "1", "--", "--num_iter"}).args,
            line({"mamf", "--zz", "1", "--", "--num_iter"}));
  // Another subcommand keeps CLI11's rule: full names only.
  EXPECT_EQ(expand({"tune", "--out", "x.csv", "a.csv"}).args,
            line({"tune", "--out", "x.csv", "a.csv"}));
  EXPECT_EQ(expand({}).args, line({}));
}

}  // namespace
}  // namespace gemmtune::cli
