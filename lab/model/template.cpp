#include "lab/model/template.h"

#include <algorithm>

namespace vpnlab {

namespace {

int line_of(const std::string& text, size_t pos) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

Error template_error(const std::string& origin, const std::string& text, size_t pos, std::string msg,
                     std::string hint) {
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

// One {{name}}'s value, from the innermost scope that has it, safe to write into a config.
Result<std::string> value_of(const std::string& name, const std::vector<const TemplateVars*>& scopes,
                             const std::string& text, size_t open, const std::string& origin) {
  // {{mtu+20}}: a whole-number value with a small number added or taken away (a product
  // that sets its interface's MTU below its own setting, as EasyTier does).
  std::string base = name;
  long offset = 0;
  if (auto op = name.find_first_of("+-"); op != std::string::npos && op > 0) {
    const std::string digits = name.substr(op + 1);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
      return template_error(origin, text, open,
                            "'{{" + name + "}}': after '" + name.substr(op, 1) + "' must come a whole number",
                            "e.g. {{mtu+20}}");
    base = name.substr(0, op);
    offset = (name[op] == '-' ? -1 : 1) * std::stol(digits);
  }
  const std::string* value = nullptr;
  for (const TemplateVars* scope : scopes) {
    auto it = scope->find(base);
    if (it != scope->end()) {
      value = &it->second;
      break;
    }
  }
  if (!value)
    return template_error(origin, text, open, "unknown value '{{" + base + "}}'",
                          "see products/README.md for the values a template can use");
  std::string computed;
  if (base != name) {
    if (value->empty() || value->size() > 9 || value->find_first_not_of("0123456789") != std::string::npos)
      return template_error(origin, text, open,
                            "'{{" + name + "}}': '" + base + "' is not a whole number ('" + *value + "')",
                            "add to a number only");
    computed = std::to_string(std::stol(*value) + offset);
    value = &computed;
  }
  if (!representable(*value))
    return template_error(origin, text, open, "value of '" + name + "' cannot be written safely into a config file",
                          "it contains a quote, backslash or control character");
  return *value;
}

Result<std::string> render_range(const std::string& text, size_t begin, size_t end,
                                 const std::vector<const TemplateVars*>& scopes, const TemplateContext& ctx,
                                 const std::string& origin) {
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
    // {{#list}}...{{/list}}: once per item; {{^list}}...{{/list}}: once if the list is empty.
    if (!name.empty() && (name[0] == '#' || name[0] == '^')) {
      const bool inverted = name[0] == '^';
      std::string list = name.substr(1);
      std::string closing = "{{/" + list + "}}";
      size_t block_end = text.find(closing, close + 2);
      if (block_end == std::string::npos || block_end >= end)
        return template_error(origin, text, open, "block '" + list + "' is not closed", "end it with " + closing);
      auto it = ctx.lists.find(list);
      if (it == ctx.lists.end())
        return template_error(origin, text, open, "unknown list '" + list + "'", "known lists: peers");
      static const TemplateVars no_item;
      std::vector<const TemplateVars*> items;
      if (!inverted)
        for (const TemplateVars& item : it->second) items.push_back(&item);
      else if (it->second.empty())
        items.push_back(&no_item);
      for (const TemplateVars* item : items) {
        std::vector<const TemplateVars*> inner = scopes;
        inner.insert(inner.begin(), item);
        auto part = render_range(text, close + 2, block_end, inner, ctx, origin);
        if (!part) return part;
        out += part.value();
      }
      pos = block_end + closing.size();
      continue;
    }
    auto value = value_of(name, scopes, text, open, origin);
    if (!value) return value;
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
