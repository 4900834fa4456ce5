#include "cli/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gemmtune::cli {

TextTable& TextTable::column(std::string header, Align align) {
  headers_.push_back(std::move(header));
  aligns_.push_back(align);
  return *this;
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(int indent) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = pad;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) out += "  ";
      const bool last = c + 1 == cells.size();
      if (aligns_[c] == Align::Right) {
        out += fmt::format("{:>{}}", cells[c], widths[c]);
      } else {
        out += last ? cells[c] : fmt::format("{:<{}}", cells[c], widths[c]);
      }
    }
    return out + "\n";
  };
  std::string out = line(headers_);
  std::size_t total = 0;
  for (auto w : widths) total += w;
  out += pad + std::string(total + 2 * (widths.empty() ? 0 : widths.size() - 1), '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace gemmtune::cli
