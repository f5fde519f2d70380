#===- RunMpi.cmake - Run a job and check every rank's output --------------===#
#
# Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# cmake -DCOMMAND=<args separated by |> -DEXPECT=<regexes separated by @@>
#       [-DTIMEOUT=<seconds>] -P RunMpi.cmake
#
# Runs COMMAND (an mpirun job whose world breaks on purpose, so its exit
# status is MPI_Abort's) and fails unless its output matches every regex of
# EXPECT and has no GoogleTest failure.
#
#===------------------------------------------------------------------------===#

string(REPLACE "|" ";" command "${COMMAND}")
string(REPLACE "@@" ";" expectations "${EXPECT}")
if(NOT TIMEOUT)
  set(TIMEOUT 60)
endif()
execute_process(COMMAND ${command}
  OUTPUT_VARIABLE output ERROR_VARIABLE output
  RESULT_VARIABLE status TIMEOUT ${TIMEOUT})
message("${output}")
message("exit status: ${status}")
foreach(expected IN LISTS expectations)
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "RunMpi: the output does not match '${expected}'")
  endif()
endforeach()
if(output MATCHES "\\[  FAILED  \\]")
  message(FATAL_ERROR "RunMpi: a check failed (output above)")
endif()
