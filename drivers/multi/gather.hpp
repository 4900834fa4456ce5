// Gathering a multi-device run's per-device CSV files into one, as PyTorch's
// mgpu_tune_gemm_in_file does (output_names.hpp has the names), without its failure modes.
//
// Contract:
// - Sources: the gathered file of an earlier run (kept: nothing gathered before is lost), every
//   per-device file on disk, by ordinal, the file a one-device run with the same `-o` wrote
//   (OutputNames::existing_single_device), and the existing copies (a process that loads its
//   copy may have added to it). Entries measured in another environment than the
//   run's are left out, with a note naming the file and the differing validators; bad lines are
//   skipped with a note. Duplicates across sources keep the faster time (db/merge.hpp). A file
//   that holds nothing (holds_nothing: blank, touched) is no source, and may be replaced.
// - Nothing on disk is lost: a gathered file or copy that was refused (another environment) or
//   had bad lines is left exactly as it is, with a note naming it, instead of being rewritten
//   without what could not be gathered from it.
// - The gathered file and its copies are each written atomically (temp file + rename), all with
//   the same content: a reader never sees a half-written or empty file, and a crash while
//   gathering leaves the previous files whole. Rerunning gathers again from the same sources.
// - Each of them is read again and replaced under its append lock (ResultsStore::update), so that
//   a line a process appends to it while the run gathers is not lost with the file it replaces:
//   it is kept in that file and in those written after it, and the next gather puts it in all.
// - Copies: `_full<ordinal>` besides `_full0`, one per device of the run (`run_devices`) and per
//   device that has a per-device file, so that no device's copy is missing or stale.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "drivers/multi/output_names.hpp"
#include "tuner/environment.hpp"

namespace gemmtune {

struct GatherReport {
  std::vector<std::string> written;  // the gathered file, then the copies
  std::vector<std::string> left;     // gathered file or copies left as they were (notes say why)
  std::size_t entries = 0;
  std::vector<std::string> notes;
};

GatherReport gather_device_files(const OutputNames& names, const Environment& environment,
                                 const std::vector<int>& run_devices = {});

// The ordinals whose copies (`_full<ordinal>`, besides the gathered `_full0`) a gather with these
// run devices writes, as the files on disk are now: for checking before any tuning that each
// can be written.
std::set<int> copy_ordinals(const OutputNames& names, const std::vector<int>& run_devices);

}  // namespace gemmtune
