#include "drivers/multi/worker_protocol.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace gemmtune {
namespace {

constexpr std::string_view kKinds[] = {"ready", "ok", "failed", "fatal", "error"};

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    switch (text[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

std::string encode_stats(const Statistics& s) {
  return fmt::format("{},{},{},{},{},{}", s.iterations, s.median_ms, s.mean_ms, s.min_ms, s.max_ms,
                     s.stddev_ms);
}

template <typename T>
bool parse_number(std::string_view text, T& value) {
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool decode_stats(std::string_view text, Statistics& s) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts.size() == 6 && parse_number(parts[0], s.iterations) &&
         parse_number(parts[1], s.median_ms) && parse_number(parts[2], s.mean_ms) &&
         parse_number(parts[3], s.min_ms) && parse_number(parts[4], s.max_ms) &&
         parse_number(parts[5], s.stddev_ms);
}

}  // namespace

std::string problem_key(std::string_view op_signature, std::string_view params_signature) {
  return fmt::format("{},{}", op_signature, params_signature);
}

std::string encode_message(const WorkerMessage& m) {
  std::vector<std::string> fields{std::string(kKinds[static_cast<int>(m.kind)])};
  switch (m.kind) {
    case WorkerMessage::Kind::Ready:
      fields.push_back(m.text);
      fields.push_back(m.tuning);
      for (const auto& [key, value] : m.environment.entries()) {
        fields.push_back(key);
        fields.push_back(value);
      }
      break;
    case WorkerMessage::Kind::Ok:
      fields.insert(fields.end(), {m.key, m.text, encode_stats(m.winner), encode_stats(m.reference),
                                   fmt::format("{}", m.elapsed_s)});
      break;
    case WorkerMessage::Kind::Failed:
    case WorkerMessage::Kind::Fatal:
      fields.insert(fields.end(), {m.key, m.text});
      break;
    case WorkerMessage::Kind::Error:
      fields.push_back(m.text);
      break;
  }
  std::string line = fields.front();
  for (std::size_t i = 1; i < fields.size(); ++i) {
    line += '\t';
    line += escape(fields[i]);
  }
  return line;
}

DecodedMessage decode_message(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields;
  for (std::size_t start = 0;;) {
    const auto tab = line.find('\t', start);
    auto field = unescape(line.substr(start, tab - start));
    if (!field) return {std::nullopt, fmt::format("bad escape in '{}'", line)};
    fields.push_back(std::move(*field));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  WorkerMessage m;
  int kind = -1;
  for (int i = 0; i < 5; ++i) {
    if (fields[0] == kKinds[i]) kind = i;
  }
  if (kind < 0) return {std::nullopt, fmt::format("unknown message '{}'", line)};
  m.kind = static_cast<WorkerMessage::Kind>(kind);
  const auto bad = [&] {
    return DecodedMessage{std::nullopt, fmt::format("malformed '{}'", line)};
  };
  switch (m.kind) {
    case WorkerMessage::Kind::Ready:
      if (fields.size() < 3 || fields.size() % 2 == 0) return bad();
      m.text = fields[1];
      m.tuning = fields[2];
      for (std::size_t i = 3; i + 1 < fields.size(); i += 2)
        m.environment.set(fields[i], fields[i + 1]);
      break;
    case WorkerMessage::Kind::Ok:
      if (fields.size() != 6 || !decode_stats(fields[3], m.winner) ||
          !decode_stats(fields[4], m.reference) || !parse_number(fields[5], m.elapsed_s)) {
        return bad();
      }
      m.key = fields[1];
      m.text = fields[2];
      break;
    case WorkerMessage::Kind::Failed:
    case WorkerMessage::Kind::Fatal:
      if (fields.size() != 3) return bad();
      m.key = fields[1];
      m.text = fields[2];
      break;
    case WorkerMessage::Kind::Error:
      if (fields.size() != 2) return bad();
      m.text = fields[1];
      break;
  }
  return {std::move(m), {}};
}

}  // namespace gemmtune
