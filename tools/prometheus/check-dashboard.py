#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check skbprof's Grafana dashboard, and list its queries.

  check-dashboard.py DASHBOARD
      Check the dashboard's structure: what Grafana needs to import it
      and what skbprof's dashboard promises (the data source is the
      DS_PROMETHEUS variable everywhere, every panel has an id unique in
      the dashboard, a gridPos inside the 24 columns that overlaps no
      other, queries with unique refIds and a PromQL expression, every
      $variable used is defined, repeats name a multi-value variable).
      Prints one line per problem; exits 1 if there is any.

  check-dashboard.py --schema DIR DASHBOARD
      Also type-check the dashboard against Grafana's own schema: the
      Dashboard type of the npm package @grafana/schema, with the
      TypeScript compiler, both installed in DIR/node_modules
      (tools/prometheus/schema: scripts/deps.sh check runs npm ci there).
      The JSON becomes a typed object literal, so tsc reports every
      missing required field, wrong type and unknown property.

  check-dashboard.py --exprs [--var NAME=VALUE]... DASHBOARD
      Print every query as one JSON object a line: each panel target's
      ({"kind": "panel", "panel": ID, "title": ..., "refId": ...,
      "instant": BOOL, "expr": ...}) and each query variable's series
      selector ({"kind": "variable", "name": ..., "label": ..., "expr":
      ...}), with $variables replaced: NAME=VALUE from --var, else a
      variable's allValue, else ".*".  tests/host/prometheus.sh runs each
      against a real Prometheus.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DS = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
PANEL_TYPES = {"row", "timeseries", "stat", "heatmap", "table", "bargauge",
               "gauge", "text", "piechart", "state-timeline"}
BUILTINS = {"__rate_interval", "__interval", "__interval_ms", "__range",
            "__range_s", "__range_ms", "__name", "__org", "__user",
            "__dashboard", "__from", "__to", "timeFilter"}
VAR_RE = re.compile(r"\$(\w+)|\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]")
LABEL_VALUES_RE = re.compile(r"^label_values\((.*),\s*(\w+)\)$", re.S)


def variables(dash):
    return dash.get("templating", {}).get("list", [])


def all_panels(dash):
    """Every panel, with the children of collapsed rows."""
    for p in dash.get("panels", []):
        yield p
        for c in p.get("panels", []) if p.get("type") == "row" else []:
            yield c


def used_vars(text):
    for m in VAR_RE.finditer(text):
        yield m.group(1) or m.group(2) or m.group(3)


