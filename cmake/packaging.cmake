# Packaging: `cpack -G DEB` in a build directory makes mlp-workbench_<version>_<arch>.deb and, in a
# build with the CUDA backend, mlp-workbench-cuda_<version>_<arch>.deb (the plugin libmlpwb-cuda.so).
# scripts/package-test.sh configures, builds, packages, installs and removes them again.
#
# One package per install component: "base" (every install() without a COMPONENT: the programs, the
# desktop entry, the icon) and "cuda" (kernels/CMakeLists.txt). The base package depends on no CUDA
# library, so it installs and runs anywhere; the CUDA backend comes with the second package.
#
# A package runs on other machines, so it must be built without -march=native:
#   cmake -S . -B build-package -DWB_NATIVE=OFF -DWB_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr
# cpack refuses to package a build configured with WB_NATIVE=ON.

set(WB_PACKAGE_MAINTAINER "MLP Workbench developers <mlp-workbench@example.org>"
    CACHE STRING "The Maintainer field of the Debian package (Name <email>)")

set(CPACK_PACKAGE_NAME "mlp-workbench")
set(CPACK_PACKAGE_VENDOR "MLP Workbench")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${WB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "workbench that trains small MLPs and measures why one way of running them is faster")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_GENERATOR "DEB")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # mlp-workbench_0.1.0_amd64.deb, mlp-workbench-cuda_0.1.0_amd64.deb
set(CPACK_DEBIAN_BASE_PACKAGE_NAME "mlp-workbench")
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME "mlp-workbench-cuda")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${WB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# CPACK_DEBIAN_PACKAGE_ARCHITECTURE is left unset: CPack asks `dpkg --print-architecture`.
# Runtime dependencies (libc6, libstdc++6, libssl3, Qt when the GUI is built, ...) come from
# dpkg-shlibdeps (Debian's dpkg-dev), which reads the binaries' NEEDED entries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The extended descriptions, as plain lines (an empty line separates paragraphs): CPack puts
# CPACK_PACKAGE_DESCRIPTION_SUMMARY before each as the synopsis and indents every line by one space,
# so neither may start with the synopsis or with spaces (an indented line becomes verbatim text).
set(CPACK_DEBIAN_BASE_DESCRIPTION "MLP Workbench trains small multilayer perceptrons (a 61-20-10-1 tanh network with
binary cross-entropy and Adam is the founding case) and shows, measured side by side,
why one way of executing the same training is many times faster than another.
Every suspected cause of a slow training loop (per-sample data loading, host-to-device
copies, one launch per operation, zero_grad twice, Sigmoid + BCELoss, fp32) is one
switch, timed honestly per epoch and phase.

This package contains mlpwb, the command-line front end, and the desktop entry and
icon of the graphical front end mlp-workbench (with the binary when it was built).
The CUDA backend is in the package mlp-workbench-cuda.")

# The CUDA backend's package: the plugin alone, for exactly this version of the programs.
# dpkg-shlibdeps is off for it: the CUDA runtime and cuBLAS it needs (libcudart.so.13, libcublas.so.13,
# libcublasLt.so.13) belong to no Debian package (NVIDIA's installers or repository put them in
# place), so dpkg-shlibdeps would fail on them. Its other needs (libc6, libstdc++6) come with
# mlp-workbench. Where the CUDA libraries are missing, `mlpwb info` names the one it could not load.
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "mlp-workbench (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_CUDA_DESCRIPTION "This package contains the CUDA backend of MLP Workbench (NVIDIA GPUs) as a plugin,
libmlpwb-cuda.so: mlpwb and mlp-workbench load it and then offer the backend cuda.

It needs an NVIDIA driver and the CUDA ${CUDAToolkit_VERSION_MAJOR} runtime and cuBLAS libraries
(libcudart, libcublas, libcublasLt) from NVIDIA, which no Debian package provides;
`mlpwb info` says which one is missing.")

# A source package (cpack --config CPackSourceConfig.cmake) leaves out build trees and outputs.
set(CPACK_SOURCE_GENERATOR "TGZ")
string(REGEX REPLACE "([][+.*?()^$|\\\\])" "\\\\\\1" _wb_src_re "${PROJECT_SOURCE_DIR}")
set(CPACK_SOURCE_IGNORE_FILES "^${_wb_src_re}/(\\\\.git|build[^/]*|\\\\.venv[^/]*|bench/out)/" "/__pycache__/")

# Guard rail: a package built with -march=native crashes with SIGILL on an older CPU. The check runs
# when cpack runs (CPACK_PROJECT_CONFIG_FILE), so it also catches a build directory reconfigured later.
set(CPACK_WB_NATIVE "${WB_NATIVE}")
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_BINARY_DIR}/CPackProjectConfig.cmake")
file(WRITE "${CPACK_PROJECT_CONFIG_FILE}" [=[
# Written by cmake/packaging.cmake; read by cpack.
# A source package installs no CMake project (CPACK_INSTALL_CMAKE_PROJECTS is empty): its files
# belong at the top of the archive, not under /usr, and -march=native does not matter there.
if(NOT CPACK_INSTALL_CMAKE_PROJECTS)
  unset(CPACK_PACKAGING_INSTALL_PREFIX)
elseif(CPACK_WB_NATIVE)
  message(FATAL_ERROR "This build directory was configured with WB_NATIVE=ON (-march=native): its "
    "binaries do not run on older CPUs. Package a build configured with -DWB_NATIVE=OFF "
    "(scripts/package-test.sh does).")
endif()
]=])
if(WB_NATIVE)
  message(STATUS "Packaging: WB_NATIVE=ON, so cpack will refuse to make a binary package "
                 "(configure with -DWB_NATIVE=OFF to package)")
endif()

include(CPack)
