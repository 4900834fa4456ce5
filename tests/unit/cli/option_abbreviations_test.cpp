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
  return expand_abbreviations(*app->get_subcommand("mamf"), mamf_finder_options(), std::move(args));
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
            "ambiguous option: --num could match --num_iterations, --num_warmup_iterations");
  EXPECT_EQ(expand({"mamf", "--no=1"}).error,
            "ambiguous option: --no could match --notes, --no-verbose");
  // Among gemmtune's own options too: --config and --configs-dir.
  EXPECT_EQ(expand({"mamf", "--conf", "x.toml"}).error,
            "ambiguous option: --conf could match --config, --configs-dir");
}

TEST(OptionAbbreviations, AnOptionWordWhereAValueIsDueIsRefusedAsArgparseRefusesIt) {
  // CLI11 took "--out" (expanded) as the notes; argparse says the value is missing.
  EXPECT_EQ(expand({"mamf", "--notes", "--out", "x"}).error,
            "argument --notes: expected one argument");
  EXPECT_EQ(expand({"mamf", "--m", "--n", "8"}).error,
            "argument --m: expected at least one argument");
  EXPECT_EQ(expand({"mamf", "--m_r", "--n", "8"}).error,
            "argument --m_range: expected 3 arguments");
  // A value given, with "=" or as the next word, and flags before options, are fine.
  for (std::vector<std::string> fine :
       {std::vector<std::string>{"mamf", "--notes=--x", "--m", "8", "--n", "8"},
        {"mamf", "--m", "8", "16", "--n", "8"},
        {"mamf", "--tuned", "--no-verbose", "--k", "8"},
        {"mamf", "--m_range", "0", "-8", "-4", "--n", "8"}}) {
    EXPECT_EQ(expand(fine).error, "") << fine[1];
  }
}

TEST(OptionAbbreviations, APrefixUniqueAmongMamfFindersOptionsMeansWhatItMeansThere) {
  // mamf-finder.py has one option each that begins --d and --c; gemmtune adds --db,
  // --device-config, --config and --configs-dir, which must not make them ambiguous.
  EXPECT_EQ(expand({"mamf", "--d", "float16", "--c", "1"}).args,
            line({"mamf", "--dtype", "float16", "--cuda_device", "1"}));
  // A prefix no mamf-finder option begins is matched against gemmtune's own.
  EXPECT_EQ(expand({"mamf", "--tune", "--sea", "exhaustive"}).args,
            line({"mamf", "--tuned", "--search", "exhaustive"}));
}

TEST(OptionAbbreviations, EveryMamfFinderOptionIsAnOptionOfMamf) {
  const auto app = make_app();
  const CLI::App& mamf = *app->get_subcommand("mamf");
  for (const std::string& name : mamf_finder_options()) {
    bool found = false;
    for (const CLI::Option* option : mamf.get_options()) {
      for (const std::string& long_name : option->get_lnames()) found |= "--" + long_name == name;
    }
    EXPECT_TRUE(found) << name;
  }
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
