#include "drivers/multi/output_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "db/results_store.hpp"

namespace gemmtune {
namespace fs = std::filesystem;

fs::path with_rank(const fs::path& path, const Shard& shard) {
  if (!shard.active()) return path;
  fs::path ranked = path;
  ranked.replace_filename(
      fmt::format("{}.rank{}{}", path.stem().string(), shard.index, path.extension().string()));
  return ranked;
}

OutputNames::OutputNames(const fs::path& output, const Shard& shard) {
  if (is_sqlite_path(output)) {
    sqlite_ = true;
    database_ = with_rank(output, shard);
    return;
  }
  single_device_ = with_rank(output, shard);
  const std::string name = output.filename().string();
  const std::string dir = output.has_parent_path() ? output.parent_path().string() + "/" : "";
  std::string before, after;
  if (const auto token = name.find("%d"); token != std::string::npos) {
    before = name.substr(0, token);
    after = name.substr(token + 2);
  } else {
    const auto dot = name.rfind('.');
    before = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
    after = dot == std::string::npos || dot == 0 ? "" : name.substr(dot);
    // A number ending the stem is the device's place (tunableop_results0.csv).
    while (!before.empty() && std::isdigit(static_cast<unsigned char>(before.back()))) {
      before.pop_back();
    }
  }
  if (shard.active()) {
    const auto dot = after.rfind('.');
    const std::string rank = fmt::format(".rank{}", shard.index);
    after =
        dot == std::string::npos ? after + rank : after.substr(0, dot) + rank + after.substr(dot);
  }
  prefix_ = dir + before;
  suffix_ = after;
}

fs::path OutputNames::per_device(int ordinal) const {
  if (sqlite_) return database_;
  return prefix_ + std::to_string(ordinal) + suffix_;
}

fs::path OutputNames::copy(int ordinal) const {
  if (sqlite_) return database_;
  return prefix_ + "_full" + std::to_string(ordinal) + suffix_;
}

std::optional<int> OutputNames::ordinal_named(const std::string& name) const {
  const std::string stem = fs::path(prefix_).filename().string();
  if (name.size() <= stem.size() + suffix_.size() || name.rfind(stem, 0) != 0 ||
      !name.ends_with(suffix_)) {
    return std::nullopt;
  }
  const std::string middle = name.substr(stem.size(), name.size() - stem.size() - suffix_.size());
  // As per_device spells an ordinal: r01.csv is no device's file (it would be read as r1.csv).
  if (middle.empty() || middle.size() > 4 || (middle.size() > 1 && middle.front() == '0') ||
      !std::all_of(middle.begin(), middle.end(),
                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  return std::stoi(middle);
}

std::vector<std::pair<int, fs::path>> OutputNames::existing_per_device() const {
  std::vector<std::pair<int, fs::path>> found;
  if (sqlite_) return found;
  const fs::path prefix_path(prefix_);
  const fs::path dir = prefix_path.has_parent_path() ? prefix_path.parent_path() : fs::path(".");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (const auto ordinal = ordinal_named(entry.path().filename().string())) {
      found.emplace_back(*ordinal, per_device(*ordinal));
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::optional<int> OutputNames::single_device_ordinal() const {
  if (sqlite_) return std::nullopt;
  // In the directory the per-device files are in, spelled as they are.
  const auto ordinal = ordinal_named(single_device_.filename().string());
  if (!ordinal || per_device(*ordinal) != single_device_) return std::nullopt;
  return ordinal;
}

std::optional<fs::path> OutputNames::existing_single_device() const {
  if (sqlite_) return std::nullopt;
  std::error_code ec;
  if (!fs::is_regular_file(single_device_, ec)) return std::nullopt;
  const auto same = [&](const fs::path& other) {
    return fs::equivalent(single_device_, other, ec);
  };
  if (same(gathered())) return std::nullopt;
  for (const auto& [ordinal, path] : existing_per_device()) {
    if (same(path) || same(copy(ordinal))) return std::nullopt;
  }
  return single_device_;
}

}  // namespace gemmtune
