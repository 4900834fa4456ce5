// Context: the public verbs (torch.cuda.tunable's, under C++ names), forwarded to Context::Impl
// (api/context_impl.cpp).
#include "api/context_impl.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "api/call_checks.hpp"

namespace gemmtune {
using namespace context_flags;

std::string_view to_string(Source source) {
  switch (source) {
    case Source::Tuned:
      return "tuned";
    case Source::Fallback:
      return "fallback";
    case Source::Untuned:
      return "untuned";
    case Source::Disabled:
      return "disabled";
  }
  return "?";
}

std::string_view library_version() {
  return gemmtune_version();
}

// ---- Context ------------------------------------------------------------------------------

Context::Context() : Context(Options::from_environment()) {}
namespace {
// A check mode given in code: one that is none is the caller's mistake, as a bad limit is.
NumericalCheckOptions numerical_check_argument(std::string_view mode) {
  try {
    return parse_numerical_check(mode);
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());
  }
}

Options checked(Options options) {
  for (const auto& [name, value] :
       {std::pair{"max_tuning_duration_ms", options.max_tuning_duration_ms},
        std::pair{"max_tuning_iterations", static_cast<double>(options.max_tuning_iterations)},
        std::pair{"max_warmup_duration_ms", options.max_warmup_duration_ms},
        std::pair{"max_warmup_iterations", static_cast<double>(options.max_warmup_iterations)}}) {
    if (auto why = api::invalid_limit(name, value)) throw std::invalid_argument(*why);
  }
  if (options.rotating_buffer_mb) {
    if (auto why = api::invalid_limit("rotating_buffer_mb", *options.rotating_buffer_mb)) {
      throw std::invalid_argument(*why);
    }
  }
  // As the command line's --workspace-mb: in bytes (<< 20) a larger value wrapped around, to a
  // limit that left out every candidate needing a workspace.
  if (options.workspace_mb > kMaxWorkspaceMb) {
    throw std::invalid_argument(fmt::format("workspace_mb {} is more than {} (1 TiB)",
                                            options.workspace_mb, kMaxWorkspaceMb));
  }
  (void)numerical_check_argument(options.numerical_check);
  return options;
}
}  // namespace

Context::Context(Options options) : impl_(std::make_unique<Impl>(checked(std::move(options)))) {}
Context::~Context() = default;

RunStatus Context::gemm(const Problem& problem, const void* a, const void* b, void* c, double alpha,
                        double beta, void* stream) {
  Operands ops;
  ops.a = a;
  ops.b = b;
  ops.c = c;
  ops.alpha = alpha;
  ops.beta = beta;
  return impl_->gemm(problem, ops, stream);
}

RunStatus Context::gemm(const Problem& problem, const Operands& operands, void* stream) {
  return impl_->gemm(problem, operands, stream);
}

Lookup Context::lookup(const Problem& problem) const {
  return impl_->lookup(problem);
}

void Context::add_provider(std::shared_ptr<SolutionProvider> provider) {
  impl_->add_provider(std::move(provider));
  const api::ContextLock lock(impl_->writer);
  impl_->tables.rebuild();
}

namespace {
void set_flag(std::atomic<unsigned>& flags, unsigned bit, bool on) {
  if (on) {
    flags.fetch_or(bit);
  } else {
    flags.fetch_and(~bit);
  }
}

void check_setting(std::string_view name, double value) {
  if (auto why = api::invalid_limit(name, value)) throw std::invalid_argument(*why);
}
void check_setting(std::string_view name, const std::optional<double>& value) {
  if (value) check_setting(name, *value);
}
}  // namespace

void Context::enable(bool on) {
  set_flag(impl_->flags, kEnabled, on);
}
bool Context::is_enabled() const {
  return (impl_->flags.load() & kEnabled) != 0;
}
void Context::tuning_enable(bool on) {
  set_flag(impl_->flags, kTuning, on);
}
bool Context::tuning_is_enabled() const {
  return (impl_->flags.load() & kTuning) != 0;
}
void Context::record_untuned_enable(bool on) {
  set_flag(impl_->flags, kRecord, on);
}
bool Context::record_untuned_is_enabled() const {
  return (impl_->flags.load() & kRecord) != 0;
}
void Context::set_verbose(bool on) {
  set_flag(impl_->flags, kVerbose, on);
}
bool Context::is_verbose() const {
  return impl_->verbose();
}

