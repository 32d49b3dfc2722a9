/* SPDX-License-Identifier: MIT */
/*
 * The result file's schema, owned here: its format version. Written by
 * resfile/results_json.c, read by analysis/compare_load.c (which refuses
 * a file of a later version) and documented in docs/results.md.
 */
#ifndef VMSIM_SCHEMA_H
#define VMSIM_SCHEMA_H

/* "vmsim_result": the version of the format a file was written in. */
#define RES_FORMAT_VERSION 2

#endif
