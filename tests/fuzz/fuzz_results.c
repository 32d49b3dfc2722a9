/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the result-file reader and the comparison. The input
 * is parsed as JSON, checked by cmp_from_json(), and if accepted compared
 * with itself in every output format and run through the regression gate.
 * It must never crash, hang or leak, whatever the file holds.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	struct cmp_file f[2];
	json_object *root;
	char err[256];
	FILE *out;

	if (!tok)
		return 0;
	root = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!root)
		return 0;
	if (cmp_from_json(json_object_get(root), "a", &f[0], err, sizeof(err))) {
		json_object_put(root);
		return 0;
	}
	if (cmp_from_json(root, "b", &f[1], err, sizeof(err))) {
		cmp_file_free(&f[0]);
		return 0;
	}
	out = fopen("/dev/null", "w");
	for (int fmt = CMP_TEXT; out && fmt <= CMP_GNUPLOT; fmt++) {
		struct cmp_opts o = { .format = (enum cmp_format)fmt,
			.test = fmt % 2 ? CMP_MANNWHITNEY : CMP_WELCH, .alpha = 0.05 };

		cmp_print(out, f, 2, &o);
		char line[1024];

		cmp_gate(out, f, 2, &o, 0, line, sizeof(line));
	}
	if (out)
		fclose(out);
	cmp_file_free(&f[0]);
	cmp_file_free(&f[1]);
	return 0;
}
