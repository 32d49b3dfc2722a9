#!/usr/bin/env bash
# Runs every row of bad_inputs.tsv: vmsim must exit with the row's status
# within 60 s, print no control character, and (for a refusal, exit 2)
# say exactly one line on stderr that holds the row's fragment.
#   bad_inputs.sh path/to/vmsim TABLE.tsv DATA_DIR [SANITIZER]
# Rows with a ulimit set-up are skipped under a sanitizer (its shadow
# memory cannot live under `ulimit -v`).
set -u
VMSIM=${1:?usage: bad_inputs.sh vmsim table.tsv data_dir [sanitizer]}
table=${2:?table}
data=${3:?data dir}
sanitizer=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0 skipped=0

# Fixtures.
ln -s text.txt "$tmp/link.json"
ln -s nowhere.json "$tmp/dangling.json"
mkfifo "$tmp/fifo"
echo "notes, not a result" >"$tmp/text.txt"
cp "$data/base.json" "$tmp/result.json"
: >"$tmp/empty.json"
head -c 300 "$data/base.json" >"$tmp/trunc.json"
{ cat "$data/base.json"; echo '{}'; } >"$tmp/trailing.json"
traces=$data/../traces
head -c 20000 "$traces/sort.trace" >"$tmp/trunc.trace"   # inside its second block
printf 'VMSIMTRC\007\000' >"$tmp/v7.trace"
printf 'not a trace at all' >"$tmp/garbage.trace"
printf 'VMSIMTRC\001\000\177\000' >"$tmp/garbage2.trace"
long=$(printf 'x%.0s' $(seq 300))
python3 - "$data/base.json" "$tmp" <<'PY'
import json, sys
base, out = sys.argv[1], sys.argv[2]
def make(name, change):
    r = json.load(open(base))
    change(r)
    json.dump(r, open(f"{out}/{name}", "w"), allow_nan=True)
s0 = lambda r: r["results"][0]["samples"]
def setv(metric, i, v):
    def f(r): s0(r)[metric][i] = v
    return f
make("nan.json", setv("faults/sec", 1, float("nan")))
make("inf.json", setv("faults/sec", 1, float("inf")))
make("ninf.json", setv("faults/sec", 1, float("-inf")))
make("negative.json", setv("elapsed", 0, -0.5))
make("zero.json", setv("faults/sec", 0, 0))
make("nosamples.json", lambda r: s0(r).update({"faults/sec": []}))
make("ragged.json", lambda r: s0(r)["faults/sec"].pop())
make("noresults.json", lambda r: r.update(results=[]))
make("nometric.json", lambda r: r["results"][1]["samples"].pop("faults/sec"))
make("undeclared.json", lambda r: r["metrics"].pop("faults/sec"))
make("notasks.json", lambda r: r["results"].pop())
make("incomplete.json", lambda r: r.update(complete=False, stopped="interrupted by signal 2"))
# (all but two samples flagged: too few good ones left to compare)
make("flagged.json", lambda r: r["results"][0].update(flagged=[{"sample": k,
     "reason": "vmsim was stopped (SIGSTOP or SIGTSTP) while it was taken", "wall_s": 9.5}
     for k in range(3, len(r["results"][0]["samples"]["faults/sec"]) + 1)]))
# a lock class name longer than a row key may be (never cut short)
make("longname.json", lambda r: r["results"][0]["lockstat"].update({"l" * 65: {}}))
make("mismatch.json", lambda r: r["options"].update(mem=33554432, wait="busy"))
make("otherkernel.json", lambda r: r["meta"].update(kernel="6.1.0"))
# A cost profile of another host (--costs), and one cut short.
ops = {o: {"total_ns": 2000, "in_ns": 1000, "down_ns": 0} for o in
       ("mmap", "munmap", "mprotect", "madvise", "brk")}
prof = {"vmsim_cost_profile": 1, "host": {"release": "0.0-another-host",
        "cpu": "none", "virtual_machine": False}, "date": "2026-01-01T00:00:00Z",
        "syscall_ns": 100, "kernel": ops, "models": [{"scheme": "rwsem",
        "tree": "maple", "ops": ops}]}
json.dump(prof, open(f"{out}/otherhost.profile", "w"))
make("costed.json", lambda r: r["options"].update(costs=dict(prof)))
prof.pop("kernel")
json.dump(prof, open(f"{out}/nokernel.profile", "w"))
make("synthetic.json", lambda r: r.update(fault_source="synthetic"))
make("completestr.json", lambda r: r.update(complete="false"))
def cut(k):
    def f(r):
        for p in r["results"]:
            for m in p["samples"]:
                p["samples"][m] = p["samples"][m][:k]
    return f
