/* SPDX-License-Identifier: MIT */
/* Included first by the fast paths whose loops are written for the
 * compiler's vectoriser: GCC's -O3 for the file (-O2 leaves such loops
 * scalar), and VECTOR_CLONES, which on x86-64 builds a function three
 * times, baseline, AVX2 and AVX-512 (x86-64-v4), the program choosing by the
 * CPU when it starts (the build itself stays -march-neutral).  Clang gives
 * each cloned function a global resolver named after it, static or not:
 * their names must differ from file to file. */
#ifndef GF_FAST_VECTOR_H
#define GF_FAST_VECTOR_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

#endif