def check(dash):
    errs = []

    def err(msg):
        errs.append(msg)

    for key, typ in (("title", str), ("uid", str), ("schemaVersion", int),
                     ("panels", list), ("templating", dict), ("time", dict)):
        if not isinstance(dash.get(key), typ):
            err(f"dashboard: {key} missing or not a {typ.__name__}")
    if errs:
        return errs
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", dash["uid"]):
        err(f"dashboard: uid {dash['uid']!r} is not 1-40 letters, digits, - or _")
    if dash.get("id") is not None:
        err("dashboard: id must be null (Grafana assigns it on import)")
    if "__inputs" in dash:
        err("dashboard: __inputs: the data source is a template variable instead")

    vs = variables(dash)
    names = [v.get("name") for v in vs]
    for n in set(names):
        if names.count(n) > 1:
            err(f"variable {n}: defined {names.count(n)} times")
    byname = {v.get("name"): v for v in vs}
    ds = byname.get("DS_PROMETHEUS")
    if not ds or ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        err("variable DS_PROMETHEUS: missing, or not a datasource variable of type prometheus")
    for v in vs:
        if v.get("type") == "query":
            if v.get("datasource") != DS:
                err(f"variable {v.get('name')}: datasource is not {DS}")
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            if not isinstance(q, str) or not LABEL_VALUES_RE.match(q.strip()):
                err(f"variable {v.get('name')}: query is not label_values(SELECTOR, LABEL): {q!r}")
            else:
                for u in used_vars(q):
                    if u not in byname or names.index(u) >= names.index(v["name"]):
                        err(f"variable {v['name']}: uses ${u}, not a variable defined before it")

    ids = {}
    boxes = []
    for p in all_panels(dash):
        pid = p.get("id")
        where = f"panel {pid} ({p.get('title')!r})"
        if not isinstance(pid, int) or isinstance(pid, bool):
            err(f"{where}: id is not an integer")
        elif pid in ids:
            err(f"{where}: id also used by panel {ids[pid]!r}")
        else:
            ids[pid] = p.get("title")
        if p.get("type") not in PANEL_TYPES:
            err(f"{where}: unknown type {p.get('type')!r}")
        if not p.get("title"):
            err(f"{where}: no title")
        g = p.get("gridPos")
        if not isinstance(g, dict) or not all(isinstance(g.get(k), int) for k in "hwxy"):
            err(f"{where}: gridPos needs integers h, w, x, y")
        elif g["w"] < 1 or g["h"] < 1 or g["x"] < 0 or g["y"] < 0 or g["x"] + g["w"] > 24:
            err(f"{where}: gridPos {g} is outside the 24 columns")
        else:
            for other, og in boxes:
                if (g["x"] < og["x"] + og["w"] and og["x"] < g["x"] + g["w"] and
                        g["y"] < og["y"] + og["h"] and og["y"] < g["y"] + g["h"]):
                    err(f"{where}: gridPos overlaps panel {other}")
            boxes.append((pid, g))
        for u in used_vars(p.get("title", "")):
            if u not in byname:
                err(f"{where}: title uses undefined ${u}")
        if p.get("repeat"):
            r = byname.get(p["repeat"])
            if not r or not r.get("multi"):
                err(f"{where}: repeats over {p['repeat']!r}, not a multi-value variable")
        if p.get("type") == "row":
            if p.get("collapsed") is False and p.get("panels"):
                err(f"{where}: an open row holds no panels (they follow it)")
            continue
        if p.get("type") == "text":
            continue
        if p.get("datasource") != DS:
            err(f"{where}: datasource is not {DS}")
        targets = p.get("targets")
        if not isinstance(targets, list) or not targets:
            err(f"{where}: no targets")
            continue
        refs = set()
        for t in targets:
            ref = t.get("refId")
            if not isinstance(ref, str) or not ref or ref in refs:
                err(f"{where}: target refId {ref!r} missing or repeated")
            refs.add(ref)
            if t.get("datasource") != DS:
                err(f"{where} {ref}: datasource is not {DS}")
            e = t.get("expr")
            if not isinstance(e, str) or not e.strip():
                err(f"{where} {ref}: no expr")
                continue
            for u in used_vars(e):
                if u not in byname and u not in BUILTINS:
                    err(f"{where} {ref}: expr uses undefined ${u}")
            if p["type"] == "heatmap" and (t.get("format") != "heatmap" or "le" not in e):
                err(f"{where} {ref}: a heatmap's query needs format heatmap and the le label")
            if p["type"] == "table" and not t.get("instant"):
                err(f"{where} {ref}: a table's query should be instant")
    return errs


def json_enums(types):
    """The schema's TypeScript enums as unions of their values: JSON holds
    an enum's value ("value", 1), which TypeScript accepts for an enum
    type only as the member's name (MappingType.ValueToText)."""
    enum_re = re.compile(r"export declare enum (\w+) \{([^}]*)\}")
    values = {}
    for m in enum_re.finditer(types):
        members = re.findall(r"(\w+)\s*=\s*(\"[^\"]*\"|-?\d+)", m.group(2))
        for name, value in members:
            values[f"{m.group(1)}.{name}"] = value
    types = enum_re.sub(lambda m: f"export type {m.group(1)} = " + " | ".join(
        v for _, v in re.findall(r"(\w+)\s*=\s*(\"[^\"]*\"|-?\d+)", m.group(2))) + ";",
        types)
    return re.sub(r"\b(\w+\.\w+)\b",
                  lambda m: values.get(m.group(1), m.group(1)), types)


