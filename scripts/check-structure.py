#!/usr/bin/env python3
"""The structure rules of vmsim, checked (docs/architecture.md, "Architecture"):

  - folders are layers, bottom up: locks/sync, locks, uffd, sim,
    workloads, cli; a file includes only headers of its own layer and of
    the layers below it (a subfolder belongs to its folder's layer:
    sim/mem is sim);
  - analysis reads result files and links no simulator code: it
    includes only analysis, base/parse.h, cli/cmd.h, run's option
    table resfile/run_opts.h (result keys and what their absence meant) and
    the schemes' list locks/schemes.def (names only: a scheme keeps its
    colour);
  - no include loop between files;
  - no function over 80 lines (a file is as long as its concern needs);
  - with a build directory: every external symbol of every object
    carries its module's prefix (the table below), no object of
    vmsim-compare's libraries comes from a simulator folder, and each
    Check program of tests/<layer>/ links only the libraries of its
    layer and those below (no json-c or GSL under resfile/).

  usage: check-structure.py SOURCE_DIR [BUILD_DIR]
Prints one line per breach; exits 1 if there is any."""
import fnmatch
import os
import re
import subprocess
import sys

LAYERS = ["base", "trace", "locks/sync", "locks", "uffd", "sim", "workloads",
          "resfile", "analysis", "bench", "cli"]
# analysis/ reads result files and links no simulator code.
ANALYSIS_MAY_INCLUDE = ("analysis/", "base/", "resfile/schema.h",
                        "resfile/busy.h",
                        "resfile/run_opts.h", "resfile/run_opts.def",
                        "locks/schemes.def")
# What cli/ may include of the layers under workloads/: their interfaces.
CLI_INTERFACES = ("locks/lock_ops.h", "uffd/uffd.h", "sim/result.h",
                  "sim/faults/sources.h", "sim/vma_tree.h", "sim/host.h")
BELOW_WORKLOADS = ("locks/", "uffd/", "sim/")
MAX_FUNC = 80

