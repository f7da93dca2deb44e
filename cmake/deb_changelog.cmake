# Writes OUT (changelog.gz, gzip -9n: no name, no timestamp) from cmake/deb/changelog.in:
# the newest entry carries the version the binary was built with (VERSION_HEADER, the
# generated vpnlab_version.h), so the package's changelog, its version and `vpnlab
# --version` agree; MAINTAINER is the package's Maintainer field (VPNLAB_MAINTAINER).
include("${CMAKE_CURRENT_LIST_DIR}/read_version_header.cmake")
vpnlab_read_version_header("${VERSION_HEADER}" VPNLAB_VERSION)
set(VPNLAB_MAINTAINER "${MAINTAINER}")
get_filename_component(dir "${OUT}" DIRECTORY)
configure_file("${IN}" "${dir}/changelog" @ONLY)
execute_process(COMMAND gzip -9nf "${dir}/changelog" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${dir}/changelog: ${rc}")
endif()
