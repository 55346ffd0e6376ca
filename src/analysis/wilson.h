/* SPDX-License-Identifier: MIT */
/* Proportion intervals shared by the analyses (mispredicts.c). */
#ifndef HWPROF_ANALYSIS_WILSON_H
#define HWPROF_ANALYSIS_WILSON_H

#include <stdint.h>

/* z of a two-sided 95% interval: every analysis's default. */
#define HWP__Z95 1.959963984540054

/* Wilson score interval of K successes in N trials, both real: a count
   scaled to effective observations stays a proportion's evidence. */
void hwp__wilson(double k, double n, double z, double *lo, double *hi);

/* Wilson score interval for K successes in N trials at normal quantile Z. */
void hwp__wilson_interval(uint64_t k, uint64_t n, double z, double *lo, double *hi);

#endif
