# Man pages, one per command (gpuwhy.1, gpuwhy-report.1, ...), generated at
# build time by help2man from the same text as --help, so they cannot drift
# from it. Without help2man they are skipped with a message (the binary is
# all a user needs); scripts/install-deps.sh installs it.
# GW_COMMANDS: the commands of `gpuwhy --help` (tests/cli/install_prefix.sh
# checks that every one has its page).
set(GW_COMMANDS record watch report import explain export serve check compare baseline sweep experiment)
find_program(GW_HELP2MAN help2man)
if(NOT GW_HELP2MAN)
  message(STATUS "help2man not found: no man pages (scripts/install-deps.sh installs it)")
  return()
endif()
set(gw_man_dir ${CMAKE_BINARY_DIR}/man)
set(gw_man_pages)
foreach(cmd "" ${GW_COMMANDS})
  if(cmd STREQUAL "")
    set(page ${gw_man_dir}/gpuwhy.1)
  else()
    set(page ${gw_man_dir}/gpuwhy-${cmd}.1)
  endif()
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gw_man_dir}
    COMMAND sh ${CMAKE_SOURCE_DIR}/cmake/make_man_page.sh $<TARGET_FILE:gpuwhy> ${PROJECT_VERSION} ${page} ${cmd}
    DEPENDS gpuwhy ${CMAKE_SOURCE_DIR}/cmake/make_man_page.sh
    COMMENT "man page ${page}"
    VERBATIM)
  list(APPEND gw_man_pages ${page})
endforeach()
add_custom_target(man_pages ALL DEPENDS ${gw_man_pages})
install(FILES ${gw_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
