#include "lab/kernel/nftables.h"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <memory>
#include <thread>

#include <nftables/libnftables.h>
#include <nlohmann/json.hpp>

#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/nft_text.h"
#include "lab/kernel/namespace.h"

namespace vpnlab {

namespace {

struct CtxFree {
  void operator()(nft_ctx* c) const { nft_ctx_free(c); }
};
using NftCtx = std::unique_ptr<nft_ctx, CtxFree>;

// A context whose output and errors are kept in buffers (the library prints them to
// stdout/stderr otherwise), with no include path: nothing is read from this host's files.
Result<NftCtx> open_ctx(bool json) {
  NftCtx ctx(nft_ctx_new(NFT_CTX_DEFAULT));
  if (!ctx) return make_error("libnftables: cannot create a context");
  nft_ctx_clear_include_paths(ctx.get());
  if (nft_ctx_buffer_output(ctx.get()) != 0 || nft_ctx_buffer_error(ctx.get()) != 0)
    return make_error("libnftables: cannot buffer its output");
  if (json) nft_ctx_output_set_flags(ctx.get(), NFT_CTX_OUTPUT_JSON);
  return ctx;
}

// nft's error text, trimmed to its lines that say something.
std::string error_text(nft_ctx* ctx) {
  std::string e = nft_ctx_get_error_buffer(ctx);
  while (!e.empty() && std::isspace(static_cast<unsigned char>(e.back()))) e.pop_back();
  return e.empty() ? "nft refused the rules without saying why" : e;
}

// Runs one command in the current namespace; its output (JSON when asked).
Result<std::string> run_command(const std::string& command, bool json) {
  auto ctx = open_ctx(json);
  if (!ctx) return ctx.error();
  if (nft_run_cmd_from_buffer(ctx->get(), command.c_str()) != 0) return make_error("nft: " + error_text(ctx->get()));
  return std::string(nft_ctx_get_output_buffer(ctx->get()));
}

// Applies the rules in the current namespace, then lists its whole ruleset as JSON.
Result<std::string> apply_and_list(const std::string& ruleset) {
  if (auto applied = run_command(ruleset, false); !applied) return applied.error();
  return run_command("list ruleset", true);
}

// Runs `fn` on a thread inside the namespace; its result.
template <typename T, typename Fn>
Result<T> in_netns(int netns_fd, Fn fn) {
  Result<T> out = make_error("not run");
  if (auto s = run_in_netns(netns_fd, [&] { out = fn(); }); !s) return s.error();
  return out;
}

Result<nlohmann::json> parse_listing(const std::string& json) {
  auto doc = parse_json_bounded(json);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("nftables") || !doc["nftables"].is_array())
    return make_error("nft's ruleset listing is not the JSON it documents");
  return doc;
}

bool in_tables(const nlohmann::json& object, const std::vector<NftTable>& tables) {
  const NftTable t{object.value("family", ""), object.value("table", "")};
  return std::find(tables.begin(), tables.end(), t) != tables.end();
}

uint64_t packets_of(const nlohmann::json& counter) { return whole_number_or<uint64_t>(counter, "packets", 0); }

}  // namespace

Result<std::vector<NftTable>> nft_tables_of(const std::string& json) {
  auto doc = parse_listing(json);
  if (!doc) return doc.error();
  std::vector<NftTable> out;
  for (const auto& item : (*doc)["nftables"])
    if (item.contains("table") && item["table"].is_object())
      out.push_back({item["table"].value("family", ""), item["table"].value("name", "")});
  return out;
}

Result<NftCounted> nft_counted_of(const std::string& json, const std::vector<NftTable>& tables) {
  auto doc = parse_listing(json);
  if (!doc) return doc.error();
  NftCounted out;
  for (const auto& item : (*doc)["nftables"]) {
    if (item.contains("counter") && item["counter"].is_object() && in_tables(item["counter"], tables)) {
      out.packets += packets_of(item["counter"]);  // a named counter object
      ++out.counters;
    }
    if (!item.contains("rule") || !item["rule"].is_object() || !in_tables(item["rule"], tables)) continue;
    const auto& expr = item["rule"].contains("expr") ? item["rule"]["expr"] : nlohmann::json::array();
    for (const auto& statement : expr)
      if (statement.is_object() && statement.contains("counter") && statement["counter"].is_object()) {
        out.packets += packets_of(statement["counter"]);  // an anonymous counter of the rule
        ++out.counters;
      }
  }
  return out;
}

Result<std::vector<NftTable>> nft_apply(int netns_fd, const std::string& ruleset) {
  if (std::string why = nft_ruleset_refusal(ruleset); !why.empty()) return make_error(why);
  return in_netns<std::vector<NftTable>>(netns_fd, [&]() -> Result<std::vector<NftTable>> {
    auto listing = apply_and_list(ruleset);
    if (!listing) return listing.error();
    return nft_tables_of(*listing);
  });
}

Result<NftCounted> nft_check(const std::string& ruleset) {
  if (std::string why = nft_ruleset_refusal(ruleset); !why.empty()) return make_error(why);
  Result<NftCounted> out = make_error("not run");
  std::thread t([&] {
    // This thread alone moves into a new, empty namespace; it goes when the thread ends.
    if (unshare(CLONE_NEWNET) != 0) {
      out = make_error("cannot make a namespace to check the rules in: " + errno_text(errno), "run as root");
      return;
    }
    auto listing = apply_and_list(ruleset);
    if (!listing) {
      out = listing.error();
      return;
    }
    auto tables = nft_tables_of(*listing);
    out = tables ? nft_counted_of(*listing, *tables) : Result<NftCounted>(tables.error());
  });
  t.join();
  return out;
}

Result<std::vector<NftTable>> nft_tables(int netns_fd) {
  return in_netns<std::vector<NftTable>>(netns_fd, []() -> Result<std::vector<NftTable>> {
    auto listing = run_command("list ruleset", true);
    if (!listing) return listing.error();
    return nft_tables_of(*listing);
  });
}

Result<NftCounted> nft_counted(int netns_fd, const std::vector<NftTable>& tables) {
  return in_netns<NftCounted>(netns_fd, [&]() -> Result<NftCounted> {
    auto listing = run_command("list ruleset", true);
    if (!listing) return listing.error();
    return nft_counted_of(*listing, tables);
  });
}

}  // namespace vpnlab
