#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make vmsim's man pages, bash completion and docs/usage.md's option
tables from the commands' own tables.

    gen-cli-docs.py VMSIM OUTDIR             man pages and completion
    gen-cli-docs.py --usage VMSIM USAGE.md   rewrite USAGE.md's tables
    gen-cli-docs.py --check VMSIM USAGE.md   exit 1 if one is stale

Everything comes from `VMSIM list --options` (cli/opt.c writes it from
each command's table, cli/cmd_list.c says its form): every command,
sub-command, synopsis line, description, option — its names, value,
kind, the bounds the parser holds it to, its help — and exit statuses.
Nothing is scraped from --help, and nothing here knows an option's name:
an option is in a page, in the completion and in usage.md because its
command's table has it. OUTDIR gets man1/vmsim.1, man1/vmsim-CMD.1 (one
a command) and vmsim.bash (the completion of vmsim and vmsim-compare).
In USAGE.md a table is the lines between `<!-- options: CMD -->` (or
`CMD SUB`) and `<!-- /options -->`.
"""
import re
import subprocess
import sys
from pathlib import Path


def run(vmsim, *args):
    p = subprocess.run([vmsim, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"gen-cli-docs: {vmsim} {' '.join(args)}: exit {p.returncode}: "
                 f"{p.stderr.strip()[:200]}")
    return p.stdout


def unescape(s):
    if s == "-":             # an empty field
        return ""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def part(cmd, sub):
    key = sub or "-"
    return cmd["parts"].setdefault(key, {"syn": [], "text": "", "after": "", "opts": []})


def load_tables(vmsim):
    cmds, order = {}, []
    for line in run(vmsim, "list", "--options").splitlines():
        f = line.split("\t")
        kind = f[0]
        if kind == "command":
            cmds[f[1]] = {"summary": unescape(f[2]).replace("\n", " "),
                          "subs": [], "parts": {}, "exits": ""}
            order.append(f[1])
            continue
        c = cmds.get(f[1]) if len(f) > 1 else None
        if c is None:
            sys.exit(f"gen-cli-docs: a line of list --options not understood: {line!r}")
        sub = None if len(f) < 3 or f[2] == "-" else f[2]
        if kind == "sub":
            c["subs"].append(f[2])
            part(c, f[2])
        elif kind == "synopsis":
            part(c, sub)["syn"].append(f[3])
        elif kind in ("text", "after"):
            part(c, sub)[kind] = unescape(f[3])
        elif kind == "exits":
            c["exits"] = unescape(f[2])
        elif kind == "option" and len(f) >= 11:
            part(c, sub)["opts"].append({
                "sub": sub, "long": f[3], "short": None if f[4] == "-" else f[4],
                "arg": int(f[5]), "values": [] if f[6] == "-" else f[6].split(),
                "metavar": None if f[7] == "-" else f[7], "kind": f[8],
                "bounds": unescape(f[9]), "help": unescape(f[10])})
        else:
            sys.exit(f"gen-cli-docs: a line of list --options not understood: {line!r}")
    return order, cmds


def term(o):
    t = (o["short"] + ", " if o["short"] else "") + o["long"]
    if o["metavar"]:
        t += f"[={o['metavar']}]" if o["arg"] == 2 else f" {o['metavar']}"
    return t


def described(o):
    """An option's description: its help, then its bounds."""
    lines = [l for l in o["help"].split("\n") if l]
    if o["bounds"]:
        lines.append(o["bounds"])
    return lines


def listed(opts):
    """The options a help lists (not --help itself, nor a hidden one)."""
    return [o for o in opts if o["kind"] != "help" and o["help"]]


def esc(s):
    s = s.replace("\\", "\\e")
    s = re.sub(r"(?<![\w])-", r"\\-", s)
    return "\\&" + s if s[:1] in ".'" else s


def para(text):
    out = []
    for chunk in re.split(r"\n\s*\n", text.strip("\n")):
        if chunk.strip():
            out += [".PP", ".nf"] + [esc(l) for l in chunk.split("\n")] + [".fi"]
    return out


def opt_lines(opts):
    out = []
    for o in listed(opts):
        out += [".TP", f"\\fB{esc(term(o))}\\fR"]
        out += [esc(l) for l in o["help"].split("\n") if l]
        if o["bounds"]:
            out += [".br", esc(o["bounds"])]
    return out


def page(name, see, version, c):
    top = c["parts"].get("-", {"syn": [], "text": "", "after": "", "opts": []})
    syn = list(top["syn"])
    for s in c["subs"]:
        syn += c["parts"][s]["syn"]
    out = [f'.TH {name.upper()} 1 "" "vmsim {version}" "vmsim manual"',
           ".SH NAME", f"{esc(name)} \\- {esc(c['summary'])}"]
    if syn:
        out += [".SH SYNOPSIS", ".nf"] + [esc("vmsim " + s) for s in syn] + [".fi"]
    out += [".SH DESCRIPTION"] + para(top["text"])
    if listed(top["opts"]):
        out += [".SH OPTIONS"] + opt_lines(top["opts"])
    for s in c["subs"]:
        p = c["parts"][s]
        out += [f".SS {esc(s)}"] + para(p["text"]) + opt_lines(p["opts"]) + para(p["after"])
    out += para(top["after"])
    if c["exits"].strip():
        out += [".SH EXIT STATUS"] + para(re.sub(r"^\s*exit status:\s*", "", c["exits"].strip()))
    out += [".SH SEE ALSO", see, ""]
    return "\n".join(out)


