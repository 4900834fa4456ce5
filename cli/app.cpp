#include "cli/app.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/exit_codes.hpp"
#include "cli/option_abbreviations.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"

namespace gemmtune::cli {
namespace {

// Whether `name` ("--seed") was typed: as it is, or as "--seed=VALUE".
bool typed(std::string_view name, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == name || (arg.starts_with(name) && arg.substr(name.size()).starts_with("="))) {
      return true;
    }
  }
  return false;
}

// The variable a refused value came from, where it did: the message names the option
// ("--seed: ..."), and a user who typed no such option looks for it on the command line in vain.
std::string variable_behind(const CLI::App& app, std::string_view message, int argc, char** argv) {
  for (const CLI::Option* option : app.get_options()) {
    const std::string& variable = option->get_envname();
    const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
    if (value == nullptr) continue;
    for (const std::string& long_name : option->get_lnames()) {
      const std::string name = "--" + long_name;
      // "--seed: ..." from our checks, "Could not convert: --strict = maybe" from CLI11's.
      const bool named = message.starts_with(name + ":") ||
                         message.find(": " + name + " = ") != std::string_view::npos;
      if (named && !typed(name, argc, argv)) {
        return fmt::format("gemmtune: the value of {} came from {}='{}'\n", name, variable, value);
      }
    }
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (std::string note = variable_behind(*sub, message, argc, argv); !note.empty()) return note;
  }
  return {};
}

// Where a subcommand was expected and a word that names none was typed ("gemmtune lookup x"),
// what CLI11 says ("A subcommand is required") does not name the word: this does, with the
// subcommands there are. Empty where that is not the error.
std::string unknown_subcommand(const CLI::App& app) {
  const CLI::App* at = &app;
  std::string path = at->get_name();
  for (auto parsed = at->get_subcommands(); !parsed.empty(); parsed = at->get_subcommands()) {
    at = parsed.front();
    path += " " + at->get_name();
  }
  const std::vector<std::string> rest = at->remaining();
  if (at->get_require_subcommand_min() == 0 || rest.empty() || rest.front().empty() ||
      rest.front().starts_with("-")) {
    return {};
  }
  std::vector<std::string> names;
  for (const CLI::App* sub : at->get_subcommands({})) names.push_back(sub->get_name());
  return fmt::format(
      "{}: unknown subcommand '{}' (there are: {})\nRun with --help for more information.\n", path,
      rest.front(), fmt::join(names, ", "));
}

}  // namespace

std::unique_ptr<CLI::App> make_app() {
  auto app = std::make_unique<CLI::App>(
      "gemmtune: a GEMM autotuner and tuning database compatible with PyTorch TunableOp",
      "gemmtune");
  app->set_version_flag("--version", fmt::format("gemmtune {}", gemmtune_version()));
  app->require_subcommand(1);
  app->fallthrough(false);

  setup_tune(*app);
  setup_mamf(*app);
  setup_bench(*app);
  auto* db = app->add_subcommand("db", "Inspect, check, convert and merge results files");
  db->require_subcommand(1);
  setup_db_show(*db);
  setup_db_check(*db);
  setup_db_convert(*db);
  setup_db_merge(*db);
  return app;
}

int run(int argc, char** argv) {
  auto app = make_app();
  // mamf takes mamf-finder.py's command lines, abbreviated options included (argparse's rule).
  ExpandedArguments expanded =
      expand_abbreviations(*app->get_subcommand("mamf"), mamf_finder_options(),
                           std::vector<std::string>(argv, argv + argc));
  if (!expanded.error.empty()) {
    fmt::print(stderr, "gemmtune mamf: {}\nRun with --help for more information.\n",
               expanded.error);
    return to_int(ExitCode::Usage);
  }
  std::vector<char*> expanded_argv;
  for (std::string& arg : expanded.args) expanded_argv.push_back(arg.data());
  expanded_argv.push_back(nullptr);
  argv = expanded_argv.data();
  try {
    app->parse(argc, argv);
    return to_int(ExitCode::Success);
  } catch (const CLI::Success& e) {  // --help, --version
    return app->exit(e);
  } catch (const CLI::ParseError& e) {
    if (const std::string unknown = unknown_subcommand(*app); !unknown.empty()) {
      fmt::print(stderr, "{}", unknown);
      return to_int(ExitCode::Usage);
    }
    app->exit(e);
    fmt::print(stderr, "{}", variable_behind(*app, e.what(), argc, argv));
    return to_int(ExitCode::Usage);
  } catch (const ExitWith& e) {
    if (*e.what()) fmt::print(stderr, "gemmtune: {}\n", e.what());
    return to_int(e.code());
  } catch (const InputError& e) {
    fmt::print(stderr, "gemmtune: bad input: {}\n", e.what());
    return to_int(ExitCode::BadInput);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gemmtune: internal error: {}\n", e.what());
    return to_int(ExitCode::InternalError);
  }
}

}  // namespace gemmtune::cli
