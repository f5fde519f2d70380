# Fails, saying how to fix it, when a committed generated doc differs from
# the one the build just generated (ctest: docs-up-to-date/*).
# Inputs: GENERATED, COMMITTED.
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                        "${GENERATED}" "${COMMITTED}"
                RESULT_VARIABLE differs)
if(differs)
  message(FATAL_ERROR "${COMMITTED} is out of date with the .td files: run "
                      "`ninja -C build lazyc-update-docs` and commit it")
endif()
