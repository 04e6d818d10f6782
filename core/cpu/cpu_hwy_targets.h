// The instruction sets the CPU kernels are compiled for, as Highway names them. Included before any
// Highway header by every file that compiles or lists per-target code, so that all agree.
//
// Highway's default also builds SSSE3 and SSE4 passes; they add no lanes and no fused multiply-add
// over the x86-64 baseline (Highway's EMU128 pass here: plain C++ with the build's SSE2), so they are
// left out to save compile time. What remains on x86-64: the baseline, AVX2 (x86-64-v3: AVX2, FMA)
// and AVX3 (x86-64-v4: AVX-512 F, BW, DQ, VL). A build with -march=native (WB_NATIVE) compiles only
// the targets its flags do not already exceed, so it holds the build machine's best alone.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif
