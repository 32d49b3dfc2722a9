# The kernel source the VMA tree is compiled from (--tree maple): the
# kernel's own lib/maple_tree.c, never a copy in this repository.
#
#   -DVMSIM_KERNEL_SRC=DIR   a kernel tree on disk (a user's patched tree,
#                            a newer release); also read from the
#                            environment variable of the same name.
#   otherwise                /usr/src/linux-source-6.12.tar.xz (Debian's
#                            linux-source-6.12): the files listed in
#                            sim/kmaple/kernel-files.txt are extracted once
#                            into the build tree (a stamp names the tarball,
#                            its size and time: a second build extracts
#                            nothing).
#   neither                  vmsim builds with its own tree only, and says so.
#
# Sets VMSIM_HAVE_MAPLE, VMSIM_KMAPLE_SRC (the tree used) and
# VMSIM_KMAPLE_RELEASE ("6.12.118") and VMSIM_KMAPLE_ORIGIN (the tarball or
# the tree on disk).

set(VMSIM_KERNEL_SRC "$ENV{VMSIM_KERNEL_SRC}" CACHE PATH
    "A kernel source tree to compile the maple tree from (default: the linux-source-6.12 package)")
set(VMSIM_KERNEL_TARBALL "" CACHE FILEPATH
    "A linux-source tarball to extract the maple tree from (default: /usr/src/linux-source-6.12.tar.xz)")
option(VMSIM_MAPLE "Compile the kernel's maple tree when a kernel source is found" ON)

set(VMSIM_HAVE_MAPLE OFF)
set(VMSIM_KMAPLE_SRC "")
set(VMSIM_KMAPLE_RELEASE "")
set(VMSIM_KMAPLE_ORIGIN "")
set(kmaple_list ${CMAKE_SOURCE_DIR}/sim/kmaple/kernel-files.txt)

function(vmsim_kernel_release dir out)
  file(STRINGS ${dir}/Makefile mk REGEX "^(VERSION|PATCHLEVEL|SUBLEVEL) = ")
  set(v "")
  foreach(line IN LISTS mk)
    string(REGEX REPLACE "^[A-Z]+ = *" "" n "${line}")
    if(v STREQUAL "")
      set(v "${n}")
    else()
      set(v "${v}.${n}")
    endif()
  endforeach()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

if(NOT VMSIM_MAPLE)
  message(STATUS "vmsim: the kernel's maple tree is off (VMSIM_MAPLE=OFF): --tree vmsim only")
elseif(VMSIM_KERNEL_SRC)
  if(NOT EXISTS ${VMSIM_KERNEL_SRC}/lib/maple_tree.c OR
     NOT EXISTS ${VMSIM_KERNEL_SRC}/tools/testing/shared/shared.h)
    message(FATAL_ERROR "VMSIM_KERNEL_SRC=${VMSIM_KERNEL_SRC}: not a kernel source tree "
            "(no lib/maple_tree.c or tools/testing/shared/shared.h)")
  endif()
  set(VMSIM_KMAPLE_SRC ${VMSIM_KERNEL_SRC})
  set(VMSIM_KMAPLE_ORIGIN "${VMSIM_KERNEL_SRC}")
else()
  set(tarball "${VMSIM_KERNEL_TARBALL}")
  if(NOT tarball AND EXISTS /usr/src/linux-source-6.12.tar.xz)
    set(tarball /usr/src/linux-source-6.12.tar.xz)
  endif()
  if(tarball)
    if(NOT EXISTS ${tarball})
      message(FATAL_ERROR "VMSIM_KERNEL_TARBALL=${tarball}: no such file")
    endif()
    get_filename_component(top ${tarball} NAME)
    string(REGEX REPLACE "\\.tar\\.[a-z0-9]+$" "" top "${top}")
    file(SIZE ${tarball} tsize)
    file(TIMESTAMP ${tarball} ttime "%s" UTC)
    file(SHA256 ${kmaple_list} lsum)
    set(dest ${CMAKE_BINARY_DIR}/kernel-src)
    set(stamp_text "${tarball} ${tsize} ${ttime} ${lsum}")
    set(stamp_old "")
    if(EXISTS ${dest}/.vmsim-stamp)
      file(READ ${dest}/.vmsim-stamp stamp_old)
    endif()
    if(NOT stamp_old STREQUAL stamp_text)
      file(STRINGS ${kmaple_list} wanted REGEX "^[^#]")
      set(members "")
      foreach(f IN LISTS wanted)
        list(APPEND members "${top}/${f}")
      endforeach()
      file(REMOVE_RECURSE ${dest})
      file(MAKE_DIRECTORY ${dest})
      message(STATUS "vmsim: extracting the maple tree's files from ${tarball}")
      execute_process(COMMAND tar -xf ${tarball} -C ${dest} --strip-components=1 ${members}
                      RESULT_VARIABLE rc ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "vmsim: cannot extract the maple tree from ${tarball}: ${err}")
      endif()
      file(WRITE ${dest}/.vmsim-stamp "${stamp_text}")
    endif()
    set(VMSIM_KMAPLE_SRC ${dest})
    set(VMSIM_KMAPLE_ORIGIN "${tarball}")
  else()
    message(STATUS "vmsim: no kernel source (install linux-source-6.12, or -DVMSIM_KERNEL_SRC=DIR): "
            "built with vmsim's own VMA tree only (--tree vmsim)")
  endif()
endif()

if(VMSIM_KMAPLE_SRC)
  vmsim_kernel_release(${VMSIM_KMAPLE_SRC} VMSIM_KMAPLE_RELEASE)
  set(VMSIM_HAVE_MAPLE ON)
  message(STATUS "vmsim: the VMA tree is the kernel's maple tree, from ${VMSIM_KMAPLE_SRC} "
          "(Linux ${VMSIM_KMAPLE_RELEASE}); a binary built with it is GPL-2.0")
endif()