#define GEMMTUNE_SETTING(setter, getter, type, field)   \
  void Context::setter(type value) {                    \
    check_setting(#setter, value);                      \
    const api::ContextLock lock(impl_->settings_mutex); \
    impl_->options.field = value;                       \
  }                                                     \
  type Context::getter() const {                        \
    const api::ContextLock lock(impl_->settings_mutex); \
    return impl_->options.field;                        \
  }
GEMMTUNE_SETTING(set_max_tuning_duration, max_tuning_duration, double, max_tuning_duration_ms)
GEMMTUNE_SETTING(set_max_tuning_iterations, max_tuning_iterations, int, max_tuning_iterations)
GEMMTUNE_SETTING(set_max_warmup_duration, max_warmup_duration, double, max_warmup_duration_ms)
GEMMTUNE_SETTING(set_max_warmup_iterations, max_warmup_iterations, int, max_warmup_iterations)
GEMMTUNE_SETTING(set_rotating_buffer_size, rotating_buffer_size, std::optional<double>,
                 rotating_buffer_mb)
#undef GEMMTUNE_SETTING

void Context::set_numerical_check(std::string_view mode) {
  const NumericalCheckOptions parsed = numerical_check_argument(mode);
  const api::ContextLock lock(impl_->settings_mutex);
  impl_->check = parsed;
  impl_->options.numerical_check = std::string(mode);
}

std::string Context::numerical_check() const {
  const api::ContextLock lock(impl_->settings_mutex);
  return impl_->options.numerical_check;
}

void Context::set_filename(std::string_view filename, bool insert_device_ordinal) {
  const std::string path = insert_device_ordinal
                               ? with_device_ordinal(filename, impl_->options.device)
                               : std::string(filename);
  const api::ContextLock lock(impl_->writer);
  impl_->results.set_path(path);
}

std::string Context::filename() const {
  const api::ContextLock lock(impl_->writer);
  return impl_->results.path();
}

void Context::set_untuned_filename(std::string_view filename, bool insert_device_ordinal) {
  std::string path = insert_device_ordinal ? with_device_ordinal(filename, impl_->options.device)
                                           : std::string(filename);
  const api::ContextLock lock(impl_->writer);
  impl_->recorder.set_path(std::move(path));
  impl_->record_warned = false;
  // Problems met before count as not yet recorded in the new file.
  impl_->tables.current()->for_each([](api::Entry* e) { e->recorded.store(false); });
}

std::string Context::untuned_filename() const {
  const api::ContextLock lock(impl_->writer);
  return impl_->recorder.path();
}

LoadReport Context::read_file(std::string_view filename) {
  return impl_->load(filename.empty() ? this->filename() : std::string(filename));
}

void Context::write_file(std::string_view filename) {
  impl_->write(filename.empty() ? this->filename() : std::string(filename));
}

void Context::write_file_on_exit(bool on) {
  impl_->write_on_exit.store(on);
}

TuneFileReport Context::tune_file(std::string_view untuned_filename) {
  TuneFileReport report;
  Diagnostics diagnostics;
  std::vector<UntunedEntry> problems;
  try {
    problems = read_untuned_file(std::string(untuned_filename), diagnostics);
  } catch (const std::exception& ex) {
    report.file_error = ex.what();  // not a problem that failed: no problem was read
    return report;
  }
  report.bad_lines = diagnostics.error_count();
  if (report.bad_lines > 0) impl_->log(diagnostics.format_all());
  dedupe_untuned(problems);
  report.requested = problems.size();
  for (const auto& u : problems) {
    const std::uint64_t h = api::fast_hash(u.problem);
    if (const api::Entry* e = impl_->tables.current()->find(u.problem, h);
        e != nullptr && e->kind == api::EntryKind::Result) {
      ++report.already_tuned;
      continue;
    }
    // An explicit request: a problem whose online tuning failed is tried again.
    const api::Entry* e = impl_->tune_once(u.problem, h, /*retry_failed=*/true);
    if (e != nullptr && e->kind == api::EntryKind::Result) {
      ++report.tuned;
      continue;
    }
    const api::ContextLock lock(impl_->writer);
    const auto it = impl_->tuning_errors.find(u.problem);
    report.failed.push_back(
        fmt::format("{},{}: {}", u.op_signature, u.params_signature,
                    it != impl_->tuning_errors.end() ? it->second : "not tuned"));
  }
  return report;
}

std::vector<ResultLine> Context::results() const {
  const api::ContextLock lock(impl_->writer);
  std::vector<ResultLine> out;
  out.reserve(impl_->results.table().entries.size());
  for (const auto& e : impl_->results.table().entries) {
    out.push_back({e.op_signature, e.params_signature, e.solution, e.time_ms});
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Context::validators() const {
  return impl_->environment.entries();
}

LoadReport Context::load_report() const {
  const api::ContextLock lock(impl_->writer);
  return impl_->load_report;
}

std::string_view Context::backend() const {
  return impl_->backend_name;
}
int Context::device() const {
  return impl_->options.device;
}
std::string Context::device_name() const {
  return impl_->session.backend->properties().name;
}

}  // namespace gemmtune
