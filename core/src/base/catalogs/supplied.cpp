// catalogs/supplied.cpp — no catalog built in (looplab_catalogs_supplied): the WebAssembly module.
// Its JS facade already holds the catalogs (web/util/catalogs.js) and gives the module the ones it
// needs with provide_catalog() (web/runtime/api.js), so the ~290 KB of catalog text is not sent
// twice.
#include <string_view>

#include "looplab/base/i18n.hpp"

namespace looplab::detail {

const char* embedded_catalog(std::string_view) { return nullptr; }

}  // namespace looplab::detail
