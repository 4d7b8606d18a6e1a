// catalogs/embedded.cpp — the catalogs built into the program (looplab_catalogs_embedded): the CLI,
// the test suites, the fuzzers and the benchmark. core/CMakeLists.txt writes catalogs.inc from
// core/i18n/<lang>.json at configure time.
#include <string_view>
#include <utility>

#include "looplab/base/i18n.hpp"

namespace looplab::detail {
namespace {

const std::pair<std::string_view, const char*> kCatalogTexts[] = {
#include "looplab/base/catalogs.inc"
};

}  // namespace

const char* embedded_catalog(std::string_view lang) {
  for (const auto& [name, text] : kCatalogTexts)
    if (name == lang) return text;
  return nullptr;
}

}  // namespace looplab::detail
