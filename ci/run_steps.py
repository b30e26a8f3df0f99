#!/usr/bin/env python3
"""Runs the steps of pkadvisor's GitHub composite action (action.yml) or of its Azure Pipelines
template (ci/azure-pipelines/pkadvisor.yml) on this machine, the way the runner would, so that
ci/action-test.sh can check what they do without a GitHub or Azure agent.

    run_steps.py [--temp DIR] github action.yml [--input NAME=VALUE]...
    run_steps.py [--temp DIR] azure  ci/azure-pipelines/pkadvisor.yml [--param NAME=VALUE]...

The runner's temporary folder (RUNNER_TEMP, AGENT_TEMPDIRECTORY) is a fresh folder removed on
exit, or DIR, kept, so that a test can read what the steps wrote there (the SARIF). The steps'
outputs (GitHub) and variables (Azure) are printed at the end, `::: output ID.NAME=VALUE` and
`::: variable NAME=VALUE`.

What the runner does and this reproduces:

GitHub (composite action)
  * inputs: the given value, else the input's `default`; a `required` input without either is
    an error. `${{ inputs.NAME }}`, `${{ steps.ID.outputs.NAME }}` and `${{ github.action_path }}`
    are substituted in `run`, `env`, `with` and `if`; any other expression is refused (this
    script would not know its value, so the test must not pass by accident).
  * `shell: bash` runs `bash --noprofile --norc -eo pipefail FILE` (GitHub's documented
    command line), with RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV, GITHUB_STEP_SUMMARY,
    GITHUB_ACTION_PATH, GITHUB_ACTIONS=true and CI=true set; GITHUB_OUTPUT lines become
    `steps.ID.outputs`, GITHUB_PATH lines are put in front of PATH for the later steps,
    GITHUB_ENV lines are added to their env.
  * `if:` (without or with `${{ }}`) is a conjunction of `A == 'x'` / `A != 'x'` terms,
    `always()`, `success()`, `failure()`; a step without `if:` runs only while no step failed.
  * a `uses:` step is not run: it is printed as `would run USES with K=V…` on stderr (the test
    checks the SARIF it would upload).
  * the exit code is the first failing step's (0 when none failed).

Azure Pipelines (steps template)
  * parameters: the given value (booleans `true`/`false`), else the `default`.
    `${{ parameters.NAME }}` is substituted; `- ${{ if eq(parameters.NAME, VALUE) }}:` keys
    insert their steps when true. `$(NAME)` macros are replaced by variables set with
    `##vso[task.setvariable variable=NAME]VALUE` in an earlier step (left as is when unset, as
    Azure does).
  * `bash:` runs `bash --noprofile --norc FILE` (Bash@3; no `-e`), with AGENT_TEMPDIRECTORY
    and TF_BUILD=True; `##vso[task.prependpath]DIR` puts DIR in front of PATH for the later steps.
  * `condition:` is `succeeded()` (the default), `succeededOrFailed()` or `always()`, alone or
    in `and(STATUS, ne(variables.NAME, 'VALUE'))` / `eq(…)`.
  * a `publish:` step is not run: it is printed as `would publish PATH as ARTIFACT` and the
    path must exist.
  * the exit code is the first failing step's (0 when none failed).
"""

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml


KEEP = None


