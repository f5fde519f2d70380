# Installs the build tree into a scratch prefix, builds the consumer project
# against the installed CMake package, and runs it (ctest: install-package).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX_COMPILER.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}"
                        --prefix "${WORK_DIR}/prefix"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja -S "${SOURCE_DIR}"
                        -B "${WORK_DIR}/build"
                        "-Dlazyc_DIR=${WORK_DIR}/prefix/lib/cmake/lazyc"
                        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${WORK_DIR}/build/consumer" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${WORK_DIR}/build/tour" OUTPUT_VARIABLE printed
                COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed MATCHES "^\\[\\[4, 4\\], \\[4, 4\\]\\]\n3\n.*traces compiled")
  message(FATAL_ERROR "the tour program printed:\n${printed}")
endif()
execute_process(COMMAND "${WORK_DIR}/prefix/bin/lazyc-opt" --version
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
