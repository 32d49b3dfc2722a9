/* SPDX-License-Identifier: MIT */
/*
 * cost_profile — what each operation class costs on this host, the
 * kernel's and every model's, at one task: the file `vmsim calibrate
 * --profile FILE` writes (bench/cost_probe.c measures it) and `--costs
 * FILE` reads, to make each model operation pay the difference
 * (sim/costs.h).
 *
 * A profile belongs to the host it was measured on: its kernel release,
 * CPU model and whether it is a virtual machine are recorded, and a
 * profile of another host is refused (one line naming what differs).
 *
 * FILE may also be a vmsim result made with --costs: its options record
 * the whole profile it used (what vmsim rerun gives back), and so may a
 * profile's JSON text itself given as the argument.
 */
#ifndef VMSIM_COST_PROFILE_H
#define VMSIM_COST_PROFILE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/costs.h"

#define COST_PROFILE_VERSION 1
#define COST_PROFILE_MAX_MODELS 32

/* The host a profile was measured on. */
struct cost_host {
	char release[65];
	char cpu[128];
	bool vm;
	double first_touch_us;           /* informative, not checked */
};

/* One operation class, per call (ns): the whole call, the mm-wide lock
 * held in the section it opens (in) and after a downgrade (down); the
 * rest is outside the lock. spread_pct: the rounds' CoeffVar of total. */
struct cost_meas {
	double total_ns, in_ns, down_ns, spread_pct;
	/* The kernel's: the traced events a call, the holds a call, and
	 * one event's cost (taken off each hold). */
	double events, holds, event_ns;
};

struct cost_model {
	char scheme[32], tree[16];
	struct cost_meas op[SIM_COST_NOPS];
};

struct cost_profile {
	struct cost_host host;
	char date[32];                   /* when it was measured (UTC) */
	int rounds, calls;
	double syscall_ns;               /* the real call of sim/costs.h */
	double clock_ns;                 /* a clock read pair, taken off */
	struct cost_meas kernel[SIM_COST_NOPS];
	int nmodels;
	struct cost_model models[COST_PROFILE_MAX_MODELS];
};

/* This host, as a profile records it (first_touch_us left 0). */
void cost_host_now(struct cost_host *h);
/* Is p's host this one? true, or false with what differs in why. */
bool cost_host_matches(const struct cost_host *p, const struct cost_host *now,
		       char *why, size_t len);

/* The profile as JSON (a new object). */
json_object *cost_profile_json(const struct cost_profile *p);
/* JSON into *p: 0, or -EINVAL with the reason in err. */
int cost_profile_parse(json_object *o, struct cost_profile *p, char *err,
		       size_t len);
/* arg (a profile file, a result made with --costs, or a profile's JSON
 * text) into *p, its JSON into *raw (the caller's to put): 0, or -errno
 * with one line in err. */
int cost_profile_load(const char *arg, struct cost_profile *p,
		      json_object **raw, char *err, size_t len);
/* Write p to path through the safe-write layer (a new file; force: may
 * replace a profile): 0, or -errno with one line in err. */
int cost_profile_write(const struct cost_profile *p, const char *path,
		       bool force, char *err, size_t len);

/* The model of scheme on tree in p, or NULL. */
const struct cost_model *cost_profile_model(const struct cost_profile *p,
					    const char *scheme, const char *tree);
/* What one operation of each class pays under m: the kernel's time in,
 * after a downgrade and outside the lock, less the model's own, each no
 * less than 0. */
void cost_profile_paid(const struct cost_profile *p, const struct cost_model *m,
		       struct sim_costs *out);

#endif
