// gemmtune/context.hpp — what an application holds: tuned lookup and dispatch of GEMMs.
//
//   gemmtune::Context ctx;                           // Options::from_environment()
//   ctx.gemm(problem, A, B, C, 1.0, 0.0, stream);    // the tuned solution, or Default
//   ctx.lookup(problem).solution;                    // which one that is
//
// A Context opens one backend on one device, loads the results file at start (CSV or SQLite) and
// keeps a lookup table from Problem to solution. A file measured elsewhere (validators differ) or
// one that cannot be read is refused: every GEMM then runs Default, and the Context says so once,
// through Options::log. A results line whose solution was edited to `Default` runs Default; a
// name this machine cannot run (or whose provider throws rebuilding it) falls back to Default with
// a warning naming the problem.
//
// Batch strides: results and untuned lines have none (they mean dense strides), so a problem whose
// strides are spelt out at their dense values is the same problem as the line. Other strides
// (padding between the matrices) cannot be written as a line: such a problem is tuned in memory
// only, and never appended, written or recorded (said once).
//
// Devices: the Context works on Options::device and never changes the calling thread's current
// device; gemm()'s stream must belong to the Context's device.
//
// Thread safety: every member function may be called from any thread. gemm() and lookup() of a
// problem already seen never lock, allocate or do I/O: the table is an open-addressing hash table
// whose readers only load atomics, and each entry caches its resolved solution. The first call of
// a problem takes the slow path once (resolve its solution; tune it or record it if asked).
//
// Errors: expected outcomes are values (RunStatus from gemm, LoadReport from read_file). The
// constructor throws std::runtime_error where the backend is unknown or not there (backend "cuda"
// without a GPU), and std::invalid_argument for a limit that is not a finite number >= 0 or a
// null provider; write_file throws std::runtime_error where it cannot or must not write the file.
// (gemmtune's own error types are not part of the installed API: catch std::runtime_error.)
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gemmtune/options.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/solution.hpp"

namespace gemmtune {

// Why lookup() chose what it chose.
enum class Source {
  Tuned,     // the results file (or online tuning) names this solution
  Fallback,  // the file names a solution that cannot run here; Default runs instead
  Untuned,   // no result for this problem: Default (a gemm() call tunes it when tuning is on)
  Disabled,  // the Context is disabled: Default
};
std::string_view to_string(Source source);

struct Lookup {
  std::string_view solution;  // valid as long as the Context lives
  Source source = Source::Untuned;

  bool tuned() const { return source == Source::Tuned; }
};

// What loading a results file did.
struct LoadReport {
  std::string file;
  bool found = false;         // the file exists
  bool accepted = true;       // read, and measured in this environment (or no file at all)
  bool unreadable = false;    // refused because it is no results file that can be read (a
                              // directory, not SQLite, no line readable), not for its validators
  std::size_t entries = 0;    // results now used for lookup
  std::size_t bad_lines = 0;  // lines skipped (the rest of the file is still used)
  std::size_t unparsed = 0;   // kept for write_file but not used (kinds this version lacks)
  std::string message;        // for a person: why refused, which lines were bad
};

// What tune_file did.
struct TuneFileReport {
  std::size_t requested = 0;  // distinct problems in the file
  std::size_t tuned = 0;
  std::size_t already_tuned = 0;  // had a result already
  std::size_t bad_lines = 0;
  std::vector<std::string> failed;  // "OP_SIG,PARAMS_SIG: why"
  std::string file_error;           // the file itself could not be read (then nothing was tried)
  bool ok() const { return failed.empty() && bad_lines == 0 && file_error.empty(); }
};

// One results line as the Context holds it.
struct ResultLine {
  std::string op_signature;
  std::string params_signature;
  std::string solution;
  double time_ms = 0;
};

class Context {
 public:
  Context();  // Options::from_environment()
  explicit Context(Options options);
  ~Context();  // writes the file when write_file_on_exit is set; never throws
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // ---- the hot path -----------------------------------------------------------------------
  // C = alpha·op(A)·op(B) + beta·C on `stream` (a cudaStream_t on CUDA; nullptr on the CPU, where
  // the call returns when C is written). Operands are laid out as the Problem says.
  RunStatus gemm(const Problem& problem, const void* a, const void* b, void* c, double alpha = 1.0,
                 double beta = 0.0, void* stream = nullptr);
  // The general form: bias, fp8 scales, your own workspace.
  RunStatus gemm(const Problem& problem, const Operands& operands, void* stream = nullptr);
  // Which solution gemm() would run now, and why. Never tunes or records, and touches no file; the
  // first look at a loaded line whose solution cannot run here logs the fallback warning once.
  Lookup lookup(const Problem& problem) const;