def schema_check(dash_path, moddir):
    """Type-check the dashboard against @grafana/schema's Dashboard."""
    moddir = os.path.abspath(moddir)
    tsc = os.path.join(moddir, "node_modules", "typescript", "bin", "tsc")
    pkg = os.path.join(moddir, "node_modules", "@grafana", "schema", "package.json")
    if not shutil.which("node"):
        return ["schema: no node (Node.js) to run the TypeScript compiler with"]
    for f in (tsc, pkg):
        if not os.path.exists(f):
            return [f"schema: {f} is missing (scripts/deps.sh check runs npm ci in {moddir})"]
    with open(pkg) as f:
        version = json.load(f)["version"]
    with open(dash_path) as f:
        text = f.read()
    types = os.path.join(os.path.dirname(pkg), "dist", "types", "raw", "dashboard",
                         "x", "types.gen.d.ts")
    try:
        with open(types) as f:
            schema = json_enums(f.read())
    except OSError as e:
        return [f"schema: {e}"]
    with tempfile.TemporaryDirectory(dir=moddir, prefix=".check-") as d:
        src = os.path.join(d, "dashboard.ts")
        with open(os.path.join(d, "schema.d.ts"), "w") as f:
            f.write(schema)
        with open(src, "w") as f:
            # on line 1, so that line N of the JSON is line N of src
            f.write('import type { Dashboard } from "./schema.js"; '
                    "export const dashboard: Dashboard = " + text.rstrip() + ";\n")
        r = subprocess.run(["node", tsc, "--noEmit", "--strict", "--target", "es2020",
                            "--module", "nodenext", "--moduleResolution", "nodenext",
                            "--skipLibCheck", src],
                           cwd=moddir, capture_output=True, text=True)
    if r.returncode != 0:
        out = (r.stdout + r.stderr).replace(src, os.path.basename(dash_path) + " (as TypeScript)")
        # line N of dashboard.ts is line N of the JSON
        return [f"schema (@grafana/schema {version}): {l}" for l in out.splitlines() if l.strip()]
    return []


def substitute(expr, values, byname):
    def rep(m):
        n = m.group(1) or m.group(2) or m.group(3)
        if n in values:
            return values[n]
        v = byname.get(n)
        if v is not None:
            return v.get("allValue") or ".*"
        return m.group(0)
    return VAR_RE.sub(rep, expr)


def exprs(dash, values):
    vs = variables(dash)
    byname = {v.get("name"): v for v in vs}
    for v in vs:
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = LABEL_VALUES_RE.match(q.strip())
        yield {"kind": "variable", "name": v["name"], "label": m.group(2),
               "expr": substitute(m.group(1).strip(), values, byname)}
    for p in all_panels(dash):
        for t in p.get("targets", []) if p.get("type") != "row" else []:
            yield {"kind": "panel", "panel": p["id"], "title": p.get("title"),
                   "type": p.get("type"), "refId": t.get("refId"),
                   "instant": bool(t.get("instant")),
                   "expr": substitute(t["expr"], values, byname)}


def main(argv):
    values = {}
    mode = "check"
    moddir = None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--exprs":
            mode = "exprs"
        elif a == "--var" and i + 1 < len(argv) and "=" in argv[i + 1]:
            n, _, v = argv[i + 1].partition("=")
            values[n] = v
            i += 1
        elif a == "--schema" and i + 1 < len(argv):
            moddir = argv[i + 1]
            i += 1
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            args.append(a)
        i += 1
    if len(args) != 1:
        sys.exit(__doc__)
    try:
        with open(args[0]) as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{args[0]}: {e}")
        return 1
    if mode == "exprs":
        for q in exprs(dash, values):
            print(json.dumps(q))
        return 0
    errs = check(dash)
    if moddir:
        errs += schema_check(args[0], moddir)
    for e in errs:
        print(f"{args[0]}: {e}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
