// TextTable: a plain aligned table for terminal reports (db show, tune's final table).
#pragma once

#include <string>
#include <vector>

namespace gemmtune::cli {

class TextTable {
 public:
  enum class Align { Left, Right };

  // Adds a column; numbers read best right-aligned.
  TextTable& column(std::string header, Align align = Align::Left);
  void add_row(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }

  // The header, a rule, and the rows; each line indented by `indent` spaces.
  std::string render(int indent = 2) const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gemmtune::cli
