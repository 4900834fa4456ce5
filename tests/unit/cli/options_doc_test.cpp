// docs/options.md and the command tree behind --help must agree: every option with a long name
// is in the table with its environment variable and default, and the table names nothing else.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cli/app.hpp"

namespace gemmtune::cli {
namespace {

struct Row {
  std::string env;
  std::string default_value;
  friend bool operator==(const Row&, const Row&) = default;
};
using Key = std::pair<std::string, std::string>;  // command, --option

std::string strip(std::string s) {
  const auto b = s.find_first_not_of(" `");
  const auto e = s.find_last_not_of(" `");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::map<Key, Row> table_from_doc() {
  std::ifstream in(GEMMTUNE_OPTIONS_DOC);
  EXPECT_TRUE(in) << GEMMTUNE_OPTIONS_DOC;
  std::map<Key, Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `gemmtune", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) cells.push_back(strip(cell));
    EXPECT_GE(cells.size(), 5u) << line;
    if (cells.size() < 5) continue;
    EXPECT_TRUE(rows.emplace(Key{cells[0], cells[1]}, Row{cells[2], cells[3]}).second)
        << "listed twice: " << line;
  }
  return rows;
}

void collect(const CLI::App& app, const std::string& path, std::map<Key, Row>& out) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty()) continue;  // positionals
    const std::string name = "--" + opt->get_lnames().front();
    if (name == "--help") continue;
    out[{path, name}] = Row{opt->get_envname(), opt->get_default_str()};
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    collect(*sub, path + " " + sub->get_name(), out);
  }
}

TEST(OptionsDoc, TableMatchesTheCommandTree) {
  const auto app = make_app();
  std::map<Key, Row> from_cli;
  collect(*app, "gemmtune", from_cli);
  const auto from_doc = table_from_doc();
  for (const auto& [key, row] : from_cli) {
    auto it = from_doc.find(key);
    if (it == from_doc.end()) {
      ADD_FAILURE() << key.first << " " << key.second << " is missing from docs/options.md";
      continue;
    }
    EXPECT_EQ(it->second.env, row.env) << key.first << " " << key.second;
    // --version's "default" is the version text; the table does not repeat it.
    if (key.second != "--version") {
      EXPECT_EQ(it->second.default_value, row.default_value) << key.first << " " << key.second;
    }
  }
  for (const auto& [key, row] : from_doc) {
    EXPECT_TRUE(from_cli.count(key)) << "docs/options.md lists " << key.first << " " << key.second
                                     << ", which the CLI does not have";
  }
  EXPECT_GT(from_cli.size(), 20u);
}

}  // namespace
}  // namespace gemmtune::cli
