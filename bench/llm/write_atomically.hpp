// Reports are rewritten after every problem or layer, so that a run cut short leaves a whole
// report of what it did: written to PATH.tmp, then renamed over PATH.
#pragma once

#include <string>

namespace gemmtune::bench {

// Throws std::runtime_error naming the file where it cannot be written.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace gemmtune::bench