def scratch_dir():
    """A temporary folder for one run (the runner's temp and its command files), removed when
    the script exits, whatever the steps did: the action installs pkadvisor into it (~70 MB).
    With --temp DIR, DIR, kept."""
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        return KEEP
    tmp = tempfile.mkdtemp(prefix="run-steps-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return tmp


def die(msg):
    print(f"run_steps.py: {msg}", file=sys.stderr)
    sys.exit(3)


def parse_pairs(args, flag):
    out = {}
    i = 0
    while i < len(args):
        if args[i] != flag or i + 1 >= len(args) or "=" not in args[i + 1]:
            die(f"expected {flag} NAME=VALUE, got {args[i:]}")
        name, value = args[i + 1].split("=", 1)
        out[name] = value
        i += 2
    return out


def run_bash(script, argv, env, cwd):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        sys.stdout.flush()
        p = subprocess.run(argv + [path], env=env, cwd=cwd, stdout=subprocess.PIPE)
        text = p.stdout.decode("utf-8", "replace")
        sys.stdout.write(text)
        sys.stdout.flush()
        return p.returncode, text
    finally:
        os.unlink(path)


# ------------------------------------------------------------------------------------- GitHub

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def gh_value(expr, ctx):
    """The value of one reference (inputs.x, steps.id.outputs.y, github.action_path)."""
    m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", expr)
    if m:
        if m.group(1) not in ctx["inputs"]:
            die(f"`{expr}`: no such input")
        return ctx["inputs"][m.group(1)]
    m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
    if m:
        return ctx["outputs"].get(m.group(1), {}).get(m.group(2), "")
    if expr == "github.action_path":
        return ctx["action_path"]
    m = re.fullmatch(r"'((?:[^']|'')*)'", expr)
    if m:
        return m.group(1).replace("''", "'")
    die(f"`{expr}`: an expression this script does not evaluate")


def gh_subst(text, ctx):
    return EXPR.sub(lambda m: gh_value(m.group(1), ctx), str(text))


def gh_condition(cond, ctx, failed):
    if cond is None:
        return not failed
    cond = str(cond).strip()
    m = EXPR.fullmatch(cond)
    if m:
        cond = m.group(1)
    status = None
    result = True
    for term in [t.strip() for t in cond.split("&&")]:
        if term == "always()":
            status = True
        elif term == "success()":
            status = not failed
        elif term == "failure()":
            status = failed
        else:
            m = re.fullmatch(r"(\S+)\s*(==|!=)\s*(\S+)", term)
            if not m:
                die(f"if: `{term}`: a condition this script does not evaluate")
            a, b = gh_value(m.group(1), ctx), gh_value(m.group(3), ctx)
            result = result and ((a == b) if m.group(2) == "==" else (a != b))
    if status is None:
        status = not failed
    return status and result


def github(path, given):
    with open(path) as f:
        action = yaml.safe_load(f)
    if action.get("runs", {}).get("using") != "composite":
        die(f"{path}: not a composite action")
    inputs = {}
    declared = action.get("inputs") or {}
    for name in given:
        if name not in declared:
            die(f"--input {name}: {path} declares no such input")
    for name, spec in declared.items():
        if name in given:
            inputs[name] = given[name]
        elif "default" in spec:
            inputs[name] = str(spec["default"])
        elif spec.get("required"):
            die(f"input `{name}` is required")
        else:
            inputs[name] = ""
    tmp = scratch_dir()
    files = {k: os.path.join(tmp, k.lower()) for k in
             ["GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"]}
    ctx = {"inputs": inputs, "outputs": {},
           "action_path": os.path.dirname(os.path.abspath(path))}
    base_env = dict(os.environ)
    base_env["RUNNER_TEMP"] = os.path.join(tmp, "runner-temp")
    os.makedirs(base_env["RUNNER_TEMP"], exist_ok=True)
    base_env["GITHUB_ACTION_PATH"] = ctx["action_path"]
    # As on GitHub's runners: pkadvisor then knows it runs in CI (docs/hardening.md).
    base_env["GITHUB_ACTIONS"] = "true"
    base_env["CI"] = "true"
    for v in files.values():
        open(v, "w").close()
    base_env.update(files)
    extra_path, extra_env = [], {}
    code = 0
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {i + 1}")
        if not gh_condition(step.get("if"), ctx, code != 0):
            print(f"::: skipped: {name}", file=sys.stderr)
            continue
        print(f"::: {name}", file=sys.stderr)
        if "uses" in step:
            with_ = {k: gh_subst(v, ctx) for k, v in (step.get("with") or {}).items()}
            shown = " ".join(f"{k}={v}" for k, v in with_.items())
            print(f"would run {step['uses']} with {shown}", file=sys.stderr)
            continue
        if step.get("shell") != "bash":
            die(f"{name}: shell `{step.get('shell')}`: only bash is run here")
        env = dict(base_env)
        env.update(extra_env)
        env["PATH"] = os.pathsep.join(extra_path + [base_env["PATH"]])
        for k, v in (step.get("env") or {}).items():
            env[k] = gh_subst(v, ctx)
        open(files["GITHUB_OUTPUT"], "w").close()
        rc, _ = run_bash(gh_subst(step["run"], ctx),
                         ["bash", "--noprofile", "--norc", "-eo", "pipefail"], env, os.getcwd())
        if "id" in step:
            outs = ctx["outputs"].setdefault(step["id"], {})
            for line in open(files["GITHUB_OUTPUT"]).read().splitlines():
                if "=" in line:
                    k, v = line.split("=", 1)
                    outs[k] = v
        extra_path = [l for l in open(files["GITHUB_PATH"]).read().splitlines() if l][::-1]
        for line in open(files["GITHUB_ENV"]).read().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                extra_env[k] = v
        if rc != 0:
            print(f"::: {name} failed with exit code {rc}", file=sys.stderr)
            if code == 0:
                code = rc
    for step_id, outs in ctx["outputs"].items():
        for k, v in outs.items():
            print(f"::: output {step_id}.{k}={v}", file=sys.stderr)
    return code


# -------------------------------------------------------------------------------------- Azure

PARAM = re.compile(r"\$\{\{\s*parameters\.([A-Za-z0-9_]+)\s*\}\}")
IF = re.compile(r"\$\{\{\s*if\s+eq\(\s*parameters\.([A-Za-z0-9_]+)\s*,\s*([^)]*?)\s*\)\s*\}\}")
MACRO = re.compile(r"\$\(([A-Za-z0-9_.]+)\)")


def az_subst(text, params):
    def one(m):
        if m.group(1) not in params:
            die(f"`{m.group(0)}`: no such parameter")
        v = params[m.group(1)]
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return PARAM.sub(one, str(text))


def az_steps(items, params):
    """The template's steps with `${{ if }}` blocks expanded."""
    out = []
    for item in items:
        if isinstance(item, dict) and len(item) == 1 and str(next(iter(item))).startswith("${{"):
            key = next(iter(item))
            m = IF.fullmatch(key)
            if not m:
                die(f"`{key}`: a template expression this script does not evaluate")
            want = m.group(2).strip("'\"")
            have = params[m.group(1)]
            have = ("true" if have else "false") if isinstance(have, bool) else str(have)
            if have.lower() == want.lower():
                out.extend(az_steps(item[key], params))
        else:
            out.append(item)
    return out


def azure(path, given):
    with open(path) as f:
        tpl = yaml.safe_load(f)
    params = {}
    declared = {p["name"]: p for p in tpl.get("parameters", [])}
    for name in given:
        if name not in declared:
            die(f"--param {name}: {path} declares no such parameter")
    for name, spec in declared.items():
        v = given.get(name, spec.get("default"))
        if spec.get("type") == "boolean" and isinstance(v, str):
            if v not in ("true", "false"):
                die(f"parameter `{name}` is a boolean, not `{v}`")
            v = v == "true"
        params[name] = v
    tmp = scratch_dir()
    base_env = dict(os.environ)
    base_env["AGENT_TEMPDIRECTORY"] = tmp
    base_env["TF_BUILD"] = "True"
    variables, extra_path = {}, []
    macro = lambda text: MACRO.sub(lambda m: variables.get(m.group(1), m.group(0)), text)
    code = 0
    for i, step in enumerate(az_steps(tpl["steps"], params)):
        name = step.get("displayName", f"step {i + 1}")
        run = az_condition(step.get("condition", "succeeded()"), code, variables, name)
        if not run:
            print(f"::: skipped: {name}", file=sys.stderr)
            continue
        print(f"::: {name}", file=sys.stderr)
        if "publish" in step:
            target = macro(az_subst(step["publish"], params))
            if not os.path.exists(target):
                print(f"::: {name}: {target} does not exist", file=sys.stderr)
                code = code or 1
                continue
            print(f"would publish {target} as {step.get('artifact')}", file=sys.stderr)
            continue
        if "bash" not in step:
            die(f"{name}: only bash and publish steps are run here")
        env = dict(base_env)
        env["PATH"] = os.pathsep.join(extra_path[::-1] + [base_env["PATH"]])
        for k, v in (step.get("env") or {}).items():
            env[k] = macro(az_subst(v, params))
        rc, text = run_bash(macro(az_subst(step["bash"], params)),
                            ["bash", "--noprofile", "--norc"], env, os.getcwd())
        for line in text.splitlines():
            m = re.match(r"##vso\[task\.setvariable variable=([A-Za-z0-9_.]+)\](.*)", line)
            if m:
                variables[m.group(1)] = m.group(2)
            m = re.match(r"##vso\[task\.prependpath\](.*)", line)
            if m:
                extra_path.append(m.group(1))
        if rc != 0:
            print(f"::: {name} failed with exit code {rc}", file=sys.stderr)
            if code == 0:
                code = rc
    for k, v in variables.items():
        print(f"::: variable {k}={v}", file=sys.stderr)
    return code


def az_condition(cond, code, variables, name):
    """Whether a step runs: a status function, or `and(STATUS, ne|eq(variables.NAME, 'V'))`."""
    status = {"succeeded()": code == 0, "succeededOrFailed()": True, "always()": True}
    if cond in status:
        return status[cond]
    m = re.fullmatch(r"and\(\s*(\w+\(\))\s*,\s*(ne|eq)\(\s*variables\.([A-Za-z0-9_.]+)\s*,"
                     r"\s*'([^']*)'\s*\)\s*\)", cond)
    if not m or m.group(1) not in status:
        die(f"{name}: condition `{cond}` this script does not evaluate")
    have = variables.get(m.group(3), "")
    same = have == m.group(4)
    return status[m.group(1)] and (same if m.group(2) == "eq" else not same)


def main():
    global KEEP
    if len(sys.argv) > 2 and sys.argv[1] == "--temp":
        KEEP = os.path.abspath(sys.argv[2])
        del sys.argv[1:3]
    if len(sys.argv) < 3 or sys.argv[1] not in ("github", "azure"):
        die("usage: run_steps.py github|azure FILE [--input|--param NAME=VALUE]...")
    if sys.argv[1] == "github":
        sys.exit(github(sys.argv[2], parse_pairs(sys.argv[3:], "--input")))
    sys.exit(azure(sys.argv[2], parse_pairs(sys.argv[3:], "--param")))


if __name__ == "__main__":
    main()