make("one.json", cut(1))
make("two.json", cut(2))
make("newer.json", lambda r: r["options"].update(quantum_flux=3))
make("nooptions.json", lambda r: r.pop("options"))
make("nosource.json", lambda r: r.pop("fault_source"))
make("duptasks.json", lambda r: r["results"].append(r["results"][0]))
# An older format's baseline: no folio, frames, slab or uffd keys; and a
# candidate run with --folio 2M --frames pcp --slab sheaves.
make("oldformat.json", lambda r: [r["options"].pop(k, None) for k in
     ("folio", "fault_around", "frames", "slab", "uffd", "handler_cpu")])
make("components.json", lambda r: r["options"].update(folio=2097152,
     frames="pcp", slab="sheaves", rcu_free="call_rcu", phys=1 << 30,
     bulk_free="twopass"))
PY
# Traces of the current format (version 2), made here by an encoder of
# its own (docs/trace.md): a header and blocks, each with its CRC-32.
python3 - "$tmp" <<'PY'
import sys, zlib
out = sys.argv[1]
def u(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80); v >>= 7
    b.append(v); return bytes(b)
def zz(v): return (v << 1) ^ (v >> 63)
def le32(v): return v.to_bytes(4, "little")
def trace(comment, records):
    h = b"VMSIMTRC" + u(2) + u(len(comment)) + comment
    body = b"".join(records) + bytes([9]) + u(len(records))
    return h + le32(zlib.crc32(h)) + u(len(body)) + body + le32(zlib.crc32(body))
thread = bytes([1]) + u(0) + u(0) + u(4242)
fault = lambda page, w: bytes([2]) + u(0) + u(10) + u(zz(page) << 3 | w)
# Faults only: nothing in it was mapped by the program.
open(f"{out}/nomap.trace", "wb").write(
    trace(b"faults only", [thread, fault(0x7f0000000, 1), fault(1, 0)]))
# A terminal escape and a newline in the recorded command.
open(f"{out}/escape.trace", "wb").write(
    trace(b"evil\x1b[31mred\nline", [thread, fault(0x7f0000000, 1)]))
# One bit flipped in the records: the block's checksum no longer holds.
t = bytearray(trace(b"flipped", [thread] + [fault(i, 1) for i in range(50)]))
t[-20] ^= 0x04
open(f"{out}/flipped.trace", "wb").write(t)
PY

n=0
while IFS=$'\t' read -r want frag setup args; do
	case $want in ''|'#'*) continue ;; esac
	n=$((n + 1))
	frag=${frag//@TMP@/$tmp}
	frag=${frag//@DATA@/$data}
	args=${args//@TMP@/$tmp}
	setup=${setup//@TMP@/$tmp}
	args=${args//@DATA@/$data}
	args=${args//@LONG@/$long}
	[ "$setup" = - ] && setup=:
	if [ -n "$sanitizer" ] && [[ $setup == ulimit* ]]; then
		skipped=$((skipped + 1)); continue
	fi
	( eval "$setup" && eval "exec timeout 60 \"\$VMSIM\" $args" ) \
		</dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	what="row $n: vmsim $args"
	if [ $rc -ne "$want" ]; then
		echo "FAIL: $what: exit $rc, want $want"; cat "$tmp/err"
		fails=$((fails + 1)); continue
	fi
	if [ "$want" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		echo "FAIL: $what: want one line on stderr, got:"; cat "$tmp/err"
		fails=$((fails + 1)); continue
	fi
	if [ "$frag" != - ] && ! grep -qF -- "$frag" "$tmp/err"; then
		echo "FAIL: $what: stderr lacks '$frag': $(cat "$tmp/err")"
		fails=$((fails + 1)); continue
	fi
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$tmp/err" "$tmp/out"; then
		echo "FAIL: $what: a control character on the terminal"
		fails=$((fails + 1)); continue
	fi
	passes=$((passes + 1))
done <"$table"

# Nothing the rows touched was changed, and nothing was left behind.
[ "$(readlink "$tmp/link.json")" = text.txt ] &&
	[ "$(cat "$tmp/text.txt")" = "notes, not a result" ] &&
	[ ! -e "$tmp/nowhere.json" ] && [ -p "$tmp/fifo" ] && [ -c /dev/null ] &&
	cmp -s "$data/base.json" "$tmp/result.json" &&
	! ls "$tmp"/.vmsim-* >/dev/null 2>&1 &&
	passes=$((passes + 1)) || {
		echo "FAIL: a refused --json target was changed, or a temporary file left"
		ls -la "$tmp"; fails=$((fails + 1)); }
echo "bad_inputs: $passes passed, $fails failed, $skipped skipped ($n rows)"
[ $fails -eq 0 ]
