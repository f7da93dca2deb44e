// `vpnlab doctor [FILE]`: what this machine (and a topology's products, a hosts topology's hosts) can do.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "lab/app/backends.h"
#include "lab/app/doctor_report.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/finalize.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/results/report_hosts.h"

namespace vpnlab {
namespace {

// A topology run on this machine (netns, vm): whether each of its products can run here on
// its backend, as `run` would find it. 1 if one cannot.
int add_local_products(const Plan& plan, const std::string& file, DoctorReport* report) {
  int status = 0;
  report->text += "\nproducts of " + file + " (backend " + plan.backend + "):\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& name : plan.products) {
    auto spec = load_product(products_path(own_binary_dir()), name);
    std::string state = "yes", detail;
    if (!spec)
      state = "bad", detail = spec.error().where_and_what();
    else if (auto fits = check_product_fits(spec.value(), plan); !fits)
      state = "no", detail = fits.error().message;
    else if (auto av = availability_for(spec.value(), plan.backend); !av.available)
      state = "no", detail = av.reason;
    else
      detail = av.version;
    if (state != "yes") status = 1;
    report->text +=
        "  " + name + std::string(name.size() < 22 ? 22 - name.size() : 1, ' ') + state + "  " + detail + "\n";
    rows.push_back({{"name", name}, {"state", state}, {"detail", detail}});
  }
  report->json["topology"] = {{"file", file}, {"backend", plan.backend}, {"products", rows}};
  return status;
}

int cmd_doctor(const Args& a) {
  if (a.positional.size() > 1)
    return usage_error("doctor", "give at most one topology file (its hosts are probed too)");
  std::optional<Plan> plan;
  if (!a.positional.empty()) {
    auto p = plan_request(request_of(a, a.positional[0]));
    if (!p) return fail(p.error());
    plan = std::move(*p);
  }
  if (!need_root("doctor")) return kExitError;
  DoctorReport report = doctor_report(products_path(own_binary_dir()));
  int status = 0;
  if (plan && !backend_entry(plan->backend).probe_remote)
    status = add_local_products(*plan, a.positional[0], &report);
  else if (plan) {
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
  if (a.json)
    std::cout << report.json.dump(2) << "\n";
  else
    std::cout << report.text;
  return status;
}

}  // namespace

extern const Verb kDoctorVerb = {
    "doctor",
    "doctor [FILE [--product NAME]...] [--backend B] [--json]",
    "Probes what this machine can do (network features made for real in a scratch namespace, KVM, CPU,\n"
    "steal time, products) and says what that means for results. With a topology FILE, whether each of its products\n"
    "can run here on its backend, and for a hosts topology each of its hosts too (ssh, agent version, nic, CPUs, the\n"
    "products there); exit 1 if a product or a host cannot be used.",
    {"--json", "--backend", "--product"},
    cmd_doctor};

}  // namespace vpnlab
