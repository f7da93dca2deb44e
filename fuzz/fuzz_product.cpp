// A product folder's text: the input as product.toml (its tables and steps checked, a located
// error otherwise) and as a config template rendered with a context holding one value that
// must never reach a config file (a quote and a newline). A template without "{{" renders
// as itself.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/base/fs_util.h"
#include "lab/base/private_dir.h"
#include "lab/model/product_spec.h"
#include "lab/model/template.h"

namespace {

constexpr const char* kPoison = "POISON\"\n";

// A product folder holding a template under each name the shipped products use, so that a
// product.toml is checked past its [[file]] entries; other names are "cannot read template".
const std::string& product_dir() {
  static vpnlab::PrivateDir dir = [] {
    auto d = vpnlab::PrivateDir::make("vpnlab-fuzz-");
    vpnlab::fuzz_check(d.ok(), "a private directory for the product folder");
    for (const char* name :
         {"wg.conf.tmpl", "swanctl.conf.tmpl", "strongswan.conf.tmpl", "easytier.toml.tmpl", "yggdrasil.conf.tmpl",
          "tinc.conf.tmpl", "private.key.tmpl", "openvpn.conf.tmpl", "host.tmpl", "host.pub.tmpl", "host.key.tmpl",
          "headscale.yaml.tmpl", "fastd.conf.tmpl", "derp.yaml.tmpl", "config.yml.tmpl"})
      vpnlab::fuzz_check(vpnlab::write_file(d->path() + "/" + name, "name = {{name}}\n", 0600).ok(),
                         "a template written");
    return std::move(*d);
  }();
  return dir.path();
}

const vpnlab::TemplateContext& context() {
  static const vpnlab::TemplateContext ctx = [] {
    vpnlab::TemplateContext c;
    c.vars = {{"name", "a"}, {"port", "51820"}, {"overlay_address", "10.99.0.1"}, {"unsafe", kPoison}};
    c.lists["peers"] = {{{"peer_name", "b"}, {"peer_address", "10.99.0.2"}}, {{"peer_name", "c"}, {"unsafe", kPoison}}};
    c.lists["first"] = {vpnlab::TemplateVars{}};
    c.lists["others"] = {};
    return c;
  }();
  return ctx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vpnlab::ProductSpec seed;
  // The folder's name is the one the text gives (load_product checks it before this parse).
  seed.name = "fuzz";
  if (size_t at = text.find("name = \""); at != std::string::npos)
    if (size_t end = text.find('"', at + 8); end != std::string::npos) seed.name = text.substr(at + 8, end - at - 8);
  seed.dir = product_dir();
  auto spec = vpnlab::parse_product_text(seed, text, seed.dir + "/product.toml");
  if (!spec) vpnlab::fuzz_check(!spec.error().message.empty(), "a refused product.toml says why");
  auto out = vpnlab::render_template(text, context(), "fuzz.tmpl");
  if (!out) {
    vpnlab::fuzz_check(!out.error().message.empty(), "a refused template says why");
    return 0;
  }
  if (text.find("POISON") == std::string::npos)
    vpnlab::fuzz_check(out->find("POISON") == std::string::npos,
                       "a value with a quote or newline never reaches the config");
  if (text.find("{{") == std::string::npos)
    vpnlab::fuzz_check(*out == text, "a template without tags renders as itself");
  return 0;
}
