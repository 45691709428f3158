#!/usr/bin/env python3
"""piglit on sgx535 and softpipe, both held to the same GL version and extensions.

Called by mesa/piglit.sh (which starts Xvfb and sources mesa/env.sh). Reads piglit's own test
lists (tests/opengl.xml.gz, tests/shader.xml.gz), so test names are piglit's (and Mesa CI's):
`spec@glsl-1.10@execution@foo`. Expectations live in mesa/ci, in Mesa's `test,Status` form:
sgx535-fails.txt (expected failures, a `# reason` line above each block) and sgx535-skips.txt
(expected skips: the extension or feature the test needs).

  --full     every selected test on both drivers; writes mesa/ci/results.md
  (default)  the short list on sgx535 only
  --update   rewrite the fails/skips files from this run (reasons kept; new ones marked)
Exit status: 1 on a crash or timeout, or a failure/skip that the lists do not expect.
"""
import argparse
import ast
import concurrent.futures
import datetime
import gzip
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

PIGLIT = os.environ.get("SGX535_PIGLIT", "/usr/lib/x86_64-linux-gnu/piglit")
HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.join(HERE, "ci")
GL_VERSION = "2.1"
GLSL_VERSION = "120"
TIMEOUT_S = 60

# What the issue (#19) asks for: GLSL 1.10/1.20 execution tests, the GL 1.0..2.1 tests,
# fbo-generatemipmap* and the format tests (the GL 1.x ones are inside `spec@!opengl 1.x`).
# And the vertex array formats (#20): the screen takes every format u_vbuf checks, some
# converted on the CPU, which turns on half-float, BGRA and fixed-point arrays.
SELECT = re.compile(
    r"^spec@(glsl-1\.[12]0@execution@|!opengl (1\.[0-5]|2\.[01])@)|@fbo-generatemipmap"
    r"|^spec@(arb_half_float_vertex|ext_vertex_array_bgra|arb_vertex_array_bgra)@"
    r"|^spec@arb_es2_compatibility@arb_es2_compatibility-fixed-type"
)
# The short list: a stable sample (by name hash, so it survives piglit updates) plus the
# groups a regression most often shows up in.
SHORT_ALWAYS = re.compile(
    r"variable-indexing@.*uniform-array-mat.*-index|@fbo-generatemipmap"
    r"|fragdepth|frag-depth"
    r"|draw-vertices|vertexattribpointer|vertex_array_bgra@|fixed-type"
)
SHORT_ONE_IN = 12


def load_tests():
    tests = {}
    for list_name in ("opengl.xml.gz", "shader.xml.gz"):
        with gzip.open(os.path.join(PIGLIT, "tests", list_name)) as f:
            for t in ET.parse(f).getroot():
                name = t.get("name")
                if not SELECT.search(name) or t.get("type") not in ("gl", "shader"):
                    continue
                opts = {o.get("name"): o.get("value") for o in t.findall("option")}
                cmd = ast.literal_eval(opts["command"])
                if t.get("type") == "shader":
                    cmd = [cmd[0], os.path.join(PIGLIT, cmd[1])]
                concurrent_ok = opts.get("run_concurrent", "True") == "True"
                # piglit's own rule (framework/test/piglit_test.py): concurrent tests draw
                # into an FBO; the others own the window, so they run one at a time.
                cmd = cmd + (["-auto", "-fbo"] if concurrent_ok else ["-auto"])
                tests[name] = (cmd, concurrent_ok)
    return tests


def short_list(names, expected):
    """The sample, less the tests expected to time out (a minute each, for nothing)."""
    return [n for n in names
            if (SHORT_ALWAYS.search(n) or zlib.crc32(n.encode()) % SHORT_ONE_IN == 0)
            and expected.get(n, ("",))[0] != "timeout"]


def glxinfo(driver, env):
    """The extension list and GL_MAX_VARYING_FLOATS (the first, compatibility-profile block)
    a driver answers."""
    out = subprocess.run(
        ["glxinfo", "-l"], env=dict(env, GALLIUM_DRIVER=driver), capture_output=True, text=True
    ).stdout
    m = re.search(r"\nOpenGL extensions:\n(.*?)\n\n", out, re.S)
    # With -l the limits follow the list without a blank line: the list ends at the first
    # line that is not names and commas.
    names = []
    for line in (m.group(1).splitlines() if m else []):
        if "=" in line or ":" in line:
            break
        names += line.replace(",", " ").split()
    exts = set(names)
    m = re.search(r"GL_MAX_VARYING_FLOATS = (\d+)", out)
    return exts, int(m.group(1)) if m else None


def base_env():
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1", MESA_GL_VERSION_OVERRIDE=GL_VERSION,
               MESA_GLSL_VERSION_OVERRIDE=GLSL_VERSION)
    env.pop("GALLIUM_DRIVER", None)
    return env


