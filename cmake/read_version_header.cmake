# vpnlab_read_version_header(HEADER OUT): OUT = the VPNLAB_VERSION the generated header
# (cmake/version.cmake) holds: the version the binary was built with. Read by cpack
# (cmake/cpack_version.cmake) and the changelog (cmake/deb_changelog.cmake), so the
# package, its changelog and `vpnlab --version` agree.
function(vpnlab_read_version_header header out)
  file(STRINGS "${header}" line REGEX "^#define VPNLAB_VERSION ")
  if(NOT line MATCHES "\"([^\"]+)\"")
    message(FATAL_ERROR "no VPNLAB_VERSION in ${header}: build vpnlab first")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
