// TextLines: BOM, CRLF, blank lines, trailing spaces and the truncated last line.
#include "db/text_lines.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(TextLines, StripsBomAndCrlfAndTrailingSpaceKeepingLineNumbers) {
  const auto lines = split_lines("\xEF\xBB\xBF" "first \t\r\n\r\n   \n\tsecond\r\nthird\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "first");
  EXPECT_EQ(lines[0].number, 1);
  EXPECT_EQ(lines[1].text, "\tsecond");  // leading whitespace is content, not trimmed
  EXPECT_EQ(lines[1].number, 4);
  EXPECT_EQ(lines[2].text, "third");
  EXPECT_EQ(lines[2].number, 5);
  for (const auto& line : lines) EXPECT_FALSE(line.unterminated);
}

TEST(TextLines, FlagsOnlyALastLineWithoutNewline) {
  const auto lines = split_lines("a\nb");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_FALSE(lines[0].unterminated);
  EXPECT_TRUE(lines[1].unterminated);
  EXPECT_EQ(lines[1].text, "b");
  EXPECT_EQ(lines[1].number, 2);
}

TEST(TextLines, TrailingBlankWithoutNewlineIsNotALine) {
  const auto lines = split_lines("a\n  ");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].unterminated);
}

TEST(TextLines, BomsAtTheStartOfAnyLineAreStripped) {
  // Concatenated files carry a BOM in the middle; a repeated BOM must not survive into a field,
  // or writing it back at the start of the file would be stripped by the next reader.
  const auto lines = split_lines("\xEF\xBB\xBF\xEF\xBB\xBF" "a\n\xEF\xBB\xBF" "b\nc\xEF\xBB\xBF\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[1].text, "b");
  EXPECT_EQ(lines[2].text, "c\xEF\xBB\xBF");
}

TEST(TextLines, EmptyAndBomOnly) {
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_TRUE(split_lines("\xEF\xBB\xBF").empty());
  EXPECT_TRUE(split_lines("\n\r\n\n").empty());
}

TEST(TextLines, ReadFileNamesAMissingPath) {
  testing::TempDir dir;
  try {
    read_file(dir / "missing.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.csv: cannot open"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_file(dir.path()), InputError);
  testing::write_text(dir / "x", std::string("a\0b", 3));
  EXPECT_EQ(read_file(dir / "x").size(), 3u);
}

}  // namespace
}  // namespace gemmtune
