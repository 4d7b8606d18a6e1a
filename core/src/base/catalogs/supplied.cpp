// catalogs/supplied.cpp — no catalog built in (looplab_catalogs_supplied): the WebAssembly module.
// The page fetches the catalog of its reader's language anyway (its language file, dist/lang/), and
// the worker's facade gives the module the ones it needs with provide_catalog()
// (web/runtime/api.js), so the ~120 KB of each language's catalog is not sent twice.
#include <string_view>

#include "looplab/base/i18n.hpp"

namespace looplab::detail {

const char* embedded_catalog(std::string_view) { return nullptr; }

}  // namespace looplab::detail
