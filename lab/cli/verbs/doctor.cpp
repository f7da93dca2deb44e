// `vpnlab doctor [FILE]`: what this machine (and a hosts topology's hosts) can do.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/cli/doctor.h"
#include "lab/app/backends.h"
#include "lab/app/run_request.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/results/report_hosts.h"

namespace vpnlab {
namespace {

int cmd_doctor(const Args& a) {
  if (a.positional.size() > 1) return usage_error("doctor", "give at most one topology file (its hosts are probed too)");
  std::optional<Plan> plan;
  if (!a.positional.empty()) {
    auto p = plan_request(request_of(a, a.positional[0]));
    if (!p) return fail(p.error());
    if (!backend_entry(p->backend).probe_remote) return usage_error("doctor", a.positional[0] + " is not a hosts topology: 'vpnlab doctor' alone probes this machine");
    plan = std::move(*p);
  }
  if (!need_root("doctor")) return kExitError;
  DoctorReport report = doctor_report(products_path(own_binary_dir()));
  int status = 0;
  if (plan) {
    // Each host as a run would find it: ssh, agent version, nic, CPUs, the products.
    const BackendContext ctx{products_path(own_binary_dir()), helper_dir(own_binary_dir()), -1};
    nlohmann::json hosts = backend_entry(plan->backend).probe_remote(*plan, ctx);
    report.json["hosts"] = hosts;
    report.text += "\nhosts of " + a.positional[0] + ":\n";
    nlohmann::json usable = nlohmann::json::array();
    for (const auto& h : hosts) {
      if (!h.contains("error")) {
        usable.push_back(h);
        continue;
      }
      status = 1;
      report.text += "  ! " + h.value("error", std::string()) + "\n";  // names the host
    }
    for (const auto& line : host_items(nlohmann::json{{"hosts", usable}})) report.text += "  " + line + "\n";
  }
  if (a.json) std::cout << report.json.dump(2) << "\n";
  else std::cout << report.text;
  return status;
}

}  // namespace

extern const Verb kDoctorVerb = {"doctor", "doctor [FILE] [--backend B] [--json]", "Probes what this machine can do (network features made for real in a scratch namespace, KVM, CPU,\n"
     "steal time, products) and says what that means for results. With a hosts topology FILE, each of its hosts too\n"
     "(ssh, agent version, nic, CPUs, the products there); exit 1 if one cannot be used.", {"--json", "--backend"},
    cmd_doctor};

}  // namespace vpnlab
