// vpnlab-vmhost: the one process that holds the embedded libvirt QEMU driver for a run.
// vpnlab starts it inside the lab's VM-host network namespace, so it is there before it
// creates any thread, and the taps and QEMU processes libvirt makes stay in that namespace.
// It answers JSON lines on a unix socket: start (domain XML), destroy (name), detach, quit.
// Whatever ends it (quit, EOF, TERM, INT, HUP), it destroys every domain it started first;
// after "detach" (`vpnlab up`) the end of its channel does not end it, only a signal
// (`vpnlab down` or `cleanup` ends the processes of the lab's namespace).
#include <libvirt/libvirt.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <set>
#include <string>

#include "lab/agent/json_lines.h"
#include "lab/backends/vm/libvirt_handle.h"

namespace vpnlab {
namespace {

using nlohmann::json;

// Destroying a domain that is already gone counts as success.
bool destroy_domain(virConnectPtr conn, const std::string& name, std::string* why) {
  VirDomain d(virDomainLookupByName(conn, name.c_str()));
  if (!d) return true;
  if (virDomainDestroy(d.get()) == 0) return true;
  VirDomain again(virDomainLookupByName(conn, name.c_str()));
  if (!again) return true;
  *why = virt_error_text();
  return false;
}

void destroy_all(virConnectPtr conn, std::set<std::string>& started) {
  for (const auto& name : started) {
    std::string why;
    if (!destroy_domain(conn, name, &why))
      std::fprintf(stderr, "vpnlab-vmhost: destroy %s: %s\n", name.c_str(), why.c_str());
  }
  started.clear();
}

json handle(virConnectPtr conn, const json& req, std::set<std::string>& started, bool* quit, bool* detached) {
  std::string op = req.value("op", "");
  if (op == "start") {
    std::string xml = req.value("xml", "");
    // Transient domain: it is undefined by the destroy that ends it (nothing to undefine).
    VirDomain d(virDomainCreateXML(conn, xml.c_str(), 0));
    if (!d) return {{"ok", false}, {"error", virt_error_text()}};
    const char* name = virDomainGetName(d.get());
    started.insert(name);
    return {{"ok", true}, {"name", name}};
  }
  if (op == "destroy") {
    std::string name = req.value("name", ""), why;
    started.erase(name);
    if (!destroy_domain(conn, name, &why)) return {{"ok", false}, {"error", why}};
    return {{"ok", true}};
  }
  if (op == "detach") {
    *detached = true;
    return {{"ok", true}};
  }
  if (op == "quit") {
    destroy_all(conn, started);
    *quit = true;
    return {{"ok", true}};
  }
  return {{"ok", false}, {"error", "unknown op '" + op + "'"}};
}

int vm_host_main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: vpnlab-vmhost LIBVIRT_ROOT SOCKET\n");
    return 2;
  }
  // Signals arrive as events on a signalfd; blocked before any thread exists.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  UniqueFd sfd(signalfd(-1, &mask, SFD_CLOEXEC));
  // Listen first: vpnlab waits for the socket, then for the "ready" line.
  auto listener = listen_unix(argv[2]);
  if (!listener) {
    std::fprintf(stderr, "vpnlab-vmhost: %s\n", listener.error().message.c_str());
    return 1;
  }
  auto conn = open_embedded_qemu(argv[1]);
  pollfd pa[2] = {{listener->get(), POLLIN, 0}, {sfd.get(), POLLIN, 0}};
  if (::poll(pa, 2, -1) <= 0 || (pa[1].revents & POLLIN)) return 1;
  JsonLines ch(UniqueFd(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC)));
  if (!conn) {
    (void)ch.send({{"ok", false}, {"error", conn.error().message}, {"hint", conn.error().hint}});
    return 1;
  }
  if (!ch.send({{"ok", true}, {"ready", true}})) return 1;
  std::set<std::string> started;
  bool quit = false, detached = false;
  while (!quit) {
    auto req = ch.receive(-1, sfd.get());
    if (!req) break;  // EOF or a signal: destroy and leave
    if (!ch.send(handle(conn->get(), *req, started, &quit, &detached))) break;
  }
  if (detached && !quit) {
    // The guests stay up without a client: wait for the signal that ends the lab.
    pollfd ps{sfd.get(), POLLIN, 0};
    while (::poll(&ps, 1, -1) < 0 && errno == EINTR) {
    }
  }
  destroy_all(conn->get(), started);
  return 0;
}

}  // namespace
}  // namespace vpnlab

int main(int argc, char** argv) { return vpnlab::vm_host_main(argc, argv); }
