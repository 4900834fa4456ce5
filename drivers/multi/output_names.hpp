// The files a multi-device run writes, named as PyTorch TunableOp names them (docs/multi-gpu.md).
//
// PyTorch writes one results file per device, `tunableop_results<ordinal>.csv` by default: the
// ordinal replaces `%d` in PYTORCH_TUNABLEOP_FILENAME, or is put before the file's last '.'. Its
// mgpu_tune_gemm_in_file then gathers every file matching the name with a '?' in the device's
// place into the pattern with '?' replaced by "_full0" (`tunableop_results_full0.csv`), and copies
// that file once per further device as `..._full<i>.csv`, so that each device's process loads
// its own copy.
//
// Contract (`-o` is the template):
// - `%d` in the file name marks the device's place: `res%d.csv` → `res2.csv`, `res_full0.csv`.
// - Otherwise a number ending the file's stem is the device's place, so that the default
//   `tunableop_results0.csv` gives `tunableop_results<i>.csv` and `tunableop_results_full0.csv`.
// - Otherwise the device goes before the last '.': `res.csv` → `res2.csv`, `res_full0.csv`.
// - A SQLite output (.db, .sqlite, .sqlite3) is one database for every device: no per-device
//   files, nothing to gather or copy.
// - Under a shard I/N with N > 1 every name gets `.rank<I>` before its extension
//   (`tunableop_results_full0.rank1.csv`), so that ranks sharing a file system never write the
//   same file; `gemmtune db merge` gathers the ranks' files.
// - The file `-o` names, as a one-device run writes it, is read too where it is none of these
//   names (`res.csv`): its entries are resumed from and gathered, never left behind.
// - Unlike PyTorch (which replaces every '0' of the gathered path to name the copies, and whose
//   '?' matches one character only), only the device's place changes, for any number of devices.
#pragma once

#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "drivers/multi/shard.hpp"

namespace gemmtune {

class OutputNames {
 public:
  OutputNames(const std::filesystem::path& output, const Shard& shard);

  bool sqlite() const { return sqlite_; }
  // Where device `ordinal`'s worker appends its results (the database itself for SQLite).
  std::filesystem::path per_device(int ordinal) const;
  // <prefix>_full0<suffix>: every device's results gathered (CSV only).
  std::filesystem::path gathered() const { return copy(0); }
  // <prefix>_full<ordinal><suffix>: a copy of the gathered file for device `ordinal`.
  std::filesystem::path copy(int ordinal) const;
  // Per-device files present on disk, by ordinal (CSV only; gathered files are not among them).
  std::vector<std::pair<int, std::filesystem::path>> existing_per_device() const;
  // The file a one-device run given the same `-o` writes (`res.csv`, or `res.rank1.csv` under a
  // shard), when it is on disk and is none of this run's names (CSV only): what it holds counts
  // as tuned and is gathered, so that moving from one device to several loses nothing.
  std::optional<std::filesystem::path> existing_single_device() const;
  // The device whose per-device file is the very file a one-device run given the same `-o`
  // writes, where there is one (a stem ending in a number: `tunableop_results0.csv` is device
  // 0's; CSV only). The two runs then append to one file.
  std::optional<int> single_device_ordinal() const;

 private:
  // The device a file name in the directory of `prefix_` stands for: prefix, 1 to 4 digits,
  // suffix.
  std::optional<int> ordinal_named(const std::string& name) const;

  bool sqlite_ = false;
  std::filesystem::path database_;
  std::filesystem::path single_device_;  // -o as a one-device run writes it
  std::string prefix_;                   // full path up to the device's place
  std::string suffix_;                   // after it: ".csv", ".rank1.csv"
};

// `path` with `.rank<I>` before its extension under an active shard; unchanged otherwise.
std::filesystem::path with_rank(const std::filesystem::path& path, const Shard& shard);

}  // namespace gemmtune