# Module prefixes: a source file (glob, from the source root) and the
# prefixes its external symbols may carry. The first matching row counts.
PREFIXES = [
    # The simulated kernel APIs keep the kernel's names, sim_-prefixed.
    ("locks/sync/rcu.c", ["sim_rcu_", "sim_call_rcu"]),
    ("locks/sync/rcu_lazy.c", ["sim_rcu_lazy_", "sim_call_rcu_lazy",
                               "sim_rcu_barrier"]),
    ("locks/sync/rw_semaphore*.c", ["sim_rwsem_", "sim_down_", "sim_up_",
                                    "sim_downgrade_", "rwsem_"]),
    ("locks/sync/lockstat.c", ["lockstat_"]),
    ("locks/sync/mutex.c", ["sim_mutex_"]),
    ("locks/sync/range_list.c", ["sim_range_list_"]),
    ("base/slots.c", ["slots_", "slot_"]),
    ("base/clock.c", ["clock_"]),
    ("base/debug.c", ["sim_warn"]),
    ("locks/schemes.c", ["lock_"]),
    ("locks/*.c", ["lock_", "*_lock_ops"]),
    ("uffd/*.c", ["uffd_"]),
    ("sim/host.c", ["host_"]),
    ("sim/hist.c", ["hist_"]),
    ("sim/result.c", ["res_"]),
    # The kernel's maple tree, compiled from the kernel source: the
    # kernel's names (lib/maple_tree.c's and the allocator calls it makes).
    ("sim/kmaple/kmaple_lib.c", ["kmaple_", "mas_", "mt_", "__mt_", "mtree_",
                                 "maple_", "kmem_cache_", "lockdep_is_held",
                                 "preempt_count", "kmalloc_verbose",
                                 "test_verbose"]),
    ("sim/kmaple/*.c", ["kmaple_"]),
    ("sim/vma_tree_maple.c", ["vma_tree_", "vt_", "kmaple_node_"]),
    ("sim/vma_tree*.c", ["vma_tree_", "vt_"]),
    ("sim/vma_txn.c", ["txn_", "sim_"]),
    ("sim/*.c", ["sim_"]),
    ("sim/mem/frames*.c", ["frames_"]),
    ("sim/mem/slab*.c", ["slab_"]),
    ("sim/mem/objpool.c", ["objpool_"]),
    ("sim/mem/pagecache.c", ["pagecache_"]),
    ("sim/faults/present.c", ["present_"]),
    ("sim/faults/uffd_*.c", ["uffd_source_", "uffd_touch_", "*_fault_source"]),
    ("sim/faults/*.c", ["fault_", "*_fault_source"]),
    ("trace/perf_conv.c", ["perf_conv_"]),
    ("trace/perf_maps.c", ["perf_maps_"]),
    ("trace/perf_waits.c", ["perf_waits_"]),
    ("trace/*.c", ["trace_"]),
    ("workloads/replay*.c", ["rp_", "*_workload"]),
    ("workloads/runner.c", ["runner_"]),
    ("workloads/targets.c", ["runner_"]),
    ("workloads/uffds.c", ["runner_"]),
    ("workloads/group.c", ["group_"]),
    ("workloads/agent.c", ["agent_"]),
    ("workloads/watchdog.c", ["watchdog_"]),
    ("workloads/registry.c", ["wl_"]),
    ("workloads/common.c", ["wl_"]),
    ("workloads/*.c", ["*_workload"]),
    ("base/stats.c", ["stats_"]),
    ("analysis/*.c", ["cmp_"]),
    ("base/parse.c", ["parse_"]),
    ("base/safefile.c", ["sf_"]),
    ("base/tracefs.c", ["tracefs_"]),
    ("resfile/resfile.c", ["resfile_"]),
    ("resfile/results_json.c", ["res_json_"]),
    ("cli/common.c", ["cli_"]),
    ("base/outstream.c", ["cli_"]),
    ("base/complain.c", ["msg_"]),
    ("cli/complain.c", ["cli_"]),
    ("resfile/run_opt*.c", ["run_"]),
    ("cli/cli.c", ["cli_"]),
    ("cli/opt.c", ["cli_"]),
    ("cli/cmd_*.c", ["cmd_"]),
    ("cli/record*.c", ["record_"]),
    ("bench/bench*.c", ["bench_"]),
    ("bench/host_probe.c", ["probe_"]),
    ("bench/cost_probe.c", ["cost_probe_"]),
    ("resfile/cost_profile.c", ["cost_"]),
    ("resfile/busy.c", ["res_busy_"]),
    ("cli/gate_run.c", ["gate_"]),
    ("cli/gate_junit.c", ["gate_junit_"]),
    ("cli/run_*.c", ["run_"]),
    ("cli/main.c", ["main"]),
    ("cli/compare_main.c", ["main"]),
]
SIM_FOLDERS = ("locks/", "uffd/", "sim/", "workloads/", "bench/")
# The libraries vmsim-compare links (cli/CMakeLists.txt).
COMPARE_LIBS = ("vmsim_cli_core", "vmsim_analysis", "vmsim_schema",
                "vmsim_base", "vmsim_stats")
# Files that include the kernel's own sources and headers (from the
# kernel tree the build was given, never from this repository).
KERNEL_INCLUDERS = ("sim/kmaple/kmaple_lib.c",)


def layer_of(path):
    for lay in sorted(LAYERS, key=len, reverse=True):
        if path.startswith(lay + "/"):
            return lay
    return None


