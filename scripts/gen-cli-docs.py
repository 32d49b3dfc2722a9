#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate vmsim's man pages and bash completion at build time.

    gen-cli-docs.py VMSIM OUTDIR

Reads the parsers' own getopt tables (`VMSIM list --options`: every
command, sub-command and option, with the names an option takes) and
each command's --help text, and writes OUTDIR/man1/vmsim.1,
OUTDIR/man1/vmsim-CMD.1 (one a command) and OUTDIR/vmsim.bash (the
completion of vmsim and vmsim-compare). An option is listed in its page
because its command's table has it; its description is its --help line.
An option the help text does not describe is an error (exit 1): the
tables and the help have drifted. Nothing here knows an option's name.
"""
import re
import subprocess
import sys
from pathlib import Path

OPT_LINE = re.compile(r"^( {2,8})((?:-[A-Za-z0-9], )?--?[A-Za-z0-9][\w-]*\S*(?: [^ ].*?)?)(?: {2,}(.*))?$")


def run(vmsim, *args):
    p = subprocess.run([vmsim, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"gen-cli-docs: {vmsim} {' '.join(args)}: exit {p.returncode}: "
                 f"{p.stderr.strip()[:200]}")
    return p.stdout


def load_tables(vmsim):
    cmds, order = {}, []
    for line in run(vmsim, "list", "--options").splitlines():
        f = line.split("\t")
        if f[0] == "command":
            cmds[f[1]] = {"summary": f[2], "subs": [], "opts": []}
            order.append(f[1])
        elif f[0] == "sub":
            cmds[f[1]]["subs"].append(f[2])
        elif f[0] == "option":
            cmds[f[1]]["opts"].append({
                "sub": None if f[2] == "-" else f[2], "long": f[3],
                "short": None if f[4] == "-" else f[4], "arg": int(f[5]),
                "values": f[6].split() if len(f) > 6 else []})
        else:
            sys.exit(f"gen-cli-docs: a line of list --options not understood: {line!r}")
    return order, cmds


def parse_help(text):
    """(synopsis lines, blocks): a block is ("para", [lines]) or
    ("opt", term, [description lines])."""
    lines = text.rstrip("\n").split("\n")
    syn = []
    while lines and (lines[0].startswith("usage:") or
                     (syn and lines[0].startswith("       "))):
        syn.append(re.sub(r"^(usage:)?\s*", "", lines.pop(0)))
    blocks, cur = [], None
    for ln in lines:
        m = OPT_LINE.match(ln)
        if m and not ln.strip().startswith("--help'"):
            cur = ["opt", m.group(2).strip(), [m.group(3)] if m.group(3) else [],
                   len(m.group(1))]
            blocks.append(cur)
        elif cur and cur[0] == "opt" and ln.startswith(" " * (cur[3] + 2)) and ln.strip():
            cur[2].append(ln.strip())
        elif not ln.strip():
            cur = None
            blocks.append(["blank"])
        else:
            if not cur or cur[0] != "para":
                cur = ["para", []]
                blocks.append(cur)
            cur[1].append(ln)
    return syn, blocks


def described(blocks):
    """The long options (and letters) an option block of the help names."""
    names = {}
    for b in blocks:
        if b[0] != "opt":
            continue
        for n in re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", b[1]):
            names.setdefault(n, b)
    return names


def esc(s):
    s = s.replace("\\", "\\e")
    s = re.sub(r"(?<![\w])-", r"\\-", s)
    return "\\&" + s if s[:1] in ".'" else s


def page(name, section_title, version, summary, syn, blocks, extra):
    out = [f'.TH {name.upper()} 1 "" "vmsim {version}" "vmsim manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}"]
    if syn:
        out += [".SH SYNOPSIS", ".nf"] + [esc(s) for s in syn] + [".fi"]
    out += [".SH DESCRIPTION"]
    for b in blocks:
        if b[0] == "blank":
            out.append(".PP")
        elif b[0] == "para":
            out += [".PP", ".nf"] + [esc(l) for l in b[1]] + [".fi"]
        else:
            out += [".TP", f"\\fB{esc(b[1])}\\fR"] + [esc(l) for l in b[2]]
    out += extra
    out += [".SH SEE ALSO", section_title, ""]
    return "\n".join(out)


def check_described(cmd, opts, names, fallback):
    """Every option of the tables, found in the help (or, for a
    sub-command taking run's options, in run's): the option blocks to
    add for the latter; exits on one that is nowhere."""
    extra, missing = [], []
    for o in opts:
        if o["long"] == "--help":
            continue
        if o["long"] in names:
            continue
        b = fallback.get(o["long"]) if fallback else None
        if b:
            extra.append((o, b))
        else:
            missing.append(o["long"])
    if missing:
        sys.exit(f"gen-cli-docs: vmsim {cmd}: {', '.join(missing)} in the "
                 "parser's table but not in its --help: describe it there")
    return extra


def completion(order, cmds):
    q = lambda s: "'" + s.replace("'", "'\\''") + "'"
    out = ["# bash completion for vmsim and vmsim-compare: generated at build",
           "# time from the parsers' getopt tables (scripts/gen-cli-docs.py).",
           "declare -gA _vmsim_opts=() _vmsim_args=() _vmsim_vals=() _vmsim_subs=()",
           f"_vmsim_cmds={q(' '.join(order))}"]
    for c in order:
        d = cmds[c]
        if d["subs"]:
            out.append(f"_vmsim_subs[{c}]={q(' '.join(d['subs']))}")
        keys = {}
        for o in d["opts"]:
            k = c + ("/" + o["sub"] if o["sub"] else "")
            names = [o["long"]] + ([o["short"]] if o["short"] else [])
            keys.setdefault(k, {"opts": [], "args": []})
            keys[k]["opts"] += names
            if o["arg"]:
                keys[k]["args"] += names
                if o["values"]:
                    for n in names:
                        out.append(f"_vmsim_vals[{q(k + ' ' + n)}]={q(' '.join(o['values']))}")
        for k, v in keys.items():
            out.append(f"_vmsim_opts[{q(k)}]={q(' '.join(v['opts']))}")
            out.append(f"_vmsim_args[{q(k)}]={q(' ' + ' '.join(v['args']) + ' ')}")
    out.append(r'''
# _vmsim_complete KEY FIRST: complete COMP_WORDS[COMP_CWORD] for the
# command KEY ("run", or a command and sub-command joined by a slash)
# whose arguments start at FIRST.
_vmsim_complete() {
	local key=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=
	[ "$COMP_CWORD" -gt "$2" ] && prev=${COMP_WORDS[COMP_CWORD-1]}
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		cur=${cur#*=}
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	elif [[ " ${_vmsim_args[$key]} " != *" $prev "* ]]; then
		prev=
	fi
	if [ -n "$prev" ]; then
		local vals=${_vmsim_vals["$key $prev"]}
		if [ -n "$vals" ]; then
			# a list (-l rwsem,pervma): the word after the last comma
			# and none already in the list (-l rwsem,<TAB>: not rwsem)
			local head= w keep=
			[[ $cur == *,* ]] && head=${cur%,*},
			for w in $vals; do
				[[ ",$head" == *",$w,"* ]] || keep+=" $w"
			done
			COMPREPLY=($(compgen -P "$head" -W "$keep" -- "${cur##*,}"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_vmsim_opts[$key]}" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

_vmsim() {
	COMPREPLY=()
	if [[ ${COMP_WORDS[0]} == *vmsim-compare ]]; then
		_vmsim_complete compare 1
		return
	fi
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$_vmsim_cmds --help --version" -- "${COMP_WORDS[1]}"))
		return
	fi
	local cmd=${COMP_WORDS[1]}
	if [ -n "${_vmsim_subs[$cmd]}" ]; then
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "${_vmsim_subs[$cmd]}" -- "${COMP_WORDS[2]}"))
			return
		fi
		_vmsim_complete "$cmd/${COMP_WORDS[2]}" 3
		return
	fi
	_vmsim_complete "$cmd" 2
}
complete -F _vmsim vmsim vmsim-compare
''')
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-cli-docs.py VMSIM OUTDIR")
    vmsim, outdir = sys.argv[1], Path(sys.argv[2])
    version = run(vmsim, "--version").split("\n")[0].split()[1]
    order, cmds = load_tables(vmsim)
    man = outdir / "man1"
    man.mkdir(parents=True, exist_ok=True)
    see = ", ".join([r"\fBvmsim\fR(1)"] + [rf"\fBvmsim\-{c}\fR(1)" for c in order])
    run_names = described(parse_help(run(vmsim, "run", "--help"))[1])
    for c in order:
        syn, blocks = parse_help(run(vmsim, c, "--help"))
        names = described(blocks)
        # A sub-command that takes run's options ("[RUN OPTIONS]") finds
        # their descriptions in run's help.
        takes_run = c != "run" and any("RUN OPTIONS" in s for s in syn)
        extra = check_described(c, cmds[c]["opts"], names,
                                run_names if takes_run else None)
        add = []
        if extra:
            subs = sorted({o["sub"] or c for o, _ in extra})
            add = [".SH RUN OPTIONS", f"What {', '.join(subs)} takes of "
                   r"\fBvmsim\-run\fR(1)'s options, as there:"]
            for o, b in extra:
                add += [".TP", f"\\fB{esc(b[1])}\\fR"] + [esc(l) for l in b[2]]
        (man / f"vmsim-{c}.1").write_text(
            page(f"vmsim-{c}", see, version, cmds[c]["summary"], syn, blocks, add))
    syn, blocks = parse_help(run(vmsim, "--help"))
    (man / "vmsim.1").write_text(
        page("vmsim", see, version, "a user-space virtual memory manager "
             "simulator: lock schemes of the mm compared on real page faults",
             syn, blocks, []))
    (outdir / "vmsim.bash").write_text(completion(order, cmds))


if __name__ == "__main__":
    main()
