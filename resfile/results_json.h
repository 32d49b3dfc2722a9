/* SPDX-License-Identifier: MIT */
/* A result (sim/result.h) as its JSON file: docs/results.md is the
 * format. */
#ifndef VMSIM_RESULTS_JSON_H
#define VMSIM_RESULTS_JSON_H

#include <json-c/json.h>

#include "sim/result.h"

/* The whole result as a JSON object (the caller puts it), with the run's
 * options, command line and the options whose value the target's scheme
 * chose (by_scheme, an array of their keys: not the user's difference
 * between two targets); each taken as it is, a reference each, any may
 * be NULL. */
json_object *res_json_of(const struct res_file *r, json_object *options,
			 json_object *command, json_object *by_scheme);

/* The CPU's model name (/proc/cpuinfo), as a result's meta.cpu_model and
 * a cost profile's host record it; "unknown" where it cannot be read. */
void res_json_cpu_model(char *buf, size_t len);

/* h's causes a replay can make (replayable) or not, as
 * "kernel_fault 993/0, exec 2/13" (read/write); "none". */
void res_json_host_causes(const struct res_host_lock *h, bool replayable,
			  char *buf, size_t len);

#endif