def check_sources(root, bad):
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    graph = {}
    for top in ("base", "trace", "locks", "uffd", "sim", "workloads",
                "resfile", "analysis", "bench", "cli", "tests"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".def")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), root)
                lines = open(os.path.join(dirpath, f),
                             encoding="utf-8").read().split("\n")
                graph[path] = []
                lay = layer_of(path)
                for ln in lines:
                    # Test hooks live in the test binary, not in vmsim.
                    if top != "tests" and 'getenv("VMSIM_TEST_' in ln:
                        bad.append(f"{path}: reads a VMSIM_TEST_ hook: "
                                   "test hooks belong to tests/cli/vmsim_test.c")
                    m = inc_re.match(ln)
                    if not m:
                        continue
                    tgt = m.group(1)
                    graph[path].append(tgt)
                    if top == "tests":
                        continue
                    tl = layer_of(tgt)
                    if path.startswith("analysis/") and \
                       not tgt.startswith(ANALYSIS_MAY_INCLUDE):
                        bad.append(f"{path}: includes {tgt}: analysis links "
                                   "no simulator code")
                    if path.startswith("cli/") and \
                       tgt.startswith(BELOW_WORKLOADS) and \
                       tgt not in CLI_INTERFACES:
                        bad.append(f"{path}: includes {tgt}: cli/ reaches "
                                   "below workloads/ only through "
                                   + ", ".join(CLI_INTERFACES))
                    if tl is None and path in KERNEL_INCLUDERS and \
                       not os.path.exists(os.path.join(root, tgt)):
                        continue
                    if tl is None:
                        bad.append(f"{path}: includes {tgt}, which is in no "
                                   "layer")
                    elif LAYERS.index(tl) > LAYERS.index(lay):
                        bad.append(f"{path}: includes {tgt}, a layer above "
                                   f"{lay}/")
                check_functions(path, lines, bad)
    check_loops(graph, bad)


def check_functions(path, lines, bad):
    """A line opening with "{" at column 0 after a declarator, closed by
    "}" at column 0 (kernel style)."""
    start = None
    fname = "?"
    for i, ln in enumerate(lines):
        if ln == "{" and i and lines[i - 1].rstrip().endswith(")"):
            start = i
            j = i - 1
            while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
                j -= 1
            name = re.findall(r"(\w+)\s*\(", lines[j])
            fname = name[0] if name else "?"
        elif ln == "}" and start is not None:
            n = i - start - 1
            if n > MAX_FUNC:
                bad.append(f"{path}: function {fname}() is {n} lines "
                           f"(limit {MAX_FUNC})")
            start = None


def check_loops(graph, bad):
    state = {}

    def visit(n, stack):
        state[n] = 1
        for t in graph.get(n, []):
            if t not in graph:
                continue
            if state.get(t) == 1:
                loop = stack[stack.index(t):] + [t]
                bad.append("include loop: " + " -> ".join(loop))
            elif not state.get(t):
                visit(t, stack + [t])
        state[n] = 2
    for n in graph:
        if not state.get(n):
            visit(n, [n])


def glob_match(path, pat):
    """fnmatch, but * does not cross a /."""
    rx = "".join("[^/]*" if c == "*" else re.escape(c) for c in pat)
    return re.fullmatch(rx, path) is not None


def prefixes_for(src):
    for pat, pre in PREFIXES:
        if glob_match(src, pat):
            return pre
    return None


def allowed(sym, pre):
    for p in pre:
        if "*" in p:
            if fnmatch.fnmatch(sym, p):
                return True
        elif sym.startswith(p) or sym == p.rstrip("_"):
            return True
    return False