def run_one(driver, name, cmd, env):
    first = cmd[0] if os.path.isabs(cmd[0]) else os.path.join(PIGLIT, "bin", cmd[0])
    try:
        p = subprocess.run([first] + cmd[1:], env=dict(env, GALLIUM_DRIVER=driver),
                           cwd=PIGLIT, capture_output=True, text=True, errors="replace",
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return driver, name, "timeout", f"no result after {TIMEOUT_S} s"
    except FileNotFoundError:
        return driver, name, "skip", f"{cmd[0]} is not in this piglit package"
    found = re.findall(r'"result": "([a-z]+)"', p.stdout)
    result = found[-1] if found and p.returncode >= 0 else "crash"
    lines = [line for line in (p.stdout + p.stderr).splitlines() if line.strip()
             and not line.startswith("PIGLIT:")]
    note = ""
    if result == "crash":
        note = f"exit {p.returncode}: " + (lines[-1] if lines else "")
    elif result != "pass" and lines:
        note = lines[0]
    return driver, name, result, note[:200]


def run_all(tests, names, drivers, envs, jobs, log_path, resume):
    """Runs each (driver, test) not already in `log_path` (with `resume`), appending each
    result as it comes, so that an interrupted run keeps what it did."""
    results = {}
    if resume and os.path.exists(log_path):
        for line in open(log_path):
            d, n, r, note = line.rstrip("\n").split(",", 3)
            results[(d, n)] = (r, note)
    # Shader tests first (the bulk, and fast), the drivers interleaved: a partial run still
    # compares like with like.
    order = sorted(names, key=lambda n: (tests[n][0][0] != "shader_runner", n))
    todo = [(d, n) for n in order for d in drivers if (d, n) not in results]
    par = [(d, n) for d, n in todo if tests[n][1]]
    ser = [(d, n) for d, n in todo if not tests[n][1]]
    done = 0
    with open(log_path, "a" if resume else "w") as log:
        for batch, workers in ((par, jobs), (ser, 1)):
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                futs = [pool.submit(run_one, d, n, tests[n][0], envs[d]) for d, n in batch]
                for fut in concurrent.futures.as_completed(futs):
                    d, n, r, note = fut.result()
                    results[(d, n)] = (r, note)
                    log.write(f"{d},{n},{r},{note.replace(chr(10), ' ')}\n")
                    log.flush()
                    done += 1
                    if done % 200 == 0:
                        print(f"  {done}/{len(todo)}", file=sys.stderr, flush=True)
    return results


def read_expectations(path):
    """`test,Status` lines; a `# reason` line names the reason of the lines below it."""
    exp, reason = {}, ""
    if not os.path.exists(path):
        return exp
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#"):
            reason = line[1:].strip()
        elif line.strip():
            test, status = line.split("#")[0].strip().rsplit(",", 1)
            exp[test] = (status.lower(), reason)
    return exp


def write_expectations(path, header, entries):
    """entries: {test: (status, reason)}; grouped by reason, in order."""
    by_reason = {}
    for test in sorted(entries):
        status, reason = entries[test]
        by_reason.setdefault(reason, []).append(f"{test},{status.capitalize()}")
    with open(path, "w") as f:
        f.write(header)
        for reason in sorted(by_reason):
            f.write(f"\n# {reason}\n")
            f.write("\n".join(by_reason[reason]) + "\n")


def group_of(name):
    parts = name.split("@")
    if "fbo-generatemipmap" in name:
        return "fbo-generatemipmap*"
    return "@".join(parts[: min(len(parts) - 1, 4)])


def write_table(path, results, names, drivers, command, exts_off, varying_floats):
    cols = ("pass", "fail", "crash", "skip")
    groups = {}
    for n in names:
        groups.setdefault(group_of(n), []).append(n)
    count = lambda d, ns, r: sum(
        1 for n in ns if results[(d, n)][0] == r or (r == "crash" and results[(d, n)][0] == "timeout"))
    head = "| group | tests | " + " | ".join(f"{d} {c}" for d in drivers for c in cols) + " |"
    rows = [head, "|" + "---|" * (2 + len(cols) * len(drivers))]
    for g in sorted(groups) + ["**all**"]:
        ns = names if g == "**all**" else groups[g]
        rows.append(f"| {g} | {len(ns)} | " + " | ".join(
            str(count(d, ns, c)) for d in drivers for c in cols) + " |")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(path, "w") as f:
        f.write(f"# piglit on sgx535 and softpipe\n\n{now}, `{command}` (Mesa 22.3.6, Xvfb).\n"
                f"Both drivers run with MESA_GL_VERSION_OVERRIDE={GL_VERSION}, "
                f"MESA_GLSL_VERSION_OVERRIDE={GLSL_VERSION}; softpipe also with the extensions "
                f"sgx535 lacks turned off ({len(exts_off)}, by MESA_EXTENSION_OVERRIDE) and held "
                f"to sgx535's GL_MAX_VARYING_FLOATS ({varying_floats}, by SOFTPIPE_MAX_VARYINGS). "
                "Timeouts count as crashes. Expected failures and skips of sgx535, with "
                "reasons: `sgx535-fails.txt`, `sgx535-skips.txt`.\n\n")
        f.write("\n".join(rows) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--resume", action="store_true",
                    help="keep the results already in the output's results.txt")
    ap.add_argument("--filter", help="only tests whose name matches this regex")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "target", "mesa-piglit"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    tests = load_tests()
    names = sorted(tests)
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    elif not args.full:
        names = short_list(names, read_expectations(os.path.join(CI, "sgx535-fails.txt")))
    drivers = ["sgx535", "softpipe"] if args.full or args.filter else ["sgx535"]

    env = base_env()
    envs = {"sgx535": env}
    exts_off, varying_floats = [], None
    if "softpipe" in drivers:
        soft_exts, _ = glxinfo("softpipe", env)
        our_exts, our_varying_floats = glxinfo("sgx535", env)
        exts_off = sorted(soft_exts - our_exts)
        envs["softpipe"] = dict(env, MESA_EXTENSION_OVERRIDE=" ".join("-" + e for e in exts_off))
        if our_varying_floats is None:
            sys.exit("piglit: glxinfo -l gave no GL_MAX_VARYING_FLOATS for sgx535")
        # The same varying limit too: mesa/patches/0003 lets softpipe take it from the environment.
        envs["softpipe"]["SOFTPIPE_MAX_VARYINGS"] = str(our_varying_floats // 4)
        varying_floats = our_varying_floats
    print(f"piglit: {len(names)} tests on {', '.join(drivers)} (-j{args.j})", file=sys.stderr)
    log_path = os.path.join(args.out, "results.txt")
    results = run_all(tests, names, drivers, envs, args.j, log_path, args.resume)

    fails_path = os.path.join(CI, "sgx535-fails.txt")
    skips_path = os.path.join(CI, "sgx535-skips.txt")
    fails, skips = read_expectations(fails_path), read_expectations(skips_path)
    bad, fixed = [], []
    for n in names:
        r, note = results[("sgx535", n)]
        want = fails[n][0] if n in fails else "skip" if n in skips else "pass"
        if r != want and r != "pass":
            bad.append(f"{n},{r}  ({note})")
        elif r == "pass" and want != "pass":
            fixed.append(n)

    for d in drivers:
        c = {r: sum(1 for n in names if results[(d, n)][0] == r)
             for r in ("pass", "fail", "skip", "crash", "timeout", "warn")}
        print(f"{d:9} " + " ".join(f"{k} {v}" for k, v in c.items() if v or k != "warn"))
    if "softpipe" in drivers:
        regress = [n for n in names
                   if results[("softpipe", n)][0] == "pass" and results[("sgx535", n)][0] != "pass"]
        with open(os.path.join(args.out, "regressions.txt"), "w") as f:
            f.write("".join(f"{n},{results[('sgx535', n)][0]},{results[('sgx535', n)][1]}\n"
                            for n in regress))
        print(f"passing on softpipe, not on sgx535: {len(regress)} ({args.out}/regressions.txt)")
        command = "mesa/piglit.sh --full" if args.full and not args.filter else "mesa/piglit.sh " + " ".join(sys.argv[1:])
        if args.full and not args.filter:
            write_table(os.path.join(CI, "results.md"), results, names, drivers, command, exts_off,
                        varying_floats)

    if args.update:
        ran = set(names)
        new_fails = {t: v for t, v in fails.items() if t not in ran}
        new_skips = {t: v for t, v in skips.items() if t not in ran}
        for n in names:
            r, note = results[("sgx535", n)]
            if r in ("fail", "crash", "timeout"):
                new_fails[n] = (r, fails.get(n, ("", "new: " + note))[1])
            elif r == "skip":
                new_skips[n] = ("skip", skips.get(n, ("", note))[1])
        write_expectations(fails_path, FAILS_HEADER, new_fails)
        write_expectations(skips_path, SKIPS_HEADER, new_skips)

    if fixed:
        print(f"now passing, still listed as expected failures or skips: {len(fixed)}")
        for n in fixed[:20]:
            print("  " + n)
    if bad:
        print(f"UNEXPECTED ({len(bad)}): new failures, crashes or timeouts:")
        for line in bad:
            print("  " + line)
        return 1
    print("piglit: no new failure, no crash")
    return 0


FAILS_HEADER = """\
# piglit tests expected to fail on sgx535 (OpenGL 2.1 / GLSL 1.20), Mesa CI's `test,Fail` form.
# The line `# reason` above a block gives why the tests below it fail. A crash is never
# expected of this driver: the `Crash` lines are Mesa's own front end, crashing the same way
# on softpipe before any driver callback. Rewritten by `mesa/piglit.sh --full --update`.
"""
SKIPS_HEADER = """\
# piglit tests expected to skip on sgx535 (OpenGL 2.1 / GLSL 1.20): the line `# reason` above a
# block is what the tests below it need. Rewritten by `mesa/piglit.sh --full --update`.
"""

if __name__ == "__main__":
    sys.exit(main())
