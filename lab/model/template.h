// Config templates of product specs: {{name}} substitutes a value, {{#list}}...{{/list}}
// repeats a block per item (item values shadow outer ones), {{^list}}...{{/list}} renders
// a block once if the list is empty. An unknown name is an error,
// and so is a value that cannot be written into a config file safely (control characters,
// quotes, backslashes): refused, never injected.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

using TemplateVars = std::map<std::string, std::string>;

struct TemplateContext {
  TemplateVars vars;
  std::map<std::string, std::vector<TemplateVars>> lists;
};

// `origin` names the template in errors ("products/wireguard-go/wg.conf.tmpl").
Result<std::string> render_template(const std::string& text, const TemplateContext& ctx, const std::string& origin);

}  // namespace vpnlab
