// Whether a file ends in the middle of a line, for appenders of whole lines: a line appended
// after a last line that lacks its newline (another program's append, a writer killed mid-line)
// would be glued onto it, and both be lost. Such an appender writes a newline first.
#pragma once

#include <filesystem>

namespace gemmtune {

// The file open on `fd` (for reading) is not empty and its last byte is not '\n'. False where it
// cannot be read: the append then goes ahead as it would have without the check.
bool ends_mid_line(int fd);
// The same of the file at `path`; false where it cannot be opened.
bool ends_mid_line(const std::filesystem::path& path);

}  // namespace gemmtune
