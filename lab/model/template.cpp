#include "lab/model/template.h"

#include <algorithm>

namespace vpnlab {

namespace {

int line_of(const std::string& text, size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

Error template_error(const std::string& origin, const std::string& text, size_t pos, std::string msg, std::string hint) {
  Error e = make_error(std::move(msg), std::move(hint));
  e.file = origin;
  e.line = line_of(text, pos);
  return e;
}

bool representable(const std::string& v) {
  return std::none_of(v.begin(), v.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f || c == '"' || c == '\'' || c == '\\' || c == '`';
  });
}

Result<std::string> render_range(const std::string& text, size_t begin, size_t end, const std::vector<const TemplateVars*>& scopes,
                                 const TemplateContext& ctx, const std::string& origin) {
  std::string out;
  size_t pos = begin;
  while (pos < end) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos || open >= end) {
      out.append(text, pos, end - pos);
      break;
    }
    out.append(text, pos, open - pos);
    size_t close = text.find("}}", open);
    if (close == std::string::npos || close >= end)
      return template_error(origin, text, open, "unclosed '{{'", "close it with '}}'");
    std::string name = text.substr(open + 2, close - open - 2);
    if (!name.empty() && name[0] == '#') {
      std::string list = name.substr(1);
      std::string closing = "{{/" + list + "}}";
      size_t block_end = text.find(closing, close + 2);
      if (block_end == std::string::npos || block_end >= end)
        return template_error(origin, text, open, "block '" + list + "' is not closed", "end it with " + closing);
      auto it = ctx.lists.find(list);
      if (it == ctx.lists.end()) return template_error(origin, text, open, "unknown list '" + list + "'", "known lists: peers");
      for (const TemplateVars& item : it->second) {
        std::vector<const TemplateVars*> inner = scopes;
        inner.insert(inner.begin(), &item);
        auto part = render_range(text, close + 2, block_end, inner, ctx, origin);
        if (!part) return part;
        out += part.value();
      }
      pos = block_end + closing.size();
      continue;
    }
    const std::string* value = nullptr;
    for (const TemplateVars* scope : scopes) {
      auto it = scope->find(name);
      if (it != scope->end()) {
        value = &it->second;
        break;
      }
    }
    if (!value) return template_error(origin, text, open, "unknown value '{{" + name + "}}'", "see products/README.md for the values a template can use");
    if (!representable(*value))
      return template_error(origin, text, open, "value of '" + name + "' cannot be written safely into a config file",
                            "it contains a quote, backslash or control character");
    out += *value;
    pos = close + 2;
  }
  return out;
}

}  // namespace

Result<std::string> render_template(const std::string& text, const TemplateContext& ctx, const std::string& origin) {
  return render_range(text, 0, text.size(), {&ctx.vars}, ctx, origin);
}

}  // namespace vpnlab