  // ---- solutions --------------------------------------------------------------------------
  // Registers an application's provider (for backend() == this Context's backend). Entries that
  // name its solutions dispatch to them from now on; tuning enumerates them. A null provider
  // throws std::invalid_argument (so does one in Options::providers, at construction).
  void add_provider(std::shared_ptr<SolutionProvider> provider);

  // ---- modes (torch.cuda.tunable's verbs) -------------------------------------------------
  void enable(bool on = true);
  bool is_enabled() const;
  void tuning_enable(bool on = true);
  bool tuning_is_enabled() const;
  void record_untuned_enable(bool on = true);
  bool record_untuned_is_enabled() const;
  void set_verbose(bool on = true);
  bool is_verbose() const;

  // The tuning limits: finite and >= 0, or std::invalid_argument (as from the constructor, for
  // Options holding such a limit).
  void set_max_tuning_duration(double ms);
  double max_tuning_duration() const;
  void set_max_tuning_iterations(int iterations);
  int max_tuning_iterations() const;
  void set_max_warmup_duration(double ms);
  double max_warmup_duration() const;
  void set_max_warmup_iterations(int iterations);
  int max_warmup_iterations() const;
  void set_rotating_buffer_size(std::optional<double> mb);
  std::optional<double> rotating_buffer_size() const;
  // "on", "off" or "ATOL_RTOL" (e.g. "1e-5_1e-5"); anything else throws std::invalid_argument.
  void set_numerical_check(std::string_view mode);
  std::string numerical_check() const;  // as it was set ("on" unless set otherwise)

  // ---- files ------------------------------------------------------------------------------
  // Where results are appended and written; with insert_device_ordinal the device ordinal goes
  // before the extension. Does not load: call read_file() for that.
  void set_filename(std::string_view filename, bool insert_device_ordinal = false);
  std::string filename() const;
  void set_untuned_filename(std::string_view filename, bool insert_device_ordinal = false);
  std::string untuned_filename() const;
  // Loads a results file (default: filename()) and merges its entries into the table (a line of
  // the file replaces the Context's result for the same problem). Never throws. Only the file at
  // filename() gives its validators to what is appended and written there; another file's
  // results are merged under them.
  LoadReport read_file(std::string_view filename = {});
  // Writes every result the Context holds (default: to filename()), atomically (CSV) or in one
  // transaction (SQLite, where it replaces this environment's results and no other's). Results
  // the file holds and the Context does not (appended by another process meanwhile) are kept; where
  // both hold a problem, the Context's result is written if it tuned the problem, and the file's
  // if the Context only loaded it. A file whose lines or validators the write would lose (measured
  // in another environment, other validators, bad lines, unreadable) is never replaced:
  // write_file throws std::runtime_error saying why (on exit, the Context logs it and writes
  // nothing).
  void write_file(std::string_view filename = {});
  void write_file_on_exit(bool on = true);
  // Tunes every problem of an untuned file that has no result yet (whatever tuning_enable says),
  // appending each winner to filename() as it is found.
  TuneFileReport tune_file(std::string_view untuned_filename);

  // ---- what it holds ----------------------------------------------------------------------
  std::vector<ResultLine> results() const;  // in file order, then tuning order
  // The validators of this machine, which a results file must match: KEY → VALUE.
  std::vector<std::pair<std::string, std::string>> validators() const;
  LoadReport load_report() const;    // of the last load (at start, or read_file)
  std::string_view backend() const;  // "cpu", "cuda"
  int device() const;
  std::string device_name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The gemmtune version this library was built from ("0.1.0").
std::string_view library_version();

}  // namespace gemmtune
