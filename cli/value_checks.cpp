#include "cli/value_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "db/results_store.hpp"
#include "drivers/backend_factory.hpp"
#include "tuner/error.hpp"
#include "tuner/numerical_check.hpp"

namespace gemmtune::cli {

CLI::Validator parsed_by(std::string description, std::function<void(const std::string&)> parse) {
  return CLI::Validator(
      [parse = std::move(parse)](std::string& text) -> std::string {
        try {
          parse(text);
        } catch (const InputError& e) {
          // CLI11 puts the option's name first; a message that starts with it too ("--shard:
          // '2/2' is not a shard", the drivers' style) would say it twice.
          std::string message = e.what();
          const auto colon = message.find(": ");
          if (message.rfind("--", 0) == 0 && colon != std::string::npos)
            message.erase(0, colon + 2);
          return message;
        }
        return {};
      },
      std::move(description));
}

CLI::Validator numerical_check_value() {
  return parsed_by("on, off or ATOL_RTOL",
                   [](const std::string& text) { (void)parse_numerical_check(text); });
}

CLI::Validator results_file_name() {
  return parsed_by("FILE (.csv, .db, .sqlite, .sqlite3)", [](const std::string& text) {
    // A directory is left to the store, which says it is one whatever its name.
    std::error_code ec;
    if (!text.empty() && !std::filesystem::is_directory(text, ec)) (void)results_store_kind(text);
  });
}

CLI::Validator provider_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return {};  // `--providers ""`: not set, every provider (as the docs say)
        std::vector<std::string> known;
        for (const BackendKind kind : {BackendKind::Cpu, BackendKind::Cuda}) {
          const BackendProviders providers = providers_of(kind);
          for (const auto& p : providers.registry->providers_for(providers.backend)) {
            known.emplace_back(p->name());
          }
        }
        if (std::find(known.begin(), known.end(), text) != known.end()) return {};
        std::sort(known.begin(), known.end());
        if (std::find(kCudaProviderNames.begin(), kCudaProviderNames.end(), text) !=
            kCudaProviderNames.end()) {
          return fmt::format(
              "provider '{}' is on the CUDA backend, and this gemmtune was built without CUDA "
              "(GEMMTUNE_WITH_CUDA=OFF); known: {}",
              text, fmt::join(known, ", "));
        }
        return fmt::format("no provider '{}' in this gemmtune; known: {}", text,
                           fmt::join(known, ", "));
      },
      "PROVIDER");
}

}  // namespace gemmtune::cli
