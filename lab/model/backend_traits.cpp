#include "lab/model/backend_traits.h"

namespace vpnlab {

const BackendTraits& backend_traits(const std::string& name) {
  for (const auto& b : backend_traits_table())
    if (name == b.name) return b;
  return backend_traits_table().front();
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& b : backend_traits_table()) names.push_back(b.name);
  return names;
}

bool is_backend(const std::string& name) {
  for (const auto& b : backend_traits_table())
    if (name == b.name) return true;
  return false;
}

namespace {

std::string join_or(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

std::string backends_with(bool BackendTraits::*trait) {
  std::vector<std::string> names;
  for (const auto& b : backend_traits_table())
    if (b.*trait) names.push_back(b.name);
  return join_or(names);
}

std::string backend_list(bool with_about) {
  std::vector<std::string> names;
  for (const auto& b : backend_traits_table())
    names.push_back(with_about ? "\"" + std::string(b.name) + "\" (" + b.about + ")" : b.name);
  return join_or(names);
}

}  // namespace vpnlab