def check_symbols(root, build, bad):
    objs = []
    for top in ("base", "locks", "uffd", "sim", "workloads", "resfile",
                "analysis", "bench", "cli"):
        for dirpath, _, files in os.walk(os.path.join(build, top)):
            objs += [os.path.join(dirpath, f) for f in files if f.endswith(".c.o")]
    for o in sorted(objs):
        # build/<top>/CMakeFiles/<target>.dir/<path under top>.c.o
        rel = os.path.relpath(o, build).split(os.sep)
        if "CMakeFiles" not in rel:
            continue
        i = rel.index("CMakeFiles")
        target = rel[i + 1][:-len(".dir")]
        src = "/".join(rel[:i] + rel[i + 2:])[:-len(".o")]
        full = os.path.join(root, src)
        if not os.path.exists(full) or \
           os.path.getmtime(o) < os.path.getmtime(full):
            continue  # a stale object: its file moved, or changed since
        if target in COMPARE_LIBS and src.startswith(SIM_FOLDERS):
            bad.append(f"{src}: in vmsim-compare's libraries, a simulator "
                       "file")
        pre = prefixes_for(src)
        if pre is None:
            bad.append(f"{src}: no module prefix defined for it "
                       "(scripts/check-structure.py)")
            continue
        out = subprocess.run(["nm", "-g", "--defined-only", o],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 3:
                continue
            sym = parts[2]
            if sym.startswith(("__odr_asan", "__asan", "__tsan", "__sancov")):
                continue
            if not allowed(sym, pre):
                bad.append(f"{src}: external symbol {sym} lacks the module "
                           f"prefix ({', '.join(pre)})")


# The libraries each layer's tests may link (tests/<layer>/: the layer's
# and those below it), and whether json-c and GSL may be among them.
TEST_LIBS = {
    "base": {"vmsim_base"},
    "locks": {"vmsim_base", "vmsim_sync", "vmsim_locks"},
    "uffd": {"vmsim_base", "vmsim_uffd"},
}
TEST_LIBS["sim"] = TEST_LIBS["locks"] | TEST_LIBS["uffd"] | {"vmsim_sim"}
TEST_LIBS["workloads"] = TEST_LIBS["sim"] | {"vmsim_trace", "vmsim_workloads"}
TEST_LIBS["analysis"] = {"vmsim_base", "vmsim_stats", "vmsim_schema",
                         "vmsim_analysis"}
NO_REPORTING = ("base", "locks", "uffd", "sim", "workloads")


def test_link_lines(build):
    """(program, the words of its link line) for each program of tests/,
    from Make's link.txt files or from Ninja's build.ninja; object paths
    relative to tests/ in both."""
    d = os.path.join(build, "tests", "CMakeFiles")
    for t in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        link = os.path.join(d, t, "link.txt")
        if t.endswith(".dir") and os.path.exists(link):
            yield t[:-4], open(link, encoding="utf-8").read().split()
    ninja = os.path.join(build, "build.ninja")
    if not os.path.exists(ninja):
        return
    prog = objs = None
    for line in open(ninja, encoding="utf-8"):
        m = re.match(r"build tests/(\w+): C_EXECUTABLE_LINKER\S* ([^|]*)", line)
        if m:
            prog = m.group(1)
            objs = [re.sub(r"^tests/", "", w) for w in m.group(2).split()]
        elif prog and line.startswith("  LINK_LIBRARIES = "):
            yield prog, objs + line.split("=", 1)[1].split()
            prog = None
        elif not line.startswith("  "):
            prog = None


def check_test_links(build, bad):
    """Each Check program of tests/<layer>/ links only its layer's
    libraries and those below (CMake's link line for it)."""
    seen = 0
    for prog, words in test_link_lines(build):
        objs = [w for w in words if w.endswith(".c.o")]
        m = re.match(r"CMakeFiles/[^/]+\.dir/([a-z]+)/", objs[0]) if objs \
            else None
        if not m or m.group(1) not in TEST_LIBS:
            continue
        seen += 1
        lay = m.group(1)
        libs = {re.sub(r"^lib|\.a$", "", os.path.basename(w))
                for w in words if re.search(r"libvmsim_\w+\.a$", w)}
        for lib in sorted(libs - TEST_LIBS[lay]):
            bad.append(f"tests/{lay}/{prog}: links {lib}, not of its "
                       "layer or below")
        if lay in NO_REPORTING:
            for w in words:
                if re.search(r"(json-c|gsl)", w):
                    bad.append(f"tests/{lay}/{prog}: links {w}: no "
                               "json-c or GSL below the result file")
                    break
    # A check that finds no link line checks nothing: say so (the Ninja
    # build had none in link.txt files, and this passed reading none).
    if os.path.isdir(os.path.join(build, "tests")) and not seen:
        bad.append(f"{build}: no Check program's link line found (neither "
                   "Make's link.txt nor Ninja's build.ninja)")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(__file__), "..")
    bad = []
    check_sources(root, bad)
    if len(sys.argv) > 2:
        check_symbols(root, sys.argv[2], bad)
        check_test_links(sys.argv[2], bad)
    for b in dict.fromkeys(bad):     # once each, in order
        print(b)
    sys.exit(1 if bad else 0)


main()
