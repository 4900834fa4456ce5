// A string as a double-quoted literal that both JSON and TOML (basic strings) read back to the
// same text: `"` and `\` escaped, \n \r \t by name, every other control character and DEL as
// \u00XX. Shared by the configuration's TOML output and the GPU monitor's JSON.
#pragma once

#include <string>
#include <string_view>

namespace gemmtune {

std::string quoted_string(std::string_view text);

}  // namespace gemmtune
