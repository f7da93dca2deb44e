// The checks that make a sample's row valid: the traffic crossed the tunnel, and (once
// per product) the underlay shows no plaintext and carries the product's port.
#include "lab/run/iperf.h"
#include "lab/run/sample.h"

namespace vpnlab {

namespace {

// `node`'s interface on a link it shares with `neighbor` ("" when none).
std::string ifname_toward(const Plan& plan, const std::string& node, const std::string& neighbor) {
  const PlanNode* a = plan.node(node);
  const PlanNode* b = plan.node(neighbor);
  if (!a || !b) return "";
  for (const auto& mine : a->underlay)
    for (const auto& theirs : b->underlay)
      if (mine.link == theirs.link) return mine.ifname;
  return "";
}

// Where a path's end sends its packets toward the other end: the underlay interface and the
// port. On a chain, toward its own hop's neighbour, or its native relay (whose transport
// may differ: Tailscale's DERP is TCP 3340, its direct path UDP {{port}}).
PlaintextWatch::End end_of_path(const SampleContext& c, const std::string& end, const std::string& other) {
  PlaintextWatch::End e;
  e.node = end;
  e.port = c.session->underlay_port(end, other);
  auto hops = c.plan->hops_between(end, other);
  if (hops.empty()) {
    for (const auto& u : c.plan->node(end)->underlay)
      if (u.link == c.test->underlay_link()) e.ifname = u.ifname;
    return e;
  }
  const PlanHop* h = hops.front();
  e.ifname = ifname_toward(*c.plan, end, !h->relays.empty() ? h->relays.front() : (h->a == end ? h->b : h->a));
  return e;
}

}  // namespace

// The client's end of the test's own path is watched, toward its neighbour on that path.
// Not the server's: a receiving end's capture also sees what its kernel decrypted and
// handed back to the same interface (kernel ESP in guests showed the payload "in clear" on
// b/lan), which never crossed the wire that way.
std::string PlaintextWatch::start(SampleContext* c) {
  const PlanTest& test = *c->test;
  const std::string client = c->plan->node(test.spec.client)->vpn_node();
  const std::string server = c->plan->node(test.spec.servers.front())->vpn_node();
  end_ = end_of_path(*c, client, server);
  auto watch = c->nodes->payload_watch(end_.node, end_.ifname, iperf_repeating_pattern(), end_.port);
  if (!watch) return "plaintext check: " + watch.error().message;
  if (!*watch) return "plaintext check: this backend cannot watch the underlay";
  end_.watch = std::move(watch.value());
  c->repeating_payload = true;
  c->port_bytes_out = &delivered_;
  return "";
}

std::string PlaintextWatch::verdict(const ProductSpec& spec, const SampleRow& row) {
  PayloadWatch::Summary seen = end_.watch->stop();
  if (row.status != "ok" || (spec.tunnel && !row.valid)) return "plaintext check: the sample failed: " + row.reason;
  const End& end = end_;
  std::string frames = std::to_string(seen.frames) + " frames on " + end.node + "/" + end.ifname + " watched, " +
                       std::to_string(seen.drops) + " not captured";
  if (spec.tunnel && spec.encrypted && seen.pattern_seen)
    return "plaintext of the payload seen on the underlay (" + frames + ")";
  // Each row proves with exact counters that the underlay carried at least iperf3's bytes;
  // the watch (which may miss frames under load) proves those bytes used the product's port.
  if (spec.tunnel && (delivered_ == 0 || seen.ipv4_bytes == 0 || seen.port_bytes < seen.ipv4_bytes * 99 / 100))
    return "only " + std::to_string(seen.port_bytes) + " of " + std::to_string(seen.ipv4_bytes) +
           " IPv4 bytes on the underlay used port " + std::to_string(end.port) + " (" + frames + ")";
  if (!spec.tunnel && !seen.pattern_seen)
    return "plaintext check is blind: no payload seen on the baseline (" + frames + ")";
  // A tunnel whose spec says encrypted = false must show it: else the check saw nothing.
  if (spec.tunnel && !spec.encrypted && !seen.pattern_seen)
    return "plaintext check is blind: no payload seen in clear, though the spec says encrypted = false (" + frames +
           ")";
  return "";
}

std::string plaintext_check(SampleContext c, double seconds, bool* interrupted) {
  PlaintextWatch watch;
  c.discarded = true;
  if (auto e = watch.start(&c); !e.empty()) return e;
  SampleRow row = run_sample(c, "plaintext-check", seconds, interrupted);
  return watch.verdict(*c.spec, row);
}

std::string tunnel_check(bool tunnel, uint64_t sent, uint64_t received, const TunnelCounters& d) {
  if (!tunnel) return "";
  if (sent == 0 && received == 0) return "iperf3 moved no data";
  auto check = [&](uint64_t rx, uint64_t tx, const std::string& what) -> std::string {
    if (tx < sent) return what + " sent " + std::to_string(tx) + " bytes, less than iperf3's " + std::to_string(sent);
    if (rx < received)
      return what + " received " + std::to_string(rx) + " bytes, less than iperf3's " + std::to_string(received);
    return "";
  };
  if (auto r = check(d.if_rx, d.if_tx, "the overlay interface"); !r.empty())
    return r + ": traffic did not cross the tunnel";
  if (auto r = check(d.underlay_rx, d.underlay_tx, "the underlay toward the peers"); !r.empty())
    return r + ": the tunnel's packets went elsewhere";
  if (d.has_product)
    if (auto r = check(d.product_rx, d.product_tx, "the product's peer counters"); !r.empty()) return r;
  return "";
}

std::string relay_check(uint64_t sent, uint64_t received, const TunnelCounters& d) {
  const uint64_t both = sent + received;
  if (d.underlay_rx < both || d.underlay_tx < both)
    return "its links toward the ends took in " + std::to_string(d.underlay_rx) + " and passed on " +
           std::to_string(d.underlay_tx) + " bytes, less than the " + std::to_string(both) +
           " iperf3 moved both ways: the traffic did not go through the relay";
  return "";
}

}  // namespace vpnlab
