#include "cli/app.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"

namespace gemmtune::cli {

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
  try {
    app->parse(argc, argv);
    return to_int(ExitCode::Success);
  } catch (const CLI::Success& e) {  // --help, --version
    return app->exit(e);
  } catch (const CLI::ParseError& e) {
    app->exit(e);
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
