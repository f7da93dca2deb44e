// Text for XML attributes and content (SVG plots, libvirt domain XML).
#pragma once
#include <string>

namespace vpnlab {

// The text as terminal_safe() shows it (control bytes and bytes that are not UTF-8 as \xNN,
// newlines and tabs kept), with &, <, >, " and ' escaped: the one escaper under every page.
std::string xml_escape(const std::string& text);

}  // namespace vpnlab
