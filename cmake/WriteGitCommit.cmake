# cmake -DSOURCE_DIR=... -DOUTPUT=... [-DTEMPLATE=... -DVERSION_MAJOR=...] -P WriteGitCommit.cmake
# Writes the current commit (with "-dirty" for local changes) as a C string literal, or with
# TEMPLATE, that file configured with @commit@ and the -D variables; either way touching OUTPUT
# only when it changes so incremental builds stay incremental. Where the sources are no git
# checkout (a copied tree, a tarball), the environment variable PARITY_COMMIT names the commit.
set(commit "unknown")
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -c safe.directory=* -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0)
    set(commit "${head}")
    execute_process(COMMAND ${GIT} -c safe.directory=* -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT dirty STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
if(commit STREQUAL "unknown" AND NOT "$ENV{PARITY_COMMIT}" STREQUAL "")
  set(commit "$ENV{PARITY_COMMIT}")
endif()
if(DEFINED TEMPLATE)
  configure_file(${TEMPLATE} ${OUTPUT} @ONLY)  # leaves an unchanged file untouched
  return()
endif()
set(content "\"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUTPUT} "${content}")
endif()
