# What `cmake --install` and the Debian package (`cpack -G DEB`) hold:
# vmsim and vmsim-compare, a man page a command and bash completion —
# both made at build time from the commands' own option tables by the
# vmsim just built (scripts/gen-cli-docs.py: `vmsim list --options`,
# which cli/opt.c writes from the tables the parser and --help use), so
# that they cannot drift from the parser —
# the documentation and the shipped traces.
include(GNUInstallDirs)
# python3 by name: FindPython3's introspection took 2.5 s of every
# configure here, and a build inside a test configures again.
find_program(VMSIM_PYTHON python3 REQUIRED)

set(VMSIM_DOC_OUT ${CMAKE_BINARY_DIR}/doc)
file(GLOB VMSIM_HELP_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cli/*.c
  ${CMAKE_SOURCE_DIR}/resfile/run_opts.def)
add_custom_command(OUTPUT ${VMSIM_DOC_OUT}/generated
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${VMSIM_DOC_OUT}/man1
  COMMAND ${VMSIM_PYTHON} ${CMAKE_SOURCE_DIR}/scripts/gen-cli-docs.py
          $<TARGET_FILE:vmsim> ${VMSIM_DOC_OUT}
  COMMAND ${CMAKE_COMMAND} -E touch ${VMSIM_DOC_OUT}/generated
  DEPENDS vmsim ${CMAKE_SOURCE_DIR}/scripts/gen-cli-docs.py ${VMSIM_HELP_SOURCES}
  COMMENT "Man pages and bash completion from vmsim's option tables"
  VERBATIM)
add_custom_target(vmsim-cli-docs ALL DEPENDS ${VMSIM_DOC_OUT}/generated)

install(TARGETS vmsim vmsim-compare RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${VMSIM_DOC_OUT}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
# bash-completion loads a command's file by its name: one for each.
foreach(cmd vmsim vmsim-compare)
  install(FILES ${VMSIM_DOC_OUT}/vmsim.bash RENAME ${cmd}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endforeach()
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data/traces/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vmsim/traces)
# The gate's recipe builds the base from a commit (docs/gate.md).
install(PROGRAMS ${CMAKE_SOURCE_DIR}/scripts/build-rev.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vmsim/scripts)

# The Debian package: the libraries vmsim links (Debian 12's names),
# perf for `vmsim record`.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vmsim)
set(CPACK_PACKAGE_VENDOR "the vmsim developers")
set(CPACK_PACKAGE_CONTACT "the vmsim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "user-space virtual memory manager simulator: mm lock schemes on real page faults")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6 (>= 2.36), liburing2, libnuma1, liburcu8, libjson-c5, libgsl27, libgslcblas0, zlib1g")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "linux-perf, bash-completion, man-db")
include(CPack)
