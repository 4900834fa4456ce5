#include "db/merge.hpp"

#include <fmt/format.h>

namespace gemmtune {

std::string MergeConflict::describe() const {
  return fmt::format("{},{}: {} from {} ({} ms) beats {} from {} ({} ms)", op_signature,
                     params_signature, winner.solution, winner_source,
                     format_time_ms(winner.time_ms), loser.solution, loser_source,
                     format_time_ms(loser.time_ms));
}

std::string RefusedSource::describe(std::string_view first_source) const {
  return fmt::format("{}: refused, its environment differs from {}'s: {}", name, first_source,
                     comparison.summarize_differences(first_source, name));
}

MergeResult merge_tables(std::span<const MergeSource> sources) {
  MergeResult result;
  if (sources.empty()) return result;
  result.table.environment = sources.front().table.environment;
  std::map<ResultKey, std::string, std::less<>> source_of;  // which source each entry came from

  for (const auto& source : sources) {
    if (!(source.table.environment == result.table.environment)) {
      result.refused.push_back(
          {source.name,
           compare_environments(result.table.environment, source.table.environment)});
      continue;
    }
    for (const auto& entry : source.table.entries) {
      ResultKey key{entry.op_signature, entry.params_signature};
      const auto text = source.table.time_texts.find(key);
      std::optional<std::string> time_text;
      if (text != source.table.time_texts.end() && text->second.value == entry.time_ms) {
        time_text = text->second.text;
      }
      const ResultEntry* existing = result.table.find(entry.op_signature, entry.params_signature);
      if (existing == nullptr) {
        result.table.upsert(entry, std::move(time_text));
        source_of[key] = source.name;
        continue;
      }
      if (*existing == entry) continue;
      const bool new_wins = entry.time_ms < existing->time_ms;
      std::string& old_source = source_of[key];
      MergeConflict conflict{entry.op_signature, entry.params_signature, {}, {}, {}, {}};
      if (new_wins) {
        conflict.winner = entry;
        conflict.winner_source = source.name;
        conflict.loser = *existing;
        conflict.loser_source = old_source;
        result.table.upsert(entry, std::move(time_text));
        old_source = source.name;
      } else {
        conflict.winner = *existing;
        conflict.winner_source = old_source;
        conflict.loser = entry;
        conflict.loser_source = source.name;
      }
      result.conflicts.push_back(std::move(conflict));
    }
  }
  return result;
}

}  // namespace gemmtune
