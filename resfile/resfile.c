/* SPDX-License-Identifier: MIT */
#include "resfile/resfile.h"
#include "resfile/results_json.h"
#include "resfile/schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RES_MAX_BYTES (1L << 30)     /* larger than any result vmsim writes */

/* Does the regular file on fd hold a vmsim result? (--force replaces only
 * those.) */
static bool is_vmsim_result(int fd)
{
	json_object *o, *v;
	struct stat st;
	char *buf;
	bool yes = false;

	if (fstat(fd, &st) || st.st_size > RES_MAX_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1)))
		return false;
	if (pread(fd, buf, (size_t)st.st_size, 0) == st.st_size) {
		buf[st.st_size] = 0;
		o = json_tokener_parse(buf);
		yes = o && json_object_is_type(o, json_type_object) &&
		      json_object_object_get_ex(o, RK_VMSIM_RESULT, &v);
		json_object_put(o);
	}
	free(buf);
	return yes;
}

int resfile_open(struct res_target *t, const char *path, bool force,
		    const char *const *inputs, char *err, size_t errlen)
{
	const struct sf_spec spec = {
		.what = "result file", .force = force,
		.ours = is_vmsim_result, .inputs = inputs,
	};
	int ret = sf_open(&t->out, path, &spec, err, errlen);

	t->open = !ret;
	return ret;
}

static int emit_string(FILE *f, void *arg)
{
	const char *s = arg;

	fputs(s, f);
	putc('\n', f);
	return 0;
}

int resfile_publish(struct res_target *t, const struct res_file *r,
		       json_object *options, json_object *command,
		       json_object *by_scheme, char *where, size_t wlen,
		       char *note, size_t nlen)
{
	json_object *o = res_json_of(r, options, command, by_scheme);
	const char *s = o ? json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	int ret;

	note[0] = where[0] = 0;
	if (!s) {
		json_object_put(o);
		snprintf(note, nlen, "out of memory building the result");
		return -ENOMEM;
	}
	ret = sf_emit(&t->out, emit_string, (void *)s);
	if (ret >= 0)
		ret = sf_commit(&t->out, r->complete, where, wlen, note, nlen);
	if (ret < 0) {
		/* Last resort: standard output, so that nothing is lost. */
		where[0] = 0;
		snprintf(note, nlen, "cannot write '%s' (%s) nor a file under "
			 "$TMPDIR; the result follows on standard output",
			 t->out.shown, strerror(-ret));
		fputs(s, stdout);
		putc('\n', stdout);
		fflush(stdout);
	}
	json_object_put(o);
	return ret;
}

void resfile_close(struct res_target *t)
{
	if (t->open)
		sf_abort(&t->out);
	t->open = false;
}
