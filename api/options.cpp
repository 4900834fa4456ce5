// Options::from_environment: the GEMMTUNE_* variables, read once, never thrown over.
#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gemmtune/options.hpp"
#include "tuner/numerical_check.hpp"

namespace gemmtune {
namespace {

constexpr std::array<std::string_view, 16> kVariables = {
    "GEMMTUNE_ENABLED",
    "GEMMTUNE_TUNING",
    "GEMMTUNE_RECORD_UNTUNED",
    "GEMMTUNE_VERBOSE",
    "GEMMTUNE_BACKEND",
    "GEMMTUNE_DEVICE",
    "GEMMTUNE_FILENAME",
    "GEMMTUNE_UNTUNED_FILENAME",
    "GEMMTUNE_WRITE_FILE_ON_EXIT",
    "GEMMTUNE_MAX_TUNING_DURATION_MS",
    "GEMMTUNE_MAX_TUNING_ITERATIONS",
    "GEMMTUNE_MAX_WARMUP_DURATION_MS",
    "GEMMTUNE_MAX_WARMUP_ITERATIONS",
    "GEMMTUNE_ROTATING_BUFFER_MB",
    "GEMMTUNE_NUMERICAL_CHECK",
    "GEMMTUNE_WORKSPACE_MB",
};

const char* variable(std::string_view name) {
  return std::getenv(std::string(name).c_str());
}

void read_bool(std::string_view name, bool& out, std::vector<std::string>& warnings) {
  const char* v = variable(name);
  if (v == nullptr) return;
  const std::string_view s(v);
  if (s == "1" || s == "true" || s == "on" || s == "yes" || s == "TRUE" || s == "ON") {
    out = true;
  } else if (s == "0" || s == "false" || s == "off" || s == "no" || s == "FALSE" || s == "OFF" ||
             s.empty()) {
    out = false;
  } else {
    warnings.push_back(fmt::format("{}='{}' is not 0 or 1; using {}", name, s, out ? 1 : 0));
  }
}

template <typename T>
void read_number(std::string_view name, T& out, std::vector<std::string>& warnings) {
  const char* v = variable(name);
  if (v == nullptr) return;
  const std::string_view s(v);
  T value{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || !(value >= T{}) ||
      !std::isfinite(static_cast<double>(value))) {
    warnings.push_back(
        fmt::format("{}='{}' is not a finite non-negative number; using {}", name, s, out));
    return;
  }
  out = value;
}

void read_string(std::string_view name, std::string& out) {
  if (const char* v = variable(name); v != nullptr && *v != '\0') out = v;
}

}  // namespace

Options Options::from_environment() {
  Options o;
  auto& w = o.warnings;
  read_bool("GEMMTUNE_ENABLED", o.enabled, w);
  read_bool("GEMMTUNE_TUNING", o.tuning, w);
  read_bool("GEMMTUNE_RECORD_UNTUNED", o.record_untuned, w);
  read_bool("GEMMTUNE_VERBOSE", o.verbose, w);
  // A misspelt backend keeps the default, as every other variable's bad value does: an
  // application must not stop for its environment.
  if (const char* v = variable("GEMMTUNE_BACKEND"); v != nullptr && *v != '\0') {
    const std::string_view s(v);
    if (s == "auto" || s == "cpu" || s == "cuda") {
      o.backend = s;
    } else {
      w.push_back(
          fmt::format("GEMMTUNE_BACKEND='{}' is not auto, cpu or cuda; using {}", s, o.backend));
    }
  }
  read_number("GEMMTUNE_DEVICE", o.device, w);
  read_string("GEMMTUNE_FILENAME", o.filename);
  read_string("GEMMTUNE_UNTUNED_FILENAME", o.untuned_filename);
  read_bool("GEMMTUNE_WRITE_FILE_ON_EXIT", o.write_file_on_exit, w);
  read_number("GEMMTUNE_MAX_TUNING_DURATION_MS", o.max_tuning_duration_ms, w);
  read_number("GEMMTUNE_MAX_TUNING_ITERATIONS", o.max_tuning_iterations, w);
  read_number("GEMMTUNE_MAX_WARMUP_DURATION_MS", o.max_warmup_duration_ms, w);
  read_number("GEMMTUNE_MAX_WARMUP_ITERATIONS", o.max_warmup_iterations, w);
  if (const char* v = variable("GEMMTUNE_ROTATING_BUFFER_MB"); v != nullptr && *v != '\0') {
    const std::string_view s(v);
    double mb = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), mb);
    if (ec != std::errc() || end != s.data() + s.size() || !(mb >= 0) || !std::isfinite(mb)) {
      w.push_back(
          fmt::format("GEMMTUNE_ROTATING_BUFFER_MB='{}' is not a finite non-negative number; "
                      "using the default (twice the last-level cache)",
                      s));
    } else {
      o.rotating_buffer_mb = mb;
    }
  }
  read_string("GEMMTUNE_NUMERICAL_CHECK", o.numerical_check);
  try {  // the constructor would refuse it: warned, as above
    (void)parse_numerical_check(o.numerical_check);
  } catch (const std::exception&) {
    w.push_back(fmt::format(
        "GEMMTUNE_NUMERICAL_CHECK='{}' is not one of on, off or ATOL_RTOL (e.g. 1e-5_1e-5); "
        "using on",
        o.numerical_check));
    o.numerical_check = "on";
  }
  read_number("GEMMTUNE_WORKSPACE_MB", o.workspace_mb, w);
  if (o.workspace_mb > kMaxWorkspaceMb) {  // the constructor would refuse it: warned, as above
    w.push_back(fmt::format("GEMMTUNE_WORKSPACE_MB={} is more than {} (1 TiB); using 32",
                            o.workspace_mb, kMaxWorkspaceMb));
    o.workspace_mb = 32;
  }
  return o;
}

std::span<const std::string_view> Options::environment_variables() {
  return kVariables;
}

std::string with_device_ordinal(std::string_view filename, int ordinal) {
  std::string name(filename);
  const std::string number = std::to_string(ordinal);
  if (const auto pos = name.find("%d"); pos != std::string::npos) {
    return name.replace(pos, 2, number);
  }
  const std::filesystem::path path(name);
  const std::string extension = path.extension().string();
  if (extension.empty()) return name + number;
  return name.substr(0, name.size() - extension.size()) + number + extension;
}

}  // namespace gemmtune
