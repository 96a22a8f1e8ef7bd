"""Path specs (paths.json, lock-paths.json; a site table for --markdown):
reading them, joining a second to the first, the paths one build walks
(once per CPU named, with that CPU's decisions, each checked for its
why), and the check, after a build's walks, that each CPU decision was
used."""

import json
import os

from .common import Bad, load_json


def load_spec(p):
    return load_json(os.path.expanduser(p), f"spec {p}")


def merge_spec(spec, more, name):
    """Another spec's paths after the spec's own (lock-paths.json beside
    paths.json): its CPUs' feature decisions join theirs (a feature decided
    both ways is refused), its never-called functions theirs."""
    for cpu, c in more.get("cpus", {}).items():
        mine = spec.setdefault("cpus", {}).setdefault(cpu, {"features": {}})
        for k, v in c.get("features", {}).items():
            if k in mine["features"] and mine["features"][k]["set"] != v["set"]:
                raise Bad(f"{name}: CPU {cpu}: {k} decided unlike the spec's")
            mine["features"].setdefault(k, v)
    known = {p["name"] + "@" + p.get("arch", "") for p in spec["paths"]}
    for p in more.get("paths", []):
        if p["name"] + "@" + p.get("arch", "") in known:
            raise Bad(f"{name}: path {p['name']} is the spec's already")
        spec["paths"].append(p)
    nc = spec.setdefault("never_called", {"functions": []})
    nc["functions"] = nc.get("functions", []) + [f for f in more.get("never_called", {}).get("functions", [])
                                                  if f not in nc.get("functions", [])]


def paths_for(spec, arch, only=None):
    """The spec's paths for one build, a path with "cpus" once per CPU named
    (as NAME/CPU), each with that CPU's feature decisions."""
    out = []
    for p in spec["paths"]:
        if p.get("arch", arch) != arch:
            continue
        if "cpus" not in p:
            out.append((p, None))
            continue
        for c in p["cpus"]:
            if c not in spec.get("cpus", {}):
                raise Bad(f"path {p['name']}: no CPU {c} in the spec's cpus")
            # every decision of a path with named CPUs says why
            whys = [(p.get("branches", {}), p.get("why", {}), "why"),
                    (p.get("cpu_branches", {}).get(c, {}), p.get("cpu_branches_why", {}).get(c, {}), f"cpu_branches_why.{c}")]
            for br, why, key in whys:
                for f, d in br.items():
                    for w in d:
                        if not why.get(f, {}).get(w):
                            raise Bad(f"path {p['name']}: the decision at {f} {w} has no {key}")
            for k, v in spec["cpus"][c].get("features", {}).items():
                if not v.get("why"):
                    raise Bad(f"cpu {c}: the decision on {k} has no why")
            br = json.loads(json.dumps(p.get("branches", {})))
            for f, d in p.get("cpu_branches", {}).get(c, {}).items():
                for w, v in d.items():
                    if w in br.get(f, {}):
                        raise Bad(f"path {p['name']}: {f} {w} decided both for all CPUs and for {c}")
                    br.setdefault(f, {})[w] = v
            out.append((dict(p, name=f"{p['name']}/{c}", branches=br), spec["cpus"][c]))
    if only:
        out = [(p, c) for p, c in out if p["name"] == only]
        if not out:
            raise Bad(f"no path {only} for {arch} in the spec")
    return [(json.loads(json.dumps(p)), c) for p, c in out]


def unused_features(spec, arch):
    """The CPU decisions no path of this build walked for that CPU used:
    each decision must be met by some path (a path need not meet them all)."""
    left = []
    for name, c in spec.get("cpus", {}).items():
        if "_used" not in c:
            continue
        left += [f"CPU {name}: feature {k}" for k in c["features"] if k not in c["_used"]]
        del c["_used"]
    if left:
        raise Bad(f"{arch}: decisions no path used: {', '.join(left)}")
