// split_fields: TunableOp's CSV is plain comma-separated text — no quoting, no escapes (PyTorch
// writes none, and no signature or solution name contains a comma) — so a line splits at every
// comma. A validator's value may hold commas (PyTorch writes `Validator,KEY,VALUE` as it is): the
// results reader joins the fields after the key back into it. Kept in one place so that both
// readers agree.
#pragma once

#include <string_view>
#include <vector>

namespace gemmtune {

inline std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto comma = line.find(',');
    fields.push_back(line.substr(0, comma));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

}  // namespace gemmtune
