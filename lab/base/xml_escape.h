// Text for XML attributes and content (SVG plots, libvirt domain XML).
#pragma once
#include <string>

namespace vpnlab {

// Escapes &, <, >, " and '.
std::string xml_escape(const std::string& text);

}  // namespace vpnlab