def main_page(see, version, order, cmds):
    out = ['.TH VMSIM 1 "" "vmsim ' + version + '" "vmsim manual"', ".SH NAME",
           "vmsim \\- a user-space virtual memory manager simulator: lock schemes "
           "of the mm compared on real page faults", ".SH SYNOPSIS", ".nf",
           "vmsim \\fICOMMAND\\fR [\\fIoptions\\fR]", "vmsim \\-\\-help | \\-\\-version",
           ".fi", ".SH COMMANDS"]
    for c in order:
        out += [".TP", f"\\fBvmsim\\-{esc(c)}\\fR(1)", esc(cmds[c]["summary"])]
    out += [".SH SEE ALSO", see, ""]
    return "\n".join(out)


def completion(order, cmds):
    q = lambda s: "'" + s.replace("'", "'\\''") + "'"
    out = ["# bash completion for vmsim and vmsim-compare: generated at build",
           "# time from the commands' option tables (scripts/gen-cli-docs.py).",
           "declare -gA _vmsim_opts=() _vmsim_args=() _vmsim_vals=() _vmsim_subs=()",
           f"_vmsim_cmds={q(' '.join(order))}"]
    for c in order:
        d = cmds[c]
        if d["subs"]:
            out.append(f"_vmsim_subs[{c}]={q(' '.join(d['subs']))}")
        for key, p in d["parts"].items():
            k = c + ("" if key == "-" else "/" + key)
            opts, args = [], []
            for o in p["opts"]:
                names = [o["long"]] + ([o["short"]] if o["short"] else [])
                opts += names
                if o["arg"]:
                    args += names
                    if o["values"]:
                        for n in names:
                            out.append(f"_vmsim_vals[{q(k + ' ' + n)}]={q(' '.join(o['values']))}")
            out.append(f"_vmsim_opts[{q(k)}]={q(' '.join(opts))}")
            out.append(f"_vmsim_args[{q(k)}]={q(' ' + ' '.join(args) + ' ')}")
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
		COMPREPLY=($(compgen -W "$_vmsim_cmds help --help --version" -- "${COMP_WORDS[1]}"))
		return
	fi
	local cmd=${COMP_WORDS[1]}
	if [ "$cmd" = help ]; then
		[ "$COMP_CWORD" -eq 2 ] &&
			COMPREPLY=($(compgen -W "$_vmsim_cmds" -- "${COMP_WORDS[2]}"))
		return
	fi
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


def md_cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def usage_table(c, sub):
    p = c["parts"].get(sub or "-")
    if p is None:
        return None
    rows = ["| option | meaning | bounds |", "|---|---|---|"]
    for o in listed(p["opts"]):
        rows.append(f"| `{md_cell(term(o))}` | {md_cell(o['help'])} | "
                    f"{md_cell(o['bounds'])} |")
    return rows


BLOCK = re.compile(r"^<!-- options: ([a-z-]+)(?: ([a-z-]+))? -->$")


def usage(vmsim, path, check):
    order, cmds = load_tables(vmsim)
    lines = Path(path).read_text().split("\n")
    out, i, stale, seen = [], 0, [], set()
    while i < len(lines):
        m = BLOCK.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        name = m.group(1) + (" " + m.group(2) if m.group(2) else "")
        c = cmds.get(m.group(1))
        table = usage_table(c, m.group(2)) if c else None
        if table is None:
            sys.exit(f"gen-cli-docs: {path}: no command '{name}' for its table")
        j = i
        while j < len(lines) and lines[j] != "<!-- /options -->":
            j += 1
        if j == len(lines):
            sys.exit(f"gen-cli-docs: {path}: the table of '{name}' has no end")
        if lines[i:j] != table:
            stale.append(name)
        out += table
        seen.add(name)
        i = j
    # run's options (and bench scale's, which are run's) are usage.md's
    # own table, each with its measured detail: docs.sh checks that it
    # names every one.
    want = [c if k == "-" else f"{c} {k}" for c in order
            for k, p in cmds[c]["parts"].items() if listed(p["opts"])]
    missing = [n for n in want if n not in seen and n not in ("run", "bench scale")]
    if check:
        if stale or missing:
            sys.exit(f"gen-cli-docs: {path}: " +
                     "; ".join(([f"stale table(s): {', '.join(stale)}"] if stale else []) +
                               ([f"no table for: {', '.join(missing)}"] if missing else [])) +
                     f" (scripts/gen-cli-docs.py --usage VMSIM {path})")
        return
    Path(path).write_text("\n".join(out))
    if missing:
        print(f"gen-cli-docs: {path}: no table yet for: {', '.join(missing)}", file=sys.stderr)


def main():
    if len(sys.argv) == 4 and sys.argv[1] in ("--usage", "--check"):
        usage(sys.argv[2], sys.argv[3], sys.argv[1] == "--check")
        return
    if len(sys.argv) != 3:
        sys.exit("usage: gen-cli-docs.py VMSIM OUTDIR | --usage|--check VMSIM USAGE.md")
    vmsim, outdir = sys.argv[1], Path(sys.argv[2])
    version = run(vmsim, "--version").split("\n")[0].split()[1]
    order, cmds = load_tables(vmsim)
    man = outdir / "man1"
    man.mkdir(parents=True, exist_ok=True)
    see = ", ".join([r"\fBvmsim\fR(1)"] + [rf"\fBvmsim\-{c}\fR(1)" for c in order])
    for c in order:
        (man / f"vmsim-{c}.1").write_text(page(f"vmsim-{c}", see, version, cmds[c]))
    (man / "vmsim.1").write_text(main_page(see, version, order, cmds))
    (outdir / "vmsim.bash").write_text(completion(order, cmds))


if __name__ == "__main__":
    main()
