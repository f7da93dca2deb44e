#include "lab/agent/agent_client.h"
#include "lab/base/json_number.h"

#include <chrono>
#include <optional>

namespace vpnlab {

using nlohmann::json;
using clock_type = std::chrono::steady_clock;

static double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

Result<std::unique_ptr<AgentClient>> AgentClient::connect(const std::string& socket, double timeout_s, int interrupt_fd,
                                                          GuestHello* hello) {
  auto t0 = clock_type::now();
  std::unique_ptr<AgentClient> c;
  // QEMU creates the socket as it starts; a bounded probe until it accepts.
  for (;;) {
    auto fd = connect_unix(socket);
    if (fd) {
      c.reset(new AgentClient(std::move(*fd)));
      break;
    }
    if (since(t0) > timeout_s) return with_context(fd.error(), "guest agent");
    pollfd p{interrupt_fd, POLLIN, 0};
    if (::poll(&p, interrupt_fd >= 0 ? 1 : 0, 50) > 0) return make_error("interrupted");
  }
  for (;;) {
    long seq = ++c->seq_;
    if (auto s = c->ch_.send({{"op", "hello"}, {"seq", seq}}); !s) return s.error();
    // Until the guest opens its port, QEMU keeps the request; a repeat every second
    // covers an agent that restarted its port in between.
    auto deadline = clock_type::now() + std::chrono::seconds(1);
    while (clock_type::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      auto r = c->ch_.receive(static_cast<int>(left), interrupt_fd);
      if (!r) {
        if (r.error().message == "interrupted" || c->ch_.at_eof()) return r.error();
        break;
      }
      if (r->value("ok", false) && r->value("seq", 0L) >= 1) {
        if (hello) *hello = GuestHello{r->value("kernel", ""), r->value("uptime_s", 0.0)};
        c->seq_ = std::max(c->seq_, r->value("seq", 0L));
        return c;
      }
    }
    if (since(t0) > timeout_s)
      return make_error("guest agent did not answer within " + std::to_string(static_cast<int>(timeout_s)) + " s",
                        "see the guest's console log for how far its boot got");
  }
}

json link_info_json(const LinkInfo& l) {
  return {{"ok", true},
          {"name", l.name},
          {"kind", l.kind},
          {"mtu", l.mtu},
          {"up", l.up},
          {"rx_bytes", l.rx_bytes},
          {"tx_bytes", l.tx_bytes},
          {"rx_packets", l.rx_packets},
          {"tx_packets", l.tx_packets}};
}

LinkInfo link_info_from_json(const json& j) {
  LinkInfo l;
  l.name = j.value("name", "");
  l.kind = j.value("kind", "");
  l.mtu = whole_number_or(j, "mtu", 0);
  l.up = j.value("up", false);
  l.rx_bytes = whole_number_or<uint64_t>(j, "rx_bytes", 0);
  l.tx_bytes = whole_number_or<uint64_t>(j, "tx_bytes", 0);
  l.rx_packets = whole_number_or<uint64_t>(j, "rx_packets", 0);
  l.tx_packets = whole_number_or<uint64_t>(j, "tx_packets", 0);
  return l;
}

std::unique_ptr<AgentClient> AgentClient::over(UniqueFd fd, std::string where) {
  return std::unique_ptr<AgentClient>(new AgentClient(std::move(fd), std::move(where)));
}

Result<json> AgentClient::call(json req, int timeout_ms, int interrupt_fd) {
  std::lock_guard<std::mutex> lock(mu_);
  long seq = ++seq_;
  req["seq"] = seq;
  if (lost_) return make_error("agent " + where_ + ", " + req.value("op", "") + ": channel closed by the other side");
  if (auto s = ch_.send(req); !s) {
    lost_ = true;
    return s.error();
  }
  // One deadline for the whole call: answers with another seq do not restart it. An agent
  // serves one request at a time, so a call an interrupt left behind still runs there until
  // its own deadline (a teardown after Ctrl-C waits for it), and this answer comes after it.
  const auto now = clock_type::now();
  const auto deadline =
      now + std::chrono::milliseconds(timeout_ms) + std::max(clock_type::duration::zero(), left_running_until_ - now);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
    auto r = ch_.receive(timeout_ms < 0 ? -1 : left > 0 ? static_cast<int>(left) : 0, interrupt_fd);
    if (!r && ch_.at_eof()) lost_ = true;
    if (!r && r.error().message == "interrupted") {
      left_running_until_ = std::max(left_running_until_, deadline);
      return make_error("agent " + where_ + ", " + req.value("op", "") + ": interrupted");
    }
    if (!r && r.error().message.rfind("no answer within ", 0) == 0)  // the call's own limit, not what was left of it
      return make_error("agent " + where_ + ", " + req.value("op", "") + ": no answer within " +
                        std::to_string(timeout_ms) + " ms");
    if (!r) return with_context(r.error(), "agent " + where_ + ", " + req.value("op", ""));
    // Fields of the wrong type are an answer that is not this call's, never an exception.
    const auto& got = (*r)["seq"];
    if (!got.is_number_integer() || whole_number<long>(got) != seq) continue;  // a late answer to an earlier hello
    const auto& ok = (*r)["ok"];
    if (!ok.is_boolean() || !ok.get<bool>()) {
      const auto& error = (*r)["error"];
      const auto& hint = (*r)["hint"];
      return make_error(where_ + ": " + (error.is_string() ? error.get<std::string>() : std::string("unknown error")),
                        hint.is_string() ? hint.get<std::string>() : "");
    }
    return *r;
  }
}

Result<int> AgentClient::spawn(const Spawn& s) {
  json req{{"op", "spawn"}, {"node", s.node}, {"argv", s.argv},
           {"env", s.env},  {"cpus", s.cpus}, {"stdout", s.stdout_path}};
  if (!s.stderr_path.empty()) req["stderr"] = s.stderr_path;
  if (!s.cwd.empty()) req["cwd"] = s.cwd;
  if (s.private_run) req["private_run"] = true;
  auto r = call(req);
  if (!r) return r.error();
  return r->value("id", 0);
}

Result<std::optional<int>> AgentClient::wait(int id, double timeout_s, int interrupt_fd) {
  auto t0 = clock_type::now();
  for (;;) {
    auto r = call({{"op", "wait"}, {"id", id}, {"timeout_ms", 500}}, 10000, interrupt_fd);
    if (!r) return r.error();
    if (r->value("exited", false)) return std::optional<int>(r->value("status", -1));
    if (since(t0) >= timeout_s) return std::optional<int>();
  }
}

Result<bool> AgentClient::stop(int id, int grace_ms) {
  auto r = call({{"op", "stop"}, {"id", id}, {"grace_ms", grace_ms}}, grace_ms + 10000);
  if (!r) return r.error();
  return r->value("killed", false);
}

}  // namespace vpnlab
